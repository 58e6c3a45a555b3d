package core

// A condition variable is condSlots int32 slot at index i: the sequence, a
// counter that every notify advances (modulo 2^31, never negative). Zeroed
// is a condition variable nobody waits on.
//
// wait reads the sequence, then unlocks the mutex, then sleeps while the
// sequence still holds what it read. A notify that comes after the read
// (even between the unlock and the sleep) has advanced it, so the sleep does
// not begin or ends at once: no wake-up is lost. Waiting on a constant, as
// some SharedArrayBuffer libraries do, loses exactly that notify.
//
//	notifyOne: seq -> seq+1, then wake one sleeper
//	notifyAll: seq -> seq+1, then wake every sleeper
//
// A waiter that wakes to an unchanged sequence (another waiter's abandoned
// wait was cleared) sleeps again, so wait returns true only after a notify.
// Then it takes the mutex again, without a deadline (as
// pthread_cond_timedwait does), before it returns.
//
// notifyAll wakes every waiter, and all of them then ask for the mutex:
// the "thundering herd" that futex condition variables avoid with
// FUTEX_CMP_REQUEUE, moving the sleepers to the mutex's queue. Atomics has no
// requeue; the woken waiters that find the mutex held sleep on it again
// (Rust's std, whose futex condition variable also wakes all, does the same).
// A relay (wake one; each waiter, once it holds the mutex, wakes the next)
// saves no wake-up and serializes them, so the last waiter gets through
// later (web/bench/herd.mjs measures both:
// docs/decisions/notifyall-without-relay.md).
const condSlots = 1

const condSeqMask = 1<<31 - 1

// condWaitBegin reads the sequence and unlocks the mutex m (held by the
// caller), returning the sequence to sleep on; an error from unlock (m not
// held by this agent) changes nothing.
func condWaitBegin(c, m prim) int32 {
	seq := c.load()
	if seq < 0 {
		return resultCorrupted
	}
	if r := unlock(m); r != resultOK {
		return r
	}
	if brokenCondReadsSeqLate {
		return c.load()
	}
	return seq
}

// condWaitStep is one turn of the sleep on the sequence (see step):
// resultOK once a notify has advanced it past seq, resultBusy at the deadline.
func condWaitStep(c prim, seq int32, deadlineMs float64) int32 {
	switch v := c.load(); {
	case v < 0:
		return resultCorrupted
	case v != seq:
		return resultOK
	case timedOut(deadlineMs):
		return resultBusy
	}
	return seq
}

// condNotify advances the sequence and wakes count sleepers (notifyAll:
// all); it returns how many it woke.
func condNotify(c prim, count int32) int32 {
	for v := c.load(); ; {
		if v < 0 {
			return resultCorrupted
		}
		if got := c.cas(v, (v+1)&condSeqMask); got != v {
			v = got
			continue
		}
		return atomicNotify(c.mem, c.index, count)
	}
}

// condAbandon is for an asynchronous waiter that stops waiting before its
// Atomics.waitAsync ends: left queued, that wait could take a notifyOne
// meant for a live waiter. Waking every sleeper clears it; the others find
// the sequence as it was and sleep again, or see the notify and return.
func condAbandon(c prim) { atomicNotify(c.mem, c.index, notifyAll) }
