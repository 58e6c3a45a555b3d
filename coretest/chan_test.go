package coretest

import (
	"fmt"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on the Channel (internal/core/chan.go): producers send
// numbered messages, consumers receive until the channel is closed and
// drained, blocking and asynchronous, with timeouts and an abort; the last
// producer to finish closes it, or a closer closes it early. The roles
// claim a cell as the glue does (Go's claim; while busy, a wait for room
// or a message, then the claim again), copy a message in two steps
// between the claim and the commit, so that others run in between, and
// commit. Checked: every message whose send succeeded is received exactly
// once, nothing else is; each producer's messages leave in the order it
// sent them; no cell is held at the end, and the channel is empty.

const (
	chanCap       = 2
	chanCellSlots = 3                                       // stamp, the meta word and one word of message
	chanOne       = proto.ChanSlots + chanCap*chanCellSlots // one channel's words
	chanWords     = 2*chanOne + 1                           // channel A at 0, B at chanOne (select), then:
	chanDoneWord  = chanWords - 1                           // producers that finished
)

type chanState struct {
	sent     map[int32]bool  // messages whose send succeeded
	pending  map[int32]int   // messages whose send began, by role (an ended role's may or may not arrive)
	got      map[int32]int   // how often each was received
	last     map[int32]int32 // per channel and producer, the last message received
	closedAt int             // sends that succeeded when close returned (-1: not closed)
	gone     int             // messages an ended receiver may have taken with it
}

func cellOf(at, pos int32) int32 { return at + proto.ChanSlots + pos%chanCap*chanCellSlots }

// chanSetUp sets the channel at `at` up, as every agent does first: its
// answer is the claimer bits of a's stamps (chan.go's channel.mark).
func chanSetUp(s *sched, a *sagent, at int32) {
	if r := a.a.Call(proto.OpChanSetUp, 0, at, chanCap, chanCellSlots); r < 0 {
		s.fail("role %d: set up = %d", a.id, r)
	}
}

// chanMark is the claimer bits of role a's stamps on a channel of the
// schedule's registry (s.reg, explored), as channel.mark gives them: its
// number in the registry.
func chanMark(s *sched, a *sagent) int32 { return (a.a.ID - s.reg0()) << proto.ChanOwnerShift }

// chanOurs records the schedule's registry in the channel at 0, as the
// first set-up does, for a scenario whose cells name a claimer from the
// start.
func chanOurs(s *sched) { s.mem[proto.ChanRegistryAt] = s.reg0() + 1 }

// chanClaim is a send's (send) or a receive's claim on the channel at
// `at`, made how: "block", "async", "timed", "abort" or "try", as the glue
// makes it: Go's claim, and while it is busy a wait for room or a message
// (of the waiter's kind once a wait returned RESULT_WAITER), then the claim
// again. p: the position of the cell it holds, or -1; closed: the channel
// was closed (a receive: and drained); neither: it timed out, was busy or
// aborted.
func chanClaim(s *sched, a *sagent, at int32, send bool, how string) (p int32, closed bool) {
	op, kind, waited := int32(proto.OpChanClaimRecv), int32(proto.KindChanMessage), int32(proto.KindChanMessageWaited)
	if send {
		op, kind, waited = proto.OpChanClaimSend, proto.KindChanRoom, proto.KindChanRoomWaited
	}
	for waiter := int32(0); ; {
		switch r := a.a.Call(op, 0, at, waiter, 0); {
		case r >= 0:
			return r, false
		case r == proto.ResultClosed:
			return -1, true
		case r != resultBusy:
			s.fail("role %d: claim = %d", a.id, r)
			return -1, false
		}
		k := kind
		if waiter != 0 {
			k = waited
		}
		var r int32
		switch how {
		case "try":
			return -1, false
		case "block":
			r = a.a.Wait(k, 0, at, 0, inf)
		case "long": // blocking, for 120 ms: long enough for two watch turns
			r = a.a.Wait(k, 0, at, 0, 120)
		case "async":
			r = a.a.WaitAsync(k, 0, at, 0, inf, nil)
		case "timed":
			r = a.a.WaitAsync(k, 0, at, 0, timeoutMs, nil)
		case "abort":
			r = a.a.WaitAsync(k, 0, at, 0, inf, abortFirst(s, a))
		}
		switch r {
		case resultOK:
		case proto.ResultWaiter:
			waiter = 1
		case resultBusy, Aborted:
			return -1, false
		default:
			s.fail("role %d: wait of kind %d (%s) = %d", a.id, k, how, r)
			return -1, false
		}
	}
}

// chanSend sends msg (see chanClaim): true if sent; closed if the channel was closed.
func chanSend(s *sched, a *sagent, msg int32, how string) (sent, closed bool) {
	return chanSendAt(s, a, 0, msg, how)
}

func chanSendAt(s *sched, a *sagent, at, msg int32, how string) (sent, closed bool) {
	s.ch.pending[msg] = a.id
	p, closed := chanClaim(s, a, at, true, how)
	if p < 0 {
		delete(s.ch.pending, msg)
		return false, closed
	}
	chanPut(s, a, at, p, msg)
	return true, false
}

// chanPut copies msg into the cell of position p of the channel at `at`,
// which the caller claimed for a send, and commits it.
func chanPut(s *sched, a *sagent, at, p, msg int32) {
	cell := cellOf(at, p)
	s.mem[cell+proto.ChanCellMetaAt] = 4 // the copy, in two steps
	s.step(a)
	s.mem[cell+proto.ChanCellWords] = msg
	expectOK(s, a, "send commit", a.a.Call(proto.OpChanSendCommit, 0, at, p, 0))
	s.ch.sent[msg] = true
	delete(s.ch.pending, msg)
}

// chanRecv receives a message (see chanClaim): ok, or closed (closed and
// drained), or neither.
func chanRecv(s *sched, a *sagent, how string) (ok, closed bool) {
	return chanRecvAt(s, a, 0, how)
}

func chanRecvAt(s *sched, a *sagent, at int32, how string) (ok, closed bool) {
	s.ch.gone++ // until it has it: an end in the claim may take one
	p, closed := chanClaim(s, a, at, false, how)
	if p < 0 {
		s.ch.gone--
		return false, closed
	}
	chanTake(s, a, at, p)
	return true, false
}

// chanTake copies the message in the cell of position p of the channel at
// `at` out, which the caller claimed for a receive, checks it, and commits.
func chanTake(s *sched, a *sagent, at, p int32) {
	cell := cellOf(at, p)
	if s.mem[cell+proto.ChanCellMetaAt] != 4 {
		s.fail("role %d: received a cell whose length is %d, want 4", a.id, s.mem[cell+proto.ChanCellMetaAt])
	}
	msg := s.mem[cell+proto.ChanCellWords]
	s.ch.got[msg]++
	s.ch.gone--
	key := at*1000 + msg/100 // a producer's messages on one channel
	if last := s.ch.last[key]; msg <= last {
		s.fail("role %d: received %d after %d, from one producer (%d) on one channel", a.id, msg, last, msg/100)
	}
	s.ch.last[key] = msg
	s.step(a)
	expectOK(s, a, "recv commit", a.a.Call(proto.OpChanRecvCommit, 0, at, p, 0))
}

// chanProducer sends messages p*100+1, +2, ... (iters of them; "try" and
// "timed" ones retry until sent), then, the last of producers to finish,
// closes the channel.
func chanProducer(p int32, producers int32, how string) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		chanSetUp(s, a, 0)
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
		chanSetUp(s, a, 0)
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
		chanSetUp(s, a, 0)
		for range n * s.iters {
			if ok, closed := chanRecv(s, a, "block"); !ok || closed {
				s.fail("role %d: a blocking recv with no close ended with nothing", a.id)
			}
		}
	}
}

