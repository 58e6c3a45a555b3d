package coretest

import (
	"flag"
	"fmt"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer (explore_test.go) on the rest of the family: for each
// primitive, roles that use it as workers (blocking ops) and pages do
// (the glue's asynchronous loop, WaitAsync in waits.go), casts that mix them with
// asynchronous tasks sharing an agent id, timed waits and aborted ones (their
// waits left queued as ghosts), and the primitive's invariant, checked at
// every turn of a role and once the schedule has ended. Every wait in a cast
// ends: without a deadline, a lost wake-up leaves the agents asleep, which the
// scheduler reports (sched.stuck).

// famState is what the family's roles keep for their checks, per schedule.
type famState struct {
	overlap bool // RWMutex: readers were inside together; Semaphore: permit holders were

	readers, writers int // RWMutex: inside now

	inUse int // Semaphore: permits held now
	// Semaphore, as semObserve sees its words: the agent whose reservation
	// stands (reserved: one is), and the agents that have ended
	// semWaiters without a release and not yet notified (wakingAll).
	reserver  int
	reserved  bool
	wakingAll map[int]bool

	pending int // WaitGroup: the counter as the roles know it (see wgWorker)

	arrived, lasts   []int // Barrier, fixed parties: per generation
	started, passes  int   // Barrier with timeouts: arrivals begun, waits passed,
	withdrawn, lastN int   // arrivals taken back, resultLast seen

	running, done bool // Once: fn is running, has succeeded
	runs          int  // Once: fns that succeeded

	buf       []int       // Cond: the bounded buffer, guarded by the mutex
	produced  []int       // Cond: every item put
	delivered map[int]int // Cond: how often each item was taken
}

// dwell is a few steps inside a section, where others may run.
func (s *sched) dwell(a *sagent) {
	s.step(a)
	s.step(a)
}

// abortFirst is an AbortFunc that aborts an asynchronous wait the first
// time it queues: the wait stays behind as a ghost.
func abortFirst(s *sched, a *sagent) AbortFunc {
	fired := false
	return func(idx, v int32) bool {
		if fired {
			return false
		}
		fired = s.ghostWait(a, idx, v)
		return fired
	}
}

// timed checks the result of a wait of timeoutMs that began at start: ok
// (acquired), or busy only once the time has run out.
func timed(s *sched, a *sagent, what string, r int32, start float64, ok ...int32) bool {
	for _, o := range ok {
		if r == o {
			return true
		}
	}
	if r != resultBusy {
		s.fail("role %d: %s = %d", a.id, what, r)
	}
	if waited := s.nowMs - start; waited < timeoutMs {
		s.fail("role %d: %s(%v ms) gave up after %v ms", a.id, what, timeoutMs, waited)
	}
	return false
}

func expectOK(s *sched, a *sagent, what string, r int32) {
	if r != resultOK {
		s.fail("role %d: %s = %d", a.id, what, r)
	}
}

// -------- RWMutex: the state word at 0, the admissions at 1, the writer at
// 2. Never a writer with anyone else inside; readers may overlap.

const rwWords = 3

// The sections count a role in as soon as its lock returns, and out before
// it unlocks: the model's counts are never above the core's.
func rwReadSection(s *sched, a *sagent) {
	if s.fam.writers != 0 {
		s.fail("role %d: a reader entered while a writer was inside", a.id)
	}
	s.fam.readers++
	if s.fam.readers > 1 {
		s.fam.overlap = true
	}
	s.dwell(a)
	s.step(a)
	s.fam.readers--
	expectOK(s, a, "readUnlock", a.a.Call(proto.OpRwReadUnlock, 0, 0, 0, 0))
}

func rwWriteSection(s *sched, a *sagent) {
	if s.fam.writers != 0 || s.fam.readers != 0 {
		s.fail("role %d: a writer entered with %d writers and %d readers inside", a.id, s.fam.writers, s.fam.readers)
	}
	s.fam.writers++
	s.dwell(a)
	s.step(a)
	s.fam.writers--
	expectOK(s, a, "unlock", a.a.Call(proto.OpRwUnlock, 0, 0, 0, 0))
}

func rwReader(async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		for range s.iters {
			if async {
				expectOK(s, a, "readLockAsync", a.a.WaitAsync(proto.KindRwRead, 0, 0, 0, inf, nil))
			} else {
				expectOK(s, a, "readLock", a.a.Wait(proto.KindRwRead, 0, 0, 0, inf))
			}
			rwReadSection(s, a)
		}
	}
}

