package hosttest

import (
	"context"
	"flag"
	"fmt"
	"math"
	"testing"
)

var (
	exploreSeed = flag.Int64("explore.seed", -1, "replay one PCT schedule of TestExplore_pct: the seed a failure printed")
	exploreRuns = flag.Int("explore.runs", 10000, "PCT schedules that TestExplore_pct runs (-short: a tenth)")
)

// Virtual time: each step is 1 µs, and a timed lock gives up after 30 µs.
const (
	stepMs     = 0.001
	slowStepMs = 0.3
	timeoutMs  = 0.03
)

// The scenario of each agent: 0 blocks in lock (a worker), 1 drives the
// asynchronous loop (a page's lockAsync), 2 uses a timed lock, tryLock and an
// aborted lockAsync. Every return is checked.
var scenarios = []func(s *sched, a *sagent){
	func(s *sched, a *sagent) {
		for range s.iters {
			if r := a.a.Lock(0, 0, math.Inf(1)); r != resultOK {
				s.fail("agent %d: lock = %d", a.id, r)
			}
			critical(s, a)
		}
	},
	func(s *sched, a *sagent) {
		for range s.iters {
			if r := a.a.LockAsync(0, 0, math.Inf(1)); r != resultOK {
				s.fail("agent %d: lockAsync = %d", a.id, r)
			}
			critical(s, a)
		}
	},
	func(s *sched, a *sagent) {
		start := s.nowMs
		switch r := a.a.Lock(0, 0, timeoutMs); r {
		case resultOK:
			critical(s, a)
		case resultBusy:
			if waited := s.nowMs - start; waited < timeoutMs {
				s.fail("agent %d: lock(%v ms) gave up after %v ms", a.id, timeoutMs, waited)
			}
		default:
			s.fail("agent %d: lock(timeout) = %d", a.id, r)
		}
		if r := a.a.TryLock(0, 0); r == resultOK {
			critical(s, a)
		} else if r != resultBusy {
			s.fail("agent %d: tryLock = %d", a.id, r)
		}
		// A lockAsync that is aborted while it waits: its waitAsync stays
		// queued (a ghost) until abandonWait clears it.
		switch r := a.a.LockStep(0, 0, math.Inf(1), s.nowMs, wokenFirst); {
		case r == resultOK:
			critical(s, a)
		case r >= 0:
			s.ghostWait(a, r)
			a.a.AbandonWait(0, 0)
		default:
			s.fail("agent %d: lockStep = %d", a.id, r)
		}
	},
}

func critical(s *sched, a *sagent) {
	s.enter(a)
	s.leave(a)
	if r := a.a.Unlock(0, 0); r != resultOK {
		s.fail("agent %d: unlock = %d", a.id, r)
	}
}

// explorer owns a host and agents for schedule after schedule; a failed
// schedule leaves its agents parked, so the next one gets new agents.
type explorer struct {
	t        testing.TB
	h        *Host
	as       []*Agent
	runs     int
	handoffs int // schedules in which an unlock handed the mutex off
}

func (e *explorer) one(n int, pick func(*sched, []*sagent) *sagent) string {
	return e.oneAt(n, stepMs, 2, pick)
}

// oneAt runs one schedule with the given virtual time per step, and the
// given number of acquisitions by agents 0 and 1.
func (e *explorer) oneAt(n int, stepMs float64, iters int, pick func(*sched, []*sagent) *sagent) string {
	if e.as == nil {
		e.as = make([]*Agent, n)
		for i := range e.as {
			a, err := e.h.NewAgent(context.Background())
			if err != nil {
				e.t.Fatal(err)
			}
			e.as[i] = a
		}
	}
	e.runs++
	s := newSched(2, stepMs, 200000)
	s.pick, s.iters = pick, iters
	failure := s.run(e.as, scenarios[:n])
	if s.handoffs > 0 {
		e.handoffs++
	}
	if failure != "" {
		e.as = nil
	}
	return failure
}

