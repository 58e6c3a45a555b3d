//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"syscall/js"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// These run in Node.js (go test with GOOS=js GOARCH=wasm, through Go's
// go_js_wasm_exec): goroutines of one program contend here; workers_test.go
// adds Node workers, each running this test binary, on one buffer.

func newSAB(words int) js.Value { return js.Global().Get("SharedArrayBuffer").New(4 * words) }

func i32Of(sab js.Value) js.Value { return js.Global().Get("Int32Array").New(sab) }

// bump adds 1 to slot i as a read, a yield and a write: goroutines that
// interleave there lose updates unless a lock keeps them apart.
func bump(w js.Value, i int) {
	v := w.Index(i).Int()
	runtime.Gosched()
	w.SetIndex(i, v+1)
}

// waitOrFail waits for wg, failing the test after a deadline: a lost
// wake-up leaves goroutines parked for good.
func waitOrFail(t testing.TB, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("goroutines still parked after 60 s: a lost wake-up, or a deadlock")
	}
}

func scaled(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}

// hammer runs g goroutines, each n times around lock, bump, unlock, and
// returns the counter.
func hammer(t testing.TB, g, n int, lock, unlock func()) int {
	sab := newSAB(4)
	w := i32Of(sab)
	var wg sync.WaitGroup
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				lock()
				bump(w, 3)
				unlock()
			}
		}()
	}
	waitOrFail(t, &wg)
	return w.Index(3).Int()
}

func TestMutexGoroutines_hammer(t *testing.T) {
	m, err := NewMutex(newSAB(4), 0)
	if err != nil {
		t.Fatal(err)
	}
	g, n := 6, scaled(2000)
	if got := hammer(t, g, n, m.Lock, m.Unlock); got != g*n {
		t.Fatalf("counter %d after %d locked increments", got, g*n)
	}
}

// The same without the lock loses updates: the hammer can fail.
func TestHammerWithoutLockLosesUpdates(t *testing.T) {
	g, n := 6, scaled(2000)
	if got := hammer(t, g, n, func() {}, func() {}); got >= g*n {
		t.Fatalf("counter %d of %d without a lock: nothing was lost, so the hammer cannot fail", got, g*n)
	}
}

func TestLockContext(t *testing.T) {
	m, _ := NewMutex(newSAB(4), 0)
	m.Lock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := m.LockContext(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockContext of a held mutex = %v, want the deadline", err)
	}
	if d := time.Since(start); d < 25*time.Millisecond || d > 5*time.Second {
		t.Errorf("LockContext gave up after %v, want about 30 ms", d)
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if err := m.LockContext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("LockContext cancelled = %v, want context.Canceled", err)
	}
	// Given up twice, the mutex still works: the goroutine that waits is
	// woken by the unlock.
	got := make(chan bool)
	go func() { m.Lock(); got <- true; m.Unlock() }()
	time.Sleep(5 * time.Millisecond)
	m.Unlock()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("a waiter was not woken by the unlock after two abandoned waits")
	}
	if !m.TryLock() {
		t.Fatal("TryLock of a free mutex failed")
	}
	m.Unlock()
}

func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = r.(error).Error()
		}
	}()
	f()
	return ""
}

func TestMisuse(t *testing.T) {
	sab := newSAB(4)
	m, _ := NewMutex(sab, 0)
	if p := panicOf(m.Unlock); !strings.HasPrefix(p, "sabmutex: unlock() of the Mutex at index 0, which is not locked") {
		t.Errorf("Unlock of an unlocked mutex: panic %q", p)
	}
	if _, err := NewMutex(js.Global().Get("ArrayBuffer").New(8), 0); err == nil || !strings.Contains(err.Error(), "sabmutex: memory must be a SharedArrayBuffer") {
		t.Errorf("NewMutex over an ArrayBuffer: %v", err)
	}
	if _, err := NewMutex(sab, 3); err == nil || !strings.Contains(err.Error(), "from 0 to 2") {
		t.Errorf("NewMutex at 3 of 4 slots: %v", err)
	}
	i32Of(sab).SetIndex(0, 7)
	if p := panicOf(func() { m.TryLock() }); !strings.HasPrefix(p, "sabmutex: corrupted state in the Mutex at index 0") {
		t.Errorf("TryLock on word 7: panic %q", p)
	}
	if got := i32Of(sab).Index(0).Int(); got != 7 {
		t.Errorf("the corrupted word was changed to %d", got)
	}
	wg, _ := NewWaitGroup(newSAB(2), 0)
	if p := panicOf(wg.Done); !strings.Contains(p, "negative") {
		t.Errorf("Done on a count of 0: panic %q", p)
	}
	s, _ := NewSemaphore(sab, 1, 2)
	if _, err := NewSemaphore(sab, 1, 3); err == nil || !strings.Contains(err.Error(), "set up with 2 permits, not 3") {
		t.Errorf("a second size: %v", err)
	}
	if p := panicOf(func() { s.Release(1) }); !strings.Contains(p, "gives back more than is taken") {
		t.Errorf("Release of nothing taken: panic %q", p)
	}
}

