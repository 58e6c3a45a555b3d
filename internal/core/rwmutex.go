package core

// A reader-writer mutex is rwSlots int32 slots at index i:
//
//	i    the state word (below); writers sleep on it
//	i+1  admissions: how many blocked readers a writer's release has made
//	     active and have not yet gone in, as a 31-bit signed count (it dips
//	     below 0 when a reader takes an admission in advance, see
//	     rwReadWithdraw); blocked readers sleep on it
//	i+2  the writer: the agent id of the writer that holds the lock or waits
//	     for readers to leave (0: none), written by that writer only
//	i+3  the tag (rwTag): the RWMutex's name in the records of the agents
//	     that read it (registry.go, readCounter), so that the watch can free
//	     the read locks of an agent that ended (rwReleaseDeadReads); 0: none
//	     yet. Only the registry's functions read and write it
//
// The state word:
//
//	bits 0-13   active: readers that hold the lock, or are admitted
//	bits 14-26  blocked: readers that wait for the current writer, counted
//	            so that its release admits exactly that many
//	bit  27     rwWriterStarving (S): a writer has waited for W over
//	            starvationThresholdMs; while it is set, a writer that has not
//	            slept (a first try, tryLock, the glue's fast path) may not
//	            set W (see "Fairness" below)
//	bit  28     rwWritersWaiting: a writer may sleep on the word, waiting for W
//	bit  29     rwWriter (W): a writer holds the lock, or waits for the active
//	            readers to leave; new readers block
//	bit  30     rwWriterDied (D): the last writer's agent ended holding the
//	            lock (rwReleaseDead), and no writer has held it since: the
//	            data may be half-written. Whoever goes in while it is set is
//	            told (resultHolderDied); the next writer clears it as it
//	            takes hold
//
// Blocked readers exist only while W is set, and waiting writers only while
// W or S is set. Zeroed slots are a free lock. Transitions (compare-and-swap;
// D is kept by all but the two marked, S by all but the three marked):
//
//	reader:  !W: active+1              readLock, tryReadLock (the glue's fast
//	                                   path while !D; with D, it is told)
//	         W: blocked+1              readLock finds a writer; it then waits
//	                                   for an admission
//	         admissions a -> a-1 (a>0) a blocked reader goes in (it is already
//	                                   counted active)
//	         W: blocked-1              a blocked reader that times out or is
//	                                   aborted withdraws; if no registration is
//	                                   left to withdraw, a release made it
//	                                   active: it takes an admission, in
//	                                   advance (a -> a-1, below 0) if the
//	                                   releaser has yet to add it
//	         active-1                  readUnlock (the glue's fast path while
//	                                   !W); the last one out, with W, wakes
//	                                   the writers
//	writer:  !W: -> W, writer = me     lock announces itself (0 -> W: the
//	                                   glue's fast path, which holds at once),
//	                                   with S only a writer that has slept,
//	                                   and -> W&^S if it waited over the
//	                                   threshold itself; it holds the lock
//	         D, active = 0: -> !D      once active = 0, and with D it clears
//	                                   it then: told
//	         W or S: -> |WW            a writer that finds another, or a
//	                                   newcomer that finds S: it sleeps
//	         W: -> |WW|S               a writer that a release woke, over the
//	                                   threshold after it began
//	         !W, S: -> &^(S|WW)        a writer that gives up (a timeout, an
//	                                   abort), or a release that woke no
//	                                   writer; then wake the writers
//	         W, a, b -> a+b            its release (unlock, or a writer that
//	                                   gives up), writer = 0 first: the blocked
//	                                   readers become active, then
//	                                   admissions += b and they wake; if
//	                                   writers wait, they wake and compete
//	                                   (S kept only if they do)
//	         W -> 0                    unlock with nobody blocked or waiting
//	                                   (the glue's fast path)
//	dead:    W, a, b -> a+b|D          the release of a writer whose agent
//	                                   ended (rwReleaseDead, for the watch): D
//	                                   if it held the lock (active = 0), as
//	                                   well as it can tell
//
// Readers are counted, not named, and so are admissions: any blocked reader
// may take any admission. That keeps the books without identities, and
// releases may overlap (admissions are only ever added). The physical
// readers inside never outnumber active (each reader is counted before it
// goes in and uncounted after it leaves, and an admission exists only for a
// count already made active), so a writer that sees active = 0 is alone; a
// reader that withdraws someone else's registration leaves its own
// admission to that reader. (A generation counter instead would have to
// tell which writer a reader registered under, which two words cannot do
// atomically: a reader that read the generation just before a release would
// take the next writer's turn for its own.)
//
// Fairness, both ways, as Go's sync.RWMutex: a waiting writer blocks new
// readers, so a stream of readers cannot starve it; and the readers that
// arrived while a writer held the lock are all admitted when it unlocks,
// before the next writer (which then waits for them to leave), so a stream of
// writers cannot starve readers. Writers among themselves compete as for a
// plain futex mutex, without a queue, until one has waited over
// starvationThresholdMs (the mutex's policy): it sets S, and from then on a
// writer that releases and locks again at once is a newcomer that sleeps,
// so the lock goes to the writers that slept, the starving one among them,
// within a turn or two of the releaser's. A writer times out or is aborted like a
// reader: it withdraws, admitting the readers it blocked. (The writers once
// took a Mutex of their own first; the single word halves an uncontended
// write lock: two compare-and-swaps instead of four.)
//
// readUnlock by an agent that holds no read lock is caught only when nobody
// holds one, and a blocking lock() by an agent that holds a read lock waits
// until its timeout (a blocking readLock() or lock() by the agent that writes
// is reported: the writer slot names it).
const rwSlots = 4

