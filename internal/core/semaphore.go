package core

// A counting semaphore is semSlots int32 slots at index i:
//
//	i    taken: permits held now (bits 0-29), and semWaiters (bit 30): some
//	     agent may be asleep on this word
//	i+1  reserved: the need of a waiter that found too few permits (0: none)
//	i+2  permits: the size every agent gave, recorded by the first (0: not yet)
//
// Zeroed slots are a semaphore with every permit free; the first agent to use
// it records its size, and an agent that gives another size is told
// (resultMismatch). Transitions (compare-and-swap):
//
//	taken -> taken+n            acquire, when the permits allow (see below)
//	taken -> taken|semWaiters   a waiter about to sleep
//	taken -> taken-n            release; semWaiters stays while its notify
//	                            woke someone (see semRelease), and a
//	                            release that wakes nobody ends it (as
//	                            semWakeAll: cleared, and every sleeper woken)
//	reserved 0 -> n             a waiter that found too few permits: at
//	                            once for n > 1, and for n = 1 once it has
//	                            waited starvationThresholdMs (woken by a
//	                            release and beaten to it); if nobody has
//	                            reserved yet. It waits on as the reserving
//	                            waiter (kindSemReserved): the reservation is
//	                            its own
//	reserved n -> 0             the reserving waiter takes n, or gives up;
//	                            or a watched waiter finds the reservation
//	                            untaken for a watch period with its permits
//	                            free (semVoidReservation); then
//	                            taken|semWaiters -> taken and wake everyone
//
// No waiter is starved, by a stream of small requests or by agents that
// release and take again at once (x/sync's semaphore keeps a FIFO of
// waiters for the same reason): while a need of r permits is reserved, an
// acquire of n takes permits only if r permits stay free for the reserving
// waiter (taken + n + r <= permits), or if it is the reserving waiter. The
// reservation is its waiter's, not any waiter's for as much: another
// waiter for as much, woken by the same release, does not take it (a page's tasks, woken while their
// page ran a stream of takes and releases, took a worker's reservation
// each time it made it, for 600 ms: docs/decisions/starvation-mode.md). A
// reserving waiter that ends without taking or giving up (a worker
// terminated as it waited) leaves it to the watch, which voids it
// (semVoidReservation); a reserving waiter that was merely slow then
// reserves again, or, if another need is reserved by then, waits as any
// waiter. (The one slot holds the need alone: a slow reserving waiter whose
// reservation was voided and made again by another waiter of the same
// need takes that one's as its own. Both have starved.)
// A newcomer (a first try, tryAcquire, the glue's fast path) never takes
// what is reserved: it sleeps, so the release after the one that woke the
// reserving waiter goes to it, a few of the releaser's turns at most. Size 1
// reserves only after starvationThresholdMs, the mutex's policy and for the
// mutex's reason: a reservation leaves permits idle until the woken waiter
// runs. (An acquire reads the reservation, then swaps the word; one already
// between the two when the need is reserved may still take. The first try
// reads the reservation and swaps from 0, as the glue's fast path does; the
// others read the word, then the reservation.)
//
// A waiter reaches the threshold only if a release wakes it: semWaiters
// stays set after a release that woke someone, so that the next release
// wakes the next sleeper too. A woken waiter may not run for long (a page's
// task, whose page runs on: a loop of acquireAsync whose fast path takes
// the permit back at each release, its own woken tasks waiting behind it);
// had the release cleared semWaiters, the woken one would be the only one
// to set it again, and the releases after it, through the glue's fast
// path, would wake nobody: the other sleepers, a worker among them, slept
// through the page's whole stream, never woken to reach the threshold.
const semSlots = 3

// The slots after the taken word, by their offset from it.
const (
	semReservedAt = 1
	semPermitsAt  = 2
)

const (
	semWaiters    = 1 << 30
	semTakenMask  = semWaiters - 1
	semMaxPermits = semTakenMask
)

type sem struct {
	prim // word.index is taken
}

func (s sem) reserved() int32 { return atomicLoad(s.mem, s.index+semReservedAt) }
func (s sem) permits() int32  { return atomicLoad(s.mem, s.index+semPermitsAt) }

