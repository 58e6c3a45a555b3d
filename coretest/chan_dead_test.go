package coretest

import (
	"fmt"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on a Channel whose agent ends in the middle of a message
// (internal/core/chan.go: a claim names its agent; the watch that finds it
// DEAD voids its cell). A doomed role sends (receives) and ends at each of
// its steps in turn, in its claim, its copy and its commit, or never; the
// maker marks it DEAD (makerNews). The others are watched (their waits
// sleep WATCH_MS at most, then ask the watch) and go on: a message the
// doomed one was sending was never sent, one it was receiving is gone with
// it (chanChecked allows one), and none waits for good. At the end, the
// cells it may still hold (nobody needed them yet) are recovered as a
// watch would, and every cell must then be free for its next position.

// chanDoomedProducer sends 101, and ends at its endAt-th step, at the
// latest once it is sent.
func chanDoomedProducer(s *sched, a *sagent) {
	chanSetUp(s, a, 0)
	s.doom(a, s.endAt)
	chanSend(s, a, 101, "block")
	if s.endAt >= 0 {
		s.endNow(a)
	}
}

// chanDoomedConsumer receives once, and ends likewise.
func chanDoomedConsumer(s *sched, a *sagent) {
	chanSetUp(s, a, 0)
	s.doom(a, s.endAt)
	chanRecv(s, a, "block")
	if s.endAt >= 0 {
		s.endNow(a)
	}
}

// chanSender sends p*100+1 ... +n (blocking or asynchronously), then closes
// the channel.
func chanSender(p, n int32, how string) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		chanSetUp(s, a, 0)
		for i := range n {
			if sent, _ := chanSend(s, a, p*100+1+i, how); !sent {
				s.fail("role %d: a send that waits for good ended with nothing sent", a.id)
				return
			}
		}
		chanCloseNow(s, a)
	}
}

// chanDeadChecked is chanChecked, after the maker recovers what the roles
// that ended still hold (as a watch that needed their cells would), with
// every cell then free for the next position it takes.
func chanDeadChecked(s *sched) string {
	m := s.agents[0]
	m.a.SetEnv(quietEnv{s})
	defer m.a.SetEnv(schedEnv{s, m})
	for _, a := range s.agents {
		if a.ended {
			if r := m.a.Call(proto.OpRecover, 0, 0, proto.KindChanRoom, a.a.ID); r != resultOK {
				return fmt.Sprintf("the maker's recover of role %d = %d", a.id, r)
			}
		}
	}
	if f := chanChecked(s); f != "" {
		return f
	}
	t := s.mem[proto.ChanTail] & proto.ChanPosMask
	for k := range int32(chanCap) {
		q := (t + (k-t%chanCap+chanCap)%chanCap) % (2 * chanCap) // the next position of cell k
		if cell := cellOf(0, k); s.mem[cell] != q/chanCap {
			return fmt.Sprintf("after the schedule: cell %d: stamp %#x; want free for position %d (stamp %d)", k, s.mem[cell], q, q/chanCap)
		}
	}
	return ""
}

func chanDeadScenario(name string, roles ...role) *scenario {
	sc := chanScenario(name, roles...)
	sc.onEnd, sc.check, sc.steps = makerNews, chanDeadChecked, 400
	return sc
}

var (
	// A sender ends at each step of its send; a survivor sends one and
	// closes; a watched consumer drains it.
	chanSenderEnds = chanDeadScenario("a sender ends at each step of a send, watched others go on",
		role{idle, 0}, role{chanDoomedProducer, 1}, role{chanSender(2, 1, "block"), 2}, role{chanConsumer("block"), 3})
	// A receiver ends at each step of its receive; a watched producer
	// sends three (so it comes round to the first cell), a survivor
	// consumer drains it.
	chanReceiverEnds = chanDeadScenario("a receiver ends at each step of a receive, watched others go on",
		role{idle, 0}, role{chanSender(2, 3, "async"), 1}, role{chanDoomedConsumer, 2}, role{chanConsumer("block"), 3})
	chanEndingScenarios = []*scenario{chanSenderEnds, chanReceiverEnds}
)

