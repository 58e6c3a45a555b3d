package core

// A reader-writer mutex is rwSlots int32 slots at index i:
//
//	i    the state word (below); a writer waiting for readers to leave sleeps on it
//	i+1  the generation: what blocked readers sleep on; each write unlock
//	     advances it (modulo 2^31, so it is never negative)
//	i+2  a Mutex (Slots slots) that writers take first: one writer at a time,
//	     and its holder slot says which agent writes
//
// The state word:
//
//	bits 0-14   active: readers that hold the lock
//	bits 15-29  blocked: readers that wait for the current writer, counted
//	            so that its unlock admits exactly them
//	bit  30     rwWriter: a writer holds the lock, or waits for the active
//	            readers to leave; new readers block
//
// Zeroed slots are a free lock. Transitions (compare-and-swap, except the
// generation):
//
//	reader:  !W, active+1               readLock, tryReadLock (free or read-held)
//	         W, blocked+1               readLock finds a writer: sleeps on the
//	                                    generation it read before
//	         W, blocked-1               a blocked reader times out or is aborted
//	                                    before the writer leaves (withdraws)
//	         active-1                   readUnlock; the last one out, with W,
//	                                    wakes the writer
//	writer:  (writer mutex) 0 -> W|active   lock announces itself; held once active = 0
//	         W, a, b -> a+b, 0          unlock, or a writer that gives up: the
//	                                    blocked readers become active, then the
//	                                    generation advances and wakes them all
//
// Fairness, both ways, as Go's sync.RWMutex: a waiting writer blocks new
// readers, so a stream of readers cannot starve it; and the readers that
// arrived while a writer held the lock are all admitted when it unlocks,
// before the next writer (which then waits for them to leave), so a stream of
// writers cannot starve readers. A writer times out or is aborted like a
// reader: it withdraws, admitting the readers it blocked.
//
// Readers are counted, not named: readUnlock by an agent that holds no read
// lock is caught only when nobody does, and a blocking lock() by an agent
// that holds a read lock waits forever (the writer-side and reader-side
// deadlocks with the write lock are reported: the writer mutex names its holder).
const rwSlots = 2 + Slots

const (
	rwActiveOne  = 1
	rwActiveMask = 1<<15 - 1
	rwBlockedOne = 1 << 15
	rwBlockedMax = rwActiveMask // per field
	rwWriter     = 1 << 30
	rwGenMask    = 1<<31 - 1
)

// rw names one reader-writer mutex, as seen by one agent.
type rw struct{ word } // word.index is the state word

func (l rw) gen() int32    { return atomicLoad(l.mem, l.index+1) }
func (l rw) writers() word { return word{l.mem, l.index + 2, l.self} }

func rwActive(v int32) int32  { return v & rwActiveMask }
func rwBlocked(v int32) int32 { return v >> 15 & rwActiveMask }

// rwValid reports whether v is a state word this protocol can produce.
func rwValid(v int32) bool { return v >= 0 && (v&rwWriter != 0 || rwBlocked(v) == 0) }

// tryReadLock takes a read lock if no writer holds or waits for it.
func rwTryReadLock(l rw) int32 {
	v := l.load()
	for {
		switch {
		case !rwValid(v):
			return resultCorrupted
		case v&rwWriter != 0:
			return resultBusy
		case rwActive(v) == rwActiveMask:
			return resultTooMany
		}
		if got := l.cas(v, v+rwActiveOne); got != v {
			v = got
			continue
		}
		return resultOK
	}
}

// rwReadStep is one turn of readLock's wait loop (see step). A reader that
// finds a writer registers as blocked and sleeps on the generation it read
// before registering; once the generation moves, the writer's unlock has
// made it active: it holds the lock.
func rwReadStep(l rw, deadlineMs float64, woken, sleptOn int32, sleep sleepKind) int32 {
	if woken == wokenFirst {
		for {
			r := rwTryReadLock(l)
			if r != resultBusy {
				return r
			}
			if sleep == sleepBlocking && l.writers().holder() == l.self {
				return resultDeadlock // this agent writes, and would sleep
			}
			if timedOut(deadlineMs) {
				return resultBusy
			}
			g := l.gen()
			v, ok := addIf(l.mem, l.index, rwBlockedOne, func(v int32) bool {
				return rwValid(v) && v&rwWriter != 0 && rwBlocked(v) < rwBlockedMax
			})
			switch {
			case ok:
				return g
			case !rwValid(v):
				return resultCorrupted
			case v&rwWriter != 0:
				return resultTooMany
			}
			// The writer left meanwhile: try again.
		}
	}
	if l.gen() != sleptOn {
		return resultOK // admitted by the write unlock
	}
	if !timedOut(deadlineMs) {
		return sleptOn
	}
	return rwReadWithdraw(l, sleptOn)
}