func rwWriter(async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		for range s.iters {
			if async {
				expectOK(s, a, "lockAsync", a.a.WaitAsync(proto.KindRwAnnounce, 0, 0, 0, inf, nil))
			} else {
				expectOK(s, a, "lock", a.a.Wait(proto.KindRwAnnounce, 0, 0, 0, inf))
			}
			rwWriteSection(s, a)
		}
	}
}

// rwTimedTryAbort: a timed read lock, tryReadLock, an aborted
// readLockAsync; then the same for the write lock.
func rwTimedTryAbort(async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		start := s.nowMs
		var r int32
		if async {
			r = a.a.WaitAsync(proto.KindRwRead, 0, 0, 0, timeoutMs, nil)
		} else {
			r = a.a.Wait(proto.KindRwRead, 0, 0, 0, timeoutMs)
		}
		if timed(s, a, "readLock", r, start, resultOK) {
			rwReadSection(s, a)
		}
		if r := a.a.Call(proto.OpRwTryReadLock, 0, 0, 0, 0); r == resultOK {
			rwReadSection(s, a)
		} else if r != resultBusy {
			s.fail("role %d: tryReadLock = %d", a.id, r)
		}
		switch r := a.a.WaitAsync(proto.KindRwRead, 0, 0, 0, inf, abortFirst(s, a)); r {
		case resultOK:
			rwReadSection(s, a)
		case Aborted:
		default:
			s.fail("role %d: aborted readLockAsync = %d", a.id, r)
		}
		start = s.nowMs
		if async {
			r = a.a.WaitAsync(proto.KindRwAnnounce, 0, 0, 0, timeoutMs, nil)
		} else {
			r = a.a.Wait(proto.KindRwAnnounce, 0, 0, 0, timeoutMs)
		}
		if timed(s, a, "lock", r, start, resultOK) {
			rwWriteSection(s, a)
		}
		if r := a.a.Call(proto.OpRwTryLock, 0, 0, 0, 0); r == resultOK {
			rwWriteSection(s, a)
		} else if r != resultBusy {
			s.fail("role %d: tryLock = %d", a.id, r)
		}
		switch r := a.a.WaitAsync(proto.KindRwAnnounce, 0, 0, 0, inf, abortFirst(s, a)); r {
		case resultOK:
			rwWriteSection(s, a)
		case Aborted:
		default:
			s.fail("role %d: aborted lockAsync = %d", a.id, r)
		}
	}
}

// rwReleased: once everyone has left, the state word and the writer slot
// are free and every admission was taken (every count came back).
func rwReleased(s *sched) string {
	if s.mem[0] != 0 || s.mem[1] != 0 || s.mem[2] != 0 {
		return fmt.Sprintf("after the schedule: state word %#x, admissions %d, writer %d; want all 0", s.mem[0], s.mem[1], s.mem[2])
	}
	return ""
}

func rwScenario(name string, roles ...role) *scenario {
	return &scenario{name: "RWMutex: " + name, roles: roles, words: rwWords, steps: 200, check: rwReleased}
}

var (
	rwSmall     = rwScenario("a writer, a reader", role{rwWriter(false), 0}, role{rwReader(false), 1})
	rwScenarios = []*scenario{
		rwSmall,
		rwScenario("a writer, two readers", role{rwWriter(false), 0}, role{rwReader(true), 1}, role{rwReader(false), 2}),
		rwScenario("two writers, a reader", role{rwWriter(true), 0}, role{rwWriter(false), 1}, role{rwReader(true), 2}),
		// A reader and a writer task of one agent beside a worker that reads,
		// and a third task that times out, tries and aborts.
		rwScenario("tasks of one agent", role{rwReader(true), 0}, role{rwWriter(true), 0}, role{rwReader(false), 1}, role{rwTimedTryAbort(true), 0}),
		rwScenario("a worker that times out, tries and aborts", role{rwWriter(true), 0}, role{rwReader(false), 1}, role{rwTimedTryAbort(false), 2}),
	}
)

// -------- Semaphore of 2 permits at 0 (taken, reserved, permits): never
// more than 2 permits in use; nobody stuck.

const (
	semWords   = 3
	semPermits = 2
)

