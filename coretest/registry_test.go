package coretest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on joining (internal/core/registry.go), with the registry's
// accesses as steps: two workers join at once while the registry's maker
// watches, as the glue does (jsglue/registry.js, watchAgents), and one of
// them ends at each step of its joining in turn, from its first to its
// first after it is LIVE (past them, it lives on).
//
// What must hold, in every schedule:
//
//	| what                      | how it is checked                                 |
//	| ids unique, consecutive   | the n-th record's id is base+n, in the maker's    |
//	| from the base             | scans, in each snapshot, and as Join returned it  |
//	| a record whole once its   | the maker's snapshots (they list the records      |
//	| id is written             | whose id is written; one taken while the others   |
//	|                           | join, one at the end) have each agent's whole     |
//	|                           | name, once                                        |
//	| LIVE only once the agent  | the maker's OP_REGISTRY_LIVE_AT sees an id only   |
//	| holds its life lock       | of an agent that holds it                         |
//	| the maker's news is never | OP_REGISTRY_ENDED of an agent it saw LIVE, whose  |
//	| refused                   | life lock it was then granted, is RESULT_OK       |
//	| an agent that ended       | stays not LIVE and not DEAD; OP_REGISTRY_ENDED of |
//	| before LIVE is never DEAD | it is refused                                     |
//	| one that ended LIVE is    | the snapshot says it is not alive                 |
//	| found dead                |                                                   |

// The scenario's memory: word 1 counts the roles that finished or ended
// (sched.lifeWord): the maker stops once all the others have.
const joinLife = 1

// What the joining roles keep.
type joinState struct {
	ids  [3]int32 // by role: the id that Join returned (0: none yet)
	life [3]bool  // by role: it holds its life lock
}

var joinNames = [3]string{"", "wörker 1", "worker 2"} // (a name of whole UTF-8 characters, over three slots)

// joiner is a worker that joins the registry under its name, as the glue's
// init does: OP_REGISTRY_JOIN, its life lock (a step: the browser grants
// it), OP_REGISTRY_ANNOUNCE, then setAgent; then it works a step. The
// doomed one ends at its s.endAt-th step from the start.
func joiner(doomed bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		st := &s.join
		if doomed {
			s.doom(a, s.endAt)
		}
		id := a.a.Join(joinNames[a.id])
		if id <= 0 {
			s.fail("role %d: join = %d", a.id, id)
		}
		st.ids[a.id] = id
		s.step(a) // its request for its life lock is granted
		st.life[a.id] = true
		expectOK(s, a, "announce", a.a.Announce(true))
		if r := a.a.SetAgent(id); r != resultOK {
			s.fail("role %d: setAgent(%d) = %d", a.id, id, r)
		}
		s.step(a) // it works
	}
}