// Each end at every step with ≤ 1 preemption (the end counts as one: 0
// besides it), then PCT schedules (an end at a step of 50, or never). Four
// roles are past the reach of the bound of 2 that exploreEnding gives
// without -short (over 400,000 schedules).
func TestExploreChannelAgentEnds(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	for _, sc := range chanEndingScenarios {
		e := &explorer{t: t, h: watchedHost(t), every: shortSample()}
		n, first := pctRuns(2000), int64(0)
		if *exploreSeed >= 0 {
			n, first = 1, *exploreSeed
		} else {
			f, ks := e.endAtEveryStep(sc, 1)
			if f != "" {
				t.Fatalf("%s: %s", sc.name, f)
			}
			t.Logf("%s, ≤ 1 preemption (the end counts as one), ending at each of its %d steps and never%s: all %d schedules pass", sc.name, ks, sampled(e), e.runs)
		}
		runs := e.runs
		if seed, f := e.pctEnding(sc, n, first); seed >= 0 {
			t.Fatalf("%s: PCT seed %d: %s\nreplay: -run %s -explore.seed=%d", sc.name, seed, f, t.Name(), seed)
		}
		t.Logf("%s: %d PCT schedules pass", sc.name, e.runs-runs)
	}
}

// chanHeldByDead: a receiver (role 1) claimed the message at position 0
// and ended copying it out, before the schedule; position 1 holds message
// 901. Two watched senders, blocking and asynchronous, wait for the cell it
// holds, time passing at any step (so their watches overlap): one voids it
// (the message it took is gone), the other finds it voided, and a consumer
// drains the channel.
var chanHeldByDead = func() *scenario {
	sc := chanScenario("a receiver ended holding a cell, two watched senders find it dead",
		role{idle, 0}, role{func(s *sched, a *sagent) { s.endNow(a) }, 1},
		role{chanProducer(2, 2, "block"), 2}, role{chanProducer(3, 2, "async"), 3}, role{chanConsumer("block"), 4})
	init := sc.init
	sc.init = func(s *sched) {
		init(s)
		s.mem[proto.ChanCapacityAt], s.mem[proto.ChanCellSizeAt] = chanCap, chanCellSlots
		s.mem[proto.ChanHead], s.mem[proto.ChanTail] = 1, 2
		chanOurs(s)
		c0, c1 := cellOf(0, 0), cellOf(0, 1)
		s.mem[c0], s.mem[c0+1], s.mem[c0+2] = proto.ChanFull|chanMark(s, s.agents[1]), 4, 900
		s.mem[c1], s.mem[c1+1], s.mem[c1+2] = proto.ChanFull, 4, 901
		s.ch.sent[901], s.ch.last[9] = true, 900
	}
	sc.onEnd, sc.check, sc.steps, sc.jumps, sc.endAt = makerNews, chanDeadChecked, 400, true, -1
	return sc
}()

// chanTwoVoid: as chanHeldByDead, with no consumer: two senders wait
// (blocking, 120 ms at most) for the cell a receiver that ended holds; one
// of them sends into it once a watch has voided it, the other's time runs
// out (the channel is full again), or both time out; time passes at any step, so that the
// watches overlap. Small enough for the bounded search.
var chanTwoVoid = func() *scenario {
	send := func(p int32) func(s *sched, a *sagent) {
		return func(s *sched, a *sagent) {
			chanSetUp(s, a, 0)
			chanSend(s, a, p*100+1, "long")
		}
	}
	sc := chanScenario("a receiver ended holding a cell, two senders' watches race, no consumer",
		role{idle, 0}, role{func(s *sched, a *sagent) { s.endNow(a) }, 1}, role{send(2), 2}, role{send(3), 3})
	sc.init = chanHeldByDead.init
	sc.onEnd, sc.steps, sc.endAt, sc.jumps = makerNews, 400, -1, true
	sc.check = func(s *sched) string {
		c0, dead := cellOf(0, 0), chanMark(s, s.agents[1])
		switch n := len(s.ch.sent); {
		case n == 1 && (s.mem[c0] == proto.ChanFull|dead || s.mem[c0] == proto.ChanLap):
			return "" // both timed out (time passes at any step), before a watch or after it
		case n != 2:
			return fmt.Sprintf("%d messages sent, want 901 and one of the two senders' (cell 0: stamp %#x)", n, s.mem[c0])
		case !s.ch.sent[s.mem[c0+2]] || s.mem[c0+2] == 901:
			return fmt.Sprintf("cell 0 holds %d, not the message sent", s.mem[c0+2])
		case s.mem[c0] != proto.ChanFull|proto.ChanLap || s.mem[proto.ChanHead] != 1 || s.mem[proto.ChanTail]&proto.ChanPosMask != 3:
			return fmt.Sprintf("cell 0: stamp %#x; head %d, tail %#x: want the message at position 2 and the channel full", s.mem[c0], s.mem[proto.ChanHead], s.mem[proto.ChanTail])
		}
		return ""
	}
	return sc
}()