func semSection(s *sched, a *sagent, n int32) {
	s.fam.inUse += int(n)
	if s.fam.inUse > semPermits {
		s.fail("role %d: %d permits in use of %d", a.id, s.fam.inUse, semPermits)
	}
	if s.fam.inUse > int(n) {
		s.fam.overlap = true
	}
	s.dwell(a)
	s.step(a)
	s.fam.inUse -= int(n) // before the release: the next holder may count at once
	expectOK(s, a, "release", a.a.Call(proto.OpSemRelease, 0, 0, n, 0))
}

func semSetUp(s *sched, a *sagent) {
	expectOK(s, a, "setUp", a.a.Call(proto.OpSemSetUp, 0, 0, semPermits, 0))
}

func semUser(n int32, async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		semSetUp(s, a)
		for range s.iters {
			if async {
				expectOK(s, a, "acquireAsync", a.a.WaitAsync(proto.KindSemAcquire, 0, 0, n, inf, nil))
			} else {
				expectOK(s, a, "acquire", a.a.Wait(proto.KindSemAcquire, 0, 0, n, inf))
			}
			semSection(s, a, n)
		}
	}
}

func semTimedTryAbort(n int32, async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		semSetUp(s, a)
		start := s.nowMs
		var r int32
		if async {
			r = a.a.WaitAsync(proto.KindSemAcquire, 0, 0, n, timeoutMs, nil)
		} else {
			r = a.a.Wait(proto.KindSemAcquire, 0, 0, n, timeoutMs)
		}
		if timed(s, a, "acquire", r, start, resultOK) {
			semSection(s, a, n)
		}
		if r := a.a.Call(proto.OpSemTryAcquire, 0, 0, n, 0); r == resultOK {
			semSection(s, a, n)
		} else if r != resultBusy {
			s.fail("role %d: tryAcquire = %d", a.id, r)
		}
		switch r := a.a.WaitAsync(proto.KindSemAcquire, 0, 0, n, inf, abortFirst(s, a)); r {
		case resultOK:
			semSection(s, a, n)
		case Aborted:
		default:
			s.fail("role %d: aborted acquireAsync = %d", a.id, r)
		}
	}
}

// semReleased: every permit back, and no reservation left behind (it would
// hold newcomers back for good).
func semReleased(s *sched) string {
	if s.mem[0]&(1<<30-1) != 0 || s.mem[1] != 0 {
		return fmt.Sprintf("after the schedule: taken word %#x, reserved %d; want no permit taken and nothing reserved", s.mem[0], s.mem[1])
	}
	return ""
}

func semScenario(name string, roles ...role) *scenario {
	return &scenario{name: "Semaphore: " + name, roles: roles, words: semWords, steps: 200, check: semReleased, init: semWatchWords}
}

// semWatchWords has semObserve watch the schedule's transitions.
func semWatchWords(s *sched) {
	s.fam.wakingAll = map[int]bool{}
	s.onSwap, s.onNotify = semObserve, semObserveNotify
}

// semObserve checks two rules of the Semaphore's (internal/core/semaphore.go)
// on each of its transitions:
//
//   - a reservation (reserved 0 -> n) is its waiter's: only the agent that
//     made it ends it (n -> 0), by taking it or giving up (the watch's
//     void aside, which no scenario here watches). Another waiter that
//     takes it robs the waiter that starved (brokenSemReservationShared);
//   - a release that finds no semWaiters leaves nobody asleep on the word,
//     unless a wake-all is on its way (semWakeAll has cleared semWaiters,
//     and its notify of all comes next): a sleeper would sleep on through
//     every such release, whoever takes between them, until a waiter that
//     a release woke before ran again (brokenSemReleaseClearsWaiters).
func semObserve(s *sched, a *sagent, i, was, v int32) {
	const waiters, mask = 1 << 30, 1<<30 - 1
	switch {
	case i == 1 && was == 0:
		s.fam.reserver, s.fam.reserved = a.id, true
	case i == 1 && v == 0:
		if s.fam.reserved && s.fam.reserver != a.id {
			s.fail("role %d ended the reservation of %d that role %d made (the reservation is its waiter's)", a.id, was, s.fam.reserver)
		}
		s.fam.reserved = false
	case i == 0 && was&mask == v&mask && was&waiters != 0 && v&waiters == 0:
		s.fam.wakingAll[a.id] = true
	case i == 0 && v&mask < was&mask && was&waiters == 0 && len(s.fam.wakingAll) == 0:
		for _, b := range s.agents {
			if b.status == blocked && b.waitMem == 0 && b.waitIdx == 0 {
				s.fail("role %d released with semWaiters clear while role %d slept on the word: this release wakes nobody", a.id, b.id)
			}
		}
	}
}

