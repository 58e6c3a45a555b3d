package core

import "math"

// The waiting machinery that every primitive shares. A primitive's protocol
// is a step: one turn of its wait loop, which never sleeps itself. The
// blocking calls (workers only) run the step in waitBlocking, sleeping in
// Atomics.wait; the asynchronous ones (main thread too) export the step, and
// the glue's waitLoop (jsglue/wait.js) runs the same loop with
// Atomics.waitAsync. So each protocol is written once, here, for both.

// A step is one turn of a wait loop over the word at index `at`. deadlineMs
// is when the caller gives up (a monotonicNowMs value; +Inf for never),
// startMs when its wait began to count (NaN before then: the call, where
// the loop reads the clock anyway, for a deadline or the asynchronous loop;
// else the first wake-up by a notify, see waitBlocking), woken how its last
// sleep ended (wokenFirst on the first turn) and sleptOn the word it slept on (-1
// on the first turn: steps use it to remember what they saw, such as a
// generation). It returns a result (below 0) or a word, never negative: the
// caller sleeps while mem[at] holds it, then takes another turn.
type step func(deadlineMs, startMs float64, woken, sleptOn int32) int32

// deadlineOf is the deadline of a wait of timeoutMs milliseconds from now,
// and that now (NaN when there is no deadline: the clock is read only when
// needed, since a read costs about as much as an uncontended lock).
func deadlineOf(timeoutMs float64) (deadlineMs, nowMs float64) {
	if math.IsInf(timeoutMs, 1) {
		return timeoutMs, math.NaN()
	}
	nowMs = monotonicNowMs()
	return nowMs + timeoutMs, nowMs
}

// waitBlocking runs a wait loop with Atomics.wait, until the step returns a
// result. Workers only: the browser's main thread cannot sleep.
func waitBlocking(mem, at int32, deadlineMs, startMs float64, s step) int32 {
	woken, sleptOn := int32(wokenFirst), int32(-1)
	for {
		r := s(deadlineMs, startMs, woken, sleptOn)
		if r < 0 {
			return r
		}
		// The remaining time is recomputed on every turn, so spurious or
		// stolen wake-ups do not stretch the total wait past the deadline.
		woken, sleptOn = wokenOther, r
		if atomicWait(mem, at, r, remainingMs(deadlineMs)) == waitOK {
			woken = wokenNotified
			if math.IsNaN(startMs) {
				// Without a deadline, the clock is first read here, at the
				// first wake-up, not at the first sleep: a contended loop
				// goes to sleep often (and mostly finds the word changed),
				// and one clock read per sleep cost a third of its
				// throughput with 4 workers (web/bench/README.md).
				startMs = monotonicNowMs()
			}
		}
	}
}

// An add to a word, as a compare-and-swap loop (the imports have no
// fetch-and-add: the protocol checks every word it writes). ok(old) decides
// whether the word may change; the result is the word before, and whether it
// changed.
func addIf(mem, at, delta int32, ok func(old int32) bool) (int32, bool) {
	v := atomicLoad(mem, at)
	for {
		if !ok(v) {
			return v, false
		}
		got := atomicCompareExchange(mem, at, v, v+delta)
		if got == v {
			return v, true
		}
		v = got
	}
}

// setUpSize records n (1 to max) in the zeroed slot at, or checks it
// against what the first agent recorded there (resultMismatch): the size of
// a Semaphore or a Barrier, which every agent must give alike.
func setUpSize(mem, at, n, max int32) int32 {
	if n < 1 || n > max {
		return resultTooMany
	}
	switch got := atomicCompareExchange(mem, at, 0, n); {
	case got == 0 || got == n:
		return resultOK
	case got < 0 || got > max:
		return resultCorrupted
	}
	return resultMismatch
}

func waitedMs(startMs float64) float64 { return monotonicNowMs() - startMs }

func remainingMs(deadlineMs float64) float64 {
	if math.IsInf(deadlineMs, 1) {
		return deadlineMs
	}
	return deadlineMs - monotonicNowMs()
}

// timedOut reports whether the deadline has passed.
func timedOut(deadlineMs float64) bool { return remainingMs(deadlineMs) <= 0 }
