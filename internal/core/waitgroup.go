package core

// A wait group is wgSlots int32 slot at index i: the counter (bits 0-29) and
// wgWaiters (bit 30), set by a waiter about to sleep on the word. Zeroed is a
// counter of 0. Transitions (compare-and-swap):
//
//	c -> c+delta             add (done is add(-1)); refused, changing nothing,
//	                         below 0 (Go panics) or past wgMax
//	c|wgWaiters -> 0         the add that brings the counter to 0 also wakes
//	                         every waiter
//	c -> c|wgWaiters         a waiter about to sleep (c > 0)
const wgSlots = 1

const (
	wgWaiters = 1 << 30
	wgMax     = wgWaiters - 1
)

// wgAdd adds delta to the counter.
func wgAdd(w prim, delta int32) int32 {
	for v := w.load(); ; {
		c := v & wgMax
		if v < 0 {
			return resultCorrupted
		}
		next := int64(c) + int64(delta)
		switch {
		case next < 0:
			return resultNegative
		case next > wgMax:
			return resultTooMany
		}
		n := int32(next) | v&wgWaiters
		if next == 0 {
			n = 0
		}
		if got := w.cas(v, n); got != v {
			v = got
			continue
		}
		if next == 0 && v&wgWaiters != 0 {
			atomicNotify(w.mem, w.index, notifyAll)
		}
		return resultOK
	}
}

// wgCount returns the counter, or resultCorrupted.
func wgCount(w prim) int32 {
	v := w.load()
	if v < 0 {
		return resultCorrupted
	}
	return v & wgMax
}

// wgWaitStep is one turn of wait's loop (see step): resultOK once the
// counter is 0.
func wgWaitStep(w prim, deadlineMs float64) int32 {
	for v := w.load(); ; {
		switch {
		case v < 0:
			return resultCorrupted
		case v&wgMax == 0 || brokenWGWaitReturnsAtOne && v&wgMax == 1:
			return resultOK
		case timedOut(deadlineMs):
			return resultBusy
		case v&wgWaiters != 0:
			return v
		}
		if got := w.cas(v, v|wgWaiters); got != v {
			v = got
			continue
		}
		return v | wgWaiters
	}
}