// The slots after the state word, by their offset from it.
const (
	rwAdmissionsAt = 1
	rwWriterAt     = 2
)

// rwTag is the offset of the tag slot (above).
const rwTag = 3

// rwSpinLimit bounds how many loads a reader or writer spends waiting out a
// short turn of another before it sleeps. (The mutex no longer spins: see
// mutex.go. The RWMutex's spins were not measured apart.)
const rwSpinLimit = 100

const (
	rwActiveOne      = 1
	rwActiveMask     = 1<<14 - 1
	rwBlockedShift   = 14
	rwBlockedOne     = 1 << rwBlockedShift
	rwBlockedMax     = 1<<13 - 1
	rwWriterStarving = 1 << 27
	rwWritersWaiting = 1 << 28
	rwWriter         = 1 << 29
	rwWriterDied     = 1 << 30
	rwAdmissionsMask = 1<<31 - 1 // the admissions word is a 31-bit two's complement count
)

// rw names one reader-writer mutex, as seen by one agent.
type rw struct{ prim } // word.index is the state word

func (l rw) admissions() int32  { return atomicLoad(l.mem, l.index+rwAdmissionsAt) }
func (l rw) writer() int32      { return atomicLoad(l.mem, l.index+rwWriterAt) }
func (l rw) setWriter(id int32) { atomicStore(l.mem, l.index+rwWriterAt, id) }

func rwActive(v int32) int32  { return v & rwActiveMask }
func rwBlocked(v int32) int32 { return v >> rwBlockedShift & rwBlockedMax }

// rwValid reports whether v is a state word this protocol can produce.
func rwValid(v int32) bool {
	return v >= 0 && (v&rwWriter != 0 || v&(rwBlockedMax<<rwBlockedShift) == 0 && (v&rwWritersWaiting == 0 || v&rwWriterStarving != 0))
}

// rwTold is what an acquisition returns that took the lock from word v:
// told if the last writer died (D).
func rwTold(v int32) int32 {
	if v&rwWriterDied != 0 {
		return resultHolderDied
	}
	return resultOK
}

// admissionsCount is the admissions word as a signed count.
func admissionsCount(a int32) int32 { return a << 1 >> 1 }

// addAdmissions adds d to the admissions count.
func (l rw) addAdmissions(d int32) int32 {
	for a := l.admissions(); ; {
		got := atomicCompareExchange(l.mem, l.index+rwAdmissionsAt, a, (a+d)&rwAdmissionsMask)
		if got == a {
			return a
		}
		a = got
	}
}

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
		return rwTold(v)
	}
}

// rwReadStep is one turn of readLock's wait loop (see step). A reader that
// finds a writer registers as blocked, then waits for an admission.
func rwReadStep(l rw, deadlineMs float64, slept int32, sleep sleepKind) int32 {
	for slept == sleptNone {
		r := rwTryReadLock(l)
		if r == resultBusy {
			// A writer's turn is usually short: wait it out before sleeping
			// (only loads, to keep the line shared).
			for i := rwSpinLimit; i > 0 && l.load()&rwWriter != 0; i-- {
			}
			r = rwTryReadLock(l)
		}
		if r != resultBusy {
			return r
		}
		if sleep == sleepBlocking && l.writer() == l.self {
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
			slept = sleptOther // registered
		case !rwValid(v):
			return resultCorrupted
		case v&rwWriter != 0:
			return resultTooMany
		}
		// (Else the writer left meanwhile: try again.)
	}
	r, a := rwTakeAdmission(l)
	if r == resultOK {
		return rwTold(l.load()) // admitted by a release; D, if set, was set by it or before
	}
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
		case admissionsCount(a) <= 0:
			return resultBusy, a
		}
		got := atomicCompareExchange(l.mem, l.index+rwAdmissionsAt, a, a-1)
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
		// Take it, in advance if need be: the count goes below 0 until the
		// releaser adds. (Waiting for it here would spin on another agent's
		// progress: for good, on the main thread too, if that agent stopped
		// between its two writes. The explorer found the spin, as a
		// livelock.)
		l.addAdmissions(-1)
		// But a reader that registered after the load above may have taken
		// the admission this one was owed (any may take any): it reads on this
		// one's count, with its own registration still blocked. Then withdraw
		// that registration instead, and give the admission back. (The host
		// explorer found the stale load: a third readUnlock with two counted.)
		for {
			v := l.load()
			if !rwValid(v) || v&rwWriter == 0 || rwBlocked(v) == 0 {
				return resultOK
			}
			if l.cas(v, v-rwBlockedOne) == v {
				l.addAdmissions(1)
				atomicNotify(l.mem, l.index+rwAdmissionsAt, notifyAll)
				return resultBusy
			}
		}
	}
}

