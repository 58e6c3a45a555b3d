package coretest

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

var (
	exploreSeed  = flag.Int64("explore.seed", -1, "replay one PCT schedule of TestExplore_pct (or of the registry's and the watch's explorer tests): the seed a failure printed")
	exploreRuns  = flag.Int("explore.runs", 10000, "PCT schedules that TestExplore_pct runs (-short: a tenth)")
	exploreTrace = flag.Bool("explore.trace", false, "with -explore.seed: log every step of the schedule replayed")
	exploreDeep  = flag.Bool("explore.deep", false, "the bounded search of an agent's end at every step allows as many preemptions besides the end (slow)")
)

// Virtual time: each step is 1 µs, and a timed lock gives up after 30 µs.
const (
	stepMs     = 0.001
	slowStepMs = 0.3
	timeoutMs  = 0.03
)

// What an agent (or an asynchronous task of one) does in a schedule. Every
// return is checked.

// lockLoop blocks in lock, as a worker does.
func lockLoop(s *sched, a *sagent) {
	for range s.iters {
		if r := a.a.Lock(0, 0, math.Inf(1)); r != resultOK {
			s.fail("role %d: lock = %d", a.id, r)
		}
		critical(s, a)
	}
}

// lockAsyncLoop drives the asynchronous loop, as a page's lockAsync does.
// Never a deadlock, even when a sibling task of its agent holds the mutex.
func lockAsyncLoop(s *sched, a *sagent) {
	for range s.iters {
		if r := a.a.LockAsync(0, 0, math.Inf(1)); r != resultOK {
			s.fail("role %d: lockAsync = %d", a.id, r)
		}
		critical(s, a)
	}
}

// timedTryAbort uses a timed lock (blocking, or asynchronous for a task that
// shares its agent id), tryLock, and a lockAsync that is aborted while it waits.
func timedTryAbort(async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		lock := a.a.Lock
		if async {
			lock = a.a.LockAsync
		}
		timedLock(s, a, lock)
		if r := a.a.TryLock(0, 0); r == resultOK {
			critical(s, a)
		} else if r != resultBusy {
			s.fail("role %d: tryLock = %d", a.id, r)
		}
		// A lockAsync that is aborted while it waits: its waitAsync stays
		// queued (a ghost) until the core's abandon clears it.
		switch r := a.a.WaitAsync(proto.KindLock, 0, 0, 0, math.Inf(1), abortFirst(s, a)); r {
		case resultOK:
			critical(s, a)
		case Aborted:
		default:
			s.fail("role %d: lockAsync = %d", a.id, r)
		}
	}
}

// timedOnce takes the mutex with one timed lock, and does nothing else:
// no tryLock, no abort, no second attempt, each of which would make good
// the wake-up taken by a timed waiter that a notify woke and that then gave
// up (the only one its unlock sent: sabmutex's soak lost its sleepers so).
func timedOnce(s *sched, a *sagent) { timedLock(s, a, a.a.Lock) }

// timedLock takes the mutex with lock and a timeout of timeoutMs, checking
// that it gave up no earlier.
func timedLock(s *sched, a *sagent, lock func(mem, at int32, timeoutMs float64) int32) {
	start := s.nowMs
	switch r := lock(0, 0, timeoutMs); r {
	case resultOK:
		critical(s, a)
	case resultBusy:
		if waited := s.nowMs - start; waited < timeoutMs {
			s.fail("role %d: lock(%v ms) gave up after %v ms", a.id, timeoutMs, waited)
		}
	default:
		s.fail("role %d: lock(timeout) = %d", a.id, r)
	}
}

// A role is one scenario and the agent that plays it. Roles with the same
// agent share its id: they are asynchronous tasks of one page or worker,
// which must queue for the mutex like different agents do. (Here they run
// on instances of their own and may interleave inside a core call, which
// one JavaScript thread never does: a superset of the real schedules.)
type role struct {
	play  func(s *sched, a *sagent)
	agent int
}

