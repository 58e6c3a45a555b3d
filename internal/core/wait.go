package core

import "math"

// The waiting machinery that every primitive shares: the kinds of wait and
// each kind's protocol, in one table. A primitive's protocol is a step: one
// turn of its wait, which never sleeps itself. A wait is run turn by turn,
// its state in one record, by the one loop of waitrec.go, whose hosts only
// sleep where a turn says. Every decision (take, sleep, withdraw, give back,
// hand off) is a step's or an abandon's.

// A waitKind names one wait loop of the family. Its low two bits are the
// offset, from the primitive's first slot, of the word its waiters sleep on
// (so a loop learns where to sleep from the kind alone); the rest number it.
type waitKind int32

const kindSleepsAtMask = 3

const (
	kindLock       waitKind = 1<<2 | 0  // Mutex.lock; sleeps on the lock word
	kindRWRead     waitKind = 2<<2 | 1  // RWMutex.readLock; sleeps on the admissions
	kindRWAnnounce waitKind = 3<<2 | 0  // RWMutex.lock, until it has set W; then kindRWDrain
	kindRWDrain    waitKind = 4<<2 | 0  // a writer that has set W, until the readers leave
	kindSemAcquire waitKind = 5<<2 | 0  // Semaphore.acquire(n); arg: n
	kindWGWait     waitKind = 6<<2 | 0  // WaitGroup.wait
	kindBarrier    waitKind = 7<<2 | 0  // Barrier.wait (arrives on its first turn)
	kindOnce       waitKind = 8<<2 | 0  // Once.do: resultRun when the caller is to run fn
	kindCond       waitKind = 9<<2 | 0  // Cond.wait, after condWaitBegin; arg: its sequence
	kindChanRoom   waitKind = 10<<2 | 1 // Channel.send, for room (on sendSeq); then its caller claims (chan.go)
	kindChanMsg    waitKind = 11<<2 | 0 // Channel.recv, for a message (on recvSeq); likewise
	// The same two for a waiter, one that a commit's notify has woken: it
	// may take the last cell or message while its side starves (chan.go).
	kindChanRoomWaited waitKind = 12<<2 | 1
	kindChanMsgWaited  waitKind = 13<<2 | 0
	// A lock request's wait to be granted (lockq.go): its primitive is the
	// request's record, whose state it sleeps on.
	kindLockRequest waitKind = 14<<2 | 0
	// Semaphore.acquire(n) once it has reserved its need (semaphore.go);
	// arg: n. A kindSemAcquire wait goes on as one.
	kindSemReserved waitKind = 15<<2 | 0
)

func (k waitKind) sleepsAt() int32 { return int32(k) & kindSleepsAtMask }

// A turn is what a step is told: how its last sleep ended (slept: sleptNone
// on the first turn), the word it slept on (sleptOn, -1 on the first turn:
// steps use it to remember what they saw, such as a generation), when the
// wait began to count (startMs: see waitBlocking) and when it gives up
// (deadlineMs, +Inf for never; both monotonicNowMs values), and how its
// caller sleeps (see sleepKind).
type turn struct {
	slept, sleptOn      int32
	startMs, deadlineMs float64
	sleep               sleepKind
	kind                waitKind // the kind of the wait the turn is of
}

// A waitDef is a kind's protocol.
type waitDef struct {
	kind waitKind
	// step is one turn: a result (below 0, and above resultGoOnAs); a word,
	// never negative, to sleep on while the slot at at+sleepsAt holds it,
	// then take another turn; or goOnAs(k): go on with a wait of kind k
	// (a first turn, the same deadline), which sleeps where k says.
	step func(w prim, arg int32, t turn) int32
	// abandon gives up an asynchronous wait whose Atomics.waitAsync stays
	// queued (an abort): it undoes what the wait announced and wakes
	// whoever that wait could rob of a wake-up. late: that queued wait
	// (on a helper worker, where waitAsync is missing) ended "ok" after
	// the abandon, so the wake-up it took is passed on. nil: nothing to do
	// (every wake-up on the word wakes all). It returns resultBusy when it
	// gave the wait up with nothing held, resultOK when the wait had
	// already succeeded and cannot be undone (a Barrier's generation
	// completed), or an error.
	abandon func(w prim, arg, sleptOn int32, late bool) int32
	// holder is the agent whose release the wait needs (0: none, or not
	// known), for the watch (watch.go).
	holder func(w prim) int32
	// recover frees what agent dead, which the registry says is dead, holds of
	// the primitive, so that a next turn takes it (nil: nothing a dead
	// agent holds here can be freed). kindRWDrain's is the exception: its
	// second argument counts the read locks the host took off dead agents'
	// records (readersOf).
	recover func(w prim, dead int32) int32
	// repairStale, where set, repairs what only a waiter that never comes
	// leaves behind (kindLock: a hand-off nobody took, voidHandOff), for
	// a wait that has slept watchMs through (see watchLook).
	repairStale func(w prim)
}