// rwReadWithdraw takes back the arrival of a blocked reader that stops
// waiting (a timeout, an abort). If the writer's unlock admitted it
// meanwhile, it holds the lock: resultOK (an aborted caller then unlocks).
func rwReadWithdraw(l rw, g int32) int32 {
	for {
		v := l.load()
		if l.gen() != g || v&rwWriter == 0 {
			// The writer's unlock made it active (the generation moves right
			// after, and no other writer gets in before it does).
			return resultOK
		}
		if !rwValid(v) || rwBlocked(v) == 0 {
			return resultCorrupted
		}
		if l.cas(v, v-rwBlockedOne) == v {
			return resultBusy
		}
	}
}

// rwReadUnlock releases a read lock; the last reader out wakes a waiting writer.
func rwReadUnlock(l rw) int32 {
	v, ok := addIf(l.mem, l.index, -rwActiveOne, func(v int32) bool { return rwValid(v) && rwActive(v) > 0 })
	switch {
	case !ok && !rwValid(v):
		return resultCorrupted
	case !ok:
		return resultNotLocked
	}
	if v&rwWriter != 0 && rwActive(v) == 1 {
		atomicNotify(l.mem, l.index, notifyAll) // the writer, and any abandoned waits
	}
	return resultOK
}

// rwTryLock takes the write lock if nobody reads or writes.
func rwTryLock(l rw) int32 {
	if r := tryLock(l.writers()); r != resultOK && r != resultHolderDied {
		return r
	}
	switch v := l.cas(0, rwWriter); {
	case v == 0:
		return resultOK
	case !rwValid(v) || v&rwWriter != 0:
		unlock(l.writers())
		return resultCorrupted
	}
	unlock(l.writers())
	return resultBusy
}

// rwAnnounce marks a writer that holds the writer mutex as waiting: new
// readers block from now on.
func rwAnnounce(l rw) int32 {
	if _, ok := addIf(l.mem, l.index, rwWriter, func(v int32) bool { return rwValid(v) && v&rwWriter == 0 }); !ok {
		unlock(l.writers())
		return resultCorrupted
	}
	return resultOK
}

// rwWriteStep is one turn of the wait for the active readers to leave, by a
// writer that holds the writer mutex and has announced itself. It gives up
// at the deadline by withdrawing.
func rwWriteStep(l rw, deadlineMs float64) int32 {
	v := l.load()
	switch {
	case !rwValid(v) || v&rwWriter == 0:
		return resultCorrupted
	case rwActive(v) == 0:
		return resultOK
	case timedOut(deadlineMs):
		rwRelease(l)
		return resultBusy
	}
	return v
}

// rwRelease ends a writer's turn (unlock, or a writer that gives up): the
// blocked readers become active, the generation moves on and wakes them,
// and the next writer may come in.
func rwRelease(l rw) int32 {
	v := l.load()
	for {
		if !rwValid(v) || v&rwWriter == 0 {
			return resultCorrupted
		}
		next := rwActive(v) + rwBlocked(v)
		if got := l.cas(v, next); got != v {
			v = got
			continue
		}
		break
	}
	atomicStore(l.mem, l.index+1, (l.gen()+1)&rwGenMask)
	if rwBlocked(v) > 0 {
		atomicNotify(l.mem, l.index+1, notifyAll)
	}
	return unlock(l.writers())
}

// rwUnlock releases the write lock held by this agent.
func rwUnlock(l rw) int32 {
	v := l.load()
	switch {
	case !rwValid(v):
		return resultCorrupted
	case v&rwWriter == 0 || rwActive(v) != 0:
		return resultNotLocked
	case l.writers().holder() != l.self:
		return resultNotHolder
	}
	return rwRelease(l)
}

// rwLock takes the write lock: the writer mutex, then the wait for readers
// to leave, within one deadline. Workers only.
func rwLock(l rw, timeoutMs float64) int32 {
	deadlineMs, startMs := deadlineOf(timeoutMs)
	if r := tryLock(l.writers()); r == resultBusy {
		if r = lockUntil(l.writers(), deadlineMs, startMs); r != resultOK && r != resultHolderDied {
			return r
		}
	} else if r != resultOK && r != resultHolderDied {
		return r
	}
	if r := rwAnnounce(l); r != resultOK {
		return r
	}
	return waitBlocking(l.mem, l.index, deadlineMs, startMs, func(deadlineMs, _ float64, _, _ int32) int32 {
		return rwWriteStep(l, deadlineMs)
	})
}

// rwReadLock takes a read lock. Workers only.
func rwReadLock(l rw, timeoutMs float64) int32 {
	deadlineMs, startMs := deadlineOf(timeoutMs)
	return waitBlocking(l.mem, l.index+1, deadlineMs, startMs, func(deadlineMs, _ float64, woken, sleptOn int32) int32 {
		return rwReadStep(l, deadlineMs, woken, sleptOn, sleepBlocking)
	})
}
