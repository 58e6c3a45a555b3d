//go:build !wasm

package core

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/futex"
)

// newWord returns a fresh mutex in a memory of its own, plus that memory.
func newWord(t *testing.T) (word, *futex.Memory) {
	t.Helper()
	m := futex.New(16)
	nativeMemories = append(nativeMemories, m)
	return word{mem: int32(len(nativeMemories) - 1), index: 1}, m
}

var inf = math.Inf(1)

// Mutex_hammer: P goroutines, starting together, increment a shared counter
// (a load and a store) under the lock for a while; the count must be exact.
func TestMutex_hammer(t *testing.T) {
	d := 300 * time.Millisecond
	if testing.Short() {
		d = 30 * time.Millisecond
	}
	w, m := newWord(t)
	if counted, made := hammer(8, d, func(int) word { return w }, m); counted != made {
		t.Fatalf("counter = %d, want %d", counted, made)
	}
	if s := m.Load(w.index); s != stateUnlocked {
		t.Fatalf("lock word after the hammer = %d, want unlocked", s)
	}
}

// The hammer can fail: with a mutex per goroutine (the same calls, nothing
// excluded) it loses updates, given a few tries on a loaded machine.
func TestHammerWithoutSharedLockLosesUpdates(t *testing.T) {
	for try := 0; try < 20; try++ {
		w, m := newWord(t)
		if counted, made := hammer(8, 30*time.Millisecond, func(i int) word { return word{w.mem, int32(4 + i)} }, m); counted < made {
			return
		}
	}
	t.Fatal("20 runs without a shared lock lost no update: the hammer cannot tell a broken mutex from a working one")
}

const counter = 3

func hammer(p int, d time.Duration, wordOf func(i int) word, m *futex.Memory) (counted, made int64) {
	var wg sync.WaitGroup
	var total atomic.Int64
	start := make(chan struct{})
	for i := range p {
		wg.Go(func() {
			w := wordOf(i)
			<-start
			n := int64(0)
			for end := time.Now().Add(d); n%64 != 0 || time.Now().Before(end); n++ {
				lock(w, inf)
				m.Store(counter, m.Load(counter)+1)
				unlock(w)
			}
			total.Add(n)
		})
	}
	close(start)
	wg.Wait()
	return int64(m.Load(counter)), total.Load()
}

func TestTryLock(t *testing.T) {
	w, _ := newWord(t)
	if r := tryLock(w); r != resultOK {
		t.Fatalf("tryLock on a free mutex = %d", r)
	}
	if r := tryLock(w); r != resultBusy {
		t.Fatalf("tryLock on a held mutex = %d", r)
	}
	if r := unlock(w); r != resultOK {
		t.Fatalf("unlock = %d", r)
	}
	if r := tryLock(w); r != resultOK {
		t.Fatalf("tryLock after unlock = %d", r)
	}
}

func TestLockTimeout(t *testing.T) {
	w, m := newWord(t)
	lock(w, inf)
	for _, timeoutMs := range []float64{0, 20} {
		start := time.Now()
		if r := lock(w, timeoutMs); r != resultBusy {
			t.Fatalf("lock(%v) on a held mutex = %d, want busy", timeoutMs, r)
		}
		if d := time.Since(start); d < time.Duration(timeoutMs*float64(time.Millisecond)) || d > time.Second {
			t.Fatalf("lock(%v) gave up after %v", timeoutMs, d)
		}
	}
	if q := m.Waiters(w.index); q != 0 {
		t.Fatalf("%d waiters left behind by timed-out locks", q)
	}
	// The lock still works: a waiter is woken by the unlock.
	got := make(chan int32)
	go func() { got <- lock(w, 5000) }()
	time.Sleep(10 * time.Millisecond)
	unlock(w)
	select {
	case r := <-got:
		if r != resultOK {
			t.Fatalf("waiter's lock = %d", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter was not woken by unlock")
	}
}

func TestUnlockOfUnlockedChangesNothing(t *testing.T) {
	w, m := newWord(t)
	if r := unlock(w); r != resultNotLocked {
		t.Fatalf("unlock of an unlocked mutex = %d, want resultNotLocked", r)
	}
	if s := m.Load(w.index); s != stateUnlocked {
		t.Fatalf("word = %d after the bad unlock", s)
	}
}

func TestCorruptedWordIsReportedAndKept(t *testing.T) {
	for _, bad := range []int32{3, 4, -1, 1 << 20} {
		w, m := newWord(t)
		m.Store(w.index, bad)
		for name, r := range map[string]int32{
			"tryLock":  tryLock(w),
			"lock":     lock(w, 50),
			"lockStep": lockStep(w, inf, false),
			"unlock":   unlock(w),
		} {
			if r != resultCorrupted {
				t.Errorf("%s on word %d = %d, want resultCorrupted", name, bad, r)
			}
		}
		if s := m.Load(w.index); s != bad {
			t.Errorf("word %d was changed to %d", bad, s)
		}
	}
}