// The casts that the explorer plays.
var (
	// Agents with ids of their own: a worker, a page, a worker that times
	// out, tries and aborts.
	castAgents2 = []role{{lockLoop, 0}, {lockAsyncLoop, 1}}
	castAgents3 = []role{{lockLoop, 0}, {lockAsyncLoop, 1}, {timedTryAbort(false), 2}}
	// A timed waiter beside two that wait for ever.
	castTimed3 = []role{{lockLoop, 0}, {timedOnce, 1}, {lockLoop, 2}}
	// Two lockAsync loops of one agent beside a blocking worker, and a
	// third task of that agent that times out, tries and aborts.
	castTasks3 = []role{{lockAsyncLoop, 0}, {lockAsyncLoop, 0}, {lockLoop, 1}}
	castTasks4 = []role{{lockAsyncLoop, 0}, {lockAsyncLoop, 0}, {lockLoop, 1}, {timedTryAbort(true), 0}}
	casts      = [][]role{castAgents2, castAgents3, castTasks3, castTasks4}
)

func critical(s *sched, a *sagent) {
	s.enter(a)
	s.leave(a)
	if r := a.a.Unlock(0, 0); r != resultOK {
		s.fail("role %d: unlock = %d", a.id, r)
	}
}

// explorer owns a host and, per cast, instances for schedule after
// schedule; a failed schedule leaves its instances parked, so the next one
// gets new ones. On a Watched host, a cast's instances and the registry
// they joined are kept as they were when it was made (image.go), and each
// schedule starts from them: the watch keeps state from one wait to the
// next, an agent may end in the middle of a call, and a schedule must be a
// function of its choices.
type explorer struct {
	t        testing.TB
	h        *Host
	as       map[*role][]*Agent // by the cast's first role
	regs     map[*role][]int32  // on a Watched host, the registry as it was when the cast was made
	regBuf   []int32            // the registry's copy that the schedules explore
	regMax   int32              // the highest slot of regBuf that the last schedule wrote
	runs     int
	handoffs int // schedules in which an unlock handed the mutex off
	overlaps int // schedules in which readers (or permit holders) overlapped
	steps    int // in all schedules
	// every > 1: the bounded search takes only every every-th preemption it
	// finds (a deterministic sample spread over the whole search; with
	// its subtrees), for -short's budget (shortSample); 0: all of them.
	every int
}

// A scenario is a cast with what it needs beyond a mutex in two zeroed
// words: more memory, a state to start from, a check once it has ended.
type scenario struct {
	name   string
	roles  []role
	words  int                       // memory words (0: 2, one mutex at 0)
	growTo int                       // the words the memory may grow to (the core's Grow; 0: words, it does not grow)
	iters  int                       // for each looping role (0: the explorer's choice)
	steps  int                       // about how many steps a schedule takes, for PCT's change points (0: 60)
	init   func(s *sched)            // before the first step: memory, s.fam
	check  func(s *sched) string     // after every role finished: "" if it holds
	jumps  bool                      // time may pass at any step (sched.jumps)
	stalls bool                      // with jumps: past a woken waiter's deadline too (sched.stalls)
	life   int32                     // a word of the memory that counts the roles that finished or ended (sched.lifeWord; 0: none)
	bare   []int                     // the roles whose agents have not joined the registry: they join it in the schedule (NewBareAgent)
	endAt  int                       // the step of its own at which a doomed role ends (sched.doom; -1: never)
	after  func(s *sched)            // after each schedule, passed or not (for the explorer's own bookkeeping)
	onEnd  func(s *sched, a *sagent) // when a role ends (sched.onEnd)
	debug  bool                      // its registry has a debug area (Host.Debug)
}

func mutexCast(cast []role) *scenario { return &scenario{name: "Mutex", roles: cast} }

// timedScenario: a timed waiter beside two that wait for ever, where time
// may pass between a wake-up and the woken waiter's next turn (stalls), so
// that the bounded search too reaches a deadline that passes there.
var timedScenario = &scenario{name: "Mutex, a timed waiter", roles: castTimed3, jumps: true, stalls: true}

func (e *explorer) one(sc *scenario, pick func(*sched, []*sagent) *sagent) string {
	return e.play(sc, stepMs, 2, pick)
}