// rwReadAbandon is for a blocked reader whose asynchronous wait is aborted:
// it takes an admission if one is there, else withdraws its registration
// (rwReadWithdraw); if either made it a reader, it gives the read lock
// back. resultBusy: it holds nothing.
func rwReadAbandon(l rw) int32 {
	r, _ := rwTakeAdmission(l)
	if r == resultBusy {
		r = rwReadWithdraw(l)
	}
	if r == resultOK {
		if r = rwReadUnlock(l); r == resultOK {
			r = resultBusy
		}
	}
	return r
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
	v := l.cas(0, rwWriter)
	if v == rwWriterDied {
		v = l.cas(rwWriterDied, rwWriter) // free, its last writer dead: clear D, told
	}
	switch {
	case v == 0 || v == rwWriterDied:
		l.setWriter(l.self)
		return rwTold(v)
	case !rwValid(v):
		return resultCorrupted
	}
	return resultBusy
}

// rwAnnounceStep is one turn of a writer's wait for W (see step): once it
// has set W it returns resultOK, and then waits in rwWriteStep for the
// readers inside to leave.
func rwAnnounceStep(l rw, t turn) int32 {
	v := l.load()
	for i := rwSpinLimit; i > 0 && v&rwWriter != 0; i-- {
		v = l.load() // another writer's turn is usually short
	}
	newcomer := t.slept == sleptNone
	for {
		switch {
		case !rwValid(v):
			return resultCorrupted
		case v&rwWriter == 0 && (v&rwWriterStarving == 0 || !newcomer):
			next := v | rwWriter
			if v&rwWriterStarving != 0 && !(waitedMs(t.startMs) < starvationThresholdMs) {
				next &^= rwWriterStarving // it waited long itself: S has done its job
			}
			if got := l.cas(v, next); got != v {
				v = got
				continue
			}
			l.setWriter(l.self)
			return resultOK
		case t.sleep == sleepBlocking && l.writer() == l.self:
			return resultDeadlock // this agent writes, and would sleep
		case timedOut(t.deadlineMs):
			rwEndStarving(l)
			return resultBusy
		}
		want := v | rwWritersWaiting
		// Only a writer that a release woke reads the clock, as the mutex's.
		if v&rwWriter != 0 && t.slept == sleptOK && v&rwWriterStarving == 0 && waitedMs(t.startMs) >= starvationThresholdMs {
			want |= rwWriterStarving
		}
		if want != v {
			if got := l.cas(v, want); got != v {
				v = got
				continue
			}
		}
		return want
	}
}

// rwEndStarving ends S while no writer holds W: for a writer that gives up
// (it may have been the starving one) and a release that woke no writer.
// Without it, newcomers would sleep behind S for ever. The writers asleep
// wake and compete; one that still starves sets S again. (A starving
// writer that ends without giving up, a terminated worker, leaves S; a
// watched newcomer's sleep then ends at the watch period, and having slept
// it may set W.)
func rwEndStarving(l rw) {
	for v := l.load(); rwValid(v) && v&rwWriter == 0 && v&rwWriterStarving != 0; {
		if got := l.cas(v, v&^(rwWriterStarving|rwWritersWaiting)); got != v {
			v = got
			continue
		}
		if v&rwWritersWaiting != 0 {
			atomicNotify(l.mem, l.index, notifyAll)
		}
		return
	}
}

