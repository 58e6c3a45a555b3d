package hosttest

import (
	"fmt"
	"testing"
)

// The explorer on the Channel (wasm/core/chan.go): producers send
// numbered messages, consumers receive until the channel is closed and
// drained, blocking and asynchronous, with timeouts and an abort; the last
// producer to finish closes it, or a closer closes it early. The roles copy
// a message in two steps between a send's first step and its commit, as the
// glue does, so that others run in between. Checked: every message whose
// send succeeded is received exactly once, nothing else is; each producer's
// messages leave in the order it sent them; the lock is free at the end.

const (
	chanCap       = 2
	chanCellSlots = 2 // the meta word and one word of message
	chanWords     = 8 + chanCap*chanCellSlots + 1
	chanDoneWord  = chanWords - 1 // producers that finished
)

type chanState struct {
	sent     map[int32]bool  // messages whose send succeeded
	got      map[int32]int   // how often each was received
	last     map[int32]int32 // per producer, the last message received
	closedAt int             // sends that succeeded when close returned (-1: not closed)
}

func cellOf(pos int32) int32 { return 8 + pos%chanCap*chanCellSlots }

// chanSend sends msg: through the wait (blocking or asynchronous, with a
// timeout), or trySend. true if sent; false if it timed out or was busy;
// closed if the channel was closed.
func chanSend(s *sched, a *sagent, msg int32, how string) (sent, closed bool) {
	var r int32
	switch how {
	case "block":
		r = a.a.Wait("KIND_CHAN_SEND", 0, 0, 0, inf)
	case "async":
		r = a.a.WaitAsync("KIND_CHAN_SEND", 0, 0, 0, inf, nil)
	case "timed":
		r = a.a.WaitAsync("KIND_CHAN_SEND", 0, 0, 0, timeoutMs, nil)
	case "abort":
		r = a.a.WaitAsync("KIND_CHAN_SEND", 0, 0, 0, inf, abortFirst(s, a))
	case "try":
		r = a.a.Call("OP_CHAN_TRY_SEND", 0, 0, 0, 0)
	}
	switch r {
	case resultOK, resultDied:
	case resultBusy, Aborted:
		return false, false
	case number("RESULT_CLOSED"):
		return false, true
	default:
		s.fail("role %d: send (%s) = %d", a.id, how, r)
		return false, false
	}
	cell := cellOf(s.mem[5] & number("CHAN_POS_MASK"))
	s.mem[cell] = 4 // the copy, in two steps
	s.step(a)
	s.mem[cell+1] = msg
	switch r := a.a.Call("OP_CHAN_SEND_COMMIT", 0, 0, 0, 0); r {
	case resultOK:
		s.ch.sent[msg] = true
		return true, false
	case number("RESULT_CLOSED"):
		return false, true
	default:
		s.fail("role %d: send commit = %d", a.id, r)
		return false, false
	}
}

// chanRecv receives a message: ok, or closed (closed and drained), or
// neither (timed out, busy, aborted).
func chanRecv(s *sched, a *sagent, how string) (ok, closed bool) {
	var r int32
	switch how {
	case "block":
		r = a.a.Wait("KIND_CHAN_RECV", 0, 0, 0, inf)
	case "async":
		r = a.a.WaitAsync("KIND_CHAN_RECV", 0, 0, 0, inf, nil)
	case "timed":
		r = a.a.WaitAsync("KIND_CHAN_RECV", 0, 0, 0, timeoutMs, nil)
	case "abort":
		r = a.a.WaitAsync("KIND_CHAN_RECV", 0, 0, 0, inf, abortFirst(s, a))
	case "try":
		r = a.a.Call("OP_CHAN_TRY_RECV", 0, 0, 0, 0)
	}
	switch r {
	case resultOK, resultDied:
	case resultBusy, Aborted:
		return false, false
	case number("RESULT_CLOSED"):
		return false, true
	default:
		s.fail("role %d: recv (%s) = %d", a.id, how, r)
		return false, false
	}
	cell := cellOf(s.mem[4])
	if s.mem[cell] != 4 {
		s.fail("role %d: received a cell whose length is %d, want 4", a.id, s.mem[cell])
	}
	msg := s.mem[cell+1]
	s.step(a)
	s.ch.got[msg]++
	if p, last := msg/100, s.ch.last[msg/100]; msg <= last {
		s.fail("role %d: received %d after %d, from one producer (%d)", a.id, msg, last, p)
	}
	s.ch.last[msg/100] = msg
	expectOK(s, a, "recv commit", a.a.Call("OP_CHAN_RECV_COMMIT", 0, 0, 0, 0))
	return true, false
}

// chanProducer sends messages p*100+1, +2, ... (iters of them; "try" and
// "timed" ones retry until sent), then, the last of producers to finish,
// closes the channel.
func chanProducer(p int32, producers int32, how string) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "set up", a.a.Call("OP_CHAN_SET_UP", 0, 0, chanCap, chanCellSlots))
		for i := range int32(s.iters) {
			for {
				sent, closed := chanSend(s, a, p*100+1+i, how)
				if closed {
					return // closed early: nothing more can be sent
				}
				if sent {
					break
				}
				how = "block" // a timed-out or aborted try, then a sure one
			}
		}
		s.mem[chanDoneWord]++
		if s.mem[chanDoneWord] == producers {
			chanCloseNow(s, a)
		}
	}
}

