package coretest

import (
	"fmt"
	"testing"

	"github.com/sabmutex/sabmutex/wasm/proto"
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
	chanCellSlots = 2                         // the meta word and one word of message
	chanOne       = 8 + chanCap*chanCellSlots // one channel's words
	chanWords     = 2*chanOne + 1             // channel A at 0, B at chanOne (select), then:
	chanDoneWord  = chanWords - 1             // producers that finished
)

type chanState struct {
	sent     map[int32]bool  // messages whose send succeeded
	got      map[int32]int   // how often each was received
	last     map[int32]int32 // per channel and producer, the last message received
	closedAt int             // sends that succeeded when close returned (-1: not closed)
}

func cellOf(at, pos int32) int32 { return at + 8 + pos%chanCap*chanCellSlots }

// chanFirst is a send's or a receive's first step, of kind (a wait) or op
// (a try), made how: "block", "async", "timed", "abort" or "try". held:
// it holds the lock, for the copy; closed: the channel was closed (a
// receive: and drained); neither: it timed out, was busy or aborted.
func chanFirst(s *sched, a *sagent, kind, op int32, how string) (held, closed bool) {
	var r int32
	switch how {
	case "block":
		r = a.a.Wait(kind, 0, 0, 0, inf)
	case "async":
		r = a.a.WaitAsync(kind, 0, 0, 0, inf, nil)
	case "timed":
		r = a.a.WaitAsync(kind, 0, 0, 0, timeoutMs, nil)
	case "abort":
		r = a.a.WaitAsync(kind, 0, 0, 0, inf, abortFirst(s, a))
	case "try":
		r = a.a.Call(op, 0, 0, 0, 0)
	}
	switch r {
	case resultOK, resultDied:
		return true, false
	case resultBusy, Aborted:
		return false, false
	case proto.ResultClosed:
		return false, true
	}
	s.fail("role %d: kind %d (%s) = %d", a.id, kind, how, r)
	return false, false
}

// chanSend sends msg (see chanFirst): true if sent; closed if the channel was closed.
func chanSend(s *sched, a *sagent, msg int32, how string) (sent, closed bool) {
	if held, closed := chanFirst(s, a, proto.KindChanSend, proto.OpChanTrySend, how); !held {
		return false, closed
	}
	return chanPut(s, a, 0, msg)
}

// chanPut copies msg into the channel at `at`, whose lock the caller took
// for a send, and commits it.
func chanPut(s *sched, a *sagent, at, msg int32) (sent, closed bool) {
	cell := cellOf(at, s.mem[at+5]&proto.ChanPosMask)
	s.mem[cell] = 4 // the copy, in two steps
	s.step(a)
	s.mem[cell+1] = msg
	switch r := a.a.Call(proto.OpChanSendCommit, 0, at, 0, 0); r {
	case resultOK:
		s.ch.sent[msg] = true
		return true, false
	case proto.ResultClosed:
		return false, true
	default:
		s.fail("role %d: send commit = %d", a.id, r)
		return false, false
	}
}

// chanRecv receives a message (see chanFirst): ok, or closed (closed and
// drained), or neither.
func chanRecv(s *sched, a *sagent, how string) (ok, closed bool) {
	if held, closed := chanFirst(s, a, proto.KindChanRecv, proto.OpChanTryRecv, how); !held {
		return false, closed
	}
	chanTake(s, a, 0)
	return true, false
}

// chanTake copies the message at the head of the channel at `at` out,
// whose lock the caller took for a receive, checks it, and commits.
func chanTake(s *sched, a *sagent, at int32) {
	cell := cellOf(at, s.mem[at+4])
	if s.mem[cell] != 4 {
		s.fail("role %d: received a cell whose length is %d, want 4", a.id, s.mem[cell])
	}
	msg := s.mem[cell+1]
	s.step(a)
	s.ch.got[msg]++
	key := at*1000 + msg/100 // a producer's messages on one channel
	if last := s.ch.last[key]; msg <= last {
		s.fail("role %d: received %d after %d, from one producer (%d) on one channel", a.id, msg, last, msg/100)
	}
	s.ch.last[key] = msg
	expectOK(s, a, "recv commit", a.a.Call(proto.OpChanRecvCommit, 0, at, 0, 0))
}

