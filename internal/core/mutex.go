package core

// A mutex is mutexSlots int32 slots at index i:
//
//	i    the lock word: what agents compare-and-swap, sleep on and wake on
//	i+1  the holder: the agent id of the holder, 0 when free (see below)
//
// The lock word (read and written only with Atomics):
//
//	bits 0-1  state: mutexUnlocked, mutexLocked or mutexContended
//	bit  2    flagStarving: a waiter has waited over starvationThresholdMs;
//	          unlock hands the mutex to the longest waiter and nobody barges
//	bit  3    flagHolderDied: free, and its last holder was released by
//	          releaseDead; the next holder is told (like EOWNERDEAD)
//
// The legal words:
//
//	0  unlocked                   free (a zeroed slot)
//	1  locked                     held; nobody asleep on the word
//	2  contended                  held; some agent may be asleep on the word
//	4  unlocked|starving          handed off: only a waiter that a notify woke may take it
//	5  locked|starving            (transient) held, starving, nobody asleep
//	6  contended|starving         held; unlock will hand it off
//	8  unlocked|holderDied        free; its last holder died holding it
//
// Any other word means something other than sabmutex wrote to the slot;
// every operation reports it as corruption and leaves the word as it found it.
//
// Transitions (each a compare-and-swap; "me" is the caller):
//
//	0 -> 1              lock or tryLock that finds it free (the fast path)
//	8 -> 1, 8 -> 2      the same, telling the caller its last holder died
//	0 -> 2              a waiter that has slept takes it: others may still sleep
//	4 -> 2|4 or 2       the waiter woken by a hand-off takes it; it ends
//	                    starvation mode if it waited long itself
//	1 -> 2, 1|4 -> 6    a waiter announces itself before it sleeps; a
//	                    waiter that a notify woke leaves so at its deadline
//	                    (it may hold the unlock's only wake-up)
//	2 -> 6              a waiter that has waited too long sets starving
//	1 -> 0, 5 -> 0      unlock, nobody asleep
//	2 -> 0 + notify 1   unlock in normal mode
//	6 -> 4 + notify 1   unlock in starvation mode: hand-off; if nobody was
//	                    woken, 4 -> 0 and notify all
//	4 -> 0 + notify all a waiter's watch finds a hand-off nobody took
//	                    (voidHandOff)
//	1,2,5,6 -> 8        releaseDead, by whoever terminated the holder
//
// The holder slot is written by the holder only: its id right after it takes
// the mutex, 0 right before it releases it (the glue's fast paths use plain,
// non-atomic writes: they cost nothing next to the compare-and-swap). So it
// is exact for the holder itself, which is what the deadlock and
// wrong-agent-unlock checks ask, and may lag for a moment for everyone else.
// It lives outside the lock word because sleepers compare the whole word: with
// the holder in it, every change of holder would wake them for nothing.

// mutexSlots is how many int32 slots of the user's memory one mutex uses. Zeroed
// slots are an unlocked mutex.
const mutexSlots = 2

// mutexHolderAt is the holder slot's offset from the lock word.
const mutexHolderAt = 1

// Fields of the lock word.
const (
	mutexStateMask = 3
	mutexUnlocked  = 0 // nobody holds the mutex
	mutexLocked    = 1 // held, and nobody is asleep on the word
	mutexContended = 2 // held, and some agent may be asleep on the word

	flagStarving   = 1 << 2
	flagHolderDied = 1 << 3

	// Agent ids are 1 to maxAgentID; the holder slot holds 0 or one of them.
	maxAgentID = 1<<31 - 1
)

