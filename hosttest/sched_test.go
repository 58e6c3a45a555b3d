package hosttest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/sabmutex/sabmutex/internal/futex"
)

// sched is a controlled scheduler at the host-function boundary: every
// import that a core instance calls (each atomic operation, each wait, each
// notify, each clock read) is one step, and the scheduler alone decides which
// agent takes the next step. Exactly one agent runs at a time; the others are
// parked in a host call. Waits and notifies are modelled here (FIFO, like
// Atomics.notify) and time is virtual, so a run is a pure function of the
// scheduler's choices.
type sched struct {
	mem    []int32 // the one memory, handle 0
	agents []*sagent
	cur    *sagent
	nowMs  float64
	stepMs float64 // virtual time per step

	steps, maxSteps int
	blockSeq        int
	pick            func(s *sched, runnable []*sagent) *sagent

	ghosts []ghost // abandoned asynchronous waits (see ghostWait)

	iters    int       // acquisitions by each looping agent
	inCS     int       // agents inside the critical section
	fam      famState  // what the family's roles keep (family_test.go)
	ch       chanState // what the Channel's roles keep (chan_test.go)
	trace    *[]string // the steps, with -explore.trace
	handoffs int       // unlocks in starvation mode, for the log
	failMu   sync.Mutex
	failure  string
	done     chan struct{}
	once     sync.Once
}

type sstatus int

const (
	runnable sstatus = iota
	blocked
	finished
)

// A ghost is an abandoned asynchronous wait on word idx, queued when the
// blockSeq was order.
type ghost struct {
	idx   int32
	order int
}

type sagent struct {
	id       int
	a        *Agent
	status   sstatus
	resume   chan struct{}
	waitIdx  int32
	deadline float64 // virtual ms; +Inf for none
	order    int     // when it blocked: notify wakes in this order
	result   int32   // how its wait ended
	prio     int     // for PCT
}

func newSched(memWords int, stepMs float64, maxSteps int) *sched {
	return &sched{mem: make([]int32, memWords), stepMs: stepMs, maxSteps: maxSteps, done: make(chan struct{})}
}

// fail records the first failure, ends the run, and parks the caller for
// good (its instance is not used again).
func (s *sched) fail(format string, args ...any) {
	s.failMu.Lock()
	if s.failure == "" {
		s.failure = fmt.Sprintf(format, args...)
	}
	s.failMu.Unlock()
	s.once.Do(func() { close(s.done) })
	select {}
}

// choose picks the next agent to run, firing the earliest timeout when
// nobody is runnable. nil: nobody can ever run again.
func (s *sched) choose() *sagent {
	for {
		var rs []*sagent
		for _, a := range s.agents {
			if a.status == runnable {
				rs = append(rs, a)
			}
		}
		if len(rs) > 0 {
			return s.pick(s, rs)
		}
		var first *sagent
		for _, a := range s.agents {
			if a.status == blocked && !math.IsInf(a.deadline, 1) && (first == nil || a.deadline < first.deadline) {
				first = a
			}
		}
		if first == nil {
			return nil
		}
		s.nowMs = math.Max(s.nowMs, first.deadline)
		first.status, first.result = runnable, futex.TimedOut
	}
}

func (s *sched) switchTo(next, me *sagent) {
	if next == me {
		return
	}
	s.cur = next
	next.resume <- struct{}{}
	<-me.resume
}

// step is one scheduling point for agent a.
func (s *sched) step(a *sagent) {
	s.steps++
	s.nowMs += s.stepMs
	if s.steps > s.maxSteps {
		s.fail("no end after %d steps: a livelock", s.maxSteps)
	}
	s.switchTo(s.choose(), a)
}

func (s *sched) stuck() {
	var who []string
	for _, a := range s.agents {
		if a.status == blocked {
			who = append(who, fmt.Sprintf("role %d sleeps on word %d = %d", a.id, a.waitIdx, s.mem[a.waitIdx]))
		}
	}
	s.fail("deadlock, or a lost wake-up: %v, with no timeout and nobody left to wake them", who)
}

func (s *sched) wait(a *sagent, idx, expected int32, timeoutMs float64) int32 {
	s.step(a)
	if s.mem[idx] != expected {
		return futex.NotEqual
	}
	a.status, a.waitIdx, a.order = blocked, idx, s.blockSeq
	s.blockSeq++
	a.deadline = s.nowMs + math.Max(timeoutMs, 0)
	next := s.choose()
	if next == nil {
		s.stuck()
	}
	s.switchTo(next, a)
	return a.result
}