// instances returns an instance of the core for each role of sc, sharing
// the agent id where the roles share an agent.
func (e *explorer) instances(sc *scenario) []*Agent {
	cast := sc.roles
	if as := e.as[&cast[0]]; as != nil {
		return as
	}
	as := make([]*Agent, len(cast))
	byAgent := map[int]*Agent{}
	for i, r := range cast {
		var err error
		switch first := byAgent[r.agent]; {
		case first != nil:
			as[i], err = e.h.NewTask(context.Background(), first)
		case slices.Contains(sc.bare, i):
			as[i], err = e.h.NewBareAgent(context.Background())
		default:
			as[i], err = e.h.NewAgent(context.Background())
			byAgent[r.agent] = as[i]
		}
		if err != nil {
			e.t.Fatal(err)
		}
	}
	if e.as == nil {
		e.as, e.regs = map[*role][]*Agent{}, map[*role][]int32{}
	}
	e.as[&cast[0]] = as
	if e.h.Watched {
		// Each schedule starts from these: the instances (the watch keeps
		// state between waits) and the registry they joined.
		for _, a := range as {
			a.image()
		}
		reg := e.h.memory(e.h.Registry)
		n := int32(0)
		for i := range reg.Len() {
			if reg.Load(i) != 0 {
				n = i + 1
			}
		}
		img := make([]int32, n)
		for i := range img {
			img[i] = reg.Load(int32(i))
		}
		e.regs[&cast[0]] = img
	}
	return as
}

// oneAt runs one schedule of cast with the given virtual time per step, and
// the given number of acquisitions by each looping role.
func (e *explorer) oneAt(cast []role, stepMs float64, iters int, pick func(*sched, []*sagent) *sagent) string {
	return e.play(mutexCast(cast), stepMs, iters, pick)
}

// play runs one schedule of sc with the given virtual time per step, and
// the given number of rounds of each looping role unless sc sets its own.
func (e *explorer) play(sc *scenario, stepMs float64, iters int, pick func(*sched, []*sagent) *sagent) string {
	e.runs++
	words := sc.words
	if words == 0 {
		words = 2
	}
	if sc.iters != 0 {
		iters = sc.iters
	}
	s := newSched(words, max(words, sc.growTo), stepMs, 200000)
	s.pick, s.iters, s.jumps, s.stalls, s.lifeWord, s.endAt, s.onEnd = pick, iters, sc.jumps, sc.stalls, sc.life, sc.endAt, sc.onEnd
	as := e.instances(sc)
	if img := e.regs[&sc.roles[0]]; img != nil {
		if e.regBuf == nil {
			e.regBuf = make([]int32, e.h.memory(e.h.Registry).Len()) // (with its debug area, if any)
		}
		copy(e.regBuf, img)
		if int(e.regMax) >= len(img) {
			clear(e.regBuf[len(img) : e.regMax+1])
		}
		s.reg, s.regMax, s.regFixed = e.h.Registry, int32(len(img))-1, len(sc.bare) == 0
		s.explore(s.reg, e.regBuf)
		for _, a := range as {
			a.restore()
		}
	}
	if sc.init != nil {
		s.cast(as)
		sc.init(s)
	}
	if *exploreTrace && *exploreSeed >= 0 {
		s.trace = new([]string)
		defer func() { e.t.Logf("%s: the schedule's steps:\n%s", sc.name, strings.Join(*s.trace, "\n")) }()
	}
	failure := s.run(as, sc.roles)
	e.regMax = s.regMax
	if sc.after != nil {
		sc.after(s)
	}
	if failure == "" && sc.check != nil {
		failure = sc.check(s)
	}
	e.steps += s.steps
	if s.handoffs > 0 {
		e.handoffs++
	}
	if s.fam.overlap {
		e.overlaps++
	}
	for _, a := range as {
		if a.dirty && a.img == nil { // (an unwound call leaves it unusable)
			delete(e.as, &sc.roles[0])
		}
	}
	if failure != "" {
		delete(e.as, &sc.roles[0])
	}
	return failure
}

// mutexScenarios are the casts' scenarios and timedScenario.
func mutexScenarios() []*scenario {
	scs := make([]*scenario, 0, len(casts)+1)
	for _, c := range casts {
		scs = append(scs, mutexCast(c))
	}
	return append(scs, timedScenario)
}

// pctSchedules runs PCT schedules of the mutex's casts until one fails; it
// returns that seed and failure, or -1.
func (e *explorer) pctSchedules(runs int, first int64) (int64, string) {
	return e.pctOf(mutexScenarios(), runs, first)
}

