package hosttest

import (
	"sync/atomic"
	"testing"
	"time"
)

// The core's watch (wasm/core/wait.go, watch): a watched blocking wait asks
// the host about the agent it waits for each time it has slept WATCH_MS
// through. When the host says that agent is dead, the wait frees what it
// held and takes it, told of the death; when the host says the wait closes
// a cycle, it ends with RESULT_CYCLE, having taken nothing; when the host
// says go on, it goes on (the can-fail twin: nothing is freed).
func TestWatch(t *testing.T) {
	var verdict func(self, kind, holder int32) int32
	var ended atomic.Int32
	host.Watch = func(self, kind, mem, index, holder int32) int32 {
		if kind == number("WATCH_END") {
			ended.Add(1)
			return 0
		}
		return verdict(self, kind, holder)
	}
	t.Cleanup(func() { host.Watch = nil })
	as := agents(t, 3) // watched: made while host.Watch is set
	a, b, c := as[0], as[1], as[2]
	mem, m := host.NewMemory(4)
	inBackground := func(f func() int32) <-chan int32 {
		ch := make(chan int32, 1)
		go func() { ch <- f() }()
		return ch
	}
	within := func(ch <-chan int32, what string) int32 {
		t.Helper()
		select {
		case r := <-ch:
			return r
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no result after 5 s", what)
			return 0
		}
	}

	// Go on: a wait with a deadline times out; nothing is freed.
	var asked atomic.Int32
	verdict = func(self, kind, holder int32) int32 {
		if holder == a.ID {
			asked.Add(1)
		}
		return number("WATCH_GO_ON")
	}
	a.Lock(mem, 0, inf)
	if r := b.Lock(mem, 0, 300); r != resultBusy {
		t.Fatalf("lock(300 ms) while the host says go on = %d, want busy", r)
	}
	if asked.Load() < 2 || ended.Load() != 1 {
		t.Errorf("a 300 ms wait asked %d times about its holder and ended %d times, want at least 2 and 1", asked.Load(), ended.Load())
	}

	// Dead: a, the holder, is dead once the host says so.
	var aDead atomic.Bool
	verdict = func(self, kind, holder int32) int32 {
		if holder == a.ID && aDead.Load() {
			return number("WATCH_DEAD")
		}
		return number("WATCH_GO_ON")
	}
	got := inBackground(func() int32 { return b.Lock(mem, 0, inf) })
	time.Sleep(120 * time.Millisecond)
	aDead.Store(true)
	if r := within(got, "lock while the holder dies"); r != resultDied {
		t.Fatalf("lock whose holder died = %d, want holder-died (%d)", r, resultDied)
	}
	if h := c.Holder(mem, 0); h != b.ID {
		t.Errorf("holder after the recovery = %d, want %d", h, b.ID)
	}
	b.Unlock(mem, 0)

	// A cycle: c holds the mutex at 2 and waits for a's at 0; the host says
	// the wait closes a cycle.
	verdict = func(self, kind, holder int32) int32 {
		if self == c.ID && holder == b.ID {
			return number("WATCH_CYCLE")
		}
		return number("WATCH_GO_ON")
	}
	b.Lock(mem, 0, inf)
	c.Lock(mem, 2, inf)
	before := [4]int32{m.Load(0), m.Load(1), m.Load(2), m.Load(3)}
	if r := within(inBackground(func() int32 { return c.Lock(mem, 0, inf) }), "lock in a cycle"); r != number("RESULT_CYCLE") {
		t.Fatalf("lock that closes a cycle = %d, want RESULT_CYCLE", r)
	}
	after := [4]int32{m.Load(0), m.Load(1), m.Load(2), m.Load(3)}
	if after[1] != before[1] || after[2] != before[2] || after[3] != before[3] || after[0]&3 == 0 {
		t.Errorf("slots %v before the cycle's wait, %v after: it must take nothing and free nothing", before, after)
	}
	if r := b.Unlock(mem, 0); r != resultOK {
		t.Errorf("the holder's unlock after the cycle's wait = %d", r)
	}
	if r := c.Unlock(mem, 2); r != resultOK {
		t.Errorf("the thrower's own unlock = %d", r)
	}

	// Read locks of agents that ended: a writer waits for two readers to
	// leave (an RWMutex at 4); the host, which alone knows who reads (the
	// registry's records), frees one of them at a time. The writer goes in
	// once both are given back, not before.
	rwMem, rwm := host.NewMemory(4)
	for range 2 {
		if r := a.Call("OP_RW_TRY_READ_LOCK", rwMem, 0, 0, 0); r != resultOK {
			t.Fatalf("tryReadLock = %d", r)
		}
	}
	var freed atomic.Int32
	verdict = func(self, kind, holder int32) int32 {
		if kind == number("KIND_RW_DRAIN") && freed.Load() < 2 {
			freed.Add(1)
			return number("WATCH_FREED_READS") + 1<<2
		}
		return number("WATCH_GO_ON")
	}
	if r := within(inBackground(func() int32 { return b.Wait("KIND_RW_ANNOUNCE", rwMem, 0, 0, inf) }), "lock while its readers end"); r != resultOK {
		t.Fatalf("lock whose readers ended = %d, want ok", r)
	}
	if freed.Load() != 2 {
		t.Errorf("the writer went in after %d of the 2 read locks were freed", freed.Load())
	}
	if r := b.Call("OP_RW_UNLOCK", rwMem, 0, 0, 0); r != resultOK || rwm.Load(0) != 0 {
		t.Errorf("unlock = %d, state word %#x after it, want ok and 0", r, rwm.Load(0))
	}

	// A hand-off nobody takes: the word handed off (unlocked|starving, 4)
	// to a waiter that never comes. Nobody else may take it, and the host
	// says go on: the wait's own look voids it (voidHandOff) and takes it
	// after one watch period. Unwatched, the same wait times out (TestLostHandOff
	// in browsertest).
	verdict = func(self, kind, holder int32) int32 { return number("WATCH_GO_ON") }
	hMem, hm := host.NewMemory(4)
	hm.Store(0, 4)
	if r := within(inBackground(func() int32 { return b.Lock(hMem, 0, inf) }), "lock of a mutex handed off to nobody"); r != resultOK {
		t.Fatalf("lock of a mutex handed off to nobody = %d, want ok", r)
	}
	if h := c.Holder(hMem, 0); h != b.ID {
		t.Errorf("holder = %d, want %d", h, b.ID)
	}
}
