//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A done context wins over a ready primitive: every call that takes a
// context, given one already done where it would succeed at once, returns
// ctx's error and takes nothing. The semaphore tests are ours, written
// after golang.org/x/sync/semaphore's (semaphore_test.go) against sabsync.

// doneContexts are the two ways a context is done before the call: a
// cancel, and a deadline in the past.
func doneContexts() map[string]context.Context {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	cancel2()
	return map[string]context.Context{"cancelled": cancelled, "past its deadline": expired}
}

// returnsWithin runs f in a goroutine and reports whether it returned
// within d (a call that should not wait, parking, fails the test instead of
// hanging it).
func returnsWithin(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func TestDoneContextWinsOverReadyPrimitive(t *testing.T) {
	// Each row makes a ready primitive, then returns the call with ctx and
	// a check that nothing was taken ("" or what is wrong).
	type row struct {
		name string
		make func(t *testing.T) (call func(ctx context.Context) error, after func() string)
	}
	rows := []row{
		{"Mutex.LockContext, free", func(t *testing.T) (func(context.Context) error, func() string) {
			m, _ := NewMutex(newSAB(4), 0)
			return m.LockContext, func() string {
				if !m.TryLock() {
					return "the mutex is held"
				}
				m.Unlock()
				return ""
			}
		}},
		{"RWMutex.LockContext, free", rwRow(func(rw *RWMutex) func(context.Context) error { return rw.LockContext })},
		{"RWMutex.RLockContext, free", rwRow(func(rw *RWMutex) func(context.Context) error { return rw.RLockContext })},
		{"Semaphore.Acquire(1) of 3", semRow(1)},
		{"Semaphore.Acquire(3) of 3", semRow(3)},
		{"WaitGroup.WaitContext, count 0", func(t *testing.T) (func(context.Context) error, func() string) {
			wg, _ := NewWaitGroup(newSAB(4), 0)
			return wg.WaitContext, func() string { return "" }
		}},
		{"Barrier.WaitContext, the arrival that completes it", func(t *testing.T) (func(context.Context) error, func() string) {
			b, _ := NewBarrier(newSAB(4), 0, 2)
			first := make(chan bool, 1)
			go func() { first <- b.Wait() }()
			time.Sleep(10 * time.Millisecond) // the first arrival parks
			return func(ctx context.Context) error { _, err := b.WaitContext(ctx); return err }, func() string {
				select {
				case <-first:
					return "the generation completed: the done context's arrival counted"
				case <-time.After(20 * time.Millisecond):
				}
				if b.Wait() == <-first {
					return "the next generation had not one last arrival"
				}
				return ""
			}
		}},
		{"Once.DoContext, not run", func(t *testing.T) (func(context.Context) error, func() string) {
			o, _ := NewOnce(newSAB(4), 0)
			ran := false
			return func(ctx context.Context) error { _, err := o.DoContext(ctx, func() { ran = true }); return err }, func() string {
				if ran || o.Done() {
					return "f ran"
				}
				if !o.Do(func() {}) {
					return "the next Do did not run its f"
				}
				return ""
			}
		}},
		{"Once.DoContext, done", func(t *testing.T) (func(context.Context) error, func() string) {
			o, _ := NewOnce(newSAB(4), 0)
			o.Do(func() {})
			return func(ctx context.Context) error { _, err := o.DoContext(ctx, func() {}); return err }, func() string { return "" }
		}},
		{"Cond.WaitContext", func(t *testing.T) (func(context.Context) error, func() string) {
			m, _ := NewMutex(newSAB(4), 0)
			c, _ := NewCond(newSAB(4), 0, m)
			m.Lock()
			return c.WaitContext, func() string {
				if msg := panicOf(m.Unlock); msg != "" { // held again, or held all along
					return "after WaitContext, Unlock panicked: " + msg
				}
				return ""
			}
		}},
		{"Channel.Send, room", chanRow(func(c *Channel) func(context.Context) error {
			return func(ctx context.Context) error { return c.Send(ctx, []byte("sent")) }
		}, 0)},
		{"Channel.SendString, room", chanRow(func(c *Channel) func(context.Context) error {
			return func(ctx context.Context) error { return c.SendString(ctx, "sent") }
		}, 0)},
		{"Channel.Recv, a message in", chanRow(func(c *Channel) func(context.Context) error {
			return func(ctx context.Context) error { _, err := c.Recv(ctx); return err }
		}, 1)},
		{"Channel.Recv, closed and drained", func(t *testing.T) (func(context.Context) error, func() string) {
			c, _ := NewChannel(newSAB(ChannelSlots(2, 16)), 0, 2, 16)
			c.Close()
			return func(ctx context.Context) error { _, err := c.Recv(ctx); return err }, func() string { return "" }
		}},
	}
	for _, r := range rows {
		for how, ctx := range doneContexts() {
			t.Run(r.name+", "+how, func(t *testing.T) {
				call, after := r.make(t)
				var err error
				if !returnsWithin(5*time.Second, func() { err = call(ctx) }) {
					t.Fatal("still waiting after 5 s")
				}
				if err != ctx.Err() {
					t.Errorf("returned %v, want ctx's error (%v)", err, ctx.Err())
				}
				if what := after(); what != "" {
					t.Error(what)
				}
			})
		}
	}
}

func rwRow(call func(*RWMutex) func(context.Context) error) func(t *testing.T) (func(context.Context) error, func() string) {
	return func(t *testing.T) (func(context.Context) error, func() string) {
		rw, _ := NewRWMutex(newSAB(8), 0)
		return call(rw), func() string {
			if !rw.TryLock() { // free: no reader and no writer
				return "the RWMutex is held"
			}
			rw.Unlock()
			return ""
		}
	}
}

func semRow(n int64) func(t *testing.T) (func(context.Context) error, func() string) {
	return func(t *testing.T) (func(context.Context) error, func() string) {
		sem, _ := NewSemaphore(newSAB(8), 0, 3)
		return func(ctx context.Context) error { return sem.Acquire(ctx, n) }, func() string {
			if !sem.TryAcquire(3) {
				return "not all 3 permits are free"
			}
			sem.Release(3)
			return ""
		}
	}
}

// chanRow: a Channel of 2 holding `in` messages ("kept"), which must hold
// them still after the call.
func chanRow(call func(*Channel) func(context.Context) error, in int) func(t *testing.T) (func(context.Context) error, func() string) {
	return func(t *testing.T) (func(context.Context) error, func() string) {
		c, _ := NewChannel(newSAB(ChannelSlots(2, 16)), 0, 2, 16)
		for range in {
			if ok, err := c.TrySend([]byte("kept")); !ok || err != nil {
				t.Fatalf("TrySend: %v %v", ok, err)
			}
		}
		return call(c), func() string {
			if c.Len() != in {
				return fmt.Sprintf("the channel holds %d messages, not %d", c.Len(), in)
			}
			for range in {
				if m, ok := c.TryRecv(); !ok || m.String() != "kept" {
					return "the message kept is " + m.String()
				}
			}
			return ""
		}
	}
}

// A goroutine's Barrier.WaitContext whose generation completes while it is
// parked, its context cancelled before it runs again: the arrival counted,
// so it returns as a passed arrival, not ctx's error (a call that took
// something reports it, whatever its context does after).
func TestBarrierCompletedBeforeCancelPasses(t *testing.T) {
	b, _ := NewBarrier(newSAB(4), 0, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		last bool
		err  error
	}
	mine := make(chan result, 1)
	go func() {
		last, err := b.WaitContext(ctx)
		mine <- result{last, err}
	}()
	time.Sleep(10 * time.Millisecond) // it arrives and parks
	// The other arrival completes the generation and the cancel follows,
	// with no return to the event loop between them: the parked goroutine
	// sees its context done before its wake-up.
	theirs := b.Wait()
	cancel()
	r := <-mine
	if r.err != nil || r.last || !theirs {
		t.Fatalf("WaitContext = %v, %v beside the last arrival's %v: want a passed arrival (false, nil), as the generation completed with it", r.last, r.err, theirs)
	}
	// The next generation needs two arrivals again.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if _, err := b.WaitContext(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a lone arrival of the next generation = %v, want its deadline", err)
	}
}