// starvationThresholdMs is the policy, taken from Go's sync.Mutex. In normal
// mode a newcomer may take the mutex ahead of woken waiters ("barging"): it
// is already running, which makes for far better throughput than handing the
// mutex to a sleeper, who must first wake up. But a waiter can then lose
// again and again, and wait far longer than the others (measured with and
// without this policy: docs/decisions/starvation-mode.md). So a waiter that
// a notify wakes to find it has waited longer than this (counted from its
// first wake-up when it has no deadline: see step) sets flagStarving, and
// from then on unlock hands the mutex to the longest waiter
// (Atomics.notify wakes in FIFO order, sync and async waiters in one
// queue), newcomers queue, and tryLock fails. The mode ends when a waiter
// that itself waited this long takes the mutex, or when an unlock finds
// nobody to hand it to. (Go ends it when the waiter handed the mutex waited
// less than the threshold; that works there because a woken waiter that
// loses re-queues at the front. A waiter that loses here re-queues at the
// back of Atomics.notify's queue, so that rule could end the mode before the
// starving waiter is served.)
const starvationThresholdMs = 1.0

// The algorithm is the three-state futex mutex of Rust's std
// (library/std/src/sys/sync/mutex/futex.rs) and of the seed articles, with
// Go's starvation mode on top (see starvationThresholdMs), the holder in a
// slot of its own, and one rule throughout: a word this protocol cannot
// produce is reported, never overwritten, so every transition of the lock
// word is a compare-and-swap. The wait loop is written once, in lockStep,
// which both the blocking lock (Atomics.wait, workers only) and the
// asynchronous one (Atomics.waitAsync, driven by the glue) run.
//
// The fast paths (0 -> 1 and the holder slot to lock; tryLock's busy on 1
// or 2; the holder slot and 1 -> 0, or 2 -> 0 and wake one, to unlock) are
// also inlined in the glue,
// with the constants Protocol publishes (browsertest's
// TestGlueAgreesWithCore compares each with the steps here); everything here
// is the slow path plus those same steps, so a call made straight to the
// exports is complete on its own.

// A waiter does not spin before it sleeps (Go's sync.Mutex and Rust's futex
// mutex do): while one worker spins, the holder's every release hands the
// mutex over, and the lock word's cache line moves between cores at each
// acquisition; a waiter asleep leaves the holder to run alone. In Firefox and
// WebKit a spin cost the tight counter++ loop much of its throughput
// (docs/decisions/contended-path.md).

// prim names one primitive, as seen by one agent: a registered memory, the
// index of its first slot (a mutex's lock word), and the calling agent's id.
type prim struct {
	mem, index, self int32
}

func (w prim) load() int32 { return atomicLoad(w.mem, w.index) }

func (w prim) cas(old, new int32) int32 {
	return atomicCompareExchange(w.mem, w.index, old, new)
}

func (w prim) holder() int32 { return atomicLoad(w.mem, w.index+mutexHolderAt) }

func (w prim) setHolder(id int32) { atomicStore(w.mem, w.index+mutexHolderAt, id) }

// tryLock takes the mutex if it is free, and never waits. It does not barge
// in starvation mode, and returns busy (not deadlock) to the holder.
func tryLock(w prim) int32 {
	v := w.cas(mutexUnlocked, mutexLocked)
	for {
		switch {
		case v == mutexUnlocked:
			w.setHolder(w.self)
			return resultOK
		case !valid(v):
			return resultCorrupted
		case v != flagHolderDied:
			return resultBusy
		}
		if v = w.cas(flagHolderDied, mutexLocked); v == flagHolderDied {
			w.setHolder(w.self)
			return resultHolderDied
		}
	}
}