// semObserveNotify: a notify of all on the taken word ends the wake-all
// its agent had on its way.
func semObserveNotify(s *sched, a *sagent, i, count, _ int32) {
	if i == 0 && count < 0 {
		delete(s.fam.wakingAll, a.id)
	}
}

var (
	semSmall     = semScenario("takes 1 and 2", role{semUser(1, false), 0}, role{semUser(2, true), 1})
	semScenarios = []*scenario{
		semSmall,
		semScenario("takes 1, 2 and 1", role{semUser(1, false), 0}, role{semUser(2, true), 1}, role{semUser(1, true), 2}),
		semScenario("tasks of one agent", role{semUser(1, true), 0}, role{semUser(1, true), 0}, role{semUser(2, false), 1}, role{semTimedTryAbort(2, true), 0}),
		semScenario("a worker that times out, tries and aborts", role{semUser(1, true), 0}, role{semUser(2, false), 1}, role{semTimedTryAbort(1, false), 2}),
		semReservedScenario,
		semSleepersScenario,
	}
	// Two waiters for 2 beside a user of 1: one reserves, and the other,
	// woken by the same release, may not take what is reserved.
	semReservedScenario = semScenario("two waiters for 2 and a user of 1", role{semUser(2, false), 0}, role{semUser(2, true), 1}, role{semUser(1, false), 2})
	// Four users of 1 on 2 permits: two may sleep while the others take
	// and release.
	semSleepersScenario = semScenario("four users of 1", role{semUser(1, false), 0}, role{semUser(1, true), 1}, role{semUser(1, false), 2}, role{semUser(1, true), 3})
)

// -------- WaitGroup at 0, started at 2 (two workers): a wait returns only
// once the counter is 0.

// wgWorker is done after some work; with spawn, it adds one more task while
// it still counts (as a worker that starts a sub-task does), and finishes it.
// The roles' count goes down before each done, so it is never above the
// core's when a waiter looks: a waiter that returns while it is above 0 returned early.
func wgWorker(spawn bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		s.dwell(a)
		if spawn {
			s.fam.pending++
			expectOK(s, a, "add(1)", a.a.Call(proto.OpWgAdd, 0, 0, 1, 0))
			s.dwell(a)
			s.fam.pending--
			expectOK(s, a, "done", a.a.Call(proto.OpWgAdd, 0, 0, -1, 0))
		}
		s.dwell(a)
		s.fam.pending--
		expectOK(s, a, "done", a.a.Call(proto.OpWgAdd, 0, 0, -1, 0))
	}
}

func wgReturned(s *sched, a *sagent) {
	if s.fam.pending != 0 {
		s.fail("role %d: wait returned with %d tasks not done", a.id, s.fam.pending)
	}
}

// wgWaiter waits, blocking or asynchronously; timed, it may give up in
// time; aborting, it aborts its first sleep.
func wgWaiter(async, timedOut, abort bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		t, start := inf, s.nowMs
		if timedOut {
			t = timeoutMs
		}
		var r int32
		switch {
		case abort:
			if r = a.a.WaitAsync(proto.KindWgWait, 0, 0, 0, t, abortFirst(s, a)); r == Aborted {
				return
			}
		case async:
			r = a.a.WaitAsync(proto.KindWgWait, 0, 0, 0, t, nil)
		default:
			r = a.a.Wait(proto.KindWgWait, 0, 0, 0, t)
		}
		if timed(s, a, "wait", r, start, resultOK) {
			wgReturned(s, a)
		}
	}
}

func wgScenario(name string, roles ...role) *scenario {
	return &scenario{
		name: "WaitGroup: " + name, roles: roles, words: 1, steps: 40,
		init: func(s *sched) { s.mem[0], s.fam.pending = 2, 2 },
		check: func(s *sched) string {
			if s.mem[0] != 0 {
				return fmt.Sprintf("after the schedule: counter word %#x, want 0", s.mem[0])
			}
			return ""
		},
	}
}

var (
	wgSmall     = wgScenario("two workers, a waiter", role{wgWorker(true), 0}, role{wgWorker(false), 0}, role{wgWaiter(false, false, false), 1})
	wgScenarios = []*scenario{
		wgSmall,
		wgScenario("waiters of every kind", role{wgWorker(true), 0}, role{wgWorker(false), 1}, role{wgWaiter(false, false, false), 2}, role{wgWaiter(true, false, false), 3}),
		// Waiters that are tasks of one agent, one timed and one aborted,
		// beside a blocking one.
		wgScenario("tasks of one agent", role{wgWorker(false), 0}, role{wgWorker(true), 1}, role{wgWaiter(true, false, false), 2}, role{wgWaiter(true, true, false), 2}, role{wgWaiter(true, false, true), 2}, role{wgWaiter(false, true, false), 3}),
	}
)

