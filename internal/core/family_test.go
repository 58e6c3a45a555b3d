//go:build !wasm

package core

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Single-agent semantics of each primitive after the mutex: what each call
// returns and leaves. The interleavings are the explorer's
// (coretest/family_test.go).

func TestRWMutexSemantics(t *testing.T) {
	mem, m := newMemory(t)
	a, b := rw{prim{mem, 4, 1}}, rw{prim{mem, 4, 2}}
	expect(t, "read lock", rwTryReadLock(a), resultOK)
	expect(t, "second reader", rwReadLock(b, 0), resultOK)
	expect(t, "writer with readers inside", rwTryLock(a), resultBusy)
	expect(t, "timed writer with readers inside", rwLock(a, 1), resultBusy)
	expect(t, "readers still in after the writer gave up", rwTryReadLock(b), resultOK)
	for range 3 {
		expect(t, "read unlock", rwReadUnlock(a), resultOK)
	}
	expect(t, "read unlock with no reader", rwReadUnlock(a), resultNotLocked)
	expect(t, "write lock", rwLock(a, inf), resultOK)
	expect(t, "reader with a writer inside", rwTryReadLock(b), resultBusy)
	expect(t, "blocking reader in the writer's agent", rwReadLock(a, inf), resultDeadlock)
	expect(t, "timed reader", rwReadLock(b, 1), resultBusy)
	expect(t, "unlock by another agent", rwUnlock(b), resultNotHolder)
	expect(t, "unlock", rwUnlock(a), resultOK)
	expect(t, "unlock again", rwUnlock(a), resultNotLocked)
	for i := int32(4); i < 4+rwSlots; i++ {
		if i != 5 && m.Load(i) != 0 { // 5: the generation moves on
			t.Fatalf("slot %d = %d after everything was released", i, m.Load(i))
		}
	}
}

// A writer that starves (a release woke it, and another writer took the
// lock again first, starvationThresholdMs after it began) sets S: the
// releaser's next lock is a newcomer's, which sleeps, and the starving
// writer takes the lock.
func TestRWMutexWriterStarvation(t *testing.T) {
	mem, _ := newMemory(t)
	a, b := rw{prim{mem, 4, 1}}, rw{prim{mem, 4, 2}}
	expect(t, "write lock", rwTryLock(a), resultOK)
	woke := turn{slept: sleptOK, sleptOn: rwWriter, startMs: monotonicNowMs(), deadlineMs: inf}
	if r := rwAnnounceStep(b, woke); r != rwWriter|rwWritersWaiting {
		t.Fatalf("a writer woken before the threshold: step %#x, want to sleep on W|WW", r)
	}
	woke.startMs -= 2 * starvationThresholdMs
	if r := rwAnnounceStep(b, woke); r != rwWriter|rwWritersWaiting|rwWriterStarving {
		t.Fatalf("a starving writer: step %#x, want to sleep on W|WW|S", r)
	}
	expect(t, "unlock, no writer asleep", rwUnlock(a), resultOK)
	expect(t, "S is not kept when no writer woke", atomicLoad(mem, 4), 0)
	atomicStore(mem, 4, rwWriterStarving) // as a release leaves it for the writers it woke
	expect(t, "a newcomer's tryLock", rwTryLock(a), resultBusy)
	first := turn{slept: sleptNone, sleptOn: -1, startMs: monotonicNowMs(), deadlineMs: inf, sleep: sleepAsync}
	expect(t, "a newcomer's lock sleeps", rwAnnounceStep(a, first), rwWriterStarving|rwWritersWaiting)
	expect(t, "the starving writer", rwAnnounceStep(b, woke), resultOK)
	expect(t, "S ends with it", atomicLoad(mem, 4), rwWriter|rwWritersWaiting)
	atomicStore(mem, 4, rwWriter)
	expect(t, "unlock", rwUnlock(b), resultOK)
	// A starving writer that gives up, or never comes, leaves no S behind.
	atomicStore(mem, 4, rwWriterStarving|rwWritersWaiting)
	first.deadlineMs = math.Inf(-1)
	expect(t, "a newcomer that gives up", rwAnnounceStep(a, first), resultBusy)
	expect(t, "S ended", atomicLoad(mem, 4), 0)
}