// lockStep is one turn of the wait loop. startMs is when the caller's wait
// began to count (see step in wait.go: NaN before then) and deadlineMs when
// it gives up (monotonicNowMs values; +Inf for never); slept says how its
// last wait ended, and sleep how the caller will sleep (see sleepBlocking).
// It returns resultOK or resultHolderDied when it took the mutex, resultBusy
// when the deadline has passed, resultDeadlock (blocking callers only) or
// resultCorrupted, or else a word: the caller must sleep while the lock word
// still holds it, then call lockStep again.
//
// It never sleeps itself, so the main thread can drive it with
// Atomics.waitAsync.
func lockStep(w prim, deadlineMs, startMs float64, slept int32, sleep sleepKind) int32 {
	// A waiter that has slept takes the mutex as contended: it cannot know
	// whether others still sleep, and taking it as merely locked would let the
	// next unlock skip the notify that they need (a lost wake-up). Taking it as
	// contended when nobody sleeps costs one needless notify; that is all.
	acquired := int32(mutexLocked)
	if slept != sleptNone {
		acquired = mutexContended
	}
	v := w.load()
	for {
		if !valid(v) {
			return resultCorrupted
		}
		starving := v&flagStarving != 0
		if v&mutexStateMask == mutexUnlocked && (!starving || slept == sleptOK) {
			// Free, or handed off: only a waiter that a notify woke may take a
			// handed-off mutex (Atomics.notify woke it in FIFO order). If it
			// waited long itself, starvation mode has done its job.
			n := acquired
			if starving && waitedMs(startMs) < starvationThresholdMs {
				n |= flagStarving
			}
			if got := w.cas(v, n); got != v {
				v = got
				continue
			}
			w.setHolder(w.self)
			if v&flagHolderDied != 0 {
				return resultHolderDied
			}
			return resultOK
		}
		if (sleep == sleepBlocking || brokenAsyncReportsDeadlock) && slept == sleptNone && v&mutexStateMask != mutexUnlocked && w.holder() == w.self {
			return resultDeadlock // (a waiter cannot become the holder without taking it)
		}
		if remainingMs(deadlineMs) <= 0 {
			// Give up before announcing ourselves, so a timed-out attempt does
			// not leave the word contended; but a waiter that a notify woke
			// may hold the only wake-up an unlock sent, and if a newcomer
			// took the mutex meanwhile as merely locked (1), its unlock would
			// wake nobody and the others would sleep for ever. So that one
			// leaves the word contended (1 -> 2): the holder's unlock wakes
			// the next, as this waiter's own would have.
			if slept == sleptOK && v&mutexStateMask == mutexLocked && !brokenTimedOutKeepsWake {
				if got := w.cas(v, v&^mutexStateMask|mutexContended); got != v {
					v = got
					continue
				}
			}
			return resultBusy
		}
		want := v
		if v&mutexStateMask == mutexLocked {
			// From now on the holder must notify when it unlocks. Once we
			// sleep we take the mutex only as contended: others may sleep too.
			want = v&^mutexStateMask | mutexContended
		}
		// Only a waiter that a notify woke reads the clock: a wait that ended
		// "not-equal" (the word changed before it slept) was no sleep, and a
		// contended loop takes many such turns, each of which a clock read
		// would slow down.
		if !starving && slept == sleptOK && waitedMs(startMs) >= starvationThresholdMs {
			want |= flagStarving
		}
		if want != v {
			if got := w.cas(v, want); got != v {
				v = got
				continue
			}
		}
		return want
	}
}

// unlock releases the mutex held by this agent. It reports, and does not
// change, a mutex that is not locked, is held by another agent, or whose word
// is corrupted.
func unlock(w prim) int32 {
	v := w.load()
	switch {
	case !valid(v):
		return resultCorrupted
	case v&mutexStateMask == mutexUnlocked:
		return resultNotLocked
	case w.holder() != w.self:
		return resultNotHolder
	}
	w.setHolder(0)
	for {
		if !valid(v) {
			w.setHolder(w.self) // something wrote over the word meanwhile: change nothing
			return resultCorrupted
		}
		// In starvation mode, with someone asleep, hand the mutex off: leave
		// it for the waiter we are about to wake.
		next := int32(mutexUnlocked)
		if v == mutexContended|flagStarving {
			next = flagStarving
		}
		if got := w.cas(v, next); got != v {
			v = got // a waiter announced itself or set starving meanwhile
			continue
		}
		if v&mutexStateMask == mutexLocked {
			return resultOK // nobody asleep: nobody to wake
		}
		// Waking one is enough: it takes the mutex as contended, so its own
		// unlock wakes the next.
		if brokenUnlockForgetsNotify {
			return resultOK
		}
		if atomicNotify(w.mem, w.index, 1) == 0 && next == flagStarving {
			// Nobody was asleep to hand it to: leave starvation mode, and wake
			// anyone who went to sleep on the handed-off word meanwhile.
			if w.cas(flagStarving, mutexUnlocked) == flagStarving {
				atomicNotify(w.mem, w.index, notifyAll)
			}
		}
		return resultOK
	}
}