// resultGoOnAs, less a kind: a step's "go on with a wait of that kind".
const resultGoOnAs = -64

func goOnAs(k waitKind) int32 { return resultGoOnAs - int32(k) }

// waits is every kind's protocol, in one table, at kind>>2.
var waits = [...]waitDef{
	kindLock >> 2: {kindLock,
		func(w prim, _ int32, t turn) int32 { return lockStep(w, t.deadlineMs, t.startMs, t.slept, t.sleep) },
		func(w prim, _, _ int32, _ bool) int32 { abandonWait(w); return resultBusy },
		func(w prim) int32 { return max(holder(w), 0) }, releaseDead, voidHandOff},
	kindRWRead >> 2: {kindRWRead,
		func(w prim, _ int32, t turn) int32 { return rwReadStep(rw{w}, t.deadlineMs, t.slept, t.sleep) },
		func(w prim, _, _ int32, late bool) int32 {
			if late {
				return resultBusy // readers are admitted with notify-all
			}
			return rwReadAbandon(rw{w})
		},
		rwWriterOf, rwReleaseDead, nil},
	kindRWAnnounce >> 2: {kindRWAnnounce,
		func(w prim, _ int32, t turn) int32 {
			if r := rwAnnounceStep(rw{w}, t); r != resultOK {
				return r
			}
			return goOnAs(kindRWDrain)
		},
		// Writers are woken with notify-all; it may have set S.
		func(w prim, _, _ int32, _ bool) int32 { rwEndStarving(rw{w}); return resultBusy },
		rwWriterOf, rwReleaseDead, nil},
	kindRWDrain >> 2: {kindRWDrain,
		func(w prim, _ int32, t turn) int32 { return rwWriteStep(rw{w}, t.deadlineMs) },
		func(w prim, _, _ int32, late bool) int32 {
			if late {
				return resultBusy // the last reader out wakes all
			}
			if r := rwRelease(rw{w}); r != resultOK { // withdraw: admit the readers it blocked
				return r
			}
			return resultBusy
		},
		nil, // the records name the readers, not the word (watchTurn asks readersOf)
		func(w prim, n int32) int32 { return rwReleaseDeadReads(w, n) }, nil}, // n: read locks that the host freed in the records
	kindSemAcquire >> 2: {kindSemAcquire,
		func(w prim, n int32, t turn) int32 { return semAcquireStep(sem{w}, n, t) },
		func(w prim, _, _ int32, _ bool) int32 {
			atomicNotify(w.mem, w.index, notifyAll) // its queued wait may have taken a release's wake-up
			return resultBusy
		},
		nil, nil, semVoidReservation}, // permits are counted, not named
	kindSemReserved >> 2: {kindSemReserved,
		func(w prim, n int32, t turn) int32 { return semReservedStep(sem{w}, n, t) },
		func(w prim, n, _ int32, late bool) int32 {
			if !late {
				semGiveUp(sem{w}, n) // its own reservation (late: given up already; n may be another's since)
			}
			atomicNotify(w.mem, w.index, notifyAll)
			return resultBusy
		},
		nil, nil, nil}, // (its own next turn takes what the watch would void)
	kindWGWait >> 2: {kindWGWait,
		func(w prim, _ int32, t turn) int32 { return wgWaitStep(w, t.deadlineMs) },
		nil, // the count reaching 0 wakes all
		nil, nil, nil},
	kindBarrier >> 2: {kindBarrier,
		func(w prim, _ int32, t turn) int32 { return barrierStep(barrier{w}, t.deadlineMs, t.slept, t.sleptOn) },
		func(w prim, _, sleptOn int32, late bool) int32 {
			if late {
				return resultBusy // a generation's end wakes all
			}
			// Withdraw the arrival: resultBusy, or resultOK if the
			// generation completed first.
			return barrierStep(barrier{w}, math.Inf(-1), sleptOther, sleptOn)
		},
		nil, nil, nil},
	kindOnce >> 2: {kindOnce,
		func(w prim, _ int32, t turn) int32 { return onceStep(w, t.deadlineMs, t.sleep) },
		nil, // the end of a run wakes all
		func(w prim) int32 { return atomicLoad(w.mem, w.index+1) }, onceReleaseDead, nil},
	kindCond >> 2: {kindCond,
		func(w prim, seq int32, t turn) int32 { return condWaitStep(w, seq, t.deadlineMs) },
		func(w prim, _, _ int32, _ bool) int32 { condAbandon(w); return resultBusy },
		nil, nil, nil},
	// The Channel's (chan.go): a newcomer's and a waiter's wait for room or
	// a message. The agent it waits for: the owner of the cell at the tail
	// (at the head), whose claim a DEAD one's recover voids.
	kindChanRoom >> 2:       {kindChanRoom, chanTurn, chanRoomAbandon, chanSendOwner, chanRecoverCells, chanVoidSenders},
	kindChanRoomWaited >> 2: {kindChanRoomWaited, chanTurn, chanRoomAbandon, chanSendOwner, chanRecoverCells, chanVoidSenders},
	kindChanMsg >> 2:        {kindChanMsg, chanTurn, chanMsgAbandon, chanRecvOwner, chanRecoverCells, chanVoidReceivers},
	kindChanMsgWaited >> 2:  {kindChanMsgWaited, chanTurn, chanMsgAbandon, chanRecvOwner, chanRecoverCells, chanVoidReceivers},
	// Granted by whoever changes the queue; an agent that ended holding or
	// waiting is swept by the waits behind it after WATCH_MS (lqRepair).
	kindLockRequest >> 2: {kindLockRequest,
		func(w prim, _ int32, _ turn) int32 { return lqStep(w) },
		func(w prim, _, _ int32, _ bool) int32 { return lqAbandon(w) },
		lqHolder, nil, lqRepair},
}