// joinMaker is the registry's maker (role 0): it scans the records for
// agents that are LIVE and asks for their life locks, as watchAgents does
// (OP_REGISTRY_LIVE_AT, from the first record on); a request is granted once
// that agent has ended, or at once if it does not hold its life lock (the
// hazard that LIVE guards against); then it tells the registry
// (OP_REGISTRY_ENDED). It sleeps until an agent announces itself, or for
// a millisecond (which passes once nobody else can run). It checks a
// snapshot in its first scan, while the others join; once the others are
// all done, the records as they were left, and a last snapshot.
func joinMaker(s *sched, a *sagent) {
	st, reg := &s.join, s.reg
	base := a.a.Call(proto.OpRegistryLiveAt, reg, 0, 1, 0) - 1 // (the host's first agent, LIVE)
	asked := map[int32]bool{a.a.ID: true}
	granted := map[int32]bool{}
	roleOf := func(id int32) int {
		for r, x := range st.ids {
			if x == id && id != 0 {
				return r
			}
		}
		return -1
	}
	first := true
	for done := false; !done; {
		seenLife := s.mem[joinLife]
		done = int(seenLife) == len(s.agents)-1
		s.step(a) // Atomics.load of the count of announcements
		seen := s.mems[reg][proto.RegistryAnnounced]
		for n := int32(1); ; n++ {
			id := a.a.Call(proto.OpRegistryLiveAt, reg, 0, n, 0)
			if id == resultNone {
				break
			}
			if id != 0 && id != base+n {
				s.fail("the maker: LIVE_AT(%d) = %d, want 0 or %d", n, id, base+n)
			}
			if r := roleOf(id); id > a.a.ID && (r < 0 || !st.life[r]) { // (those up to the maker joined before the schedule)
				s.fail("the maker: agent %d is LIVE without its life lock (role %d)", id, r)
			}
			if id > 0 && !asked[id] {
				asked[id] = true
			}
		}
		for id := range asked {
			r := roleOf(id)
			holds := id <= a.a.ID || r >= 0 && st.life[r] // (the agents up to the maker live on)
			if granted[id] || holds && (r < 0 || !s.agents[r].ended) {
				continue
			}
			granted[id] = true
			if got := a.a.Call(proto.OpRegistryEnded, reg, 0, id, 0); got != resultOK {
				s.fail("the maker: OP_REGISTRY_ENDED(%d) = %d for an agent it saw LIVE and whose life lock it was granted (ended: %v)", id, got, r >= 0 && s.agents[r].ended)
			}
		}
		if first {
			checkSnapshot(s, a, base) // (one while the others join: the search puts it anywhere among their steps)
			first = false
		}
		if !done {
			s.waitOn(a, reg, proto.RegistryAnnounced, seen, 1) // or until the next end, a millisecond at most
		}
	}
	// The records as the others left them.
	for r := 1; r < len(s.agents); r++ {
		id := st.ids[r]
		live := id != 0 && a.a.Call(proto.OpRegistryLiveAt, reg, 0, id-base, 0) == id
		switch ended := s.agents[r].ended; {
		case !ended && !live:
			s.fail("role %d (agent %d) finished joining and is not LIVE", r, id)
		case ended && live:
			s.fail("role %d (agent %d) ended and is still LIVE", r, id)
		}
	}
	for n := int32(1); ; n++ {
		got := a.a.Call(proto.OpRegistryLiveAt, reg, 0, n, 0)
		if got == resultNone {
			break
		}
		if got == 0 && !granted[base+n] {
			// Not LIVE, and never found dead: it ended while it joined.
			if r := a.a.Call(proto.OpRegistryEnded, reg, 0, base+n, 0); r == resultOK {
				s.fail("the maker: OP_REGISTRY_ENDED(%d) of an agent that never was LIVE = ok, want refused", base+n)
			}
		}
	}
	checkSnapshot(s, a, base)
}

// checkSnapshot checks a snapshot that agent a takes: ids increasing from
// the base, each worker's whole name once, and dead only if it ended. The
// agents up to the maker (role 0) joined before the schedule.
func checkSnapshot(s *sched, a *sagent, base int32) {
	maker := s.agents[0].a.ID
	text := a.a.Text(proto.TextSnapshot, 0)
	var rows [][]any
	if err := json.Unmarshal([]byte(text), &rows); err != nil {
		s.fail("role %d: the snapshot %q is not JSON: %v", a.id, text, err)
	}
	last := base
	names := map[string]bool{}
	for _, row := range rows {
		name, _ := row[proto.SnapshotName].(string)
		n, _ := row[proto.SnapshotAgent].(float64)
		alive, _ := row[proto.SnapshotAlive].(float64)
		id := int32(n)
		r := slices.Index(joinNames[1:], name) + 1 // (0: not a worker's name)
		switch {
		case id <= last || id > maker+int32(len(s.agents)-1):
			s.fail("role %d: snapshot %s: agent %d out of order or past the joins (base %d)", a.id, text, id, base)
		case id <= maker:
			last = id
			continue
		case r == 0 || names[name]:
			s.fail("role %d: snapshot %s: agent %d's name %q is not a whole name, or twice", a.id, text, id, name)
		case s.join.ids[r] != 0 && s.join.ids[r] != id:
			s.fail("role %d: snapshot %s: %q has id %d, but its join returned %d", a.id, text, name, id, s.join.ids[r])
		case alive == 0 && !s.agents[r].ended:
			s.fail("role %d: snapshot %s: %q is dead, but it has not ended", a.id, text, name)
		}
		names[name], last = true, id
	}
}

var joinScenario = &scenario{
	name:  "Registry: two workers join, one ends at a step of its joining",
	roles: []role{{joinMaker, 0}, {joiner(true), 1}, {joiner(false), 2}},
	bare:  []int{1, 2},
	words: 2, life: joinLife, steps: 200,
}