// Agents that release and take again (a looper: unlock, lock at once, hold
// 1 ms) do not starve a waiter: it is served within a few of the looper's
// turns. Each primitive's case fails without its starvation rule (the
// Semaphore's newcomer rule, the RWMutex's S).
func TestNoWaiterStarves(t *testing.T) {
	for _, c := range []struct {
		name        string
		take, leave func(w prim) int32
	}{
		{"Mutex", func(w prim) int32 { return lock(w, inf) }, unlock},
		{"RWMutex writers", func(w prim) int32 { return rwLock(rw{w}, inf) }, func(w prim) int32 { return rwUnlock(rw{w}) }},
		{"Semaphore(1)", func(w prim) int32 { return semAcquire(sem{w}, 1, inf) }, func(w prim) int32 { return semRelease(sem{w}, 1) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem, _ := newMemory(t)
			semSetUp(sem{prim{mem, 4, 1}}, 1)
			looper, waiter := prim{mem, 4, 1}, prim{mem, 4, 2}
			expect(t, "looper takes", c.take(looper), resultOK)
			var turns atomic.Int32
			var served atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				for !served.Load() && turns.Load() < 2000 {
					time.Sleep(time.Millisecond)
					expect(t, "looper leaves", c.leave(looper), resultOK)
					expect(t, "looper takes again", c.take(looper), resultOK)
					turns.Add(1)
				}
				expect(t, "looper leaves", c.leave(looper), resultOK)
			}()
			r := c.take(waiter)
			served.Store(true)
			n := turns.Load()
			expect(t, "waiter", r, resultOK)
			expect(t, "waiter leaves", c.leave(waiter), resultOK)
			<-done
			if n > 10 {
				t.Errorf("the waiter was served after %d of the looper's turns, want at most 10", n)
			}
		})
	}
}

func TestSemaphoreSemantics(t *testing.T) {
	mem, _ := newMemory(t)
	s, other := sem{prim{mem, 4, 1}}, sem{prim{mem, 4, 2}}
	expect(t, "set up", semSetUp(s, 3), resultOK)
	expect(t, "same size", semSetUp(other, 3), resultOK)
	expect(t, "another size", semSetUp(other, 4), resultMismatch)
	expect(t, "acquire 2", semTryAcquire(s, 2), resultOK)
	expect(t, "available", semAvailable(s), 1)
	expect(t, "acquire 2 of 1", semAcquire(s, 2, 1), resultBusy)
	expect(t, "more than there are", semTryAcquire(s, 4), resultTooMany)
	expect(t, "release 3 of 2 taken", semRelease(s, 3), resultNegative)
	expect(t, "release", semRelease(other, 2), resultOK)
	expect(t, "available again", semAvailable(s), 3)
	// A reservation: a waiter for 3 reserved; a newcomer for 1 may not take
	// what it needs.
	expect(t, "take 1", semTryAcquire(s, 1), resultOK)
	atomicStore(mem, 5, 3)
	expect(t, "newcomer behind a reservation", semTryAcquire(other, 1), resultBusy)
	expect(t, "release", semRelease(s, 1), resultOK)
	expect(t, "a newcomer for the reserved need", semTryAcquire(other, 3), resultBusy)
	slept := turn{slept: sleptOK, sleptOn: 0, startMs: monotonicNowMs(), deadlineMs: inf}
	// The reservation is the reserving waiter's: another waiter for as
	// much, woken by the same release, sleeps on.
	if r := semAcquireStep(other, 3, slept); r < 0 || atomicLoad(mem, 5) != 3 {
		t.Fatalf("a waiter for the reserved need that did not reserve it: step %d, reserved %d; want a word to sleep on, 3 reserved", r, atomicLoad(mem, 5))
	}
	expect(t, "the reserving waiter", semReservedStep(other, 3, slept), resultOK)
	expect(t, "reservation served", atomicLoad(mem, 5), 0)
	// A waiter for 1 reserves once it has starved: woken by a release, it
	// finds the permit taken again, starvationThresholdMs after it began.
	expect(t, "release", semRelease(other, 3), resultOK)
	expect(t, "take 3", semTryAcquire(s, 3), resultOK)
	woke := turn{slept: sleptOK, sleptOn: 3, startMs: monotonicNowMs(), deadlineMs: inf}
	if r := semAcquireStep(other, 1, woke); r < 0 || atomicLoad(mem, 5) != 0 {
		t.Fatalf("a waiter for 1 that has not starved: step %d, reserved %d; want a word to sleep on, nothing reserved", r, atomicLoad(mem, 5))
	}
	woke.startMs -= 2 * starvationThresholdMs
	if r := semAcquireStep(other, 1, woke); r != goOnAs(kindSemReserved) || atomicLoad(mem, 5) != 1 {
		t.Fatalf("a starving waiter for 1: step %d, reserved %d; want it to go on as the reserving waiter (%d), 1 reserved", r, atomicLoad(mem, 5), goOnAs(kindSemReserved))
	}
	expect(t, "release 1", semRelease(s, 1), resultOK)
	expect(t, "the releaser takes again", semTryAcquire(s, 1), resultBusy)
	if r := semAcquireStep(s, 1, slept); r < 0 || atomicLoad(mem, 5) != 1 {
		t.Fatalf("another waiter for 1, woken by the same release: step %d, reserved %d; want a word to sleep on, 1 reserved", r, atomicLoad(mem, 5))
	}
	expect(t, "the starving waiter", semReservedStep(other, 1, woke), resultOK)
	expect(t, "reservation served", atomicLoad(mem, 5), 0)
	// A reservation nobody takes, its permits free, is voided by a watched waiter.
	atomicStore(mem, 5, 1)
	expect(t, "release 1", semRelease(s, 1), resultOK)
	semVoidReservation(s.prim)
	expect(t, "voided", atomicLoad(mem, 5), 0)
	expect(t, "release the rest", semRelease(s, 1), resultOK)
	expect(t, "release the starving waiter's", semRelease(other, 1), resultOK)
}