// rwWriteStep is one turn of the wait for the active readers to leave, by a
// writer that has set W. It gives up at the deadline by withdrawing.
func rwWriteStep(l rw, deadlineMs float64) int32 {
	v := l.load()
	for i := rwSpinLimit; i > 0 && rwActive(v) != 0; i-- {
		v = l.load() // so are readers'
	}
	switch {
	case !rwValid(v) || v&rwWriter == 0:
		return resultCorrupted
	case rwActive(v) == 0 || brokenRWWriterIgnoresReaders:
		for v&rwWriterDied != 0 {
			if brokenRWDiedKept {
				return resultHolderDied
			}
			got := l.cas(v, v&^rwWriterDied) // it holds: clear D, told
			if got == v {
				return resultHolderDied
			}
			v = got // (only the blocked and waiting counts move meanwhile)
		}
		return resultOK
	case timedOut(deadlineMs):
		rwRelease(l)
		return resultBusy
	}
	return v
}

// rwRelease ends a writer's turn (unlock, or a writer that gives up): the
// blocked readers become active and get their admissions, and the writers
// that wait wake to compete for the next turn.
func rwRelease(l rw) int32 { return rwReleaseAs(l, 0) }

// rwReleaseAs is rwRelease, with flag (0 or rwWriterDied) added to the word.
func rwReleaseAs(l rw, flag int32) int32 {
	l.setWriter(0)
	v := l.load()
	for {
		if !rwValid(v) || v&rwWriter == 0 {
			l.setWriter(l.self) // something wrote over the word meanwhile: change nothing
			return resultCorrupted
		}
		next := rwActive(v) + rwBlocked(v) | v&rwWriterDied | flag
		if v&rwWritersWaiting != 0 {
			next |= v & rwWriterStarving // for the writers it wakes, not the newcomers
		}
		if got := l.cas(v, next); got != v {
			v = got
			continue
		}
		break
	}
	if b := rwBlocked(v); b > 0 {
		l.addAdmissions(b)
		atomicNotify(l.mem, l.index+rwAdmissionsAt, notifyAll)
	}
	if v&rwWritersWaiting != 0 && atomicNotify(l.mem, l.index, notifyAll) == 0 {
		rwEndStarving(l) // no writer was asleep to take its turn
	}
	return resultOK
}

// rwUnlock releases the write lock held by this agent.
func rwUnlock(l rw) int32 {
	v := l.load()
	switch {
	case !rwValid(v):
		return resultCorrupted
	case v&rwWriter == 0 || rwActive(v) != 0:
		return resultNotLocked
	case l.writer() != l.self:
		return resultNotHolder
	}
	return rwRelease(l)
}

// rwReleaseDead releases the write lock (or withdraws the wait for readers)
// of writer dead, which ended holding it, for the waits that found it dead
// (the watch): the readers it blocked are admitted, as by its own unlock.
// Of callers that race, the one that swaps the writer slot from dead does
// it. Returns resultOK, or resultNotHolder if dead is not the writer (or
// another caller released it first). The next holders are told (D) if it
// held the lock, as well as the word can tell: if no reader was inside. (It
// may have been about to hold, having seen active = 0 but not yet returned;
// then they are told of a turn that wrote nothing.)
func rwReleaseDead(w prim, dead int32) int32 {
	l := rw{prim{w.mem, w.index, dead}} // rwRelease as dead: on corruption, dead is put back
	if v := l.load(); !rwValid(v) || v&rwWriter == 0 || l.writer() != dead {
		return resultNotHolder
	}
	if atomicCompareExchange(w.mem, w.index+rwWriterAt, dead, 0) != dead {
		return resultNotHolder
	}
	flag := int32(0)
	if rwActive(l.load()) == 0 { // (while W is set, active only falls: new readers block)
		flag = rwWriterDied
	}
	return rwReleaseAs(l, flag)
}

// rwReleaseDeadReads gives back n read locks that agents which ended held,
// as n readUnlocks: the registry's records count each agent's read locks
// (the glue writes them; readers are not named in the state word), and the
// watch of the writer that waits for the readers to leave claimed these
// from the records of agents it found dead (jsglue/watch.js). Returns
// resultOK, or resultNotLocked (changing nothing) if fewer than n readers
// are inside.
func rwReleaseDeadReads(w prim, n int32) int32 {
	l := rw{w}
	v, ok := addIf(l.mem, l.index, -n*rwActiveOne, func(v int32) bool { return rwValid(v) && n > 0 && rwActive(v) >= n })
	switch {
	case !ok && !rwValid(v):
		return resultCorrupted
	case !ok:
		return resultNotLocked
	}
	if v&rwWriter != 0 && rwActive(v) == n && !brokenRWDeadReadsForgetNotify {
		atomicNotify(l.mem, l.index, notifyAll) // the writer, as the last reader out wakes it
	}
	return resultOK
}

// rwWriterOf is the writer that holds the lock or waits for the readers to
// leave (0: none): whom blocked readers and other writers wait for.
func rwWriterOf(w prim) int32 { return atomicLoad(w.mem, w.index+rwWriterAt) }