// -------- Barrier at 0 (generation and count, parties).

// barrierParty, with parties fixed: s.iters generations, and nobody leaves
// generation k before all parties arrived in it; exactly one resultLast each.
func barrierParty(parties int, async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "setUp", a.a.Call(proto.OpBarrierSetUp, 0, 0, int32(parties), 0))
		for k := range s.iters {
			for len(s.fam.arrived) <= k {
				s.fam.arrived, s.fam.lasts = append(s.fam.arrived, 0), append(s.fam.lasts, 0)
			}
			s.fam.arrived[k]++
			var r int32
			if async {
				r = a.a.WaitAsync(proto.KindBarrier, 0, 0, 0, inf, nil)
			} else {
				r = a.a.Wait(proto.KindBarrier, 0, 0, 0, inf)
			}
			switch r {
			case resultLast:
				s.fam.lasts[k]++
			case resultOK:
			default:
				s.fail("role %d: wait = %d", a.id, r)
			}
			if s.fam.arrived[k] != parties {
				s.fail("role %d left generation %d with %d of %d parties arrived", a.id, k, s.fam.arrived[k], parties)
			}
		}
	}
}

func barrierFixed(name string, parties int, roles ...role) *scenario {
	return &scenario{
		name: "Barrier: " + name, roles: roles, words: 2, steps: 80,
		check: func(s *sched) string {
			for k, n := range s.fam.lasts {
				if n != 1 {
					return fmt.Sprintf("generation %d had %d last arrivals, want 1", k, n)
				}
			}
			if s.mem[0]&(1<<16-1) != 0 {
				return fmt.Sprintf("after the schedule: %d arrivals left in the barrier", s.mem[0]&(1<<16-1))
			}
			return ""
		},
	}
}

// Parties that may time out or abort: which generation an arrival joins is
// the core's choice, so the check counts. Every completed generation was
// passed by exactly `parties` waits, among them one resultLast; so when a
// wait passes, passes so far ≤ parties × ⌊(arrivals begun − taken back) /
// parties⌋ (a withdrawal is counted only once it returned: the bound is loose
// but sound), and at the end passes = parties × resultLasts.
const barrierLongMs = 1e6 // never reached while anyone can run: a deadline only for the last party left

func barrierPass(s *sched, a *sagent, parties int, r int32) {
	s.fam.passes++
	if r == resultLast {
		s.fam.lastN++
	}
	if limit := parties * ((s.fam.started - s.fam.withdrawn) / parties); s.fam.passes > limit {
		s.fail("role %d passed the barrier: %d passes with %d arrivals begun and %d taken back (at most %d)", a.id, s.fam.passes, s.fam.started, s.fam.withdrawn, limit)
	}
}

// barrierTimed: waits with a far deadline (blocking or asynchronous), then
// a timed one and an aborted one.
func barrierTimed(parties int, async, short bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		expectOK(s, a, "setUp", a.a.Call(proto.OpBarrierSetUp, 0, 0, int32(parties), 0))
		wait := func(t float64, abort AbortFunc) {
			start := s.nowMs
			s.fam.started++
			var r int32
			if async || abort != nil {
				r = a.a.WaitAsync(proto.KindBarrier, 0, 0, 0, t, abort)
			} else {
				r = a.a.Wait(proto.KindBarrier, 0, 0, 0, t)
			}
			switch {
			case r == Aborted:
				s.fam.withdrawn++
			case r == resultOK || r == resultLast:
				barrierPass(s, a, parties, r)
			case r == resultBusy && s.nowMs-start >= t:
				s.fam.withdrawn++
			default:
				s.fail("role %d: wait(%v ms) = %d after %v ms", a.id, t, r, s.nowMs-start)
			}
		}
		if !short {
			for range s.iters {
				wait(barrierLongMs, nil)
			}
			return
		}
		wait(timeoutMs, nil)
		wait(inf, abortFirst(s, a))
	}
}

