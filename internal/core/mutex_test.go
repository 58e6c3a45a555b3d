//go:build !wasm

package core

import (
	"math"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/testing/futex"
)

// newMemory registers a fresh memory of 16 words and returns its handle.
func newMemory(t *testing.T) (int32, *futex.Memory) {
	t.Helper()
	m := futex.New(32)
	nativeMemories = append(nativeMemories, m)
	return int32(len(nativeMemories) - 1), m
}

var inf = math.Inf(1)

func TestTryLock(t *testing.T) {
	mem, m := newMemory(t)
	a, b := prim{mem, 1, 1}, prim{mem, 1, 2}
	for _, c := range []struct {
		name      string
		got, want int32
	}{
		{"a tryLock, free", tryLock(a), resultOK},
		{"b tryLock, held by a", tryLock(b), resultBusy},
		{"a tryLock, held by a", tryLock(a), resultBusy},
		{"a unlock", unlock(a), resultOK},
		{"b tryLock after unlock", tryLock(b), resultOK},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for i := range int32(32) {
		if v := m.Load(i); v != 0 && i != 1 && i != 2 {
			t.Errorf("word %d = %#x: tryLock wrote outside the mutex's word (1) and holder slot (2)", i, v)
		}
	}
}

func TestLockTimeout(t *testing.T) {
	mem, m := newMemory(t)
	a, b := prim{mem, 1, 1}, prim{mem, 1, 2}
	lock(a, inf)
	for _, timeoutMs := range []float64{0, 20} {
		start := time.Now()
		if r := lock(b, timeoutMs); r != resultBusy {
			t.Fatalf("lock(%v) on a held mutex = %d, want busy", timeoutMs, r)
		}
		if d := time.Since(start); d < time.Duration(timeoutMs*float64(time.Millisecond)) || d > time.Second {
			t.Fatalf("lock(%v) gave up after %v", timeoutMs, d)
		}
	}
	if q := m.Waiters(1); q != 0 {
		t.Fatalf("%d waiters left behind by timed-out locks", q)
	}
	got := make(chan int32)
	go func() { got <- lock(b, 5000) }()
	waitFor(t, func() bool { return m.Waiters(1) == 1 })
	unlock(a)
	select {
	case r := <-got:
		if r != resultOK {
			t.Fatalf("waiter's lock = %d", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter was not woken by unlock")
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("condition not reached in 5 s")
		}
	}
}

func TestMisuseIsReportedAndChangesNothing(t *testing.T) {
	mem, m := newMemory(t)
	a, b := prim{mem, 1, 1}, prim{mem, 1, 2}
	if r := unlock(a); r != resultNotLocked {
		t.Errorf("unlock of an unlocked mutex = %d, want resultNotLocked", r)
	}
	lock(a, inf)
	before := m.Load(1)
	if r := unlock(b); r != resultNotHolder {
		t.Errorf("unlock by another agent = %d, want resultNotHolder", r)
	}
	if r := lock(a, inf); r != resultDeadlock {
		t.Errorf("lock by the holder = %d, want resultDeadlock", r)
	}
	if r := lockStep(a, inf, math.NaN(), sleptNone, sleepBlocking); r != resultDeadlock {
		t.Errorf("blocking lockStep by the holder = %d, want resultDeadlock", r)
	}
	// An asynchronous lock by the holder's agent is a sibling task's: it
	// waits (here: its deadline has passed) and reports no deadlock.
	if r := lockStep(a, -1, math.NaN(), sleptNone, sleepAsync); r != resultBusy {
		t.Errorf("asynchronous lockStep by the holder, past its deadline = %d, want resultBusy", r)
	}
	if after := m.Load(1); after != before {
		t.Errorf("misuse changed the word from %#x to %#x", before, after)
	}
	if h := holder(b); h != 1 {
		t.Errorf("holder = %d, want 1", h)
	}
}

func TestCorruptedWordIsReportedAndKept(t *testing.T) {
	for _, bad := range []int32{3, 7, 9, 12, -1, 1 << 4, math.MaxInt32} {
		mem, m := newMemory(t)
		w := prim{mem, 1, 1}
		m.Store(1, bad)
		for name, r := range map[string]int32{
			"tryLock":     tryLock(w),
			"lock":        lock(w, 50),
			"lockStep":    lockStep(w, inf, math.NaN(), sleptNone, sleepAsync),
			"unlock":      unlock(w),
			"releaseDead": releaseDead(w, 1),
			"holder":      holder(w),
		} {
			if r != resultCorrupted {
				t.Errorf("%s on word %#x = %d, want resultCorrupted", name, bad, r)
			}
		}
		if s := m.Load(1); s != bad {
			t.Errorf("word %#x was changed to %#x", bad, s)
		}
	}
}

// A holder that dies (its agent terminated) is released by releaseDead; a
// waiter then gets the mutex and is told.
func TestReleaseDeadHolder(t *testing.T) {
	mem, m := newMemory(t)
	dead, b := prim{mem, 1, 7}, prim{mem, 1, 2}
	lock(dead, inf)
	got := make(chan int32)
	go func() { got <- lock(b, 5000) }()
	waitFor(t, func() bool { return m.Waiters(1) == 1 })
	if r := releaseDead(b, 3); r != resultNotHolder {
		t.Errorf("releaseDead of an agent that holds nothing = %d", r)
	}
	if r := releaseDead(b, 7); r != resultOK {
		t.Fatalf("releaseDead = %d", r)
	}
	select {
	case r := <-got:
		if r != resultHolderDied {
			t.Fatalf("the waiter's lock = %d, want resultHolderDied", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken after its holder was released")
	}
	unlock(b)
	if r := tryLock(b); r != resultOK {
		t.Errorf("the next tryLock = %d: the died flag should be told once", r)
	}
}

// Starvation mode: an unlock hands the mutex to the sleeping waiter; a
// newcomer's tryLock fails meanwhile; the handed-off mutex is taken by the
// woken waiter only.
func TestStarvationHandsOff(t *testing.T) {
	mem, m := newMemory(t)
	a, b, c := prim{mem, 1, 1}, prim{mem, 1, 2}, prim{mem, 1, 3}
	lock(a, inf)
	// b has waited "long": a notify woke it, and its wait has counted
	// since 10 ms ago.
	got := lockSteps(m, b, monotonicNowMs()-10, sleptOK)
	waitFor(t, func() bool { return m.Waiters(1) == 1 })
	if v := m.Load(1); v != mutexContended|flagStarving {
		t.Fatalf("word = %#x after a long waiter slept: want contended and starving", v)
	}
	unlock(a)
	if r := tryLock(c); r != resultBusy && r != resultOK {
		t.Fatalf("tryLock = %d", r)
	} else if r == resultOK {
		t.Fatal("a newcomer's tryLock took a mutex handed off in starvation mode")
	}
	select {
	case r := <-got:
		if r != resultOK {
			t.Fatalf("the starving waiter's lock = %d", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the starving waiter never got the mutex")
	}
	// It waited long, so starvation mode is over.
	if v, h := m.Load(1), m.Load(2); v != mutexContended || h != 2 {
		t.Fatalf("word = %#x, holder %d: want contended (no starving flag), by agent 2", v, h)
	}
	unlock(b)
	if r := tryLock(c); r != resultOK {
		t.Fatalf("tryLock after starvation mode = %d", r)
	}
}

// A hand-off that nobody takes (the waiter the unlock woke never comes: a
// worker that ended, its Atomics.waitAsync still queued) leaves everyone
// else asleep for good; a watched wait's look (watchLook, each watch
// period) voids it: the word is free again, the sleepers are woken, and one
// takes it.
func TestLostHandOffIsVoided(t *testing.T) {
	mem, m := newMemory(t)
	b := prim{mem, 1, 2}
	m.Store(1, flagStarving)                      // handed off, to a waiter that will not come
	got := lockSteps(m, b, math.NaN(), sleptNone) // a waiter that came after the hand-off
	waitFor(t, func() bool { return m.Waiters(1) == 1 })
	select {
	case r := <-got:
		t.Fatalf("a waiter that no notify woke took a handed-off mutex: %d", r)
	case <-time.After(30 * time.Millisecond):
	}
	// The look voids the hand-off, then reads the holder: nobody, or the
	// waiter it woke, which may have taken the mutex in between (make
	// test-busy saw it, on a loaded machine).
	if h := watchLook(kindLock, b); h != 0 && h != b.self {
		t.Errorf("watchLook = %d, want 0 (nobody holds it) or %d (the waiter it woke)", h, b.self)
	}
	select {
	case r := <-got:
		if r != resultOK {
			t.Fatalf("the waiter's lock = %d", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter never got the mutex handed off to nobody")
	}
	if v, h := m.Load(1), m.Load(2); v != mutexContended || h != 2 {
		t.Fatalf("word = %#x, holder %d: want contended, by agent 2", v, h)
	}
	m.Store(1, mutexContended|flagStarving) // held: a look changes nothing
	if watchLook(kindLock, b); m.Load(1) != mutexContended|flagStarving {
		t.Fatalf("a look changed a held mutex's word to %#x", m.Load(1))
	}
}

// Only a waiter that a notify woke reads the clock and may set starving: a
// wait that ended "not-equal" was no sleep.
func TestOnlyAWakeUpSetsStarving(t *testing.T) {
	mem, m := newMemory(t)
	a, b := prim{mem, 1, 1}, prim{mem, 1, 2}
	lock(a, inf)
	start := monotonicNowMs() - 10 // b's wait has counted for 10 ms
	if r := lockStep(b, inf, start, sleptOther, sleepBlocking); r != mutexContended {
		t.Errorf("lockStep after a not-equal wait = %#x, want %#x (contended, not starving)", r, mutexContended)
	}
	if r := lockStep(b, inf, start, sleptOK, sleepBlocking); r != mutexContended|flagStarving {
		t.Errorf("lockStep after a wake-up = %#x, want %#x (contended and starving)", r, mutexContended|flagStarving)
	}
	if v := m.Load(1); v != mutexContended|flagStarving {
		t.Errorf("word = %#x, want %#x", v, mutexContended|flagStarving)
	}
}

// lockSteps runs lockStep's loop for w in a goroutine, sleeping on the
// native futex, from a first turn told slept, with its wait counted since
// startMs (NaN: not yet), and sends the result it ends with.
func lockSteps(m *futex.Memory, w prim, startMs float64, slept int32) <-chan int32 {
	got := make(chan int32, 1)
	go func() {
		for {
			r := lockStep(w, inf, startMs, slept, sleepBlocking)
			if r < 0 {
				got <- r
				return
			}
			slept = sleptOther
			if m.Wait(w.index, r, inf) == futex.OK {
				slept = sleptOK
			}
		}
	}()
	return got
}

// lockAsync is the glue's asynchronous loop, with a blocking wait where the
// browser would await Atomics.waitAsync.
func lockAsync(w prim, m *futex.Memory, timeoutMs float64) int32 {
	startMs := monotonicNowMs()
	for slept := int32(sleptNone); ; {
		r := lockStep(w, startMs+timeoutMs, startMs, slept, sleepAsync)
		if r < 0 {
			return r
		}
		slept = sleptOther
		if m.Wait(w.index, r, startMs+timeoutMs-monotonicNowMs()) == futex.OK {
			slept = sleptOK
		}
	}
}

// Two asynchronous tasks of one agent (one id): the second waits for the
// first to unlock, and times out like any waiter; a blocking lock by that
// agent is a deadlock.
func TestAsyncLockWaitsForSiblingTask(t *testing.T) {
	mem, m := newMemory(t)
	task1, task2 := prim{mem, 1, 7}, prim{mem, 1, 7}
	if r := lockAsync(task1, m, inf); r != resultOK {
		t.Fatalf("task 1 lockAsync = %d", r)
	}
	for _, timeoutMs := range []float64{0, 20} {
		start := time.Now()
		if r := lockAsync(task2, m, timeoutMs); r != resultBusy {
			t.Fatalf("task 2 lockAsync(%v) while task 1 holds it = %d, want resultBusy", timeoutMs, r)
		}
		if d := time.Since(start); d < time.Duration(timeoutMs*float64(time.Millisecond)) || d > time.Second {
			t.Fatalf("task 2 lockAsync(%v) gave up after %v", timeoutMs, d)
		}
	}
	if r := lock(task2, inf); r != resultDeadlock {
		t.Fatalf("blocking lock by the holding agent = %d, want resultDeadlock", r)
	}
	got := make(chan int32)
	go func() { got <- lockAsync(task2, m, 5000) }()
	waitFor(t, func() bool { return m.Waiters(1) == 1 })
	if r := unlock(task1); r != resultOK {
		t.Fatalf("task 1 unlock = %d", r)
	}
	select {
	case r := <-got:
		if r != resultOK {
			t.Fatalf("task 2 lockAsync = %d, want resultOK", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("task 2 was not woken by task 1's unlock")
	}
	if h := holder(task1); h != 7 {
		t.Fatalf("holder = %d, want 7", h)
	}
}