// chanProducer sends messages p*100+1, +2, ... (iters of them; "try" and
// "timed" ones retry until sent), then, the last of producers to finish,
// closes the channel.
func chanProducer(p int32, producers int32, how string) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, 0, chanCap, chanCellSlots))
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
	if r := a.a.Call(proto.OpChanClose, 0, 0, 0, 0); r == resultOK {
		s.ch.closedAt = len(s.ch.sent)
	} else if r != proto.ResultClosed {
		s.fail("role %d: close = %d", a.id, r)
	}
}

// chanConsumer receives until the channel is closed and drained.
func chanConsumer(how string) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, 0, chanCap, chanCellSlots))
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
		expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, 0, chanCap, chanCellSlots))
		for range n * s.iters {
			if ok, closed := chanRecv(s, a, "block"); !ok || closed {
				s.fail("role %d: a blocking recv with no close ended with nothing", a.id)
			}
		}
	}
}

// chanCloser closes the channel after a few steps, while others may wait.
func chanCloser(s *sched, a *sagent) {
	expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, 0, chanCap, chanCellSlots))
	s.dwell(a)
	s.dwell(a)
	chanCloseNow(s, a)
}

// -------- select, as jsglue/select.js runs it (a worker's: it sleeps on
// the first armed word, looking at the others every poll), over the
// channels at ats: sends of msg (send) or receives. Returns the index of
// the case that happened and, for a receive, whether its channel was
// closed and drained. greedy is the broken select that goes on trying the
// other cases after one happened (so a send can happen twice).
const chanPollMs = 0.25

func chanSelect(s *sched, a *sagent, ats []int32, send bool, msg int32, greedy bool) (index int, closed bool) {
	op, arm := int32(proto.OpChanTryRecv), int32(proto.OpChanArmRecv)
	if send {
		op, arm = proto.OpChanTrySend, proto.OpChanArmSend
	}
	for {
		index = -1
		for k, at := range ats {
			switch r := a.a.Call(op, 0, at, 0, 0); r {
			case resultBusy:
				continue
			case proto.ResultClosed:
				if send {
					return k, true
				}
				index, closed = k, true
			case resultOK, resultDied:
				if send {
					if _, c := chanPut(s, a, at, msg); c {
						return k, true
					}
				} else {
					chanTake(s, a, at)
				}
				index = k
			default:
				s.fail("role %d: select's try = %d", a.id, r)
				return -1, false
			}
			if !greedy {
				return index, closed
			}
		}
		if index >= 0 {
			return index, closed
		}
		type sleep struct{ idx, v int32 }
		var armed []sleep
		for _, at := range ats {
			r := a.a.Call(arm, 0, at, 0, 0)
			if r == resultOK {
				if lock := s.mem[at]; lock&3 != 0 {
					armed = []sleep{{at, lock}} // its lock is held: a poll on it
				} else {
					armed = nil // ready since the try: again
				}
				break
			}
			if r < 0 {
				s.fail("role %d: select's arming = %d", a.id, r)
				return -1, false
			}
			armed = append(armed, sleep{at + 2 + boolInt(send), r})
		}
		if len(armed) > 0 {
			s.wait(a, armed[0].idx, armed[0].v, chanPollMs)
		}
	}
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// chanSelectSender sends messages 101, 102, ... by select to whichever of
// channels A and B has room, then closes both.
func chanSelectSender(greedy bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		for _, at := range []int32{0, chanOne} {
			expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, at, chanCap, chanCellSlots))
		}
		for i := range int32(s.iters) + 1 {
			if _, closed := chanSelect(s, a, []int32{0, chanOne}, true, 101+i, greedy); closed {
				s.fail("role %d: select send found a channel closed", a.id)
			}
		}
		for _, at := range []int32{0, chanOne} {
			expectOK(s, a, "close", a.a.Call(proto.OpChanClose, 0, at, 0, 0))
		}
	}
}