// notify wakes up to count waiters on idx (all if count < 0) in the order
// they blocked: agents, and the ghosts of abandoned waits.
func (s *sched) notify(a *sagent, idx, count int32) int32 {
	s.step(a)
	type waiter struct {
		order int
		agent *sagent // nil: a ghost
	}
	var ws []waiter
	for _, b := range s.agents {
		if b.status == blocked && b.waitIdx == idx {
			ws = append(ws, waiter{b.order, b})
		}
	}
	for _, g := range s.ghosts {
		if g.idx == idx {
			ws = append(ws, waiter{g.order, nil})
		}
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].order < ws[j].order })
	if count >= 0 && int(count) < len(ws) {
		ws = ws[:count]
	}
	for _, w := range ws {
		if w.agent != nil {
			w.agent.status, w.agent.result = runnable, futex.OK
			continue
		}
		for k, g := range s.ghosts {
			if g.order == w.order {
				s.ghosts = append(s.ghosts[:k:k], s.ghosts[k+1:]...)
				break
			}
		}
	}
	return int32(len(ws))
}

// ghostWait is the Atomics.waitAsync of an asynchronous waiter on word idx:
// it queues like any wait, but nobody acts on its wake-up, as when the
// waiter's lockAsync is aborted before it ends. It reports whether it queued
// (else the waitAsync ended at once, "not-equal", and there is nothing to abort).
func (s *sched) ghostWait(a *sagent, idx, expected int32) bool {
	s.step(a)
	if s.mem[idx] != expected {
		return false
	}
	s.ghosts = append(s.ghosts, ghost{idx, s.blockSeq})
	s.blockSeq++
	return true
}

// finish ends agent a's scenario and runs someone else.
func (s *sched) finish(a *sagent) {
	a.status = finished
	next := s.choose()
	if next == nil {
		for _, b := range s.agents {
			if b.status != finished {
				s.stuck()
			}
		}
		s.once.Do(func() { close(s.done) })
		return
	}
	s.cur = next
	next.resume <- struct{}{}
}

// The critical section: a few steps, during which nobody else may be inside.
func (s *sched) enter(a *sagent) {
	s.step(a)
	if s.inCS != 0 {
		s.fail("mutual exclusion broken: role %d entered while another role was inside", a.id)
	}
	s.inCS++
	s.step(a)
	s.step(a)
}

func (s *sched) leave(a *sagent) {
	s.step(a)
	s.inCS--
}

// schedEnv makes every import of one agent a step of s. Memories other
// than the scenario's (handle 0: the registry of watched agents) are the
// host's, reached without a step: one agent runs at a time, so the watch's
// records are read and written whole.
type schedEnv struct {
	s *sched
	a *sagent
}

func (e schedEnv) Load(mem, i int32) int32 {
	if mem != 0 {
		return futexEnv{e.a.a.host}.Load(mem, i)
	}
	e.s.step(e.a)
	if e.s.trace != nil {
		e.s.tracef(e.a, "load [%d] = %d", i, e.s.mem[i])
	}
	return e.s.mem[i]
}
func (e schedEnv) Store(mem, i, v int32) {
	if mem != 0 {
		futexEnv{e.a.a.host}.Store(mem, i, v)
		return
	}
	e.s.step(e.a)
	if e.s.trace != nil {
		e.s.tracef(e.a, "store [%d] %d -> %d", i, e.s.mem[i], v)
	}
	e.s.mem[i] = v
}
func (e schedEnv) NowMs() float64 { e.s.step(e.a); return e.s.nowMs }
func (e schedEnv) CompareExchange(mem, i, old, new int32) int32 {
	if mem != 0 {
		return futexEnv{e.a.a.host}.CompareExchange(mem, i, old, new)
	}
	e.s.step(e.a)
	v := e.s.mem[i]
	if e.s.trace != nil {
		e.s.tracef(e.a, "cas [%d] %d -> %d: saw %d", i, old, new, v)
	}
	if v == old {
		e.s.mem[i] = new
		if i == 0 && new == 4 { // the hand-off word (wasm/core/protocol.go)
			e.s.handoffs++
		}
	}
	return v
}
func (e schedEnv) Wait(_, i, expected int32, timeoutMs float64) int32 {
	if e.s.trace != nil {
		e.s.tracef(e.a, "wait [%d] == %d, %v ms", i, expected, timeoutMs)
	}
	r := e.s.wait(e.a, i, expected, timeoutMs)
	if e.s.trace != nil {
		e.s.tracef(e.a, "wait [%d] ended: %d", i, r)
	}
	return r
}
func (e schedEnv) Notify(mem, i, count int32) int32 {
	if mem != 0 {
		return futexEnv{e.a.a.host}.Notify(mem, i, count) // (nobody sleeps on the registry in a scenario)
	}
	n := e.s.notify(e.a, i, count)
	if e.s.trace != nil {
		e.s.tracef(e.a, "notify [%d] %d: woke %d", i, count, n)
	}
	return n
}

