package core

import "math"

// The algorithm is the three-state futex mutex of Rust's std
// (library/std/src/sys/sync/mutex/futex.rs) and of the seed articles, with
// two changes: a word this protocol cannot produce is reported rather than
// overwritten, so every transition is a compare-and-swap; and the wait loop
// is written once, in lockStep, which both the blocking lock (Atomics.wait,
// workers only) and the asynchronous one (Atomics.waitAsync, driven by the
// glue) run.
//
// The fast paths (one CAS to lock, one CAS to unlock) are also inlined in the
// glue, using the constants this package publishes; everything here is the
// slow path plus those same CASes, so a call made straight to the exports is
// complete on its own.

// spinLimit bounds the busy-wait before sleeping. A critical section usually
// lasts far less than the ~100 µs that an Atomics.wait round trip costs, so a
// short spin (each load is an import call, about 10 ns) often saves the sleep.
const spinLimit = 100

// word names one mutex: a registered memory and an int32 index into it.
type word struct {
	mem, index int32
}

func (w word) load() int32 { return atomicLoad(w.mem, w.index) }

func (w word) cas(old, new int32) int32 {
	return atomicCompareExchange(w.mem, w.index, old, new)
}

// spin waits, for a bounded time, while the mutex is held with nobody asleep,
// and returns the last state seen. It only loads, to keep the cache line
// shared while another agent holds it. It does not spin on stateContended:
// there, others are already asleep and the holder is probably slow.
func (w word) spin() int32 {
	for i := spinLimit; ; i-- {
		s := w.load()
		if s != stateLocked || i == 0 {
			return s
		}
	}
}

// tryLock takes the mutex if it is free, and never waits.
func tryLock(w word) int32 {
	switch w.cas(stateUnlocked, stateLocked) {
	case stateUnlocked:
		return resultOK
	case stateLocked, stateContended:
		return resultBusy
	default:
		return resultCorrupted
	}
}

// lock takes the mutex, sleeping in Atomics.wait while it is held, and gives
// up once timeoutMs milliseconds (+Inf: never) have passed. Workers only: the
// browser's main thread cannot sleep.
func lock(w word, timeoutMs float64) int32 {
	if r := tryLock(w); r != resultBusy {
		return r
	}
	deadlineMs := monotonicNowMs() + timeoutMs
	for woken := false; ; woken = true {
		r := lockStep(w, deadlineMs, woken)
		if r < 0 {
			return r
		}
		// The remaining time is recomputed on every turn, so spurious or
		// stolen wake-ups do not stretch the total wait past the deadline.
		atomicWait(w.mem, w.index, r, remainingMs(deadlineMs))
	}
}

// lockStep is one turn of the wait loop. It returns resultOK when it took the
// mutex, resultBusy when the deadline (a monotonicNowMs value, +Inf for none)
// has passed, resultCorrupted, or else a word value: the caller must sleep
// while the lock word still holds it, then call lockStep again with woken set.
//
// It never sleeps itself, so the main thread can drive it with
// Atomics.waitAsync.
func lockStep(w word, deadlineMs float64, woken bool) int32 {
	// A waiter that has slept must take the mutex as contended: it cannot know
	// whether others still sleep, and taking it as merely locked would let the
	// next unlock skip the notify that they need (a lost wake-up). Taking it as
	// contended when nobody sleeps costs one needless notify; that is all.
	acquired := int32(stateLocked)
	if woken {
		acquired = stateContended
	}
	s := w.spin()
	for {
		switch s {
		case stateUnlocked:
			if s = w.cas(stateUnlocked, acquired); s == stateUnlocked {
				return resultOK
			}
			continue
		case stateLocked, stateContended:
		default:
			return resultCorrupted
		}
		if remainingMs(deadlineMs) <= 0 {
			// Give up before announcing ourselves, so a timed-out attempt does
			// not leave the word contended.
			return resultBusy
		}
		if s == stateLocked {
			// From now on the holder must notify when it unlocks. Once we have
			// announced, we take the mutex only as contended: other waiters
			// may have announced too.
			acquired = stateContended
			if s = w.cas(stateLocked, stateContended); s != stateLocked {
				continue
			}
		}
		return stateContended
	}
}

// unlock releases the mutex. It reports, and does not change, a mutex that is
// not locked or whose word is corrupted.
func unlock(w word) int32 {
	switch w.cas(stateLocked, stateUnlocked) {
	case stateLocked:
		return resultOK
	case stateContended:
		// Nobody but the holder moves the word away from contended (waiters
		// only move it from unlocked or locked), so a store is enough.
		atomicStore(w.mem, w.index, stateUnlocked)
		// Waking one is enough: it takes the mutex as contended, so its own
		// unlock wakes the next.
		if !brokenUnlockForgetsNotify {
			atomicNotify(w.mem, w.index, 1)
		}
		return resultOK
	case stateUnlocked:
		return resultNotLocked
	default:
		return resultCorrupted
	}
}

func remainingMs(deadlineMs float64) float64 {
	if math.IsInf(deadlineMs, 1) {
		return deadlineMs
	}
	return deadlineMs - monotonicNowMs()
}