// chanConsumerAt receives from the channel at `at` until it is closed and drained.
func chanConsumerAt(at int32) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, at, chanCap, chanCellSlots))
		for {
			switch r := a.a.Wait(proto.KindChanRecv, 0, at, 0, inf); r {
			case resultOK, resultDied:
				chanTake(s, a, at)
			case proto.ResultClosed:
				return
			default:
				s.fail("role %d: recv = %d", a.id, r)
				return
			}
		}
	}
}

// chanProducerAt sends p*100+1, ... to the channel at `at`, then closes it.
func chanProducerAt(p, at int32) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, at, chanCap, chanCellSlots))
		for i := range int32(s.iters) + 1 {
			if r := a.a.Wait(proto.KindChanSend, 0, at, 0, inf); r != resultOK {
				s.fail("role %d: send = %d", a.id, r)
				return
			}
			chanPut(s, a, at, p*100+1+i)
		}
		expectOK(s, a, "close", a.a.Call(proto.OpChanClose, 0, at, 0, 0))
	}
}

// chanSelectReceiver receives by select from A and B until both are closed
// and drained (a case whose channel is, is dropped).
func chanSelectReceiver(s *sched, a *sagent) {
	open := []int32{0, chanOne}
	for _, at := range open {
		expectOK(s, a, "set up", a.a.Call(proto.OpChanSetUp, 0, at, chanCap, chanCellSlots))
	}
	for len(open) > 0 {
		if k, closed := chanSelect(s, a, open, false, 0, false); closed {
			open = append(open[:k:k], open[k+1:]...)
		}
	}
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
	for _, at := range []int32{0, chanOne} {
		if pos := int32(proto.ChanPosMask); s.mem[at] != 0 || s.mem[at+4]&pos != s.mem[at+5]&pos {
			return fmt.Sprintf("after the schedule: the channel at %d: lock word %d, head %d, tail word %#x; want 0 and empty", at, s.mem[at], s.mem[at+4], s.mem[at+5])
		}
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
		chanSelectSends,
		chanSelectRecvs,
	}
	// No close: two producers (-1: none of them closes), one consumer that counts.
	chanSelectSends  = chanScenario("select sends to whichever of two has room", role{chanSelectSender(false), 0}, role{chanConsumerAt(0), 1}, role{chanConsumerAt(chanOne), 2})
	chanSelectRecvs  = chanScenario("select receives from two", role{chanProducerAt(1, 0), 0}, role{chanProducerAt(2, chanOne), 1}, role{chanSelectReceiver, 2})
	chanSelectGreedy = chanScenario("a select that takes two cases (broken)", role{chanSelectSender(true), 0}, role{chanConsumerAt(0), 1}, role{chanConsumerAt(chanOne), 2})
	chanCounted      = chanScenario("two producers, a consumer, no close", role{chanProducer(1, -1, "block"), 0}, role{chanProducer(2, -1, "async"), 1}, role{chanCounter(2), 2})
	chanClosing      = chanScenario("closed while a sender and a receiver wait", role{chanProducer(1, 2, "block"), 0}, role{chanConsumer("block"), 1}, role{chanCloser, 2})
)

// Every schedule with at most two preemptions of the small scenario, of
// one without a close and of the close (the others, select's among them,
// under PCT with the family: TestExploreFamily_pct; a select's polls make
// its schedules too long to enumerate).
func TestExploreChannel_bounded(t *testing.T) {
	for _, sc := range []*scenario{chanSmall, chanCounted, chanClosing} {
		e := &explorer{t: t, h: host}
		if f, prefix := e.bounded(sc, 2, 400000); f != "" {
			t.Fatalf("%s, schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ 2 preemptions: all %d schedules pass", sc.name, e.runs)
	}
}

// The checks can fail: the select that takes two cases sends a message
// twice, and PCT finds it.
func TestExploreChannelCatchesGreedySelect(t *testing.T) {
	e := &explorer{t: t, h: host}
	seed, f := e.pctOf([]*scenario{chanSelectGreedy}, 2000, 0)
	if seed < 0 {
		t.Fatal("2000 PCT schedules passed a select that takes two cases")
	}
	t.Logf("caught after %d schedules (seed %d): %s", e.runs, seed, f)
}