// After x/sync's TestWeightedAcquireCanceled (golang/go#63615): a context
// cancelled while Acquire waits, before the permits it needs come back,
// makes it fail, and it leaves every permit; and a cancelled context fails
// Acquire even when the permits are free.
func TestSemaphoreAcquireCanceled(t *testing.T) {
	sem, _ := NewSemaphore(newSAB(8), 0, 2)
	ctx, cancel := context.WithCancel(context.Background())
	if err := sem.Acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		// Once the Acquire(2) below waits, TryAcquire(1) fails (its
		// permit is held back for it).
		for sem.TryAcquire(1) {
			sem.Release(1)
			runtime.Gosched()
		}
		cancel()
		sem.Release(1)
		close(released)
	}()
	if err := sem.Acquire(ctx, 2); err != context.Canceled {
		t.Errorf("Acquire(2) cancelled while it waited = %v, want context.Canceled", err)
	}
	<-released
	if !sem.TryAcquire(2) {
		t.Fatal("the cancelled Acquire(2) left the permits taken: TryAcquire(2) failed")
	}
	sem.Release(2)
	if err := sem.Acquire(ctx, 1); err != context.Canceled {
		t.Errorf("Acquire(1) with a cancelled context and both permits free = %v, want context.Canceled", err)
	}
	if !sem.TryAcquire(2) {
		t.Fatal("Acquire with a cancelled context took a permit")
	}
	sem.Release(2)
}