// releaseDead releases the mutex if agent dead holds it, for whoever
// terminated that agent or found it dead (the watch: several waiters may
// try at once), and marks it so that its next holder is told. Returns
// resultOK if it released it, resultNotHolder if dead does not hold it (or
// another caller released it first).
func releaseDead(w prim, dead int32) int32 {
	v := w.load()
	switch {
	case !valid(v):
		return resultCorrupted
	case v&mutexStateMask == mutexUnlocked || w.holder() != dead:
		return resultNotHolder
	}
	// Claim the release: of callers that race, one swaps the holder slot
	// from dead; the slot then stays 0 and the word held until it frees it.
	if brokenReleaseDeadUnclaimed {
		w.setHolder(0)
	} else if atomicCompareExchange(w.mem, w.index+mutexHolderAt, dead, 0) != dead {
		return resultNotHolder
	}
	for {
		if !valid(v) {
			w.setHolder(dead)
			return resultCorrupted
		}
		if got := w.cas(v, flagHolderDied); got != v {
			v = got // a waiter announced itself or set starving meanwhile
			continue
		}
		if v&mutexStateMask == mutexContended {
			// Wake every sleeper: the hand-off, if any, is void.
			atomicNotify(w.mem, w.index, notifyAll)
		}
		return resultOK
	}
}

// abandonWait is for an asynchronous waiter that stops waiting before its
// Atomics.waitAsync ends (an aborted lockAsync). Its wait stays queued and
// could swallow the one wake-up an unlock sends, or a hand-off. Waking every
// sleeper takes it off the queue; they re-check the word. If nobody else was
// asleep, a handed-off mutex has nobody to take it: free it.
func abandonWait(w prim) {
	if atomicNotify(w.mem, w.index, notifyAll) <= 1 && w.cas(flagStarving, mutexUnlocked) == flagStarving {
		atomicNotify(w.mem, w.index, notifyAll)
	}
}

// voidHandOff ends a hand-off that nobody took, for a waiter that has
// slept a whole watch period through (watchLook) and finds the word still
// handed off (4). The waiter that the unlock's notify woke may never come:
// its wait was the Atomics.waitAsync of a worker that has ended, still
// queued (whatwg/html#8276), or the wake-up was lost on the way (Firefox
// once left a handed-off lock untaken, everyone asleep: the lock of the
// Channel's first design, which took no hand-off for that reason). Without
// this, nobody else may take it, ever. Freeing it and
// waking everyone leaves starvation mode, as an unlock that finds nobody
// asleep does; if the chosen waiter was merely slow, it competes with the
// others, and only the hand-off's fairness is lost.
func voidHandOff(w prim) {
	if brokenHandOffKept {
		return
	}
	if w.cas(flagStarving, mutexUnlocked) == flagStarving {
		atomicNotify(w.mem, w.index, notifyAll)
	}
}

// isLocked returns 1 if the mutex is held, 0 if not, or resultCorrupted.
func isLocked(w prim) int32 {
	switch v := w.load(); {
	case !valid(v):
		return resultCorrupted
	case v&mutexStateMask == mutexUnlocked:
		return 0
	}
	return 1
}

// holder returns the holder's agent id, 0 if the mutex is free (or is being
// taken this instant), or resultCorrupted.
func holder(w prim) int32 {
	if r := isLocked(w); r != 1 {
		return r
	}
	return w.holder()
}