func barrierWithTimeouts(name string, parties int, roles ...role) *scenario {
	return &scenario{
		name: "Barrier: " + name, roles: roles, words: 2, steps: 80,
		check: func(s *sched) string {
			if s.fam.passes != parties*s.fam.lastN {
				return fmt.Sprintf("%d waits passed in %d generations of %d parties", s.fam.passes, s.fam.lastN, parties)
			}
			if s.mem[0]&(1<<16-1) != 0 {
				return fmt.Sprintf("after the schedule: %d arrivals left in the barrier", s.mem[0]&(1<<16-1))
			}
			return ""
		},
	}
}

var (
	barrierSmall     = barrierFixed("2 parties", 2, role{barrierParty(2, false), 0}, role{barrierParty(2, true), 1})
	barrierTimeouts  = barrierWithTimeouts("2 parties, one times out and aborts", 2, role{barrierTimed(2, false, false), 0}, role{barrierTimed(2, true, false), 1}, role{barrierTimed(2, true, true), 2})
	barrierScenarios = []*scenario{
		barrierSmall,
		barrierFixed("3 parties, two tasks of one agent", 3, role{barrierParty(3, false), 0}, role{barrierParty(3, true), 1}, role{barrierParty(3, true), 1}),
		barrierTimeouts,
		barrierWithTimeouts("3 parties, tasks of one agent time out and abort", 3, role{barrierTimed(3, false, false), 0}, role{barrierTimed(3, true, false), 1}, role{barrierTimed(3, true, false), 2}, role{barrierTimed(3, true, true), 1}, role{barrierTimed(3, true, true), 2}),
	}
)

// -------- Once at 0 (state, runner): fn runs exactly once when it succeeds
// (a failed fn lets another run), never two at once, and nobody returns
// before it finished.

func onceBody(s *sched, a *sagent, fails bool) {
	s.step(a)
	if s.fam.running || s.fam.done {
		s.fail("role %d runs fn while another runs (%v) or after one succeeded (%v)", a.id, s.fam.running, s.fam.done)
	}
	s.fam.running = true
	s.dwell(a)
	s.fam.running = false
	ok := int32(1)
	if fails {
		ok = 0
	} else {
		s.fam.done, s.fam.runs = true, s.fam.runs+1
	}
	expectOK(s, a, "finish", a.a.Call(proto.OpOnceFinish, 0, 0, ok, 0))
}

// onceCaller calls do s.iters times; failFirst: its first fn throws. A timed
// caller may give up in time, an aborting one aborts its first sleep.
func onceCaller(async, failFirst, timedOut, abort bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		failed := false
		for range s.iters {
			t, start := inf, s.nowMs
			if timedOut {
				t = timeoutMs
			}
			var ab AbortFunc
			if abort {
				ab = abortFirst(s, a)
			}
			var r int32
			if async || abort {
				r = a.a.WaitAsync(proto.KindOnce, 0, 0, 0, t, ab)
			} else {
				r = a.a.Wait(proto.KindOnce, 0, 0, 0, t)
			}
			switch {
			case r == resultRun:
				fails := failFirst && !failed
				failed = failed || fails
				onceBody(s, a, fails)
			case r == resultOK:
				if !s.fam.done {
					s.fail("role %d: do returned before fn succeeded", a.id)
				}
			case r == Aborted && abort:
			default:
				timed(s, a, "do", r, start)
			}
		}
	}
}

func onceScenario(name string, roles ...role) *scenario {
	return &scenario{
		name: "Once: " + name, roles: roles, words: 2, steps: 40,
		check: func(s *sched) string {
			if s.fam.runs != 1 || s.mem[0] != 3 || s.mem[1] != 0 {
				return fmt.Sprintf("after the schedule: fn succeeded %d times, state %d, runner %d; want 1, 3 (done), 0", s.fam.runs, s.mem[0], s.mem[1])
			}
			return ""
		},
	}
}

var (
	onceSmall     = onceScenario("a failing caller and another", role{onceCaller(false, true, false, false), 0}, role{onceCaller(true, false, false, false), 1})
	onceScenarios = []*scenario{
		onceSmall,
		onceScenario("three agents", role{onceCaller(false, true, false, false), 0}, role{onceCaller(true, false, false, false), 1}, role{onceCaller(false, false, false, false), 2}),
		onceScenario("tasks of one agent", role{onceCaller(true, false, false, false), 0}, role{onceCaller(true, true, false, false), 0}, role{onceCaller(false, true, false, false), 1}, role{onceCaller(true, false, true, false), 0}, role{onceCaller(true, false, false, true), 0}),
		onceScenario("a worker that times out", role{onceCaller(true, true, false, false), 0}, role{onceCaller(false, false, true, false), 1}, role{onceCaller(true, false, false, true), 2}),
	}
)