// pctOf runs PCT schedules, cycling through scs, until one fails; it
// returns that seed and failure, or -1.
//
// A replay (-explore.seed) first plays, unchecked, the seeds before it of
// the same scenario. A scenario's instances are made once and, on a host
// that is not watched (whose instances are not put back to their image
// between schedules), each schedule begins with the core's own memory
// (its Go heap: the wait records and the rest) as the one before left it:
// seed 2714 of the Channel family at 75a085d fails after the 271 before
// it, and passes alone.
func (e *explorer) pctOf(scs []*scenario, runs int, first int64) (int64, string) {
	if runs == 1 && first == *exploreSeed {
		for seed := first % int64(len(scs)); seed < first; seed += int64(len(scs)) {
			e.pctOf(scs, 1, seed)
		}
	}
	for i := range int64(runs) {
		seed := first + i
		sc := scs[seed%int64(len(scs))]
		// Every third schedule picks at random at every step, in slow virtual
		// time (0.3 ms a step), so that waits pass the 1 ms starvation
		// threshold and unlocks hand off.
		length := sc.steps
		if length == 0 {
			length = 60
		}
		step, iters, pick := stepMs, 2, pct(uint64(seed), len(sc.roles), 2+int(seed%5), length)
		if seed%3 == 2 {
			step, iters, pick = slowStepMs, 4, uniform(uint64(seed))
		}
		if f := e.play(sc, step, iters, pick); f != "" {
			return seed, f
		}
	}
	return -1, ""
}

// TestExplore_pct: at least 10,000 seeded random schedules of the casts
// above (two in three PCT, depth 2 to 6; one in three uniformly random),
// checking mutual exclusion, that every waiter gets the mutex (no lost
// wake-up), and timeouts. A failure prints its seed; -explore.seed
// replays it.
func TestExplore_pct(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	e := &explorer{t: t, h: ownHost(t)}
	runs, first := *exploreRuns, int64(0)
	if testing.Short() {
		runs /= 10
	}
	if *exploreSeed >= 0 {
		runs, first = 1, *exploreSeed
	}
	if seed, f := e.pctSchedules(runs, first); seed >= 0 {
		t.Fatalf("schedule seed %d: %s\nreplay: go test ./coretest -run TestExplore_pct -explore.seed=%d", seed, f, seed)
	}
	t.Logf("%d schedules, no failure; %d of them handed the mutex off in starvation mode", e.runs, e.handoffs)
}

// TestExplore_bounded: every schedule with at most two preemptions
// (switching away from a role that could go on) of 2 and of 3 agents, and of
// two asynchronous tasks of one agent beside a worker; -short: 2 agents only.
func TestExplore_bounded(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	for _, c := range []struct {
		name        string
		sc          *scenario
		preemptions int
	}{
		{"2 agents", mutexCast(castAgents2), 2},
		{"3 agents", mutexCast(castAgents3), 2},
		{"a timed waiter and 2 agents", timedScenario, 2},
		{"2 tasks of one agent and a worker", mutexCast(castTasks3), 2},
	} {
		if testing.Short() && len(c.sc.roles) > 2 {
			continue
		}
		e := &explorer{t: t, h: ownHost(t)}
		if f, prefix := e.bounded(c.sc, c.preemptions, 400000); f != "" {
			t.Fatalf("%s, schedule %v: %s", c.name, prefix, f)
		}
		t.Logf("%s, ≤ %d preemptions: all %d schedules pass", c.name, c.preemptions, e.runs)
	}
}

