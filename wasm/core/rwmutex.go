package core

// A reader-writer mutex is rwSlots int32 slots at index i:
//
//	i    the state word (below); a writer waiting for readers to leave sleeps on it
//	i+1  admissions: blocked readers that a writer's release has made
//	     active and that have not yet gone in (bits 0-14), and admissions
//	     taken in advance (bits 15-29, see rwReadWithdraw); blocked readers
//	     sleep on it
//	i+2  a Mutex (Slots slots) that writers take first: one writer at a time,
//	     and its holder slot says which agent writes
//
// The state word:
//
//	bits 0-14   active: readers that hold the lock, or are admitted
//	bits 15-29  blocked: readers that wait for the current writer, counted
//	            so that its release admits exactly that many
//	bit  30     rwWriter: a writer holds the lock, or waits for the active
//	            readers to leave; new readers block
//
// Zeroed slots are a free lock. Transitions (compare-and-swap):
//
//	reader:  !W: active+1               readLock, tryReadLock (free or read-held)
//	         W: blocked+1               readLock finds a writer; it then waits
//	                                    for an admission
//	         admissions a -> a-1        a blocked reader goes in (it is already
//	                                    counted active)
//	         W: blocked-1               a blocked reader that times out or is
//	                                    aborted withdraws; if no registration is
//	                                    left to withdraw, a release made it
//	                                    active: it takes an admission instead,
//	                                    in advance (+1 in bits 15-29) if the
//	                                    releaser has yet to add it
//	         active-1                   readUnlock; the last one out, with W,
//	                                    wakes the writer
//	writer:  (writer mutex) !W -> W     lock announces itself; holds the lock
//	                                    once active = 0
//	         W, a, b -> a+b, 0          its release (unlock, or a writer that
//	                                    gives up): the blocked readers become
//	                                    active, then admissions += b (less
//	                                    those taken in advance, now settled)
//	                                    and every blocked reader wakes
//
// Readers are counted, not named, and so are admissions: any blocked reader
// may take any admission. That keeps the books without identities. The
// physical readers inside never outnumber active (each reader is counted
// before it goes in and uncounted after it leaves, and an admission exists
// only for a count already made active), so a writer that sees active = 0
// is alone; a reader that withdraws someone else's registration leaves its
// own admission to that reader. (A generation counter instead would have to
// tell which writer a reader registered under, which two words cannot do
// atomically: a reader that read the generation just before a release would
// take the next writer's turn for its own.)
//
// Fairness, both ways, as Go's sync.RWMutex: a waiting writer blocks new
// readers, so a stream of readers cannot starve it; and the readers that
// arrived while a writer held the lock are all admitted when it unlocks,
// before the next writer (which then waits for them to leave), so a stream of
// writers cannot starve readers. A writer times out or is aborted like a
// reader: it withdraws, admitting the readers it blocked.
//
// readUnlock by an agent that holds no read lock is caught only when nobody
// holds one, and a blocking lock() by an agent that holds a read lock waits
// forever (a blocking readLock() by the agent that writes is reported: the
// writer mutex names its holder).
const rwSlots = 2 + Slots

const (
	rwActiveOne  = 1
	rwActiveMask = 1<<15 - 1
	rwBlockedOne = 1 << 15
	rwBlockedMax = rwActiveMask // per field
	rwWriter     = 1 << 30
	rwAdvanceOne = 1 << 15 // an admission taken in advance (admissions word)
)

// rw names one reader-writer mutex, as seen by one agent.
type rw struct{ word } // word.index is the state word

func (l rw) admissions() int32 { return atomicLoad(l.mem, l.index+1) }
func (l rw) writers() word     { return word{l.mem, l.index + 2, l.self} }

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
// finds a writer registers as blocked, then waits for an admission.
func rwReadStep(l rw, deadlineMs float64, woken int32, sleep sleepKind) int32 {
	for woken == wokenFirst {
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
		v, ok := addIf(l.mem, l.index, rwBlockedOne, func(v int32) bool {
			return rwValid(v) && v&rwWriter != 0 && rwBlocked(v) < rwBlockedMax
		})
		switch {
		case ok:
			woken = wokenOther // registered
		case !rwValid(v):
			return resultCorrupted
		case v&rwWriter != 0:
			return resultTooMany
		}
		// (Else the writer left meanwhile: try again.)
	}
	r, a := rwTakeAdmission(l)
	if r != resultBusy {
		return r
	}
	if !timedOut(deadlineMs) {
		return a // sleep while there is no admission
	}
	return rwReadWithdraw(l)
}

// rwTakeAdmission takes an admission if there is one: resultOK, the caller
// holds a read lock. resultBusy comes with the admissions word it saw.
func rwTakeAdmission(l rw) (int32, int32) {
	for a := l.admissions(); ; {
		switch {
		case a < 0:
			return resultCorrupted, a
		case a&rwActiveMask == 0:
			return resultBusy, a
		}
		got := atomicCompareExchange(l.mem, l.index+1, a, a-1)
		if got == a {
			return resultOK, a
		}
		a = got
	}
}

// rwReadWithdraw takes back the registration of a blocked reader that stops
// waiting (a timeout, an abort): resultBusy. If a release made it active
// meanwhile, it takes its admission instead and holds the lock: resultOK (an
// aborted caller then unlocks).
func rwReadWithdraw(l rw) int32 {
	for {
		v := l.load()
		if !rwValid(v) {
			return resultCorrupted
		}
		if v&rwWriter != 0 && rwBlocked(v) > 0 {
			if l.cas(v, v-rwBlockedOne) == v {
				return resultBusy
			}
			continue
		}
		// No registration left: a release converted it, and its admission is
		// there or on its way (the releaser adds it right after the state).
		r, a := rwTakeAdmission(l)
		if r != resultBusy {
			return r
		}
		// On its way: take it in advance, for the releaser to settle. (Waiting
		// for it here would spin on another agent's progress: for good, on the
		// main thread too, if that agent stopped between its two writes. The
		// host explorer found the spin, as a livelock.)
		if rwBlocked(a) == rwBlockedMax {
			return resultCorrupted // more in advance than readers can block
		}
		if atomicCompareExchange(l.mem, l.index+1, a, a+rwAdvanceOne) == a {
			return resultOK
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
	case rwActive(v) == 0 || brokenRWWriterIgnoresReaders:
		return resultOK
	case timedOut(deadlineMs):
		rwRelease(l)
		return resultBusy
	}
	return v
}

// rwRelease ends a writer's turn (unlock, or a writer that gives up): the
// blocked readers become active and get their admissions, and the next
// writer may come in.
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
	if b := rwBlocked(v); b > 0 {
		// The admissions, less those taken in advance (only this release's
		// readers can have: no other release is under way).
		for a := l.admissions(); ; {
			got := atomicCompareExchange(l.mem, l.index+1, a, a&rwActiveMask+b-rwBlocked(a))
			if got == a {
				break
			}
			a = got
		}
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
	return waitBlocking(l.mem, l.index+1, deadlineMs, startMs, func(deadlineMs, _ float64, woken, _ int32) int32 {
		return rwReadStep(l, deadlineMs, woken, sleepBlocking)
	})
}