// RWMutex: readers overlap, a writer is alone.
func TestRWMutexGoroutines(t *testing.T) {
	sab := newSAB(8)
	rw, _ := NewRWMutex(sab, 0)
	w := i32Of(sab)
	var wg sync.WaitGroup
	overlap := false
	readers, writers := 0, 0
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range scaled(300) {
				if (g+i)%4 == 0 {
					rw.Lock()
					if readers != 0 || writers != 0 {
						t.Errorf("a writer entered with %d readers and %d writers", readers, writers)
					}
					writers++
					bump(w, 5)
					writers--
					rw.Unlock()
				} else {
					rw.RLock()
					if writers != 0 {
						t.Errorf("a reader entered with a writer inside")
					}
					readers++
					overlap = overlap || readers > 1
					time.Sleep(time.Millisecond) // back to the event loop: parked goroutines wake
					readers--
					rw.RUnlock()
				}
			}
		}()
	}
	waitOrFail(t, &wg)
	if !overlap {
		t.Error("readers never overlapped")
	}
}

// Cond: a bounded buffer of 2 between producers and consumers.
func TestCondProducerConsumer(t *testing.T) {
	sab := newSAB(8)
	m, _ := NewMutex(sab, 0)
	notEmpty, _ := NewCond(sab, 2, m)
	notFull, _ := NewCond(sab, 3, m)
	var buf []int
	got := map[int]int{}
	const producers, each = 3, 200
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				m.Lock()
				for len(buf) == 2 {
					notFull.Wait()
				}
				buf = append(buf, p*each+i)
				notEmpty.Signal()
				m.Unlock()
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range producers * each / 2 {
				m.Lock()
				for len(buf) == 0 {
					notEmpty.Wait()
				}
				got[buf[0]]++
				buf = buf[1:]
				notFull.Signal()
				m.Unlock()
			}
		}()
	}
	waitOrFail(t, &wg)
	if len(got) != producers*each {
		t.Fatalf("%d distinct items arrived of %d", len(got), producers*each)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	m.Lock()
	if err := notEmpty.WaitContext(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitContext with nobody notifying = %v", err)
	}
	if m.TryLock() {
		t.Error("WaitContext returned without the mutex held again")
	}
	m.Unlock()
}

func TestWaitGroupOnceSemaphoreBarrier(t *testing.T) {
	sab := newSAB(16)
	w := i32Of(sab)
	wg, _ := NewWaitGroup(sab, 0)
	once, _ := NewOnce(sab, 1)
	sem, _ := NewSemaphore(sab, 3, 2)
	bar, _ := NewBarrier(sab, 6, 4)
	var all sync.WaitGroup
	all.Add(4)
	wg.Add(4)
	inUse, most, lasts := 0, 0, 0
	for g := range 4 {
		go func() {
			defer all.Done()
			defer wg.Done()
			ran := func() bool {
				defer func() { recover() }()
				return once.Do(func() {
					runtime.Gosched()
					w.SetIndex(10, w.Index(10).Int()+1)
					if g == 0 {
						panic("the first fn fails") // and counts as run, as in sync.Once
					}
				})
			}()
			_ = ran
			for range scaled(100) {
				if err := sem.Acquire(context.Background(), 1); err != nil {
					t.Error(err)
				}
				inUse++
				most = max(most, inUse)
				time.Sleep(time.Millisecond)
				inUse--
				sem.Release(1)
			}
			for range 10 {
				if bar.Wait() {
					lasts++
				}
			}
		}()
	}
	wg.Wait() // sabsync's WaitGroup, on the program's own goroutines
	waitOrFail(t, &all)
	if got := w.Index(10).Int(); got != 1 || !once.Done() {
		t.Errorf("Once ran an fn %d times (done: %v), want once", got, once.Done())
	}
	if most != 2 {
		t.Errorf("at most %d permits of 2 were in use at once", most)
	}
	if lasts != 10 {
		t.Errorf("%d arrivals were last in 10 generations", lasts)
	}
}

// A panicking f leaves the Once done, as sync.Once does (Go's TestOncePanic,
// adapted in gosync_once_test.go), for every agent: its word is ONCE_DONE,
// which is what a JavaScript agent's isDone() and do(fn) read, and a
// goroutine that waited while f ran returns without running its own.
func TestOncePanicLeavesItDone(t *testing.T) {
	sab := newSAB(2)
	once, _ := NewOnce(sab, 0)
	running, fail := make(chan struct{}), make(chan struct{})
	waited := make(chan bool)
	go func() {
		<-running
		waited <- once.Do(func() { t.Error("a waiter ran its f after the runner's f panicked") })
	}()
	msg := func() (r any) {
		defer func() { r = recover() }()
		once.Do(func() {
			close(running)
			<-fail // the waiter parks meanwhile
			panic("f fails")
		})
		return nil
	}
	go func() { time.Sleep(20 * time.Millisecond); close(fail) }()
	if r := msg(); r != "f fails" {
		t.Fatalf("Do's panic = %v, want f's", r)
	}
	if !once.Done() {
		t.Error("Done() = false after f panicked")
	}
	if got := i32Of(sab).Index(0).Int(); got != int(proto.OnceDone) {
		t.Errorf("the Once's word is %d after f panicked, want ONCE_DONE (%d), what JavaScript's isDone() reads", got, proto.OnceDone)
	}
	select {
	case ran := <-waited:
		if ran {
			t.Error("the waiter's Do returned true")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter still waits 5 s after f panicked")
	}
	if once.Do(func() { t.Error("f ran again after a panic") }) {
		t.Error("Do after the panic returned true")
	}
}