// bounded runs every schedule with at most bound preemptions (up to limit
// schedules), depth first (e.every: a sample of them); it returns the first
// failure and its choices.
func (e *explorer) bounded(sc *scenario, bound, limit int) (string, []int) {
	type job struct {
		forced      []int
		preemptions int
	}
	stack, preemptions := []job{{}}, 0
	for len(stack) > 0 && e.runs < limit {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var log []decision
		if f := e.one(sc, scripted(j.forced, &log)); f != "" {
			return f, j.forced
		}
		for k := len(j.forced); k < len(log); k++ {
			d := log[k]
			for _, o := range d.options {
				cost := j.preemptions + d.cost(o)
				if o == d.chosen || cost > bound {
					continue
				}
				if cost > j.preemptions && e.every > 1 {
					if preemptions++; preemptions%e.every != 0 {
						continue
					}
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

// faultsCore is the core with every fault (BuildCore(dir, true)), built
// and compiled once for TestExploreCatchesBrokenCores, whose hosts each
// name the fault their instances run (Host.Fault). One of its hosts stays
// open, so that the compiled module stays in compilations while the
// subtests, in parallel, make theirs.
var faultsCore = sync.OnceValues(func() (string, error) {
	path, err := BuildCore(filepath.Dir(corePath), true)
	if err != nil {
		return "", err
	}
	_, err = NewHost(context.Background(), path)
	return path, err
})

// The explorer has teeth: each deliberately broken core (internal/core/faults.go)
// must be caught, by PCT schedules and by the bounded search.
func TestExploreCatchesBrokenCores(t *testing.T) {
	mutex := mutexScenarios()
	for _, c := range []struct {
		fault, bug string
		pct        []*scenario // the scenarios PCT cycles through
		bounded    *scenario   // the one the bounded search runs
		watched    bool        // its agents' waits are watched (the host says go on)
		ending     bool        // the scenario's doomed agent ends at every step (endAtEveryStep, pctEnding)
	}{
		{"unlock", "unlock forgets to notify", mutex, mutexCast(castAgents2), false, false},
		{"timedwake", "a timed lock that a notify woke gives up and takes the wake-up with it", mutex, timedScenario, false, false},
		{"async", "a sibling task's lockAsync is told deadlock (as sabmutex once did)", mutex, mutexCast(castTasks3), false, false},
		{"cond", "Cond.wait reads the sequence after unlocking (as waiting on a constant does)", condScenarios, condSmall, false, false},
		{"rw", "a writer goes in with readers inside", rwScenarios, rwSmall, false, false},
		{"sem", "a release wakes no waiter", semScenarios, semSmall, false, false},
		{"semshared", "a waiter for a reserved need takes it from the waiter that reserved it", []*scenario{semReservedScenario}, semReservedScenario, false, false},
		{"semwoken", "a release that wakes one clears semWaiters: the next release wakes nobody", []*scenario{semSleepersScenario}, semSleepersScenario, false, false},
		{"wg", "WaitGroup.wait returns at 1", wgScenarios, wgSmall, false, false},
		{"barrier", "a party that times out leaves its arrival counted", barrierScenarios, barrierTimeouts, false, false},
		{"once", "the end of a Once's run wakes nobody", onceScenarios, onceSmall, false, false},
		{"dead", "two waiters that find the holder dead free its mutex under the next holder", []*scenario{deadHolderScenario}, deadHolderScenario, false, false},
		{"rwdied", "the writer after a dead one leaves the death to be told again", rwDeadScenarios, rwDeadScenarios[0], false, false},
		{"rwreads", "giving back a dead reader's read locks wakes no writer", rwDeadScenarios[2:], rwDeadScenarios[2], false, false},
		{"chansend", "a send wakes no receiver", chanScenarios, chanCounted, false, false},
		{"chanrecv", "a receive's claim leaves the head where it was", chanScenarios, chanSmall, false, false},
		{"handoff", "a watch leaves a hand-off nobody takes in place", []*scenario{lostHandOffScenario}, lostHandOffScenario, true, false},
		{"semvoid", "a watch leaves a reservation nobody takes in place", []*scenario{lostReservationScenario}, lostReservationScenario, true, false},
		{"chanvoid", "a watch leaves the last cell and message reserved for waiters that never come", []*scenario{lostChanStarverScenario}, lostChanStarverScenario, true, false},
		{"chanforget", "the watch lets a dead agent's cell go without voiding it", nil, chanSenderEnds, true, true},
		{"chanunnamed", "a claim of a cell names nobody", nil, chanSenderEnds, true, true},
		{"chantwice", "two watches both void a dead agent's cell, the second a claim made since", []*scenario{chanVoidRace}, chanVoidRace, true, false},
		{"joinid", "a join writes its record's id before its name", nil, joinScenario, true, true},
		{"liveat", "the maker finds a JOINING agent LIVE", nil, joinScenario, true, true},
		{"deadkept", "the watch frees nothing of a DEAD holder", nil, deadWatchBlocking, true, true},
		{"cycleearly", "a cycle is told at first sight (a stale record)", noCycleScenarios[1:2], noCycleScenarios[1], true, false},
		{"cycleasync", "a cycle through an asynchronous wait is told", noCycleScenarios[2:3], noCycleScenarios[2], true, false},
		{"cycleall", "every member of a cycle is told", []*scenario{cycleScenario}, cycleScenario, true, false},
		{"readslive", "a live reader's read locks are given back", nil, readerEndsScenario, true, true},
		{"edgeearly", "an edge is counted before it is written", dbgScenarios, dbgWriterScenario, true, false},
		{"markearly", "a mark's key is written before its other fields", dbgScenarios[:1], dbgWriterScenario, true, false},
		{"markgen", "a mark made again in the same place keeps its gen", dbgScenarios[:1], dbgWriterScenario, true, false},
		{"namefirst", "a name's entry is READY before it is whole", nil, namesScenario, true, true},
		{"namekept", "a claim of a DEAD agent is waited for like a live one's", nil, namesScenario, true, true},
		{"lqmodes", "a lock queue's grant takes every request for shared", lqScenarios, lqExclusiveFirst, false, false},
		{"lqlinkfirst", "a lock request is linked before its record is written", nil, lqEndsSmall, true, true},
		{"lqunguarded", "a lock release frees its record before it takes the guard", lqScenarios, lqExclusiveFirst, false, false},
		{"lqstealkept", "a steal leaves the robbed records GRANTED", lqScenarios[3:4], lqSteal, false, false},
		// (PCT's 2,000 schedules miss it: it takes three choices in a row; the bounded search finds it.)
		{"lqfastgen", "a fast take does not look at the queue's gen", nil, lqFastReuse, false, false},
		{"lqrunseal", "a record queued behind a fast holder leaves its run unsealed", []*scenario{lqRun}, lqRun, false, false},
		{"lqtofast", "a first request is made the fast lock with a request queued behind it", []*scenario{lqToFast}, lqToFast, false, false},
		{"lqfastgrant", "a fast holder's release through the guard grants nothing", []*scenario{lqFastPath}, lqFastPath, false, false},
		{"lqindexfirst", "a lock table's new index is published before the names move into it", nil, lqGrowthEndsSmall, true, true},
	} {
		t.Run(c.fault, func(t *testing.T) {
			t.Parallel() // each on a host of its own
			path, err := faultsCore()
			if err != nil {
				t.Fatal(err)
			}
			broken, err := NewHost(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer broken.Close(context.Background())
			broken.Fault = c.fault
			if c.watched {
				broken.Watched, broken.Debug = true, c.bounded.debug
			}
			e := &explorer{t: t, h: broken}
			var seed int64
			var f string
			switch {
			case c.ending:
				seed, f = e.pctEnding(c.bounded, 2000, 0)
			case c.pct == nil: // (the bounded search's alone)
			default:
				seed, f = e.pctOf(c.pct, 2000, 0)
			}
			switch {
			case c.pct == nil && !c.ending:
			case seed < 0:
				t.Fatalf("2000 PCT schedules did not catch a core in which %s", c.bug)
			case c.ending:
				t.Logf("PCT caught it after %d schedules (seed %d, %s): %s", e.runs, seed, c.bounded.name, f)
			default:
				t.Logf("PCT caught it after %d schedules (seed %d, %s): %s", e.runs, seed, c.pct[seed%int64(len(c.pct))].name, f)
			}
			e2 := &explorer{t: t, h: broken}
			if c.ending {
				f, _ = e2.endAtEveryStep(c.bounded, 2)
			} else {
				var prefix []int
				if f, prefix = e2.bounded(c.bounded, 2, 400000); f != "" {
					f = fmt.Sprintf("schedule %v: %s", prefix, f)
				}
			}
			if f == "" {
				t.Fatalf("the bounded search did not catch a core in which %s", c.bug)
			}
			t.Logf("the bounded search caught it after %d schedules (%s, %s)", e2.runs, c.bounded.name, f)
		})
	}
}