// -------- Cond: a mutex at 0 and 1; a buffer of one item, guarded by it;
// "not empty" at 2, and "not full" at 3 (notifyOne), or one condition
// variable at 2 for both (notifyAll). Every item is delivered exactly once,
// and nobody sleeps for good (a lost wake-up).

const condWords = 4

type condKind struct {
	notEmpty, notFull, count int32
}

var (
	condOne = condKind{2, 3, 1}
	condAll = condKind{2, 2, -1}
)

func condLock(s *sched, a *sagent, async bool) {
	var r int32
	if async {
		r = a.a.LockAsync(0, 0, inf)
	} else {
		r = a.a.Lock(0, 0, inf)
	}
	expectOK(s, a, "lock", r)
}

// condWait waits on c (re-locking the mutex before it returns); timed, it
// may time out, and an abort ends it early: either way the caller looks at
// the buffer again.
func condWait(s *sched, a *sagent, c int32, async bool, t float64, abort AbortFunc) {
	start := s.nowMs
	r := condWaitAs(a.a, async || abort != nil, c, t, abort)
	if r == Aborted && abort != nil {
		return
	}
	timed(s, a, "cond wait", r, start, resultOK)
}

// condWaitAs is Cond.wait (blocking) or waitAsync as the glue composes
// them (jsglue/cond.js): begin (read the sequence, unlock the mutex at 0),
// the wait on the sequence, then the mutex again without a deadline,
// however the wait ended.
func condWaitAs(a *Agent, async bool, c int32, t float64, abort AbortFunc) int32 {
	seq := a.Call(proto.OpCondWaitBegin, 0, c, 0, 0)
	if seq < 0 {
		return seq
	}
	var r, l int32
	if async {
		r = a.WaitAsync(proto.KindCond, 0, c, seq, t, abort)
		l = a.LockAsync(0, 0, inf)
	} else {
		r = a.Wait(proto.KindCond, 0, c, seq, t)
		l = a.Lock(0, 0, inf)
	}
	if l != resultOK && l != resultDied {
		return l
	}
	return r
}

func condProducer(k condKind, async bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		for i := range s.iters {
			condLock(s, a, async)
			for len(s.fam.buf) != 0 {
				condWait(s, a, k.notFull, async, inf, nil)
			}
			s.enter(a)
			item := 100*a.id + i
			s.fam.buf = append(s.fam.buf, item)
			s.fam.produced = append(s.fam.produced, item)
			s.leave(a)
			if r := a.a.Call(proto.OpCondNotify, 0, k.notEmpty, k.count, 0); r < 0 {
				s.fail("role %d: notify = %d", a.id, r)
			}
			expectOK(s, a, "unlock", a.a.Unlock(0, 0))
		}
	}
}

// condConsumer takes s.iters items; timed, its waits may time out; abort:
// its first wait is aborted.
func condConsumer(k condKind, async, timedOut, abort bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		var ab AbortFunc
		if abort {
			ab = abortFirst(s, a)
		}
		t := inf
		if timedOut {
			t = timeoutMs
		}
		for range s.iters {
			condLock(s, a, async)
			for len(s.fam.buf) == 0 {
				condWait(s, a, k.notEmpty, async, t, ab)
			}
			s.enter(a)
			item := s.fam.buf[0]
			s.fam.buf = s.fam.buf[1:]
			if s.fam.delivered == nil {
				s.fam.delivered = map[int]int{}
			}
			if s.fam.delivered[item]++; s.fam.delivered[item] > 1 {
				s.fail("role %d: item %d delivered twice", a.id, item)
			}
			s.leave(a)
			if r := a.a.Call(proto.OpCondNotify, 0, k.notFull, k.count, 0); r < 0 {
				s.fail("role %d: notify = %d", a.id, r)
			}
			expectOK(s, a, "unlock", a.a.Unlock(0, 0))
		}
	}
}

func condScenario(name string, roles ...role) *scenario {
	return &scenario{
		name: "Cond: " + name, roles: roles, words: condWords, steps: 450,
		check: func(s *sched) string {
			for _, item := range s.fam.produced {
				if s.fam.delivered[item] != 1 {
					return fmt.Sprintf("item %d delivered %d times", item, s.fam.delivered[item])
				}
			}
			if s.mem[0] != 0 {
				return fmt.Sprintf("after the schedule: mutex word %d, want 0", s.mem[0])
			}
			return ""
		},
	}
}

