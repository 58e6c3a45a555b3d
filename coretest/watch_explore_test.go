package coretest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on the watch (internal/core/watch.go) over a registry whose
// accesses are steps: agents that joined it, their waits watched (sleeps of
// WATCH_MS at most, then a watch: a turn of the wait's record, in a
// blocking wait and in WaitAsync's, as in the glue's).

// -------- A dead holder. Role 1 holds the Mutex at 0 (A) and ends at each
// step in turn: in the middle of its own watched wait for the Mutex at 2
// (B, which the maker, role 0, holds for good) and of that wait's watch
// turn, then holding A at the latest. The maker marks it DEAD (makerNews);
// a watched waiter, blocking or asynchronous, finds it dead: its watch
// frees A, and its next turn takes A, told RESULT_HOLDER_DIED. The twin,
// the same holder never ending, frees nothing: the waiter takes A once the
// holder unlocks it, told nothing. Then two watched waiters, one blocking
// and one asynchronous, find a holder dead, time passing at any step (so
// their watch turns overlap): each gets A once, one at a time (the
// critical section), and exactly one is told.

const (
	deadA = 0
	deadB = 2
)

// makerNews is the maker's news of agent a's end: the maker (role 0) is
// granted a's life lock and tells the registry (OP_REGISTRY_ENDED) at once,
// a step of nobody's. (News that comes later only makes the watches find a
// alive for longer, as they do while it lives.) Every role of these
// scenarios joined before the schedule, LIVE, so the news is never refused.
func makerNews(s *sched, a *sagent) {
	m := s.agents[0]
	m.a.SetEnv(quietEnv{s})
	r := m.a.Call(proto.OpRegistryEnded, s.reg, 0, a.a.ID, 0)
	m.a.SetEnv(schedEnv{s, m})
	if s.trace != nil {
		s.tracef(m, "the maker's news: role %d ended (%d)", a.id, r)
	}
	if r != resultOK {
		s.fail("the maker: OP_REGISTRY_ENDED of role %d, LIVE, = %d", a.id, r)
	}
}

// idle is the maker's role: it does nothing but what makerNews does.
func idle(*sched, *sagent) {}

// holderThatEnds holds A (the scenario's init gave it to it), and (doomed
// from the start) waits for B for 60 ms: a watch turn at 50 ms, then its
// deadline; it ends, still holding A, at the latest right after that wait
// (endNow). Spared (endAt -1), it unlocks A.
func holderThatEnds(s *sched, a *sagent) {
	s.doom(a, s.endAt)
	if r := a.a.Lock(0, deadB, 60); r != resultBusy {
		s.fail("role %d: lock B (held by the maker, for good) = %d, want busy", a.id, r)
	}
	s.step(a)
	if s.endAt >= 0 {
		s.endNow(a) // at the latest, here
	}
	s.fam.runs++ // (unlocked by its holder)
	expectOK(s, a, "unlock A", a.a.Unlock(0, deadA))
}

// deadWaiter locks A (blocking, or asynchronously) and unlocks it.
func deadWaiter(async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		lock := a.a.Lock
		if async {
			lock = a.a.LockAsync
		}
		switch r := lock(0, deadA, inf); r {
		case resultDied:
			s.fam.lastN++ // deaths told
		case resultOK:
		default:
			s.fail("role %d: lock A = %d", a.id, r)
		}
		critical(s, a)
	}
}

// deadInit gives A to role 1 and B to the maker.
func deadInit(s *sched) {
	s.mem[deadA], s.mem[deadA+1] = 1, s.agents[1].a.ID
	s.mem[deadB], s.mem[deadB+1] = 1, s.agents[0].a.ID
}

// deadChecked: told once if the holder ended, else never, and A left free.
func deadChecked(s *sched) string {
	ended := s.agents[1].ended
	switch {
	case ended && s.fam.lastN != 1:
		return fmt.Sprintf("the holder ended; its death was told %d times, want once", s.fam.lastN)
	case !ended && (s.fam.lastN != 0 || s.fam.runs != 1):
		return fmt.Sprintf("the holder lived: its death was told %d times, want never", s.fam.lastN)
	case s.mem[deadA] != 0:
		return fmt.Sprintf("A's word ends at %d, want 0 (free)", s.mem[deadA])
	}
	return ""
}