// chanCloser closes the channel after a few steps, while others may wait.
func chanCloser(s *sched, a *sagent) {
	chanSetUp(s, a, 0)
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
	arm := int32(proto.OpChanArmRecv)
	if send {
		arm = proto.OpChanArmSend
	}
	for {
		index = -1
		for k, at := range ats {
			if send {
				sent, c := chanSendAt(s, a, at, msg, "try")
				if c {
					return k, true
				}
				if !sent {
					continue
				}
				index = k
			} else {
				ok, c := chanRecvAt(s, a, at, "try")
				if !ok && !c {
					continue
				}
				index, closed = k, c
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
				armed = nil // ready since the try: again
				break
			}
			if r < 0 {
				s.fail("role %d: select's arming = %d", a.id, r)
				return -1, false
			}
			seq := int32(proto.ChanRecvSeqAt)
			if send {
				seq = proto.ChanSendSeqAt
			}
			armed = append(armed, sleep{at + seq, r})
		}
		if len(armed) > 0 {
			s.wait(a, armed[0].idx, armed[0].v, chanPollMs)
		}
	}
}

// chanSelectSender sends messages 101, 102, ... by select to whichever of
// channels A and B has room, then closes both.
func chanSelectSender(greedy bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		for _, at := range []int32{0, chanOne} {
			chanSetUp(s, a, at)
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
		chanSetUp(s, a, at)
		for {
			if ok, closed := chanRecvAt(s, a, at, "block"); closed {
				return
			} else if !ok {
				s.fail("role %d: a blocking recv ended with nothing", a.id)
				return
			}
		}
	}
}