func TestWaitGroupSemantics(t *testing.T) {
	mem, _ := newMemory(t)
	w := prim{mem, 4, 1}
	expect(t, "wait on zero", wgWait(w, 0), resultOK)
	expect(t, "add", wgAdd(w, 2), resultOK)
	expect(t, "timed wait", wgWait(w, 1), resultBusy)
	expect(t, "below zero", wgAdd(w, -3), resultNegative)
	expect(t, "count unchanged", wgCount(w), 2)
	var wg sync.WaitGroup
	wg.Go(func() { expect(t, "wait", wgWait(prim{mem, 4, 2}, 5000), resultOK) })
	time.Sleep(5 * time.Millisecond)
	expect(t, "done", wgAdd(w, -1), resultOK)
	expect(t, "done", wgAdd(w, -1), resultOK)
	wg.Wait()
}

func TestBarrierSemantics(t *testing.T) {
	mem, _ := newMemory(t)
	const parties = 4
	b := barrier{prim{mem, 4, 1}}
	expect(t, "set up", barrierSetUp(b, parties), resultOK)
	expect(t, "alone, no wait", barrierWait(b, 0), resultBusy)
	expect(t, "withdrawn", atomicLoad(mem, 4), 0)
	var last atomic.Int32
	var wg sync.WaitGroup
	for gen := range 50 {
		for i := range parties {
			wg.Go(func() {
				switch r := barrierWait(barrier{prim{mem, 4, int32(i + 1)}}, 5000); r {
				case resultLast:
					last.Add(1)
				case resultOK:
				default:
					t.Errorf("generation %d: barrierWait = %d", gen, r)
				}
			})
		}
		wg.Wait()
	}
	expect(t, "one last arrival per generation", last.Load(), 50)
}

func TestOnceSemantics(t *testing.T) {
	mem, _ := newMemory(t)
	var runs atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			w := prim{mem, 4, int32(i + 1)}
			switch r := onceDo(w, 5000); r {
			case resultRun:
				runs.Add(1)
				time.Sleep(2 * time.Millisecond)
				expect(t, "finish", onceFinish(w, true), resultOK)
			case resultOK:
				if atomicLoad(mem, 4) != onceDone {
					t.Errorf("returned before fn finished")
				}
			default:
				t.Errorf("onceDo = %d", r)
			}
		})
	}
	wg.Wait()
	expect(t, "runs", runs.Load(), 1)
	// A failed fn leaves it to the next caller.
	w := prim{mem, 8, 1}
	expect(t, "first", onceDo(w, inf), resultRun)
	expect(t, "again by the runner's agent", onceDo(w, inf), resultDeadlock)
	expect(t, "fn threw", onceFinish(w, false), resultOK)
	expect(t, "retry", onceDo(prim{mem, 8, 2}, inf), resultRun)
	// A runner that ends running fn (its agent, 2, terminated): the watch
	// ends its run, and the next runner is told, once.
	expect(t, "end the run of an agent that does not run fn", onceReleaseDead(w, 1), resultNotHolder)
	expect(t, "end the dead runner's run", onceReleaseDead(w, 2), resultOK)
	expect(t, "again", onceReleaseDead(w, 2), resultNotHolder)
	expect(t, "the next runner", onceDo(prim{mem, 8, 3}, inf), resultRunDied)
	expect(t, "fn threw", onceFinish(prim{mem, 8, 3}, false), resultOK)
	expect(t, "the one after, told nothing", onceDo(prim{mem, 8, 3}, inf), resultRun)
}

