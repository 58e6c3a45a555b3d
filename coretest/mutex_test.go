package coretest

import (
	"context"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/proto"
)

var (
	host     *Host
	corePath string // the core that host runs
)

// TestMain builds and compiles the core once; every test makes its own agents.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sabmutex-coretest")
	if err != nil {
		panic(err)
	}
	path, err := BuildCore(dir, false)
	corePath = path
	if err == nil {
		host, err = NewHost(context.Background(), path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	host.Close(context.Background())
	os.RemoveAll(dir)
	os.Exit(code)
}

var inf = math.Inf(1)

// watchedHost is a host of its own whose agents join its registry, and so
// are watched (internal/core/watch.go).
func watchedHost(t testing.TB) *Host {
	h := ownHost(t)
	h.Watched = true
	return h
}

// ownHost is a host of its own, unwatched like the shared one: what each
// explorer test runs on, so that they run in parallel (t.Parallel), one
// per core, without sharing a host's memories or ids.
func ownHost(t testing.TB) *Host {
	t.Helper()
	h, err := NewHost(context.Background(), corePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// agentsOf is n new agents of h.
func agentsOf(t testing.TB, h *Host, n int) []*Agent {
	t.Helper()
	as := make([]*Agent, n)
	for i := range as {
		a, err := h.NewAgent(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		as[i] = a
	}
	return as
}

func agents(t testing.TB, n int) []*Agent {
	t.Helper()
	return agentsOf(t, host, n)
}

// within runs f in a goroutine and fails the test if it has not returned in d.
func within(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish within %v: a lost wake-up or a deadlock", what, d)
	}
}

const (
	lockWord = 0 // and its holder slot, 1
	counter  = 2
)

// hammer has the agents, all starting together, increment the counter (a
// load and a store) between lock and unlock for the given time, and returns
// the counter and the number of increments made. Even-numbered agents use the
// blocking lock, odd ones the asynchronous loop (lockStep) that pages use.
// With shared false, each agent locks a mutex of its own: the same calls, but
// nothing is excluded, which is how the hammer shows it can fail.
func hammer(t testing.TB, as []*Agent, d time.Duration, shared bool) (counted, made int64) {
	mem, m := host.NewMemory(4 + 2*len(as))
	start := make(chan struct{})
	var total atomic.Int64
	within(t, d+time.Minute, "the hammer", func() {
		var wg sync.WaitGroup
		for i, a := range as {
			word := int32(lockWord)
			if !shared {
				word = int32(4 + 2*i)
			}
			wg.Go(func() {
				<-start
				n := int64(0)
				for end := time.Now().Add(d); n%64 != 0 || time.Now().Before(end); n++ {
					var r int32
					if i%2 == 0 {
						r = a.Lock(mem, word, inf)
					} else {
						r = a.LockAsync(mem, word, inf)
					}
					if r != resultOK {
						panic(fmt.Sprintf("lock = %d", r))
					}
					m.Store(counter, m.Load(counter)+1)
					if r := a.Unlock(mem, word); r != resultOK {
						panic(fmt.Sprintf("unlock = %d", r))
					}
				}
				total.Add(n)
			})
		}
		close(start)
		wg.Wait()
	})
	if shared && m.Load(lockWord) != 0 {
		t.Errorf("lock word = %d after the hammer, want 0 (unlocked)", m.Load(lockWord))
	}
	return int64(m.Load(counter)), total.Load()
}

func TestMutex_hammer(t *testing.T) {
	d := 500 * time.Millisecond
	if testing.Short() {
		d = 50 * time.Millisecond
	}
	counted, made := hammer(t, agents(t, 6), d, true)
	if counted != made {
		t.Fatalf("counter = %d, want %d: the mutex let two agents in at once", counted, made)
	}
	t.Logf("%d locked increments by 6 agents", made)
}

// The same, with the three asynchronous loops as tasks of one agent (one
// id): the tasks of a page queue for the mutex, and never see a deadlock.
func TestMutex_hammerTasks(t *testing.T) {
	d := 500 * time.Millisecond
	if testing.Short() {
		d = 50 * time.Millisecond
	}
	as := agents(t, 4)
	page := as[1]
	for _, i := range []int{3, 5} {
		task, err := host.NewTask(context.Background(), page)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as[:i], append([]*Agent{task}, as[i:]...)...)
	}
	if as[1].ID != as[3].ID || as[3].ID != as[5].ID {
		t.Fatalf("the odd instances (the asynchronous loops) must share an id: %d %d %d", as[1].ID, as[3].ID, as[5].ID)
	}
	counted, made := hammer(t, as, d, true)
	if counted != made {
		t.Fatalf("counter = %d, want %d: the mutex let two tasks in at once", counted, made)
	}
	t.Logf("%d locked increments by 3 workers and 3 tasks of one agent", made)
}

// The hammer can fail: when the agents do not share the mutex, the same run
// loses updates (given a few tries, since a loaded machine may run the agents
// one after another for a while).
func TestHammerWithoutSharedLockLosesUpdates(t *testing.T) {
	for try := 0; try < 20; try++ {
		if counted, made := hammer(t, agents(t, 6), 50*time.Millisecond, false); counted < made {
			return
		}
	}
	t.Fatal("20 runs without a shared lock lost no update: the hammer could not catch a broken mutex")
}

func TestTimeouts(t *testing.T) {
	as := agents(t, 2)
	mem, m := host.NewMemory(2)
	as[0].Lock(mem, 0, inf)
	for _, timeoutMs := range []float64{0, 30} {
		for name, lock := range map[string]func() int32{
			"lock":      func() int32 { return as[1].Lock(mem, 0, timeoutMs) },
			"lockAsync": func() int32 { return as[1].LockAsync(mem, 0, timeoutMs) },
		} {
			start := time.Now()
			var r int32
			within(t, 10*time.Second, name, func() { r = lock() })
			d := time.Since(start)
			if r != resultBusy {
				t.Errorf("%s(%v) of a held mutex = %d, want busy", name, timeoutMs, r)
			}
			if d < time.Duration(timeoutMs*float64(time.Millisecond)) || d > time.Duration(timeoutMs)*time.Millisecond+time.Second {
				t.Errorf("%s(%v) gave up after %v", name, timeoutMs, d)
			}
		}
	}
	if w := m.Waiters(0); w != 0 {
		t.Fatalf("%d waiters left behind by timed-out locks", w)
	}
	// A waiter with a timeout still gets the lock when it is released in time.
	var r int32
	within(t, 10*time.Second, "lock(5000)", func() {
		go func() { time.Sleep(20 * time.Millisecond); as[0].Unlock(mem, 0) }()
		r = as[1].Lock(mem, 0, 5000)
	})
	if r != resultOK {
		t.Fatalf("lock(5000) released after 20ms = %d", r)
	}
}

func TestUnlockOfUnlockedIsReportedAndChangesNothing(t *testing.T) {
	a := agents(t, 1)[0]
	mem, m := host.NewMemory(2)
	if r := a.Unlock(mem, 0); r != resultNotLocked {
		t.Fatalf("unlock of an unlocked mutex = %d, want %d", r, resultNotLocked)
	}
	if s := m.Load(0); s != 0 {
		t.Fatalf("word = %d after the bad unlock", s)
	}
}

// How a wait sleeps decides what the holder's own relock is: a worker's
// blocking wait reports it as a deadlock; lockAsync's steps wait like
// anyone's (another task of the agent may unlock).
func TestBlockingWaitReportsDeadlockAndStepsDoNot(t *testing.T) {
	a := agents(t, 1)[0]
	mem, m := host.NewMemory(2)
	if r := a.TryLock(mem, 0); r != resultOK {
		t.Fatalf("tryLock = %d", r)
	}
	if r := a.Wait(proto.KindLock, mem, 0, 0, inf); r != resultDeadlock {
		t.Errorf("blocking wait by the holder = %d, want deadlock (%d)", r, resultDeadlock)
	}
	if r := a.Turn(a.Begin(proto.KindLock, mem, 0, 0, inf, 0), proto.SleptNone); r != 2 {
		t.Errorf("asynchronous turn by the holder = %d, want to sleep on 2", r)
	}
	if r := a.Turn(a.Begin(proto.KindLock, mem, 0, 0, -1, 0), proto.SleptNotEqual); r != resultBusy {
		t.Errorf("asynchronous turn by the holder, past its deadline = %d, want busy (%d)", r, resultBusy)
	}
	if s := m.Load(0); s != 2 {
		t.Errorf("word = %d after the holder's steps, want 2 (contended)", s)
	}
}

// A turn that begins past the deadline, after a sleep that a notify did
// not end, gives up without taking what it finds free (internal/core/wait.go's
// lateTurn): a timeout delivered late (a busy event loop, a helper worker
// still starting) must not take what was released after the deadline. A
// turn after a notify takes it: that sleep was woken before its deadline.
// The other kinds' late turns undo what their waits announced: hammers and
// the explorer run them.
func TestLateTurnGivesUp(t *testing.T) {
	a := agents(t, 1)[0]
	mem, m := host.NewMemory(8)
	const semAt, wgAt = 2, 6
	if r := a.Call(proto.OpSemSetUp, mem, semAt, 1, 0); r != resultOK {
		t.Fatalf("Semaphore set-up = %d", r)
	}
	for _, c := range []struct {
		kind        int32
		at, arg     int32
		slept, want int32
	}{
		{proto.KindLock, 0, 0, proto.SleptNotEqual, resultBusy},
		{proto.KindSemAcquire, semAt, 1, proto.SleptTimedOut, resultBusy},
		{proto.KindWgWait, wgAt, 0, proto.SleptNotEqual, resultBusy},
		{proto.KindLock, 0, 0, proto.SleptOK, resultOK},
		{proto.KindSemAcquire, semAt, 1, proto.SleptOK, resultOK},
	} {
		// Free (the WaitGroup's count 0), the deadline 1 ms ago: a first
		// turn of the record told how a sleep of the glue's ended.
		if r := a.Turn(a.Begin(c.kind, mem, c.at, c.arg, -1, 0), c.slept); r != c.want {
			t.Errorf("kind %d, free, a turn past the deadline after a sleep that ended %d = %d, want %d", c.kind, c.slept, r, c.want)
		}
	}
	if v := m.Load(0); v != 2 {
		t.Errorf("lock word %d after the notified turn took it, want 2 (contended: it had slept)", v)
	}
	if r := a.Call(proto.OpSemAvailable, mem, semAt, 0, 0); r != 0 {
		t.Errorf("Semaphore: %d permits available after the notified turn took one, want 0", r)
	}
}

func TestMisuseAndDeadHolder(t *testing.T) {
	as := agents(t, 2)
	mem, m := host.NewMemory(2)
	as[0].Lock(mem, 0, inf)
	before := [2]int32{m.Load(0), m.Load(1)}
	if r := as[0].Lock(mem, 0, inf); r != resultDeadlock {
		t.Errorf("lock by the holder = %d, want deadlock (%d)", r, resultDeadlock)
	}
	if r := as[1].Unlock(mem, 0); r != resultNotHolder {
		t.Errorf("unlock by another agent = %d, want not-holder (%d)", r, resultNotHolder)
	}
	if after := [2]int32{m.Load(0), m.Load(1)}; after != before {
		t.Errorf("misuse changed the slots from %v to %v", before, after)
	}
	if h := as[1].Holder(mem, 0); h != as[0].ID {
		t.Errorf("holder = %d, want %d", h, as[0].ID)
	}
	if r := as[1].ReleaseDead(mem, 0, as[1].ID); r != resultNotHolder {
		t.Errorf("releaseDead of an agent that holds nothing = %d", r)
	}
	if r := as[1].ReleaseDead(mem, 0, as[0].ID); r != resultOK {
		t.Fatalf("releaseDead = %d", r)
	}
	if r := as[1].TryLock(mem, 0); r != resultDied {
		t.Errorf("tryLock after the holder died = %d, want holder-died (%d)", r, resultDied)
	}
	as[1].Unlock(mem, 0)
	if r := as[1].TryLock(mem, 0); r != resultOK {
		t.Errorf("the next tryLock = %d: the death is told once", r)
	}
}