// chanProducerAt sends p*100+1, ... to the channel at `at`, then closes it.
func chanProducerAt(p, at int32) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		chanSetUp(s, a, at)
		for i := range int32(s.iters) + 1 {
			if sent, _ := chanSendAt(s, a, at, p*100+1+i, "block"); !sent {
				s.fail("role %d: a blocking send ended with nothing sent", a.id)
				return
			}
		}
		expectOK(s, a, "close", a.a.Call(proto.OpChanClose, 0, at, 0, 0))
	}
}

// chanSelectReceiver receives by select from A and B until both are closed
// and drained (a case whose channel is, is dropped).
func chanSelectReceiver(s *sched, a *sagent) {
	open := []int32{0, chanOne}
	for _, at := range open {
		chanSetUp(s, a, at)
	}
	for len(open) > 0 {
		if k, closed := chanSelect(s, a, open, false, 0, false); closed {
			open = append(open[:k:k], open[k+1:]...)
		}
	}
}

func chanChecked(s *sched) string {
	lost := 0
	for msg := range s.ch.sent {
		if n := s.ch.got[msg]; n == 0 && lost < s.ch.gone {
			lost++ // taken by a receiver that ended
		} else if n != 1 {
			return fmt.Sprintf("message %d sent, received %d times", msg, n)
		}
	}
	for msg, n := range s.ch.got {
		if who, ok := s.ch.pending[msg]; !s.ch.sent[msg] && !(ok && s.agents[who].ended && n == 1) {
			return fmt.Sprintf("message %d received %d times, never sent", msg, n)
		}
	}
	for _, at := range []int32{0, chanOne} {
		h, t := s.mem[at+proto.ChanHead]&proto.ChanPosMask, s.mem[at+proto.ChanTail]&proto.ChanPosMask
		if h != t {
			return fmt.Sprintf("after the schedule: the channel at %d: head %d, tail word %#x; want empty", at, h, s.mem[at+proto.ChanTail])
		}
		for k := range int32(chanCap) {
			cell := cellOf(at, k)
			if st := s.mem[cell]; st>>proto.ChanOwnerShift != 0 && !(chanEndedOwner(s, st) && k == t%chanCap && st&(1<<proto.ChanOwnerShift-1)&^proto.ChanLap == 0) {
				return fmt.Sprintf("after the schedule: the channel at %d: cell %d held (stamp %#x)", at, k, st)
			}
		}
	}
	return ""
}

// chanEndedOwner says whether the claimer of a stamp is a role that
// ended: a cell it claimed at the tail and never moved the tail past
// (nothing claimed yet) is voided only once a sender needs it.
func chanEndedOwner(s *sched, stamp int32) bool {
	for _, a := range s.agents {
		if s.reg != 0 && a.a.ID != 0 && stamp&^(1<<proto.ChanOwnerShift-1) == chanMark(s, a) {
			return a.ended
		}
	}
	return false
}

func chanScenario(name string, roles ...role) *scenario {
	return &scenario{
		name: "Channel: " + name, roles: roles, words: chanWords, steps: 300, check: chanChecked,
		init: func(s *sched) {
			s.ch = chanState{sent: map[int32]bool{}, pending: map[int32]int{}, got: map[int32]int{}, last: map[int32]int32{}, closedAt: -1}
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

// Every schedule with at most two preemptions (-short: one) of the small scenario, of
// one without a close and of the close (the others, select's among them,
// under PCT with the family: TestExploreFamily_pct; a select's polls make
// its schedules too long to enumerate).
func TestExploreChannel_bounded(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	for _, sc := range []*scenario{chanSmall, chanCounted, chanClosing} {
		e := &explorer{t: t, h: ownHost(t)}
		if f, prefix := e.bounded(sc, boundOf(), 400000); f != "" {
			t.Fatalf("%s, schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ %d preemptions: all %d schedules pass", sc.name, boundOf(), e.runs)
	}
}

// The checks can fail: the select that takes two cases sends a message
// twice, and PCT finds it.
func TestExploreChannelCatchesGreedySelect(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	e := &explorer{t: t, h: ownHost(t)}
	seed, f := e.pctOf([]*scenario{chanSelectGreedy}, 2000, 0)
	if seed < 0 {
		t.Fatal("2000 PCT schedules passed a select that takes two cases")
	}
	t.Logf("caught after %d schedules (seed %d): %s", e.runs, seed, f)
}