func deadWatchScenario(async bool) *scenario {
	what := "blocking"
	if async {
		what = "asynchronous"
	}
	return &scenario{
		name:  "Mutex: its holder ends at a step of its own watched wait, a watched " + what + " waiter finds it dead",
		roles: []role{{idle, 0}, {holderThatEnds, 1}, {deadWaiter(async), 2}},
		words: 4, steps: 200, onEnd: makerNews, init: deadInit, check: deadChecked,
	}
}

var (
	deadWatchBlocking = deadWatchScenario(false)
	deadWatchAsync    = deadWatchScenario(true)
	deadWatchTwo      = &scenario{
		name:  "Mutex: a dead holder, two watched waiters (blocking, asynchronous), time passing at any step",
		roles: []role{{idle, 0}, {func(s *sched, a *sagent) { s.endNow(a) }, 1}, {deadWaiter(false), 2}, {deadWaiter(true), 3}},
		words: 4, steps: 200, onEnd: makerNews, init: deadInit, check: deadChecked, jumps: true, endAt: -1,
	}
)

func TestExploreWatchDeadHolder(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	exploreEnding(t, deadWatchBlocking)
	exploreEnding(t, deadWatchAsync)
	exploreBoth(t, deadWatchTwo)
}

// exploreBoth runs the bounded search of sc (≤ 2 preemptions; -short: 1)
// and PCT schedules; with -explore.seed, that PCT schedule alone.
func exploreBoth(t *testing.T, sc *scenario) {
	e := &explorer{t: t, h: watchedHost(t)}
	e.h.Debug = sc.debug
	n, first := pctRuns(2000), int64(0)
	if *exploreSeed >= 0 {
		n, first = 1, *exploreSeed
	} else {
		if f, prefix := e.bounded(sc, boundOf(), 400000); f != "" {
			t.Fatalf("%s: schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ %d preemptions: all %d schedules pass", sc.name, boundOf(), e.runs)
	}
	runs := e.runs
	if seed, f := e.pctOf([]*scenario{sc}, n, first); seed >= 0 {
		t.Fatalf("%s: PCT seed %d: %s\nreplay: -run %s -explore.seed=%d", sc.name, seed, f, t.Name(), seed)
	}
	t.Logf("%s: %d PCT schedules pass", sc.name, e.runs-runs)
}

// -------- Deadlocks. Role 0 (A, the lower id) holds the Mutex at 0 (X),
// role 1 (B) the one at 2 (Y); each then waits, blocking, for the other's,
// time passing at any step. Exactly A's wait ends with RESULT_CYCLE, having
// taken nothing; A then lets X go, and B takes it. Then the same shape
// where the cycle is not certain, and never told: B's wait has a deadline
// (it ends, and B lets Y go), or A has let X go by the time it waits (B's
// record, still waiting for A, is stale: B is about to take X), or B waits
// asynchronously while another task of B's agent lets Y go.

const (
	cycleX    = 0
	cycleY    = 2
	cycleIdle = 4
)

// cycleInit gives X to role 0 and Y to role 1.
func cycleInit(s *sched) {
	s.mem[cycleX], s.mem[cycleX+1] = 1, s.agents[0].a.ID
	s.mem[cycleY], s.mem[cycleY+1] = 1, s.agents[1].a.ID
}

// cycleLower is A: it waits for Y, is told the cycle (its message names
// both), and lets X go.
func cycleLower(s *sched, a *sagent) {
	if r := a.a.Lock(0, cycleY, inf); r != resultCycle {
		s.fail("role %d: lock Y in a cycle = %d, want RESULT_CYCLE", a.id, r)
	}
	if s.mem[cycleY]&3 == 0 || s.mem[cycleY+1] != s.agents[1].a.ID {
		s.fail("role %d: Y after the cycle was told: word %d, holder %d: its wait took something", a.id, s.mem[cycleY], s.mem[cycleY+1])
	}
	if m := a.a.Text(proto.TextDeadlock, 0); !strings.HasPrefix(m, fmt.Sprintf("[[%d,", a.a.ID)) || !strings.Contains(m, fmt.Sprintf("],[%d,", s.agents[1].a.ID)) {
		s.fail("role %d: the deadlock's members are not both agents, this one first: %s", a.id, m)
	}
	s.fam.runs++ // cycles told
	expectOK(s, a, "unlock X", a.a.Unlock(0, cycleX))
}

// cycleHigher is B: it waits for X, gets it once A lets it go, and lets
// both go.
func cycleHigher(s *sched, a *sagent) {
	expectOK(s, a, "lock X", a.a.Lock(0, cycleX, inf))
	expectOK(s, a, "unlock X", a.a.Unlock(0, cycleX))
	expectOK(s, a, "unlock Y", a.a.Unlock(0, cycleY))
}

var cycleScenario = &scenario{
	name:  "Mutex: a deadlock of two blocking waits, time passing at any step",
	roles: []role{{cycleLower, 0}, {cycleHigher, 1}},
	words: 5, steps: 400, jumps: true, init: cycleInit,
	check: func(s *sched) string {
		if s.fam.runs != 1 {
			return fmt.Sprintf("the cycle was told %d times, want once", s.fam.runs)
		}
		return ""
	},
}

// cycleWaitsOn is A in the shapes where no cycle is certain: it waits for
// Y until it gets it (never told), then lets both go.
func cycleWaitsOn(s *sched, a *sagent) {
	switch r := a.a.Lock(0, cycleY, inf); r {
	case resultOK:
	case resultCycle:
		s.fail("role %d: lock Y = RESULT_CYCLE, but no cycle was certain: %s", a.id, a.a.Text(proto.TextDeadlock, 0))
	default:
		s.fail("role %d: lock Y = %d", a.id, r)
	}
	expectOK(s, a, "unlock Y", a.a.Unlock(0, cycleY))
	if s.mem[cycleX+1] == a.a.ID {
		expectOK(s, a, "unlock X", a.a.Unlock(0, cycleX))
	}
}

// cycleTimesOut is B waiting for X for 200 ms (three watch turns: long enough
// for A's watch to find the cycle, were B's wait blocking for good), then
// letting Y go.
func cycleTimesOut(s *sched, a *sagent) {
	if r := a.a.Lock(0, cycleX, 200); r != resultBusy {
		s.fail("role %d: lock X for 200 ms = %d, want busy", a.id, r)
	}
	expectOK(s, a, "unlock Y", a.a.Unlock(0, cycleY))
}

// cycleLetsGo is A letting X go and then waiting for Y: B's record, that it
// waits for A, may still be there (stale) when A's watch reads it.
func cycleLetsGo(s *sched, a *sagent) {
	expectOK(s, a, "unlock X", a.a.Unlock(0, cycleX))
	cycleWaitsOn(s, a)
}

// cycleAsync is B's task that waits for X asynchronously; cycleSibling is
// another task of B's agent, which lets Y go after 160 ms (A's watch, at
// its third turn, could have told the cycle by then, were B's wait
// blocking: it is not certain, since this task runs).
func cycleAsync(s *sched, a *sagent) {
	if r := a.a.LockAsync(0, cycleX, inf); r != resultOK {
		s.fail("role %d: lockAsync X = %d", a.id, r)
	}
	expectOK(s, a, "unlock X", a.a.Unlock(0, cycleX))
}

func cycleSibling(s *sched, a *sagent) {
	s.wait(a, cycleIdle, 0, 160) // (a word nobody changes: a sleep of 160 ms)
	expectOK(s, a, "unlock Y", a.a.Unlock(0, cycleY))
}

var noCycleScenarios = []*scenario{
	{name: "Mutex: the shape of a deadlock, B's wait has a deadline", roles: []role{{cycleWaitsOn, 0}, {cycleTimesOut, 1}},
		words: 5, steps: 400, jumps: true, init: cycleInit},
	{name: "Mutex: the shape of a deadlock, A lets go before it waits (B's record stale)", roles: []role{{cycleLetsGo, 0}, {cycleHigher, 1}},
		words: 5, steps: 400, jumps: true, init: cycleInit},
	{name: "Mutex: the shape of a deadlock through an asynchronous wait", roles: []role{{cycleWaitsOn, 0}, {cycleAsync, 1}, {cycleSibling, 1}},
		words: 5, steps: 400, jumps: true, init: cycleInit},
}

func TestExploreWatchCycle(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	exploreBoth(t, cycleScenario)
	for _, sc := range noCycleScenarios {
		exploreBoth(t, sc)
	}
}

// -------- Read locks of an agent that ends. Role 1 (R) reads the RWMutex
// at 0 (its tag at 3) as the glue does: its counter in its registry record
// (OP_READ_COUNTER), the read lock, 1 added to the counter, 120 ms of
// reading, 1 taken off, the read unlock; it ends at each of those steps in
// turn. Role 2 (W), 10 ms later, wants the write lock for 200 ms,
// watched: its watch gives back what the records say a DEAD agent held
// (readersOf, then the drain's recover). (Time passes only when nobody can
// run: were it to pass at any step, the reader could end just before the
// writer's deadline, after its last watch turn, and the writer time out
// with nothing leaked.) W gets the lock, told nothing, unless R ended holding
// a read lock that its counter did not show (taken and not yet counted,
// or uncounted and not yet released: the leak that readCounter accepts
// rather than free a read lock twice); then W's wait times out. Never is a
// read lock freed under a living reader: W's write section finds nobody
// reading.

const (
	rdWords = 5
	rdIdle  = 4
)

// R's phases, for the checks: what a reader that ends there holds.
const (
	rdCounter   = iota // before its read lock: it holds nothing
	rdLocking          // in its read lock: it may hold one, not counted
	rdHeld             // holds one, not counted: leaked if it ends here
	rdCounted          // holds one, counted: the watch gives it back
	rdUnlocking        // no longer counted, in its read unlock: leaked, or released
	rdDone             // released
)

// rdState is what the read-lock roles keep.
type rdState struct {
	phase    int  // R's
	timedOut bool // W's lock timed out
}

func readerThatEnds(s *sched, a *sagent) {
	st := &s.rd
	s.doom(a, s.endAt)
	slot := a.a.Call(proto.OpReadCounter, 0, 0, 0, 0)
	if slot < 0 {
		s.fail("role %d: OP_READ_COUNTER = %d", a.id, slot)
	}
	count := func(delta int32) {
		s.step(a) // Atomics.add on the registry, as the glue's
		s.regWrite(a, slot)
		s.mems[s.reg][slot] += delta
	}
	st.phase = rdLocking
	expectOK(s, a, "readLock", a.a.Wait(proto.KindRwRead, 0, 0, 0, inf))
	st.phase = rdHeld
	s.fam.readers++ // (from here until its read unlock, for certain: a writer's section checks it)
	count(1)
	st.phase = rdCounted
	s.wait(a, rdIdle, 0, 120) // it reads
	count(-1)
	s.fam.readers--
	st.phase = rdUnlocking
	expectOK(s, a, "readUnlock", a.a.Call(proto.OpRwReadUnlock, 0, 0, 0, 0))
	st.phase = rdDone
	if s.endAt >= 0 {
		s.endNow(a)
	}
}

func writerAfterReader(s *sched, a *sagent) {
	s.wait(a, rdIdle, 0, 10) // (after the reader's first steps: a writer first would have it spin a hundred loads, RWMutex's rwSpinLimit, for nothing here)
	switch r := a.a.Wait(proto.KindRwAnnounce, 0, 0, 0, 200); r {
	case resultOK:
		rwWriteSection(s, a)
	case resultBusy:
		s.rd.timedOut = true
	default:
		s.fail("role %d: lock = %d, want ok or busy (a reader's end is told to nobody)", a.id, r)
	}
}

var readerEndsScenario = &scenario{
	name:  "RWMutex: a reader ends at a step of its read lock and its counting, a watched writer waits",
	roles: []role{{idle, 0}, {readerThatEnds, 1}, {writerAfterReader, 2}},
	words: rdWords, steps: 200,
	onEnd: func(s *sched, a *sagent) {
		makerNews(s, a)
		if s.rd.phase == rdCounted {
			s.fam.readers = 0 // (its read lock is the watch's to give back; one not counted, the writer never gets)
		}
	},
	check: func(s *sched) string {
		// A reader that ended may hold a read lock that its counter did not
		// show (leaked), or that it did and nobody has needed since.
		r, p := s.agents[1], s.rd.phase
		mayLeak := r.ended && (p == rdLocking || p == rdHeld || p == rdUnlocking)
		mayHold := mayLeak || r.ended && p == rdCounted
		switch {
		case s.rd.timedOut && !mayLeak:
			return fmt.Sprintf("the writer timed out, but the reader (ended: %v, in phase %d) leaked no read lock", r.ended, p)
		case s.mem[0] != 0 && !(mayHold && s.mem[0] == 1):
			return fmt.Sprintf("the state word ends at %#x, want 0 (or 1: the reader ended holding one; ended: %v, in phase %d)", s.mem[0], r.ended, p)
		}
		return ""
	},
}

func TestExploreWatchDeadReader(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	exploreEnding(t, readerEndsScenario)
}