// pctSchedules runs PCT schedules until one fails; it returns that seed and
// failure, or -1.
func (e *explorer) pctSchedules(runs int, first int64) (int64, string) {
	for i := range int64(runs) {
		seed := first + i
		n := 2 + int(seed%2) // 2 or 3 agents
		// Every third schedule picks at random at every step, in slow virtual
		// time (0.3 ms a step), so that waits pass the 1 ms starvation
		// threshold and unlocks hand off.
		step, iters, pick := stepMs, 2, pct(uint64(seed), n, 2+int(seed%5), 60)
		if seed%3 == 2 {
			step, iters, pick = slowStepMs, 4, uniform(uint64(seed))
		}
		if f := e.oneAt(n, step, iters, pick); f != "" {
			return seed, f
		}
	}
	return -1, ""
}

// TestExplore_pct: at least 10,000 seeded random schedules of 2 and 3 agents
// (two in three PCT, depth 2 to 6; one in three uniformly random), checking mutual exclusion, that every waiter gets the mutex (no
// lost wake-up), and timeouts. A failure prints its seed; -explore.seed
// replays it.
func TestExplore_pct(t *testing.T) {
	e := &explorer{t: t, h: host}
	runs, first := *exploreRuns, int64(0)
	if testing.Short() {
		runs /= 10
	}
	if *exploreSeed >= 0 {
		runs, first = 1, *exploreSeed
	}
	if seed, f := e.pctSchedules(runs, first); seed >= 0 {
		t.Fatalf("schedule seed %d: %s\nreplay: go test ./hosttest -run TestExplore_pct -explore.seed=%d", seed, f, seed)
	}
	t.Logf("%d schedules, no failure; %d of them handed the mutex off in starvation mode", e.runs, e.handoffs)
}

// TestExplore_bounded: every schedule of 2 and of 3 agents with at most two
// preemptions (switching away from an agent that could go on); -short: 2
// agents only.
func TestExplore_bounded(t *testing.T) {
	for _, c := range []struct{ agents, preemptions int }{{2, 2}, {3, 2}} {
		if testing.Short() && c.agents > 2 {
			continue
		}
		e := &explorer{t: t, h: host}
		if f, prefix := e.bounded(c.agents, c.preemptions, 200000); f != "" {
			t.Fatalf("%d agents, schedule %v: %s", c.agents, prefix, f)
		}
		t.Logf("%d agents, ≤ %d preemptions: all %d schedules pass", c.agents, c.preemptions, e.runs)
	}
}

// bounded runs every schedule with at most bound preemptions (up to limit
// schedules), depth first; it returns the first failure and its choices.
func (e *explorer) bounded(n, bound, limit int) (string, []int) {
	type job struct {
		forced      []int
		preemptions int
	}
	stack := []job{{}}
	for len(stack) > 0 && e.runs < limit {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var log []decision
		if f := e.one(n, scripted(j.forced, &log)); f != "" {
			return f, j.forced
		}
		for k := len(j.forced); k < len(log); k++ {
			d := log[k]
			cost := j.preemptions
			if d.preemptive {
				cost++
			}
			if cost > bound {
				continue
			}
			for _, o := range d.options {
				if o == d.chosen {
					continue
				}
				forced := make([]int, k+1)
				for i := range k {
					forced[i] = log[i].chosen
				}
				forced[k] = o
				stack = append(stack, job{forced, cost})
			}
		}
	}
	if len(stack) > 0 {
		return fmt.Sprintf("more than %d schedules: raise the limit or lower the bound", limit), nil
	}
	return "", nil
}

// The explorer has teeth: a core whose unlock forgets to wake a waiter (build
// tag sabmutex_broken) must be caught.
func TestExploreCatchesBrokenCore(t *testing.T) {
	dir := t.TempDir()
	path, err := BuildCore(dir, "sabmutex_broken")
	if err != nil {
		t.Fatal(err)
	}
	broken, err := NewHost(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	e := &explorer{t: t, h: broken}
	seed, f := e.pctSchedules(2000, 0)
	if seed < 0 {
		t.Fatal("2000 PCT schedules did not catch a core whose unlock forgets to notify")
	}
	t.Logf("caught after %d schedules (seed %d): %s", e.runs, seed, f)
	e2 := &explorer{t: t, h: broken}
	if f, _ := e2.bounded(2, 2, 200000); f == "" {
		t.Fatal("the bounded search did not catch a core whose unlock forgets to notify")
	}
}