// waitNames are the kinds' names, published as KIND_<name> (Protocol: the
// glue's and the Go hosts' names; the module publishes the values alone).
var waitNames = [...]string{
	kindLock >> 2:           "LOCK",
	kindRWRead >> 2:         "RW_READ",
	kindRWAnnounce >> 2:     "RW_ANNOUNCE",
	kindRWDrain >> 2:        "RW_DRAIN",
	kindSemAcquire >> 2:     "SEM_ACQUIRE",
	kindWGWait >> 2:         "WG_WAIT",
	kindBarrier >> 2:        "BARRIER",
	kindOnce >> 2:           "ONCE",
	kindCond >> 2:           "COND",
	kindChanRoom >> 2:       "CHAN_ROOM",
	kindChanRoomWaited >> 2: "CHAN_ROOM_WAITED",
	kindChanMsg >> 2:        "CHAN_MESSAGE",
	kindChanMsgWaited >> 2:  "CHAN_MESSAGE_WAITED",
	kindLockRequest >> 2:    "LOCK_REQUEST",
	kindSemReserved >> 2:    "SEM_RESERVED",
}

// deadlineOf is the deadline of a wait of timeoutMs milliseconds from now,
// and that now (NaN when there is no deadline: the clock is read only when
// needed, since a read is dear beside an uncontended lock:
// docs/decisions/contended-path.md).
func deadlineOf(timeoutMs float64) (deadlineMs, nowMs float64) {
	if math.IsInf(timeoutMs, 1) {
		return timeoutMs, math.NaN()
	}
	nowMs = monotonicNowMs()
	return nowMs + timeoutMs, nowMs
}

// watchMs is how long a watched wait sleeps at most before it asks the
// watch about the agent it waits for (watch.go): a wait shorter than this
// costs nothing more, and a dead holder is found within about this long of
// the maker learning of its end.
const watchMs = 50

// defOf is kind k's protocol, if k is a kind.
func defOf(k waitKind) (waitDef, bool) {
	if i := int(k >> 2); i > 0 && i < len(waits) && waits[i].kind == k {
		return waits[i], true
	}
	return waitDef{}, false
}

// lateTurn is the deadline's rule, for every kind and both loops, before
// the step: a turn that begins after the deadline, following a sleep that
// did not end in a notify (it timed out, or found the word changed), gives
// up without taking, through the kind's abandon, which undoes what the wait
// announced. A late wake-up (a timeout delivered late by a busy event loop
// or by a helper worker that was still starting) could otherwise find the
// primitive free and take it long after its caller's deadline; a sleep that
// a notify ended was woken before its deadline (every sleep's timeout ends
// at the deadline), so its turn takes what it was woken for. It returns
// late false (and 0) for every other turn, without reading the clock when
// the wait has no deadline; else abandon's result: resultBusy, or what a
// wait that had already succeeded keeps (a Barrier's completed generation).
func lateTurn(k waitKind, w prim, arg int32, t turn) (r int32, late bool) {
	if t.slept != sleptOther || !timedOut(t.deadlineMs) {
		return 0, false
	}
	if d := waits[k>>2]; d.abandon != nil {
		return d.abandon(w, arg, t.sleptOn, false), true
	}
	return resultBusy, true
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
