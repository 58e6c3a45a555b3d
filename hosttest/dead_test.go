package hosttest

import (
	"fmt"
	"math"
	"testing"
)

// The explorer on dead holders (the watch's recovery, wasm/core/wait.go):
// agent 0 takes the mutex and ends holding it; agents 1 and 2, told of its
// end (a word it sets and notifies as it ends, standing for the registry),
// both free what it held (releaseDead, as their watches do) and then lock
// and unlock in a loop. Exactly one of them frees it, exactly one
// acquisition is told that the holder died, and mutual exclusion holds.

const deadWord = 2 // 1 once agent 0 has ended

func doomedHolder(s *sched, a *sagent) {
	if r := a.a.Lock(0, 0, math.Inf(1)); r != resultOK {
		s.fail("role %d: lock = %d", a.id, r)
	}
	s.step(a)
	s.mem[deadWord] = 1 // it ends here, holding the mutex
	s.notify(a, deadWord, -1)
}

func deadFinder(s *sched, a *sagent) {
	for s.mem[deadWord] == 0 {
		s.wait(a, deadWord, 0, math.Inf(1))
	}
	switch r := a.a.ReleaseDead(0, 0, s.agents[0].a.ID); r {
	case resultOK:
		s.fam.runs++ // frees counted
	case resultNotHolder:
	default:
		s.fail("role %d: releaseDead = %d", a.id, r)
	}
	for range s.iters {
		switch r := a.a.Lock(0, 0, math.Inf(1)); r {
		case resultDied:
			s.fam.lastN++ // deaths told
		case resultOK:
		default:
			s.fail("role %d: lock = %d", a.id, r)
		}
		critical(s, a)
	}
}

var deadHolderScenario = &scenario{
	name:  "a holder dies, two waiters find it",
	roles: []role{{doomedHolder, 0}, {deadFinder, 1}, {deadFinder, 2}},
	words: 3,
	check: func(s *sched) string {
		if s.fam.runs != 1 || s.fam.lastN != 1 {
			return fmt.Sprintf("the dead holder's mutex was freed %d times and its death told %d times, want 1 and 1", s.fam.runs, s.fam.lastN)
		}
		return ""
	},
}

// Every schedule of the scenario with up to two preemptions, and the core
// whose releaseDead does not claim the holder slot (fault "dead") is caught.
func TestExploreDeadHolder(t *testing.T) {
	e := &explorer{t: t, h: host}
	if f, prefix := e.bounded(deadHolderScenario, 2, 400000); f != "" {
		t.Fatalf("schedule %v: %s", prefix, f)
	}
	t.Logf("%s, ≤ 2 preemptions: all %d schedules pass", deadHolderScenario.name, e.runs)
}