func TestExploreChannelTwoVoid(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	exploreBoth(t, chanTwoVoid)
}

// PCT only: five roles, two of them watched, are past the bounded search's
// reach.
func TestExploreChannelHeldByDead(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	e := &explorer{t: t, h: watchedHost(t)}
	n, first := pctRuns(2000), int64(0)
	if *exploreSeed >= 0 {
		n, first = 1, *exploreSeed
	}
	if seed, f := e.pctOf([]*scenario{chanHeldByDead}, n, first); seed >= 0 {
		t.Fatalf("%s: PCT seed %d: %s\nreplay: -run %s -explore.seed=%d", chanHeldByDead.name, seed, f, t.Name(), seed)
	}
	t.Logf("%s: %d PCT schedules pass", chanHeldByDead.name, e.runs)
}

// chanVoidRace: a sender (role 1) claimed position 0 and ended before its
// copy; position 1 holds 901, and the channel is full. Two watches race to
// void the dead sender's cell (the recover a watch runs once it finds the
// sender DEAD): role 2, and the consumer (role 3) before it drains the
// channel, while a sender (role 4) sends 401 into position 2 (cell 0 again,
// a lap on, once the void is received) and closes. Exactly one watch voids
// the cell: a second that took it too, late, would void the claim made
// since, and 401 with it (the fault chantwice, found with 2 preemptions).
var chanVoidRace = func() *scenario {
	recover := func(s *sched, a *sagent) {
		if r := a.a.Call(proto.OpRecover, 0, 0, proto.KindChanRoom, s.agents[1].a.ID); r != resultOK {
			s.fail("role %d: recover = %d", a.id, r)
		}
	}
	consume := chanConsumer("block")
	sc := chanScenario("two watches race to void a dead sender's cell, a sender and a consumer go on",
		role{idle, 0}, role{func(s *sched, a *sagent) { s.endNow(a) }, 1}, role{recover, 2},
		role{func(s *sched, a *sagent) { recover(s, a); consume(s, a) }, 3}, role{chanSender(4, 1, "block"), 4})
	init := sc.init
	sc.init = func(s *sched) {
		init(s)
		s.mem[proto.ChanCapacityAt], s.mem[proto.ChanCellSizeAt] = chanCap, chanCellSlots
		s.mem[proto.ChanTail] = 2
		chanOurs(s)
		c0, c1 := cellOf(0, 0), cellOf(0, 1)
		s.mem[c0] = chanMark(s, s.agents[1])
		s.mem[c1], s.mem[c1+1], s.mem[c1+2] = proto.ChanFull, 4, 901
		s.ch.sent[901], s.ch.last[9] = true, 900
	}
	sc.onEnd, sc.check, sc.steps, sc.endAt, sc.jumps = makerNews, chanDeadChecked, 400, -1, true
	return sc
}()

// ≤ 1 preemption, then PCT schedules: with time passing at any step, the
// bound of 2 is past 400,000 schedules. The broken core is caught with 2
// (TestExploreCatchesBrokenCores, chantwice), by a search that stops at
// its first failure.
func TestExploreChannelVoidRace(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	e := &explorer{t: t, h: watchedHost(t), every: shortSample()}
	n, first := pctRuns(2000), int64(0)
	if *exploreSeed >= 0 {
		n, first = 1, *exploreSeed
	} else {
		if f, prefix := e.bounded(chanVoidRace, 1, 400000); f != "" {
			t.Fatalf("%s: schedule %v: %s", chanVoidRace.name, prefix, f)
		}
		t.Logf("%s, ≤ 1 preemption%s: all %d schedules pass", chanVoidRace.name, sampled(e), e.runs)
	}
	runs := e.runs
	if seed, f := e.pctOf([]*scenario{chanVoidRace}, n, first); seed >= 0 {
		t.Fatalf("%s: PCT seed %d: %s\nreplay: -run %s -explore.seed=%d", chanVoidRace.name, seed, f, t.Name(), seed)
	}
	t.Logf("%s: %d PCT schedules pass", chanVoidRace.name, e.runs-runs)
}