var (
	condSmall     = condScenario("notifyOne, a producer and a consumer", role{condProducer(condOne, false), 0}, role{condConsumer(condOne, true, false, false), 1})
	condScenarios = []*scenario{
		condSmall,
		condScenario("notifyAll, a producer and a consumer", role{condProducer(condAll, true), 0}, role{condConsumer(condAll, false, false, false), 1}),
		condScenario("notifyOne, two producers, two consumers", role{condProducer(condOne, false), 0}, role{condProducer(condOne, true), 1}, role{condConsumer(condOne, true, false, false), 2}, role{condConsumer(condOne, false, false, false), 3}),
		condScenario("notifyAll, two producers, two consumers", role{condProducer(condAll, true), 0}, role{condProducer(condAll, false), 1}, role{condConsumer(condAll, false, false, false), 2}, role{condConsumer(condAll, true, false, false), 3}),
		// Consumers that are tasks of one agent, one timed and one whose
		// first wait is aborted (its wait stays queued, a ghost that could
		// take a notifyOne meant for the other).
		condScenario("notifyOne, tasks of one agent time out and abort", role{condProducer(condOne, false), 0}, role{condProducer(condOne, false), 1}, role{condConsumer(condOne, true, true, false), 2}, role{condConsumer(condOne, true, false, true), 2}),
		condScenario("notifyAll, tasks of one agent time out and abort", role{condProducer(condAll, false), 0}, role{condProducer(condAll, true), 1}, role{condConsumer(condAll, true, false, true), 2}, role{condConsumer(condAll, true, true, false), 2}),
	}
)

// -------- The tests.

// family is each primitive's scenarios, and the small one that the bounded
// search runs in full (the larger ones too, unless -short: see familyBounded).
var family = []struct {
	name      string
	scenarios []*scenario
	small     *scenario
}{
	{"RWMutex", rwScenarios, rwSmall},
	{"Semaphore", semScenarios, semSmall},
	{"WaitGroup", wgScenarios, wgSmall},
	{"Barrier", barrierScenarios, barrierSmall},
	{"Once", onceScenarios, onceSmall},
	{"Cond", condScenarios, condSmall},
	{"Channel", chanScenarios, chanSmall},
}

var familyRuns = flag.Int("explore.family", 3000, "PCT schedules per primitive that TestExploreFamily_pct runs (-short: a tenth)")

// TestExploreFamily_pct: per primitive, PCT and uniformly random schedules
// of its scenarios (as TestExplore_pct does for the mutex); -short: a tenth.
// A failure prints its seed; -explore.seed replays it.
func TestExploreFamily_pct(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	for _, p := range family {
		t.Run(p.name, func(t *testing.T) {
			e := &explorer{t: t, h: ownHost(t)}
			runs, first := *familyRuns, int64(0)
			if testing.Short() {
				runs /= 10
			}
			if *exploreSeed >= 0 {
				runs, first = 1, *exploreSeed
			}
			if seed, f := e.pctOf(p.scenarios, runs, first); seed >= 0 {
				sc := p.scenarios[seed%int64(len(p.scenarios))]
				t.Fatalf("%s, schedule seed %d: %s\nreplay: go test ./coretest -run 'TestExploreFamily_pct/%s' -explore.seed=%d", sc.name, seed, f, p.name, seed)
			}
			t.Logf("%s: %d schedules, no failure (%d with readers or permit holders inside together), %d steps on average", p.name, e.runs, e.overlaps, e.steps/e.runs)
		})
	}
}

// familyBounded are the scenarios the bounded search runs in full: each
// primitive's small one, and (not under -short) a larger one.
func familyBounded() []*scenario {
	scs := []*scenario{rwSmall, semSmall, wgSmall, barrierSmall, barrierTimeouts, onceSmall, condSmall}
	if !testing.Short() {
		scs = append(scs, rwScenarios[1], semScenarios[1], semReservedScenario, condScenarios[1])
	}
	return scs
}

// TestExploreFamily_bounded: every schedule with at most two preemptions
// (-short: one) of small scenarios of each primitive.
func TestExploreFamily_bounded(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	for _, sc := range familyBounded() {
		e := &explorer{t: t, h: ownHost(t)}
		if f, prefix := e.bounded(sc, boundOf(), 400000); f != "" {
			t.Fatalf("%s, schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ %d preemptions: all %d schedules pass", sc.name, boundOf(), e.runs)
	}
}