func TestCondSemantics(t *testing.T) {
	mem, _ := newMemory(t)
	c, m := prim{mem, 4, 1}, prim{mem, 6, 1}
	expect(t, "wait without the mutex", condWait(c, m, 1), resultNotLocked)
	expect(t, "lock", lock(m, inf), resultOK)
	expect(t, "timed wait", condWait(c, m, 1), resultBusy)
	expect(t, "held again after the timeout", holder(m), 1)
	expect(t, "notify with nobody waiting", condNotify(c, 1), 0)
	// A notify between the unlock and the sleep is not lost: a queue of one
	// item handed over a thousand times.
	var wg sync.WaitGroup
	const items = 1000
	box := int32(16)
	wg.Go(func() {
		m2 := prim{mem, 6, 2}
		for i := range items {
			lock(m2, inf)
			for atomicLoad(mem, box) != 0 {
				condWait(prim{mem, 4, 2}, m2, inf)
			}
			atomicStore(mem, box, int32(i+1))
			condNotify(prim{mem, 4, 2}, notifyAll)
			unlock(m2)
		}
	})
	for i := range items {
		for atomicLoad(mem, box) == 0 {
			expect(t, "wait", condWait(c, m, 5000), resultOK)
		}
		expect(t, "item", atomicLoad(mem, box), int32(i+1))
		atomicStore(mem, box, 0)
		condNotify(c, 1)
	}
	unlock(m)
	wg.Wait()
}

func expect(t *testing.T, what string, got, want int32) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %d, want %d", what, got, want)
	}
}

// The module publishes ProtocolText, the values of Protocol one a line, in
// eachConstant's order, and the glue compares it with the values it was
// built with (jsglue/api.js, checkProtocol): it must say what Protocol says.
func TestProtocolTextSaysWhatProtocolSays(t *testing.T) {
	var want []string
	eachConstant(func(_ string, v int32) { want = append(want, strconv.Itoa(int(v))) })
	got := strings.Split(strings.TrimSuffix(string(ProtocolText()), "\n"), "\n")
	if !reflect.DeepEqual(got, want) || len(want) < 60 || len(Protocol()) != len(want) {
		t.Fatalf("ProtocolText gives %v,\nProtocol's values %v (%d names)", got, want, len(Protocol()))
	}
}

// The table of waits is what the loops rely on: each row at its kind's
// number, a kind that hands over (RESULT_GO_ON_AS) sleeping on the same word as
// the one it hands to, and unknown kinds and ops reported, not run.
func TestWaitTableAndUnknownEntries(t *testing.T) {
	for i, d := range waits {
		if d.step == nil {
			continue
		}
		if int(d.kind>>2) != i {
			t.Errorf("KIND_%s (%d) sits at row %d", waitNames[i], d.kind, i)
		}
	}
	if kindRWAnnounce.sleepsAt() != kindRWDrain.sleepsAt() {
		t.Errorf("RW_ANNOUNCE sleeps at +%d, RW_DRAIN (which it hands over to) at +%d", kindRWAnnounce.sleepsAt(), kindRWDrain.sleepsAt())
	}
	h, _ := newMemory(t)
	w := prim{h, 0, 1}
	for _, k := range []waitKind{0, 1, kindRWRead + 1, waitKind(len(waits) << 2), -4} {
		var rec waitRec
		if r := rec.begin(k, w, 0, 0, math.NaN(), -1, sleepBlocking); r != resultCorrupted {
			t.Errorf("begin of kind %d = %d, want corrupted", k, r)
		}
		if r := wait(k, w, 0, 0); r != resultCorrupted {
			t.Errorf("wait of kind %d = %d, want corrupted", k, r)
		}
	}
	for _, id := range []int32{0, -1, int32(len(recs)) + 1} {
		if r := Turn(id, sleptNone); r != resultCorrupted {
			t.Errorf("turn of wait %d = %d, want corrupted", id, r)
		}
	}
	for _, o := range []int32{0, -1, opSetAgent} {
		if r := callOp(o, w, 0, 0); r != resultCorrupted {
			t.Errorf("op %d = %d, want corrupted", o, r)
		}
	}
}