// After x/sync's TestWeightedAcquire: an Acquire with a short deadline
// succeeds while a permit is free and fails with the deadline once none is.
func TestSemaphoreAcquireDeadline(t *testing.T) {
	sem, _ := NewSemaphore(newSAB(8), 0, 2)
	try := func(n int64) bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		err := sem.Acquire(ctx, n)
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Acquire(%d) = %v, want nil or the deadline", n, err)
		}
		return err == nil
	}
	var got []bool
	must(sem.Acquire(context.Background(), 1))
	got = append(got, try(1), try(1))
	sem.Release(2)
	got = append(got, try(1))
	must(sem.Acquire(context.Background(), 1))
	got = append(got, try(1))
	want := []bool{true, false, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("try %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// After x/sync's TestAllocCancelDoesntStarve: a large Acquire that waits
// and is cancelled lets a small one that waits behind it through.
func TestSemaphoreCancelledLargeAcquireLetsOthersThrough(t *testing.T) {
	sem, _ := NewSemaphore(newSAB(8), 0, 10)
	must(sem.Acquire(context.Background(), 1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sem.Acquire(ctx, 10)
	for sem.TryAcquire(1) { // until the Acquire(10) waits
		sem.Release(1)
		runtime.Gosched()
	}
	go cancel()
	if !returnsWithin(5*time.Second, func() { must(sem.Acquire(context.Background(), 1)) }) {
		t.Fatal("Acquire(1) behind a cancelled Acquire(10) still waits after 5 s")
	}
	sem.Release(2)
}

// A request larger than the size waits for its context, as x/sync's does
// (no release can make it fit), and returns its error; it holds nobody
// back meanwhile (x/sync's TestWeightedDoesntBlockIfTooBig, adapted in
// gosync_semaphore_test.go). A negative weight panics.
func TestSemaphoreAcquireTooBigWaitsForCtx(t *testing.T) {
	sem, _ := NewSemaphore(newSAB(8), 0, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := sem.Acquire(ctx, 3); err != context.DeadlineExceeded {
		t.Errorf("Acquire(3) of 2 = %v, want its deadline", err)
	}
	if waited := time.Since(start); waited < 25*time.Millisecond {
		t.Errorf("Acquire(3) of 2 returned after %v, before its 30 ms deadline", waited)
	}
	if sem.TryAcquire(3) {
		t.Error("TryAcquire(3) of 2 succeeded")
	}
	if !sem.TryAcquire(2) {
		t.Error("TryAcquire(2) failed after an Acquire(3) gave up: it took or held back permits")
	}
	if msg := panicOf(func() { sem.Acquire(context.Background(), -1) }); msg != "sabmutex: acquire(n) takes a whole number of permits, 0 or more; got -1" {
		t.Errorf("Acquire(-1) panicked with %q", msg)
	}
	if msg := panicOf(func() { sem.Release(3) }); msg != "sabmutex: release(n) takes a whole number from 0 to 2; got 3" {
		t.Errorf("Release(3) of 2 panicked with %q", msg)
	}
}

// A weight of 0 takes nothing and never waits, and a semaphore may have
// size 0, as in x/sync (which has no test of its own for either; the
// issue's TestWeightedZeroSize is this one). A size of 0 stays in Go: the
// slots are left as they were, and a size set up by another agent is a
// mismatch.
func TestWeightedZeroSize(t *testing.T) {
	sab := newSAB(8)
	sem, err := NewSemaphore(sab, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sem.Acquire(context.Background(), 0); err != nil {
		t.Errorf("Acquire(0) of 0 = %v", err)
	}
	if !sem.TryAcquire(0) {
		t.Error("TryAcquire(0) of 0 failed")
	}
	sem.Release(0)
	sem.Release(0)
	if sem.TryAcquire(1) {
		t.Error("TryAcquire(1) of 0 succeeded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := sem.Acquire(ctx, 1); err != context.DeadlineExceeded {
		t.Errorf("Acquire(1) of 0 = %v, want its deadline", err)
	}
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if err := sem.Acquire(cancelled, 0); err != context.Canceled {
		t.Errorf("Acquire(0) with a cancelled context = %v, want context.Canceled", err)
	}
	for i := range 8 {
		if v := i32Of(sab).Index(i).Int(); v != 0 {
			t.Errorf("slot %d of a semaphore of size 0 holds %d, want 0 (untouched)", i, v)
		}
	}
	if msg := panicOf(func() { sem.Release(1) }); msg != "sabmutex: release(n) takes a whole number from 0 to 0; got 1" {
		t.Errorf("Release(1) of 0 panicked with %q", msg)
	}
	// Weight 0 of a semaphore of 2, all taken: it still takes nothing, at once.
	two, _ := NewSemaphore(sab, 0, 2)
	must(two.Acquire(context.Background(), 2))
	if err := two.Acquire(context.Background(), 0); err != nil || !two.TryAcquire(0) {
		t.Errorf("a weight of 0 with every permit taken: Acquire = %v, TryAcquire failed", err)
	}
	two.Release(0)
	two.Release(2)
	if _, err := NewSemaphore(sab, 0, 0); err == nil || err.Error() != "sabmutex: the Semaphore at index 0 was set up with 2 permits, not 0; every agent must pass the same permits" {
		t.Errorf("NewSemaphore(0) over slots set up with 2: %v", err)
	}
	if _, err := NewSemaphore(sab, 3, -1); err == nil || !strings.Contains(err.Error(), "permits must be a whole number from 0 to") {
		t.Errorf("NewSemaphore(-1): %v", err)
	}
}
