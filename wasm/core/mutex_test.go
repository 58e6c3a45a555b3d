//go:build !wasm

package core

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/futex"
)

// newWord returns a fresh mutex in a memory of its own, plus that memory.
func newWord(t *testing.T) (word, *futex.Memory) {
	t.Helper()
	m := futex.New(4)
	nativeMemories = append(nativeMemories, m)
	return word{mem: int32(len(nativeMemories) - 1), index: 1}, m
}

var inf = math.Inf(1)

// Mutex_hammer: P goroutines each do N non-atomic increments of a shared
// counter under the lock; the total must be exact. The increments are a load
// and a store, so without the lock they lose updates (see
// TestCounterWithoutLockLosesUpdates).
func TestMutex_hammer(t *testing.T) {
	p, n := 8, 20000
	if testing.Short() {
		n = 2000
	}
	w, m := newWord(t)
	counter := int32(3)
	hammer(p, n, func() { lock(w, inf) }, func() { unlock(w) }, m, counter)
	if got := m.Load(counter); got != int32(p*n) {
		t.Fatalf("counter = %d, want %d", got, p*n)
	}
	if s := m.Load(w.index); s != stateUnlocked {
		t.Fatalf("lock word after the hammer = %d, want unlocked", s)
	}
}

func TestCounterWithoutLockLosesUpdates(t *testing.T) {
	p, n := 8, 20000
	_, m := newWord(t)
	hammer(p, n, func() {}, func() {}, m, 3)
	if got := m.Load(3); got == int32(p*n) {
		t.Fatalf("counter = %d without a lock: the hammer cannot tell a broken mutex from a working one", got)
	}
}

func hammer(p, n int, lock, unlock func(), m *futex.Memory, counter int32) {
	var wg sync.WaitGroup
	for range p {
		wg.Go(func() {
			for range n {
				lock()
				m.Store(counter, m.Load(counter)+1)
				unlock()
			}
		})
	}
	wg.Wait()
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
