package core

import "math"

// The blocking calls as the glue makes them (jsglue/*.js: a fast path where
// it has one, then the export wait), for the tests here.

func lock(w prim, timeoutMs float64) int32 {
	if r := tryLock(w); r != resultBusy {
		return r
	}
	return wait(kindLock, w, 0, timeoutMs)
}

func rwLock(l rw, timeoutMs float64) int32 {
	if r := rwTryLock(l); r != resultBusy {
		return r
	}
	return wait(kindRWAnnounce, l.prim, 0, timeoutMs)
}

func rwReadLock(l rw, timeoutMs float64) int32 { return wait(kindRWRead, l.prim, 0, timeoutMs) }

func semAcquire(s sem, n int32, timeoutMs float64) int32 {
	return wait(kindSemAcquire, s.prim, n, timeoutMs)
}

func wgWait(w prim, timeoutMs float64) int32 { return wait(kindWGWait, w, 0, timeoutMs) }

func barrierWait(b barrier, timeoutMs float64) int32 {
	return wait(kindBarrier, b.prim, 0, timeoutMs)
}

func onceDo(w prim, timeoutMs float64) int32 { return wait(kindOnce, w, 0, timeoutMs) }

// condWait: unlock m, sleep until notified or timeoutMs, lock m again.
// resultOK: notified; resultBusy: timed out.
func condWait(c, m prim, timeoutMs float64) int32 {
	seq := condWaitBegin(c, m)
	if seq < 0 {
		return seq
	}
	r := wait(kindCond, c, seq, timeoutMs)
	if r == resultCorrupted {
		return r
	}
	if l := lock(m, math.Inf(1)); l != resultOK && l != resultHolderDied {
		return l
	}
	return r
}

// wait runs a wait of kind k on w to its end in Atomics.wait, for at most
// timeoutMs (+Inf: no limit).
func wait(k waitKind, w prim, arg int32, timeoutMs float64) int32 {
	return waitBlocking(k, w, arg, timeoutMs, math.NaN(), -1, sleptNone)
}
