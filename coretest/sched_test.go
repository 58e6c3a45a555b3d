package coretest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/sabmutex/sabmutex/internal/testing/futex"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// sched is a controlled scheduler at the host-function boundary: every
// import that a core instance calls (each atomic operation, each wait, each
// notify, each clock read) is one step, and the scheduler alone decides which
// agent takes the next step. Exactly one agent runs at a time; the others are
// parked in a host call. Waits and notifies are modelled here (FIFO, like
// Atomics.notify) and time is virtual, so a run is a pure function of the
// scheduler's choices.
//
// The scheduler holds the memories it explores: the scenario's (handle 0)
// and, for watched agents, their registry (handle reg), a copy that each
// schedule starts afresh (explorer.play), so that joining, the records and
// the watch's reads of them are steps like any other. Other handles are the
// host's, reached without a step (no scenario uses one).
//
// Two more kinds of choice, for the scenarios that ask for them:
//
//	jumps   time may pass at any step: the earliest timeout fires while
//	        others could run (the clock is then one of the options; a
//	        choice of it counts as a preemption), as when an agent is
//	        descheduled for a whole watch period. Without it a timeout
//	        fires only when nobody can run, and no watch turn ever
//	        overlaps another agent's steps.
//	stalls  with jumps: the clock may also pass the deadline of a waiter
//	        that a notify woke and that has not run since (a stalled
//	        thread), which then takes its next turn, past its deadline.
//	endIn   an agent ends at a chosen step of its own (sched.doom): it
//	        takes no step from there on, in the middle of a core call if
//	        it is in one (errEnded unwinds the call), as a worker that is
//	        terminated there.
type sched struct {
	mem    []int32   // the scenario's memory, handle 0
	mems   [][]int32 // the memories by handle: mems[0] is mem, mems[reg] the registry's copy (nil: the host's)
	reg    int32     // the registry's handle (0: none explored)
	regMax int32     // the highest registry slot written in this schedule
	// regFixed: nobody joins in this schedule, so the registry's header
	// and every record's id and name stay as they are (localLoad).
	regFixed bool
	agents   []*sagent
	clock    *sagent // the clock, as an option of a choice (jumps)
	jumps    bool
	stalls   bool // with jumps: the clock may pass a woken waiter's deadline too
	// lifeWord, if not 0, is a word of mem that the scheduler adds 1 to
	// (and wakes its sleepers) whenever a role finishes or ends: what the
	// registry's maker learns from the browser (joinMaker).
	lifeWord int32
	// onEnd, if set, runs when an agent ends, before anyone else runs:
	// the maker's news of it (makerNews).
	onEnd func(s *sched, a *sagent)
	// onStore, if set, sees each store to the scenario's memory by agent
	// a (word i, what it held, v) before it is made: an observer of the
	// protocol's own transitions (lockq_explore_test.go).
	onStore func(s *sched, a *sagent, i, was, v int32)
	// onSwap and onNotify, if set, see each compare-exchange that changes
	// a word of the scenario's memory (after it is made) and each notify
	// on it (woke: how many it woke), by agent a (family_test.go's
	// semObserve).
	onSwap   func(s *sched, a *sagent, i, was, v int32)
	onNotify func(s *sched, a *sagent, i, count, woke int32)
	endedAt  int // the schedule's step at which an agent ended (0: none did)
	endAt    int // the scenario's step for its doomed role to end at (scenario.endAt)
	cur      *sagent
	nowMs    float64
	stepMs   float64 // virtual time per step

	steps, maxSteps int
	blockSeq        int
	pick            func(s *sched, runnable []*sagent) *sagent

	ghosts []ghost // abandoned asynchronous waits (see ghostWait)

	iters    int             // acquisitions by each looping agent
	inCS     int             // agents inside the critical section
	fam      famState        // what the family's roles keep (family_test.go)
	ch       chanState       // what the Channel's roles keep (chan_test.go)
	join     joinState       // what the joining roles keep (registry_test.go)
	rd       rdState         // what the read-lock roles keep (watch_explore_test.go)
	dbg      dbgState        // what the debug area's roles keep (debug_explore_test.go)
	names    map[int]nameGot // by role: the entry its lookup returned (names_explore_test.go)
	lq       *lqState        // what the lock queues' roles keep (lockq_explore_test.go)
	trace    *[]string       // the steps, with -explore.trace
	handoffs int             // unlocks in starvation mode, for the log
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

// clockID is the clock's id among a choice's options (sched.jumps): -1
// in a schedule's choices, as the bounded search prints them.
const clockID = -1

type sagent struct {
	id       int
	a        *Agent
	status   sstatus
	ended    bool // it ended (sched.doom), rather than finished its role
	endIn    int  // it ends at its endIn-th step from now (0: the next; -1: never)
	resume   chan struct{}
	waitMem  int32
	waitIdx  int32
	deadline float64 // virtual ms; +Inf for none
	woken    bool    // a notify woke it, and it has not run since (sched.stalls)
	order    int     // when it blocked: notify wakes in this order
	result   int32   // how its wait ended
	prio     int     // for PCT
}

func newSched(memWords, growTo int, stepMs float64, maxSteps int) *sched {
	s := &sched{mem: make([]int32, memWords, growTo), stepMs: stepMs, maxSteps: maxSteps, done: make(chan struct{})}
	s.mems = [][]int32{s.mem}
	s.clock = &sagent{id: clockID, endIn: -1}
	return s
}

// memory is the memory that handle names in the schedule (nil: the host's).
func (s *sched) memory(handle int32) []int32 {
	if int(handle) < len(s.mems) {
		return s.mems[handle]
	}
	return nil
}

// explore makes the scheduler hold memory m as handle h.
func (s *sched) explore(h int32, m []int32) {
	for int(h) >= len(s.mems) {
		s.mems = append(s.mems, nil)
	}
	s.mems[h] = m
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
// nobody is runnable, or when the pick is the clock (jumps). nil: nobody
// can ever run again.
func (s *sched) choose() *sagent {
	for {
		var rs []*sagent
		for _, a := range s.agents {
			if a.status == runnable {
				rs = append(rs, a)
			}
		}
		var first *sagent
		for _, a := range s.agents {
			if a.status == blocked && !math.IsInf(a.deadline, 1) && (first == nil || a.deadline < first.deadline) {
				first = a
			}
		}
		// stalled: a woken waiter whose deadline is still ahead (stalls).
		var stalled *sagent
		for _, a := range rs {
			if s.stalls && a.woken && a.deadline > s.nowMs && !math.IsInf(a.deadline, 1) && (stalled == nil || a.deadline < stalled.deadline) {
				stalled = a
			}
		}
		if len(rs) > 0 {
			if s.jumps && (first != nil || stalled != nil) {
				rs = append(rs, s.clock)
			}
			if next := s.pick(s, rs); next != s.clock {
				next.woken = false
				return next
			}
			if stalled != nil && (first == nil || stalled.deadline < first.deadline) {
				// The stalled waiter runs again, its deadline passed.
				s.nowMs = stalled.deadline
				if s.trace != nil {
					s.tracef(stalled, "stalls past its deadline, %.3f ms", s.nowMs)
				}
				stalled.woken = false
				return stalled
			}
		}
		if first == nil {
			return nil
		}
		s.nowMs = math.Max(s.nowMs, first.deadline)
		first.status, first.result = runnable, futex.TimedOut
		if s.trace != nil {
			s.tracef(first, "its sleep times out at %.3f ms", s.nowMs)
		}
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

// step is one scheduling point for agent a: once it is a's turn again, a
// takes its step, or ends there if its time has come (doom).
func (s *sched) step(a *sagent) {
	s.steps++
	s.nowMs += s.stepMs
	if s.steps > s.maxSteps {
		s.fail("no end after %d steps: a livelock", s.maxSteps)
	}
	s.switchTo(s.choose(), a)
	switch {
	case a.endIn == 0:
		a.endIn, s.endedAt = -1, s.steps
		if s.trace != nil {
			s.tracef(a, "ends here")
		}
		panic(errEnded) // unwound to the role's goroutine (run)
	case a.endIn > 0:
		a.endIn--
	}
}

// doom makes agent a end at its k-th step from now (k from 0: the next
// one); -1 spares it.
func (s *sched) doom(a *sagent, k int) { a.endIn = k }

// endNow ends agent a here, if its doom has not come yet (a role whose
// doomed part is over: it ends at its end at the latest). It does not
// count as ending at its k-th step (endedAt).
func (s *sched) endNow(a *sagent) {
	if s.trace != nil {
		s.tracef(a, "ends here")
	}
	a.endIn = -1
	panic(errEnded)
}

func (s *sched) stuck() {
	var who []string
	for _, a := range s.agents {
		if a.status == blocked {
			if a.waitMem != 0 {
				who = append(who, fmt.Sprintf("role %d sleeps on word %d of memory %d = %d", a.id, a.waitIdx, a.waitMem, s.mems[a.waitMem][a.waitIdx]))
			} else {
				who = append(who, fmt.Sprintf("role %d sleeps on word %d = %d", a.id, a.waitIdx, s.mem[a.waitIdx]))
			}
		}
	}
	s.fail("deadlock, or a lost wake-up: %v, with no timeout and nobody left to wake them", who)
}

func (s *sched) wait(a *sagent, idx, expected int32, timeoutMs float64) int32 {
	return s.waitOn(a, 0, idx, expected, timeoutMs)
}

// waitOn is Atomics.wait on word idx of the memory handle mem.
func (s *sched) waitOn(a *sagent, mem, idx, expected int32, timeoutMs float64) int32 {
	s.step(a)
	if s.mems[mem][idx] != expected {
		return futex.NotEqual
	}
	a.status, a.waitMem, a.waitIdx, a.order = blocked, mem, idx, s.blockSeq
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
	return s.notifyOn(a, 0, idx, count)
}

// notifyOn is Atomics.notify on word idx of the memory handle mem (the
// ghosts of abandoned waits are on handle 0). a nil: not a step of anyone's
// (the scheduler's own news: lifeWord).
func (s *sched) notifyOn(a *sagent, mem, idx, count int32) int32 {
	if a != nil {
		s.step(a)
	}
	type waiter struct {
		order int
		agent *sagent // nil: a ghost
	}
	var ws []waiter
	for _, b := range s.agents {
		if b.status == blocked && b.waitMem == mem && b.waitIdx == idx {
			ws = append(ws, waiter{b.order, b})
		}
	}
	for _, g := range s.ghosts {
		if mem == 0 && g.idx == idx {
			ws = append(ws, waiter{g.order, nil})
		}
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].order < ws[j].order })
	if count >= 0 && int(count) < len(ws) {
		ws = ws[:count]
	}
	for _, w := range ws {
		if w.agent != nil {
			w.agent.status, w.agent.result, w.agent.woken = runnable, futex.OK, true
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
	if s.lifeWord != 0 {
		s.mem[s.lifeWord]++
		s.notifyOn(nil, 0, s.lifeWord, -1)
	}
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

// schedEnv makes every import of one agent a step of s, on the memories s
// holds (handle 0, and the registry where it explores it); other handles
// are the host's, reached without a step.
type schedEnv struct {
	s *sched
	a *sagent
}

func (e schedEnv) Load(mem, i int32) int32 {
	m := e.s.memory(mem)
	if m == nil {
		return futexEnv{e.a.a.host}.Load(mem, i)
	}
	if mem != 0 && e.s.localLoad(e.a, i) {
		return m[i]
	}
	e.s.step(e.a)
	if e.s.trace != nil {
		e.s.tracef(e.a, "load %s = %d", where(mem, i), m[i])
	}
	return m[i]
}
func (e schedEnv) Store(mem, i, v int32) {
	m := e.s.memory(mem)
	if m == nil {
		futexEnv{e.a.a.host}.Store(mem, i, v)
		return
	}
	e.s.step(e.a)
	if e.s.trace != nil {
		e.s.tracef(e.a, "store %s %d -> %d", where(mem, i), m[i], v)
	}
	if mem != 0 {
		e.s.regWrite(e.a, i)
	} else if e.s.onStore != nil {
		e.s.onStore(e.s, e.a, i, m[i], v)
	}
	m[i] = v
}
func (e schedEnv) NowMs() float64 { e.s.step(e.a); return e.s.nowMs }

// Grow grows the scenario's memory (a step of its own) within the words
// the scenario lets it grow to, as a growable buffer grows in every agent's
// sight; the host's memories as the host grows them.
func (e schedEnv) Grow(mem, n int32) int32 {
	if mem != 0 {
		return futexEnv{e.a.a.host}.Grow(mem, n)
	}
	e.s.step(e.a)
	if int(n) > len(e.s.mem) && int(n) <= cap(e.s.mem) {
		if e.s.trace != nil {
			e.s.tracef(e.a, "grow to %d words", n)
		}
		e.s.mem = e.s.mem[:n]
		e.s.mems[0] = e.s.mem
	}
	return int32(len(e.s.mem))
}
func (e schedEnv) CompareExchange(mem, i, old, new int32) int32 {
	m := e.s.memory(mem)
	if m == nil {
		return futexEnv{e.a.a.host}.CompareExchange(mem, i, old, new)
	}
	e.s.step(e.a)
	v := m[i]
	if e.s.trace != nil {
		e.s.tracef(e.a, "cas %s %d -> %d: saw %d", where(mem, i), old, new, v)
	}
	if v == old {
		if mem != 0 {
			e.s.regWrite(e.a, i)
		}
		m[i] = new
		if mem == 0 && i == 0 && new == 4 { // the hand-off word (internal/core/protocol.go)
			e.s.handoffs++
		}
		if mem == 0 && e.s.onSwap != nil {
			e.s.onSwap(e.s, e.a, i, old, new)
		}
	}
	return v
}
func (e schedEnv) Wait(mem, i, expected int32, timeoutMs float64) int32 {
	if e.s.trace != nil {
		e.s.tracef(e.a, "wait %s == %d, %v ms", where(mem, i), expected, timeoutMs)
	}
	r := e.s.waitOn(e.a, mem, i, expected, timeoutMs)
	if e.s.trace != nil {
		e.s.tracef(e.a, "wait %s ended: %d", where(mem, i), r)
	}
	return r
}
func (e schedEnv) Notify(mem, i, count int32) int32 {
	if e.s.memory(mem) == nil {
		return futexEnv{e.a.a.host}.Notify(mem, i, count)
	}
	n := e.s.notifyOn(e.a, mem, i, count)
	if e.s.trace != nil {
		e.s.tracef(e.a, "notify %s %d: woke %d", where(mem, i), count, n)
	}
	if mem == 0 && e.s.onNotify != nil {
		e.s.onNotify(e.s, e.a, i, count, n)
	}
	return n
}

// quietEnv is an agent's imports as no step of anyone's, on the memories s
// holds: what happens at once, between two steps (makerNews). It never
// sleeps.
type quietEnv struct{ s *sched }

func (e quietEnv) Load(mem, i int32) int32 { return e.s.mems[mem][i] }
func (e quietEnv) Store(mem, i, v int32) {
	e.s.mems[mem][i] = v
	if mem != 0 {
		e.s.regMax = max(e.s.regMax, i)
	}
}
func (e quietEnv) NowMs() float64 { return e.s.nowMs }
func (e quietEnv) CompareExchange(mem, i, old, new int32) int32 {
	v := e.s.mems[mem][i]
	if v == old {
		e.Store(mem, i, new)
	}
	return v
}
func (e quietEnv) Wait(mem, i, expected int32, timeoutMs float64) int32 {
	panic("coretest: a quiet call sleeps")
}
func (e quietEnv) Notify(mem, i, count int32) int32 { return e.s.notifyOn(nil, mem, i, count) }
func (e quietEnv) Grow(mem, n int32) int32          { panic("coretest: a quiet call grows a memory") }

// The registry's layout, as internal/core/registry.go defines it (its header,
// then a record per agent), for localLoad.
const (
	regHeaderLen   = 10
	regBaseSlot    = 1
	regJoinedSlot  = 2
	regEpochSlot   = 6 // and 7
	regRecordSlots = 72
	regFieldID     = 0
	regFieldName   = 2  // its length; the name in 11 up to 27, the life lock's name and length in 27 up to 40
	regFieldKind   = 3  // the wait's fields, written by the record's agent alone:
	regFieldLast   = 10 // kind, index, holder, since, wait stamp, read stamp, flags, deadline
	regFieldReads  = 40 // the read counters, which others take back (readersOf)
)

func init() {
	if want := regHeaderLen + 1024*regRecordSlots; proto.RegistrySlots != int32(want) {
		panic(fmt.Sprintf("coretest: the registry has %d slots, the layout here makes %d: update sched_test.go's copy of it", proto.RegistrySlots, want))
	}
}

// localLoad reports whether agent a's load of registry slot i needs no
// scheduling point: nobody else writes that slot in this schedule, so the
// load commutes with every step of theirs (the steps a schedule can put
// before or after it lead to the same states). That holds of the wait's
// fields of a's own record, which only a writes, and, when nobody joins
// (regFixed), of the header's base, joined count and epoch and of each
// record's id and name; and in a debug area, of its header and of a's own
// region. Fewer steps, far fewer schedules: about a third of a watch
// turn's loads, all of a debug writer's. regWrite fails a schedule that writes such a slot,
// so a wrong layout here cannot pass unseen.
func (s *sched) localLoad(a *sagent, i int32) bool {
	if i >= proto.RegistrySlots {
		// The debug area: its header, written before anyone joined, and
		// a's own region, which a alone writes.
		return i < proto.RegistrySlots+proto.DebugHeaderLen || s.ownsRegion(a, i)
	}
	if i < regHeaderLen {
		return s.regFixed && (i == regBaseSlot || i == regJoinedSlot || i == regEpochSlot || i == regEpochSlot+1 || i == 0)
	}
	f := (i - regHeaderLen) % regRecordSlots
	switch {
	case f >= regFieldKind && f <= regFieldLast:
		return s.owns(a, i)
	case f == regFieldID || f == regFieldName || f > regFieldLast && f < regFieldReads:
		return s.regFixed
	}
	return false
}

// owns reports whether registry slot i is in the record that a's instance
// joined as (another task of its agent has none: Host.NewTask).
func (s *sched) owns(a *sagent, i int32) bool {
	return a.a.ID != 0 && !a.a.task && a.a.ID == s.reg0()+(i-regHeaderLen)/regRecordSlots+1
}

// ownsRegion reports whether slot i of the registry's debug area is in
// the region of the agent that a's instance joined as: the n-th to join
// has the n-th (internal/core/debugarea.go).
func (s *sched) ownsRegion(a *sagent, i int32) bool {
	n := (i-proto.RegistrySlots-proto.DebugHeaderLen)/proto.DebugRegionSlots + 1
	return i >= proto.RegistrySlots+proto.DebugHeaderLen && a.a.ID != 0 && !a.a.task && a.a.ID == s.reg0()+n
}

// reg0 is the registry's base: the first record's id less 1.
func (s *sched) reg0() int32 { return s.mems[s.reg][regBaseSlot] }

// regWrite checks a's write to registry slot i against localLoad's rules.
func (s *sched) regWrite(a *sagent, i int32) {
	s.regMax = max(s.regMax, i)
	if i >= proto.RegistrySlots {
		if !s.ownsRegion(a, i) {
			s.fail("role %d (agent %d) wrote slot %d of the debug area, outside its own region, which localLoad takes as its alone", a.id, a.a.ID, i-proto.RegistrySlots)
		}
		return
	}
	if i < regHeaderLen {
		if s.regFixed && i != 3 && i != 4 && i != 5 {
			s.fail("role %d wrote the registry's header slot %d, which localLoad takes as fixed", a.id, i)
		}
		return
	}
	n := (i-regHeaderLen)/regRecordSlots + 1
	switch f := (i - regHeaderLen) % regRecordSlots; {
	case f >= regFieldKind && f <= regFieldLast && !s.owns(a, i):
		s.fail("role %d (agent %d) wrote slot %d of agent %d's record, which localLoad takes as its alone", a.id, a.a.ID, f, s.reg0()+n)
	case s.regFixed && (f == regFieldID || f == regFieldName || f > regFieldLast && f < regFieldReads):
		s.fail("role %d wrote slot %d of agent %d's record, which localLoad takes as fixed", a.id, f, s.reg0()+n)
	}
}

// where names word i of memory mem in a trace: [i] for the scenario's,
// reg[i] for the registry's.
func where(mem, i int32) string {
	if mem == 0 {
		return fmt.Sprintf("[%d]", i)
	}
	return fmt.Sprintf("reg[%d]", i)
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
	if s.agents == nil {
		s.cast(as)
	}
	for i, sa := range s.agents {
		go func() {
			<-sa.resume
			s.playRole(cast[i], sa)
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

// cast makes the schedule's agents, one per instance of as, each role's
// imports steps of s (run does it, unless the scenario's init needed them).
func (s *sched) cast(as []*Agent) {
	for i, a := range as {
		sa := &sagent{id: i, a: a, resume: make(chan struct{}), endIn: -1}
		s.agents = append(s.agents, sa)
		a.SetEnv(schedEnv{s, sa})
	}
}

// playRole plays r as agent a until it finishes, or ends (doom): then its
// call, if it was in one, has been unwound (errEnded), and its instance
// must be restored from its image before it runs again.
func (s *sched) playRole(r role, a *sagent) {
	defer func() {
		if x := recover(); x != nil {
			if x != errEnded {
				panic(x)
			}
			a.ended, a.a.dirty = true, true
			if s.onEnd != nil {
				s.onEnd(s, a)
			}
		}
	}()
	r.play(s, a)
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
		if last := rs[len(rs)-1]; last == s.clock {
			// Time passes at a random step, about every 16th: with a
			// priority of its own, the clock would fire every timeout at
			// once or never.
			if rng.IntN(16) == 0 {
				return last
			}
			rs = rs[:len(rs)-1]
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

// A decision of the bounded exhaustive search: which agents could run (and
// the clock, clockID, where time may pass), which did, and whether running
// another than the current one preempts it.
type decision struct {
	options    []int
	chosen     int
	preemptive bool
}

// cost is what choosing option o instead costs in preemptions: 1 if it
// preempts the current agent, and always for the clock (letting time pass
// while someone could run is a preemption of them all).
func (d decision) cost(o int) int {
	if d.preemptive || o == clockID {
		return 1
	}
	return 0
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