func chanCloseNow(s *sched, a *sagent) {
	if r := a.a.Call("OP_CHAN_CLOSE", 0, 0, 0, 0); r == resultOK {
		s.ch.closedAt = len(s.ch.sent)
	} else if r != number("RESULT_CLOSED") {
		s.fail("role %d: close = %d", a.id, r)
	}
}

// chanConsumer receives until the channel is closed and drained.
func chanConsumer(how string) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "set up", a.a.Call("OP_CHAN_SET_UP", 0, 0, chanCap, chanCellSlots))
		for h := how; ; h = how {
			if _, closed := chanRecv(s, a, h); closed {
				return
			}
			if how == "abort" || how == "timed" {
				how = "async" // once, then waits that end
			}
		}
	}
}

// chanCounter receives n messages (blocking), and nothing closes the
// channel: a lost wake-up leaves it asleep for good, which the scheduler
// reports (a close at the end would wake it, and hide the loss).
func chanCounter(n int) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "set up", a.a.Call("OP_CHAN_SET_UP", 0, 0, chanCap, chanCellSlots))
		for range n * s.iters {
			if ok, closed := chanRecv(s, a, "block"); !ok || closed {
				s.fail("role %d: a blocking recv with no close ended with nothing", a.id)
			}
		}
	}
}

// chanCloser closes the channel after a few steps, while others may wait.
func chanCloser(s *sched, a *sagent) {
	expectOK(s, a, "set up", a.a.Call("OP_CHAN_SET_UP", 0, 0, chanCap, chanCellSlots))
	s.dwell(a)
	s.dwell(a)
	chanCloseNow(s, a)
}

func chanChecked(s *sched) string {
	for msg := range s.ch.sent {
		if s.ch.got[msg] != 1 {
			return fmt.Sprintf("message %d sent, received %d times", msg, s.ch.got[msg])
		}
	}
	for msg, n := range s.ch.got {
		if !s.ch.sent[msg] {
			return fmt.Sprintf("message %d received %d times, never sent", msg, n)
		}
	}
	if s.mem[0] != 0 || s.mem[4] != s.mem[5]&number("CHAN_POS_MASK") {
		return fmt.Sprintf("after the schedule: lock word %d, head %d, tail word %#x; want 0 and empty", s.mem[0], s.mem[4], s.mem[5])
	}
	return ""
}

func chanScenario(name string, roles ...role) *scenario {
	return &scenario{
		name: "Channel: " + name, roles: roles, words: chanWords, steps: 300, check: chanChecked,
		init: func(s *sched) {
			s.ch = chanState{sent: map[int32]bool{}, got: map[int32]int{}, last: map[int32]int32{}, closedAt: -1}
		},
	}
}

var (
	chanSmall     = chanScenario("a producer and a consumer, blocking", role{chanProducer(1, 1, "block"), 0}, role{chanConsumer("block"), 1})
	chanScenarios = []*scenario{
		chanSmall,
		chanScenario("two producers, a consumer, async", role{chanProducer(1, 2, "async"), 0}, role{chanProducer(2, 2, "block"), 1}, role{chanConsumer("async"), 2}),
		chanScenario("a producer, two consumers", role{chanProducer(1, 1, "block"), 0}, role{chanConsumer("block"), 1}, role{chanConsumer("async"), 2}),
		chanScenario("tries and timeouts", role{chanProducer(1, 2, "try"), 0}, role{chanProducer(2, 2, "timed"), 1}, role{chanConsumer("timed"), 2}),
		// Tasks of one agent: an aborted receive leaves its wait queued (a
		// ghost that could take a wake-up meant for its sibling).
		chanScenario("aborted waits, tasks of one agent", role{chanProducer(1, 1, "abort"), 0}, role{chanConsumer("abort"), 1}, role{chanConsumer("async"), 1}),
		chanScenario("closed while senders and receivers wait", role{chanProducer(1, 2, "block"), 0}, role{chanProducer(2, 2, "async"), 1}, role{chanConsumer("block"), 2}, role{chanCloser, 3}),
		chanCounted,
		chanClosing,
	}
	// No close: two producers (-1: none of them closes), one consumer that counts.
	chanCounted = chanScenario("two producers, a consumer, no close", role{chanProducer(1, -1, "block"), 0}, role{chanProducer(2, -1, "async"), 1}, role{chanCounter(2), 2})
	chanClosing = chanScenario("closed while a sender and a receiver wait", role{chanProducer(1, 2, "block"), 0}, role{chanConsumer("block"), 1}, role{chanCloser, 2})
)

// Every schedule with at most two preemptions of the small scenario and of
// the close (the others under PCT, with the family: TestExploreFamily_pct).
func TestExploreChannel_bounded(t *testing.T) {
	for _, sc := range []*scenario{chanSmall, chanCounted, chanClosing} {
		e := &explorer{t: t, h: host}
		if f, prefix := e.bounded(sc, 2, 400000); f != "" {
			t.Fatalf("%s, schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ 2 preemptions: all %d schedules pass", sc.name, e.runs)
	}
}