// semSetUp records permits in a zeroed semaphore, or checks them against
// what the first agent recorded.
func semSetUp(s sem, permits int32) int32 {
	return setUpSize(s.mem, s.index+semPermitsAt, permits, semMaxPermits)
}

// semTryAcquire takes n permits if the rules above allow it now.
func semTryAcquire(s sem, n int32) int32 {
	r, _ := semTake(s, n, semNewcomer)
	return r
}

// Who takes, as semTake tells them apart.
type semTaker int8

const (
	// A first try (acquire's first turn, tryAcquire, the glue's fast
	// path): it never takes what is reserved.
	semNewcomer semTaker = iota
	// A waiter that has slept: it takes with semWaiters set, and never
	// what is reserved either.
	semWaiter
	// The reserving waiter (kindSemReserved): it may take what is
	// reserved for its need, and ends the reservation when it does.
	semReserver
)

// semTake is semTryAcquire for any taker; it also returns the taken word
// it decided on: a waiter must sleep on the very word that showed too few
// permits. (Had it loaded the word again to sleep on it, a release in
// between, which wakes nobody when nobody has set semWaiters yet, would
// leave it asleep with permits free, as the explorer found.)
func semTake(s sem, n int32, who semTaker) (int32, int32) {
	p := s.permits()
	if p < 1 || p > semMaxPermits {
		return resultCorrupted, 0
	}
	if n < 1 || n > p {
		return resultTooMany, 0
	}
	v := int32(0)
	if who == semNewcomer && s.reserved() == 0 {
		if v = s.cas(0, n); v == 0 {
			return resultOK, 0 // nothing was taken, nothing reserved
		}
	} else {
		v = s.load()
	}
	for {
		taken := v & semTakenMask
		if v < 0 || taken > p {
			return resultCorrupted, v
		}
		r := s.reserved() // read after v: see semAcquireStep
		// Its own: the reserving waiter's, for its need (another need
		// reserved since is another waiter's).
		own := r == n && (who == semReserver || who == semWaiter && brokenSemReservationShared)
		if taken+n > p || (r != 0 && !own && taken+n+r > p) {
			return resultBusy, v
		}
		next := v + n
		if who != semNewcomer {
			// A waiter takes with semWaiters set, as the mutex takes as
			// contended: others may still sleep.
			next |= semWaiters
		}
		if got := s.cas(v, next); got != v {
			v = got
			continue
		}
		if own && atomicCompareExchange(s.mem, s.index+semReservedAt, n, 0) == n {
			semWakeAll(s) // the next may reserve
		}
		return resultOK, v
	}
}

// semAcquireStep is one turn of acquire's wait loop (see step), until it
// reserves: then it goes on as the reserving waiter (semReservedStep). It
// sleeps only on a word that already had semWaiters when it was read, with
// the reservation read after it: every change that can let it in after
// that changes the word or wakes it (a release wakes as many as it frees,
// or all while a need is reserved, and keeps semWaiters while it wakes
// someone; a reservation's end clears it and wakes all, in semWakeAll).
func semAcquireStep(s sem, n int32, t turn) int32 {
	slept := t.slept
	who := semNewcomer
	if slept != sleptNone {
		who = semWaiter
	}
	for {
		// (No spin before sleeping, unlike the mutex: with 4 workers on 2
		// permits it made no difference to measure.)
		r, v := semTake(s, n, who)
		if r != resultBusy {
			return r
		}
		if timedOut(t.deadlineMs) {
			if slept == sleptOK {
				// The wake-up it got may have been a release's only one: pass it on.
				atomicNotify(s.mem, s.index, notifyAll)
			}
			return resultBusy
		}
		// Reserve: a need of n > 1 at once, against smaller ones; a need of
		// 1 once it starves (see above: a reservation holds permits back
		// from everyone else, its cost). As the mutex, only a waiter that a
		// release woke reads the clock.
		starving := n == 1 && slept == sleptOK && waitedMs(t.startMs) >= starvationThresholdMs
		if (n > 1 || starving) && s.reserved() == 0 && atomicCompareExchange(s.mem, s.index+semReservedAt, 0, n) == 0 {
			return goOnAs(kindSemReserved) // its own now: it looks again as the reserving waiter
		}
		if v&semWaiters != 0 {
			return v
		}
		s.cas(v, v|semWaiters) // then look again, whether it set it or taken changed
	}
}