// endAtEveryStep runs the bounded search of sc with its doomed agent
// ending at its k-th step, for k = 0, 1, ... until it ends in no schedule
// (it finished first in every one), and never. An end counts as a
// preemption: the doomed agent is switched away from for good (else a
// schedule in which it only sleeps until the others are done is the same
// as far as they can tell); so ≤ bound preemptions in all, ≤ bound-1
// besides the end, with -explore.deep ≤ bound besides it. It returns the
// first failure, with k and the schedule, and the number of k.
func (e *explorer) endAtEveryStep(sc *scenario, bound int) (failure string, ks int) {
	for k := 0; ; k++ {
		at := *sc
		at.endAt = k
		ended := false
		at.after = func(s *sched) { ended = ended || s.endedAt != 0 }
		b := bound - 1
		if *exploreDeep {
			b = bound
		}
		if f, prefix := e.bounded(&at, b, 400000); f != "" {
			return fmt.Sprintf("ending at its step %d, schedule %v: %s", k, prefix, f), k + 1
		}
		if !ended {
			at.endAt = -1
			if f, prefix := e.bounded(&at, bound, 400000); f != "" {
				return fmt.Sprintf("never ending, schedule %v: %s", prefix, f), k
			}
			return "", k
		}
	}
}

// pctEnding runs PCT schedules of sc from seed first, its doomed agent
// ending at its step seed%pctEndings (pctEndings-1: never; the scenarios'
// doomed parts are shorter).
func (e *explorer) pctEnding(sc *scenario, runs int, first int64) (int64, string) {
	for seed := first; seed < first+int64(runs); seed++ {
		at := *sc
		if at.endAt = int(seed % pctEndings); at.endAt == pctEndings-1 {
			at.endAt = -1
		}
		length := at.steps
		if length == 0 {
			length = 60
		}
		if f := e.play(&at, stepMs, 2, pct(uint64(seed), len(at.roles), 2+int(seed%5), length)); f != "" {
			return seed, fmt.Sprintf("ending at its step %d: %s", at.endAt, f)
		}
	}
	return -1, ""
}

func TestExploreJoin(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	exploreEnding(t, joinScenario)
}

const pctEndings = 50

// exploreEnding runs the bounded search of sc, its doomed agent ending at
// every step (endAtEveryStep; -short: ≤ 1 preemption), then PCT schedules
// (pctEnding); with -explore.seed, that PCT schedule alone.
func exploreEnding(t *testing.T, sc *scenario) { exploreEndingTo(t, sc, boundOf()) }

// exploreEndingTo is exploreEnding with its bounded search to bound
// preemptions, for a cast too large for boundOf's in make test-deep.
func exploreEndingTo(t *testing.T, sc *scenario, bound int) {
	e := &explorer{t: t, h: watchedHost(t)}
	n, first := pctRuns(2000), int64(0)
	if *exploreSeed >= 0 {
		n, first = 1, *exploreSeed
	} else {
		f, ks := e.endAtEveryStep(sc, bound)
		if f != "" {
			t.Fatalf("%s: %s", sc.name, f)
		}
		counted := "an end counts as one"
		if *exploreDeep {
			counted = "besides the end"
		}
		t.Logf("%s, ≤ %d preemptions (%s), ending at each of its %d steps and never: all %d schedules pass", sc.name, bound, counted, ks, e.runs)
	}
	runs := e.runs
	if seed, f := e.pctEnding(sc, n, first); seed >= 0 {
		t.Fatalf("%s: PCT seed %d: %s\nreplay: -run %s -explore.seed=%d", sc.name, seed, f, t.Name(), seed)
	}
	t.Logf("%s: %d PCT schedules pass", sc.name, e.runs-runs)
}

// boundOf is the bounded search's bound for the registry's scenarios: 2,
// 1 with -short.
func boundOf() int {
	if testing.Short() {
		return 1
	}
	return 2
}

// shortSample is the explorer's every for a bounded search too long for
// -short (the Channel's ending scenarios: about 45 s each in full): every
// second preemption there, all of them in make test-deep.
func shortSample() int {
	if testing.Short() {
		return 2
	}
	return 0
}

// sampled says, for a log line, whether e's bounded search was a sample.
func sampled(e *explorer) string {
	if e.every > 1 {
		return fmt.Sprintf(" (-short: one preemption in %d)", e.every)
	}
	return ""
}

// pctRuns is n, a tenth with -short.
func pctRuns(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}
