package core

import (
	"math"
	"unsafe"
)

// One wait in progress: its record, which holds all of its state from its
// first turn to its end, and the one loop that every host runs it with. A
// host's loop sleeps where the record says and tells the next turn how the
// sleep ended; nothing else:
//
//	id := Begin(kind, mem, at, arg, timeoutMs, NaN, -1)
//	for v := Turn(id, sleptNone); v >= 0; v = Turn(id, slept) {
//		at, ms := SleepOf(id)
//		slept = sleep on slot at while it holds v, for at most ms
//	}
//	// v is the wait's result (its record is freed). On an abort instead:
//	// Turn(id, sleptGiveUp), and Turn(id, sleptLateOK or sleptLateOther)
//	// once the sleep it left queued ends.
//
// The hosts:
//
//	waitBlocking (here)       Atomics.wait (the import); workers only: the export wait
//	waitFor (jsglue/wait.js)  Atomics.waitAsync; main thread too: the exports begin and turn
//	blocking (jsglue/wait.js) a JavaScript loop of a kind's commonest turns (a
//	                          contended lock's), which hands the rest of the wait to
//	                          this one: a record begun at its last turn (sleptOn, startMs)
//	sabsync's wait            a goroutine parked on Atomics.waitAsync
//	coretest's WaitAsync      the explorer's model of waitFor
//
// Every decision is the record's: a turn runs the deadline's rule
// (lateTurn), the kind's step, "go on as another kind", and, after a sleep
// that ran out before the deadline in a watched agent, the watch
// (watch.go), which may end the wait in a deadlock; a give-up runs the
// kind's abandon.

// How a wait's last sleep ended, as its host tells the next turn (slept).
// A step is told sleptNone, sleptOK or sleptOther (turn.slept): it asks
// only whether a notify woke it.
const (
	sleptNone      = 0 // no sleep yet: the first turn (of a resumed record: its last sleep is the glue's)
	sleptOK        = 1 // Atomics.wait's "ok": a notify woke it
	sleptNotEqual  = 2 // "not-equal": the word had changed
	sleptTimedOut  = 3 // "timed-out" (at the deadline, or after sleepMs in a watched agent)
	sleptGiveUp    = 4 // the host gives the wait up (an abort); its queued sleep stays
	sleptLateOK    = 5 // the queued sleep of a wait given up ended "ok": it took a wake-up
	sleptLateOther = 6 // it ended otherwise
	// sleptBlockingNow, or'ed into sleptTimedOut: the agent can run
	// nothing else until this wait ends (a Go program whose goroutines all
	// wait), as the watch's cycle rule needs to know (watchTurn).
	sleptBlockingNow = 8

	// sleptOther is what a step is told for sleptNotEqual and sleptTimedOut
	// alike: the sleep ended, and no notify ended it.
	sleptOther = sleptNotEqual
)

// A waitRec is one wait's state.
type waitRec struct {
	w        prim
	arg      int32
	t        turn    // what its next step is told (kind, slept, sleptOn, startMs, deadlineMs, sleep)
	waiter   int32   // its number for the watch (waiterBlocking for a blocking wait)
	sleepAt  int32   // where its last turn said to sleep (an index of w.mem)
	sleepMs  float64 // for at most how long
	nextFree int32   // a free record's next free one (see recs)
	inUse    bool
	watched  bool // the watch has seen it: its end ends the watch (watchEnd)
	givenUp  bool // given up; the end of its queued sleep is still to come
}

// begin sets r up for a wait of kind k on w that gives up timeoutMs (+Inf:
// never) after startMs (NaN: now; and for a wait without a deadline, its
// start is counted from its first wake-up: see waitBlocking). sleptOn is -1
// for a wait from its start, else the value of the last sleep of a wait
// whose turns the glue has run until now (resumed). sleep: how its host
// sleeps.
func (r *waitRec) begin(k waitKind, w prim, arg int32, timeoutMs, startMs float64, sleptOn int32, sleep sleepKind) int32 {
	if _, ok := defOf(k); !ok {
		return resultCorrupted
	}
	deadlineMs := startMs + timeoutMs
	if math.IsNaN(startMs) {
		deadlineMs, startMs = deadlineOf(timeoutMs)
	}
	*r = waitRec{w: w, arg: arg, inUse: true, waiter: waiterBlocking,
		t: turn{kind: k, slept: sleptNone, sleptOn: sleptOn, startMs: startMs, deadlineMs: deadlineMs, sleep: sleep}}
	return resultOK
}