// semReservedStep is one turn of the reserving waiter for n
// (kindSemReserved): it takes what is reserved for it as soon as the
// permits are free. If its reservation is no longer there (the watch
// voided it: semVoidReservation), it reserves again; if another need is
// reserved by then, it waits on as any waiter (kindSemAcquire).
func semReservedStep(s sem, n int32, t turn) int32 {
	for {
		if r := s.reserved(); r != n && (r != 0 || atomicCompareExchange(s.mem, s.index+semReservedAt, 0, n) != 0) {
			return goOnAs(kindSemAcquire)
		}
		r, v := semTake(s, n, semReserver)
		if r != resultBusy {
			return r
		}
		if timedOut(t.deadlineMs) {
			semGiveUp(s, n)
			if t.slept == sleptOK {
				atomicNotify(s.mem, s.index, notifyAll) // (as semAcquireStep)
			}
			return resultBusy
		}
		if v&semWaiters != 0 {
			return v
		}
		s.cas(v, v|semWaiters)
	}
}

// semGiveUp is for the reserving waiter for n that stops waiting, and for
// the watch's void: it frees the reservation of n and wakes the others, one
// of which reserves again if it needs to. (An aborted asynchronous waiter
// also wakes all: its wait, left queued, may have taken a release's
// wake-up.)
func semGiveUp(s sem, n int32) {
	if atomicCompareExchange(s.mem, s.index+semReservedAt, n, 0) == n {
		semWakeAll(s)
	}
}

// semVoidReservation ends a reservation that nobody takes, for a waiter
// that has slept a whole watch period through (watchLook) and finds its
// permits free: the reserving waiter would have taken them (every release
// wakes all while a need is reserved), so it has ended (a worker
// terminated while it waited) or its wake-up was lost. A merely slow one
// reserves again. Without this, newcomers would sleep behind it for ever.
func semVoidReservation(w prim) {
	s := sem{w}
	if r := s.reserved(); r > 0 && !brokenSemReservationKept {
		if v := s.load(); v >= 0 && v&semTakenMask+r <= s.permits() {
			semGiveUp(s, r)
		}
	}
}

// semWakeAll follows the end of a reservation, which may let waiters in: it
// clears semWaiters, so that a waiter that read the old reservation and has
// not slept yet finds its word changed, and wakes those asleep. Without
// semWaiters, nobody sleeps on the word as it is.
func semWakeAll(s sem) {
	for v := s.load(); v >= 0 && v&semWaiters != 0; {
		if got := s.cas(v, v&^semWaiters); got != v {
			v = got
			continue
		}
		atomicNotify(s.mem, s.index, notifyAll)
		return
	}
}

// semRelease gives back n permits; it refuses, changing nothing, to give back
// more than are taken.
func semRelease(s sem, n int32) int32 {
	if n < 1 {
		return resultTooMany
	}
	for v := s.load(); ; {
		taken := v & semTakenMask
		switch {
		case v < 0 || taken > s.permits():
			return resultCorrupted
		case taken < n:
			return resultNegative
		}
		next := v - n // semWaiters stays (below)
		if brokenSemReleaseClearsWaiters {
			next = taken - n
		}
		if got := s.cas(v, next); got != v {
			v = got
			continue
		}
		if v&semWaiters != 0 && !brokenSemReleaseForgetsNotify {
			// As many as it frees, or all while a need is reserved: then
			// the one woken might not be able to take, and the waiter that
			// could would sleep on. semWaiters stays while the notify woke
			// someone: the woken may not run soon (see above), and the next
			// release must wake the next sleeper. A notify that wakes
			// nobody ends it: semWakeAll clears it, and wakes any that
			// slept on it since.
			count := n
			if s.reserved() != 0 {
				count = notifyAll
			}
			if atomicNotify(s.mem, s.index, count) == 0 && !brokenSemReleaseClearsWaiters {
				semWakeAll(s)
			}
		}
		return resultOK
	}
}

// semAvailable returns the permits free now, or resultCorrupted.
func semAvailable(s sem) int32 {
	v, p := s.load(), s.permits()
	if v < 0 || v&semTakenMask > p {
		return resultCorrupted
	}
	return p - v&semTakenMask
}