// tracef records a step for -explore.trace. (Callers test s.trace first:
// boxing the arguments would cost every step.)
func (s *sched) tracef(a *sagent, format string, args ...any) {
	if s.trace != nil {
		*s.trace = append(*s.trace, fmt.Sprintf("%6d role %d: ", s.steps, a.id)+fmt.Sprintf(format, args...))
	}
}

// run plays each role of cast, on the instance as[i] of the same index, under s, and returns the failure, if
// any ("" when every agent finished and every check held).
func (s *sched) run(as []*Agent, cast []role) string {
	for i, a := range as {
		sa := &sagent{id: i, a: a, resume: make(chan struct{})}
		s.agents = append(s.agents, sa)
		a.SetEnv(schedEnv{s, sa})
	}
	for i, sa := range s.agents {
		go func() {
			<-sa.resume
			cast[i].play(s, sa)
			s.finish(sa)
		}()
	}
	first := s.choose()
	s.cur = first
	first.resume <- struct{}{}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.failMu.Lock()
		s.failure = "the schedule did not end in 30 s of real time: an agent blocked outside the scheduler"
		s.failMu.Unlock()
	}
	s.failMu.Lock()
	defer s.failMu.Unlock()
	return s.failure
}

// pct is a PCT scheduler (Burckhardt et al., "A randomized scheduler with
// probabilistic guarantees of finding bugs"): random distinct priorities,
// and depth-1 random points at which the running agent drops to the lowest
// priority. The highest-priority runnable agent always runs.
func pct(seed uint64, n, depth, length int) func(s *sched, rs []*sagent) *sagent {
	rng := rand.New(rand.NewPCG(seed, 0x5ab))
	prios := rng.Perm(n)
	changes := map[int]int{}
	for i := 1; i < depth; i++ {
		changes[1+rng.IntN(length)] = -i
	}
	initial := true
	return func(s *sched, rs []*sagent) *sagent {
		if initial {
			for i, a := range s.agents {
				a.prio = depth + prios[i]
			}
			initial = false
		}
		if p, ok := changes[s.steps]; ok && s.cur != nil {
			s.cur.prio = p
		}
		best := rs[0]
		for _, a := range rs[1:] {
			if a.prio > best.prio {
				best = a
			}
		}
		return best
	}
}

// uniform picks a random runnable agent at every step: many more switches
// than PCT, so woken waiters often find the mutex taken again.
func uniform(seed uint64) func(s *sched, rs []*sagent) *sagent {
	rng := rand.New(rand.NewPCG(seed, 0x5ab))
	return func(s *sched, rs []*sagent) *sagent { return rs[rng.IntN(len(rs))] }
}

// A decision of the bounded exhaustive search: which agents could run, which
// did, and whether running another than the current one preempts it.
type decision struct {
	options    []int
	chosen     int
	preemptive bool
}

// scripted follows forced choices, then keeps running the current agent
// while it can (else the lowest-numbered runnable one), recording every
// decision with more than one option.
func scripted(forced []int, log *[]decision) func(s *sched, rs []*sagent) *sagent {
	return func(s *sched, rs []*sagent) *sagent {
		if len(rs) == 1 {
			return rs[0]
		}
		def := rs[0]
		curRunnable := false
		for _, a := range rs {
			if a == s.cur {
				def, curRunnable = a, true
			}
		}
		choice := def
		if k := len(*log); k < len(forced) {
			for _, a := range rs {
				if a.id == forced[k] {
					choice = a
				}
			}
		}
		d := decision{chosen: choice.id, preemptive: curRunnable}
		for _, a := range rs {
			d.options = append(d.options, a.id)
		}
		*log = append(*log, d)
		return choice
	}
}
