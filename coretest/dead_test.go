package coretest

import (
	"fmt"
	"math"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on dead holders (the watch's recovery, internal/core/wait.go):
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

// The same for the RWMutex's writer (its slots at 0-2, the word that tells
// of the end at 3): agent 0 takes the write lock and ends holding it; the
// others free it (rwReleaseDead, through OP_RECOVER as the watch calls it)
// and then write and read in turns. Exactly one frees it, and every
// acquisition until a writer has held the lock again is told (the state
// word's D), none after: the sections check it, since a writer inside
// excludes everyone.

const rwDeadWord = rwWords

func doomedWriter(s *sched, a *sagent) {
	expectOK(s, a, "lock", a.a.Wait(proto.KindRwAnnounce, 0, 0, 0, inf))
	s.step(a)
	s.mem[rwDeadWord] = 1 // it ends here, holding the write lock
	s.notify(a, rwDeadWord, -1)
}

// rwDeadFinder frees the dead writer's lock, then writes (writer) or reads
// iters times.
func rwDeadFinder(writer bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		for s.mem[rwDeadWord] == 0 {
			s.wait(a, rwDeadWord, 0, inf)
		}
		switch r := a.a.Call(proto.OpRecover, 0, 0, proto.KindRwAnnounce, s.agents[0].a.ID); r {
		case resultOK:
			s.fam.runs++ // frees counted
		case resultNotHolder:
		default:
			s.fail("role %d: recover = %d", a.id, r)
		}
		for range s.iters {
			var r int32
			if writer {
				r = a.a.Wait(proto.KindRwAnnounce, 0, 0, 0, inf)
			} else {
				r = a.a.Wait(proto.KindRwRead, 0, 0, 0, inf)
			}
			if r != resultOK && r != resultDied {
				s.fail("role %d: lock = %d", a.id, r)
			}
			if told, want := r == resultDied, !s.fam.done; told != want {
				s.fail("role %d: told %v of the dead writer, want %v (a writer held the lock since: %v)", a.id, told, want, s.fam.done)
			}
			if writer {
				s.fam.done = true // a writer held it since
				rwWriteSection(s, a)
			} else {
				rwReadSection(s, a)
			}
		}
	}
}

var rwDeadScenarios = []*scenario{
	{name: "RWMutex: a writer dies, two writers find it", roles: []role{{doomedWriter, 0}, {rwDeadFinder(true), 1}, {rwDeadFinder(true), 2}},
		words: rwWords + 1, check: rwDeadChecked},
	{name: "RWMutex: a writer dies, a writer and a reader find it", roles: []role{{doomedWriter, 0}, {rwDeadFinder(true), 1}, {rwDeadFinder(false), 2}},
		words: rwWords + 1, check: rwDeadChecked},
	{name: "RWMutex: a reader dies, a writer waits, another frees its read lock", roles: []role{{doomedReader, 0}, {rwDeadWriter, 1}, {rwReadsFinder, 2}},
		words: rwWords + 2, check: rwDeadChecked},
}

// A reader dies holding its read lock: agent 0 counts it in its record (the
// word after the one that tells of its end, standing for the registry's
// record) and ends. A writer, in a loop, waits for it to leave; a third
// agent, told of the end, claims the count from the record (as the drain's
// watch does, jsglue/watch.js) and gives the read lock back (OP_RECOVER of
// kind RW_DRAIN, rwReleaseDeadReads), then reads in a loop. The writer must
// wake (a lost wake-up leaves it asleep: the scheduler reports it), and
// nobody goes in with a writer inside.
const rwReadsWord = rwWords + 1

func doomedReader(s *sched, a *sagent) {
	expectOK(s, a, "readLock", a.a.Wait(proto.KindRwRead, 0, 0, 0, inf))
	s.mem[rwReadsWord]++ // its record counts it
	s.step(a)
	s.mem[rwDeadWord] = 1 // it ends here, holding the read lock
	s.notify(a, rwDeadWord, -1)
}

func rwReadsFinder(s *sched, a *sagent) {
	for s.mem[rwDeadWord] == 0 {
		s.wait(a, rwDeadWord, 0, inf)
	}
	if n := s.mem[rwReadsWord]; n > 0 {
		s.mem[rwReadsWord] = 0 // claimed (a swap in the registry)
		expectOK(s, a, "recover", a.a.Call(proto.OpRecover, 0, 0, proto.KindRwDrain, n))
		s.fam.runs++
	}
	s.step(a)
	rwReader(false)(s, a)
}

func rwDeadWriter(s *sched, a *sagent) {
	for range s.iters {
		expectOK(s, a, "lock", a.a.Wait(proto.KindRwAnnounce, 0, 0, 0, inf))
		rwWriteSection(s, a)
	}
}

func rwDeadChecked(s *sched) string {
	if s.fam.runs != 1 {
		return fmt.Sprintf("the dead writer's lock was freed %d times, want 1", s.fam.runs)
	}
	if s.mem[0] != 0 || s.mem[1] != 0 || s.mem[2] != 0 {
		return fmt.Sprintf("after the schedule: state word %#x, admissions %d, writer %d; want all 0", s.mem[0], s.mem[1], s.mem[2])
	}
	return ""
}

// Every schedule of the scenarios with up to two preemptions, and the core
// whose releaseDead does not claim the holder slot (fault "dead") is caught.
// A mutex handed off to a waiter that never comes: the word starts at 4
// (unlocked|starving), as an unlock's hand-off to a dead worker's queued
// wait leaves it. Two watched agents (their sleeps end at the watch period,
// and their watch looks at the word: watchLook) lock and unlock in a loop:
// in every schedule a watch voids the hand-off (voidHandOff) and both
// finish, with mutual exclusion, among hand-offs of their own. Unwatched,
// both sleep on the handed-off word for good.
var lostHandOffScenario = &scenario{
	name:  "Mutex: a hand-off nobody takes, two watched lockers",
	roles: []role{{lockLoop, 0}, {lockAsyncLoop, 1}},
	init:  func(s *sched) { s.mem[0] = 4 },
	check: func(s *sched) string {
		if s.mem[0] != 0 {
			return fmt.Sprintf("the word ends at %d, want 0 (free)", s.mem[0])
		}
		return ""
	},
}

// A Semaphore's reservation nobody takes (its waiter ended: a terminated
// worker's acquire), its permits free, and an RWMutex's S nobody ends (the
// starving writer ended): two watched agents then take and give back in a
// loop. Newcomers may not take what is reserved, nor set W past S, so
// unwatched they sleep for good; in every schedule the reservation is
// voided by a watch's look (semVoidReservation), and a writer whose sleep
// ended at the watch period has slept, and may set W past S.
var (
	lostReservationScenario = &scenario{
		name:  "Semaphore: a reservation nobody takes, two watched users",
		roles: []role{{semUser(1, false), 0}, {semUser(1, true), 1}},
		words: semWords, steps: 200,
		init:  func(s *sched) { s.mem[1], s.mem[2] = semPermits, semPermits }, // all reserved, all free
		check: semReleased,
	}
	lostStarvingScenario = &scenario{
		name:  "RWMutex: a starving writer that never comes, two watched writers",
		roles: []role{{rwWriter(false), 0}, {rwWriter(true), 1}},
		words: rwWords, steps: 200,
		init:  func(s *sched) { s.mem[0] = 1 << 27 }, // S
		check: rwReleased,
	}
	// A Channel whose senders and receivers both starve, their starving
	// waiters ended: newcomers may not take the last cell or message.
	lostChanStarverScenario = func() *scenario {
		sc := chanScenario("both sides starving, their starvers ended, watched", role{chanProducer(1, 1, "block"), 0}, role{chanConsumer("async"), 1})
		init := sc.init
		sc.init = func(s *sched) {
			init(s)
			s.mem[proto.ChanHead] |= proto.ChanStarving
			s.mem[proto.ChanTail] |= proto.ChanStarving
		}
		return sc
	}()
	nobodyComesScenarios = []*scenario{lostHandOffScenario, lostReservationScenario, lostStarvingScenario, lostChanStarverScenario}
)

func TestExploreLostHandOff(t *testing.T) {
	t.Parallel()              // on hosts of its own (ownHost, watchedHost)
	watched := watchedHost(t) // the holder is never dead
	for _, sc := range nobodyComesScenarios {
		e := &explorer{t: t, h: watched}
		if f, prefix := e.bounded(sc, boundOf(), 400000); f != "" {
			t.Fatalf("%s: schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ %d preemptions: all %d schedules pass (%d with hand-offs)", sc.name, boundOf(), e.runs, e.handoffs)
	}
}

func TestExploreDeadHolder(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	for _, sc := range append([]*scenario{deadHolderScenario}, rwDeadScenarios...) {
		e := &explorer{t: t, h: ownHost(t)}
		if f, prefix := e.bounded(sc, boundOf(), 400000); f != "" {
			t.Fatalf("%s: schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ %d preemptions: all %d schedules pass", sc.name, boundOf(), e.runs)
	}
}