// turn is the wait's next turn, told how its last sleep ended (slept): a
// result, below 0, which ends the wait; or a value to sleep on, at r.sleepAt
// for at most r.sleepMs, before the next turn.
func (r *waitRec) turn(slept int32) int32 {
	t := &r.t
	switch slept &^ sleptBlockingNow {
	case sleptNone:
	case sleptOK:
		t.slept = sleptOK
		if math.IsNaN(t.startMs) {
			t.startMs = monotonicNowMs()
		}
	case sleptNotEqual:
		t.slept = sleptOther
	case sleptTimedOut:
		t.slept = sleptOther
		if watching && !timedOut(t.deadlineMs) {
			// A wait with a deadline ends at it, and its agent then runs on
			// (and may release): as the cycle's rule sees it, not blocking
			// (watchTurn), though its agent is blocked in it.
			r.watched = true
			blocked := t.sleep == sleepBlocking || slept&sleptBlockingNow != 0
			if watchTurn(t.kind, r.w, r.waiter, blocked, t.deadlineMs) == resultCycle {
				// Withdraw what the wait announced, as an abort does; a
				// wait that had already succeeded keeps that.
				if v := r.abandon(false); v != resultBusy {
					return r.end(v)
				}
				return r.end(resultCycle)
			}
		}
	default:
		return r.end(resultCorrupted)
	}
	for {
		v, late := lateTurn(t.kind, r.w, r.arg, *t)
		if !late {
			v = waits[t.kind>>2].step(r.w, r.arg, *t)
		}
		if v <= resultGoOnAs {
			t.kind, t.slept, t.sleptOn = waitKind(resultGoOnAs-v), sleptNone, -1
			continue
		}
		if v < 0 {
			return r.end(v)
		}
		// The remaining time is recomputed on every turn, so spurious or
		// stolen wake-ups do not stretch the total wait past the deadline.
		// A watched agent sleeps no longer than watchMs (watch.go).
		t.sleptOn = v
		r.sleepAt = r.w.index + t.kind.sleepsAt()
		r.sleepMs = remainingMs(t.deadlineMs)
		if watching {
			r.sleepMs = min(r.sleepMs, watchMs)
		}
		return v
	}
}

// end ends the wait with result v.
func (r *waitRec) end(v int32) int32 {
	if r.watched {
		watchEnd(r.waiter)
	}
	r.inUse = false
	return v
}

// giveUp gives up a wait whose host sleeps on (an Atomics.waitAsync cannot
// be withdrawn, and left queued it could swallow a wake-up meant for another
// waiter): the kind's abandon undoes what the wait announced and wakes
// whoever needs it. It returns resultBusy, or what a wait that had already
// succeeded keeps (a Barrier's completed generation). The record stays
// until the end of that sleep, its last turn (sleptLateOK: the wake-up it
// took was another waiter's, and is passed on).
func (r *waitRec) giveUp(slept int32) int32 {
	if r.givenUp {
		r.inUse = false
		if slept == sleptLateOK {
			r.abandon(true)
		}
		return resultBusy
	}
	r.end(0)
	r.inUse, r.givenUp = true, true
	return r.abandon(false)
}

// abandon is the kind's abandon (waitDef.abandon), resultBusy where it has none.
func (r *waitRec) abandon(late bool) int32 {
	if d := waits[r.t.kind>>2]; d.abandon != nil {
		return d.abandon(r.w, r.arg, r.t.sleptOn, late)
	}
	return resultBusy
}

// waitBlocking runs a wait of kind k to its end in Atomics.wait, begun as
// begin says, its first turn told slept. Workers only. A wait without a
// deadline reads the clock first at its first wake-up by a notify, not at
// its first sleep, since a contended loop goes to sleep often (and mostly
// finds the word changed) and a clock read per sleep costs it dearly
// (docs/decisions/contended-path.md); the starvation threshold counts from
// there.
func waitBlocking(k waitKind, w prim, arg int32, timeoutMs, startMs float64, sleptOn, slept int32) int32 {
	var r waitRec
	if v := r.begin(k, w, arg, timeoutMs, startMs, sleptOn, sleepBlocking); v != resultOK {
		return v
	}
	for v := r.turn(slept); ; v = r.turn(slept) {
		if v < 0 {
			return v
		}
		switch atomicWait(r.w.mem, r.sleepAt, v, r.sleepMs) {
		case waitOK:
			slept = sleptOK
		case waitTimedOut:
			slept = sleptTimedOut
		default:
			slept = sleptNotEqual
		}
	}
}

// The records of the waits in progress that a host drives by id (Begin,
// Turn), id-1 in recs, which grows as needed; the free ones are linked from
// freeRec through their nextFree. A record's id is also its waiter number
// for the watch.
var (
	recs    []waitRec
	freeRec int32
)

// recOf is the record of id, nil if it is not in use.
func recOf(id int32) *waitRec {
	if id < 1 || int(id) > len(recs) || !recs[id-1].inUse {
		return nil
	}
	return &recs[id-1]
}

// newRec is the id of a free record.
func newRec() int32 {
	if freeRec == 0 {
		more := make([]waitRec, 2*len(recs)+4)
		copy(more, recs)
		for id := len(more); id > len(recs); id-- {
			more[id-1].nextFree, freeRec = freeRec, int32(id)
		}
		recs = more
	}
	id := freeRec
	freeRec = recs[id-1].nextFree
	return id
}

// freeRecOf puts record id back among the free ones.
func freeRecOf(id int32) {
	recs[id-1].nextFree, freeRec = freeRec, id
}

// sleepOut is where the export turn leaves a sleep's slot and length
// (SleepOf), for the glue to read from this instance's memory: its address
// is what the op OP_SLEEP_OUT returns.
var sleepOut [2]float64

func sleepOutAddress() int32 { return int32(uintptr(unsafe.Pointer(&sleepOut))) }
