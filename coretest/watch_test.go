package coretest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The watch (internal/core/watch.go) over a real registry (registry.go): agents
// that joined one, their blocking waits watched. A wait whose holder the
// registry says is DEAD frees what it held and takes it, told of the death;
// two blocking waits that wait for each other end, the lowest id's with
// RESULT_CYCLE, and the message names both; a writer whose readers ended
// gets their read locks back; a hand-off nobody takes is voided. Each has
// its can-fail twin: the same wait with its holder alive times out.
func TestWatch(t *testing.T) {
	h := watchedHost(t)
	as := agentsOf(t, h, 3)
	a, b, c := as[0], as[1], as[2]
	mem, m := h.NewMemory(8)
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

	// The twin: the holder lives, so a wait with a deadline times out.
	a.Lock(mem, 0, inf)
	if r := b.Lock(mem, 0, 300); r != resultBusy {
		t.Fatalf("lock(300 ms) of a live holder's mutex = %d, want busy", r)
	}

	// Dead: a, the holder, ends while b waits.
	got := inBackground(func() int32 { return b.Lock(mem, 0, inf) })
	time.Sleep(120 * time.Millisecond)
	if r := h.End(a); r != resultOK {
		t.Fatalf("the maker's news of a's end = %d", r)
	}
	if r := within(got, "lock while the holder dies"); r != resultDied {
		t.Fatalf("lock whose holder died = %d, want holder-died (%d)", r, resultDied)
	}
	if hd := c.Holder(mem, 0); hd != b.ID {
		t.Errorf("holder after the recovery = %d, want %d", hd, b.ID)
	}

	// A cycle: b holds the mutex at 0 and c the one at 4; each then waits,
	// blocking, for the other's. The lower id's wait ends with RESULT_CYCLE,
	// having taken nothing, and its message names both; the other then gets
	// what it waits for once that agent lets go.
	c.Lock(mem, 4, inf)
	cWaits := inBackground(func() int32 { return c.Lock(mem, 0, inf) })
	time.Sleep(20 * time.Millisecond)
	before := [2]int32{m.Load(0), m.Load(4)}
	if r := within(inBackground(func() int32 { return b.Lock(mem, 4, inf) }), "lock in a cycle"); r != proto.ResultCycle {
		t.Fatalf("lock that closes a cycle = %d, want RESULT_CYCLE", r)
	}
	if after := [2]int32{m.Load(0), m.Load(4)}; after[0]&^3 != before[0]&^3 || after[1]&^3 != before[1]&^3 {
		t.Errorf("lock words %v before the cycle's wait, %v after: it must take nothing", before, after)
	}
	// Its members, as the hosts word them: b waits for the Mutex at 4, which
	// c holds; c for the one at 0, which b holds; neither in the registry.
	var members [][]any
	if err := json.Unmarshal([]byte(b.Text(proto.TextDeadlock, 0)), &members); err != nil {
		t.Fatalf("the deadlock's members are not JSON: %v", err)
	}
	f := func(v int32) float64 { return float64(v) } // (JSON's numbers)
	want := [][]any{{f(b.ID), "Mutex", "", f(4), f(0), f(c.ID)}, {f(c.ID), "Mutex", "", f(0), f(0), f(b.ID)}}
	if len(members) != len(want) {
		t.Fatalf("the deadlock's members: %v, want %v", members, want)
	}
	for i, m := range members {
		for col, w := range map[int]any{proto.DeadlockAgent: want[i][0], proto.DeadlockType: want[i][1], proto.DeadlockMode: want[i][2],
			proto.DeadlockIndex: want[i][3], proto.DeadlockInRegistry: want[i][4], proto.DeadlockHolder: want[i][5]} {
			if m[col] != w {
				t.Errorf("the deadlock's member %d: %v, column %d want %v", i, m, col, w)
			}
		}
	}
	if r := b.Unlock(mem, 0); r != resultOK {
		t.Errorf("the told agent's unlock = %d", r)
	}
	if r := within(cWaits, "the other member's lock"); r != resultOK {
		t.Errorf("the other member's lock = %d, want ok once the told one let go", r)
	}
	c.Unlock(mem, 0)
	c.Unlock(mem, 4)

	// Read locks of an agent that ended: d holds two read locks of the
	// RWMutex at 0 of rwMem (counted in its record, as the glue does after
	// each read lock), then ends; the writer b goes in, told of nothing.
	d := agentsOf(t, h, 1)[0]
	rwMem, rwm := h.NewMemory(4)
	counter := d.Call(proto.OpReadCounter, rwMem, 0, 0, 0)
	if counter < 0 {
		t.Fatalf("OP_READ_COUNTER = %d, want a slot of the registry", counter)
	}
	reg := h.memory(h.Registry)
	for range 2 {
		if r := d.Call(proto.OpRwTryReadLock, rwMem, 0, 0, 0); r != resultOK {
			t.Fatalf("tryReadLock = %d", r)
		}
		reg.Store(counter, reg.Load(counter)+1)
	}
	if r := b.Wait(proto.KindRwAnnounce, rwMem, 0, 0, 200); r != resultBusy {
		t.Fatalf("lock(200 ms) while two live readers read = %d, want busy", r)
	}
	writer := inBackground(func() int32 { return b.Wait(proto.KindRwAnnounce, rwMem, 0, 0, inf) })
	time.Sleep(60 * time.Millisecond)
	h.End(d)
	if r := within(writer, "lock whose readers ended"); r != resultOK {
		t.Fatalf("lock whose readers ended = %d, want ok", r)
	}
	if r := b.Call(proto.OpRwUnlock, rwMem, 0, 0, 0); r != resultOK || rwm.Load(0) != 0 {
		t.Errorf("unlock = %d, state word %#x after it, want ok and 0", r, rwm.Load(0))
	}

	// A hand-off nobody takes: the word handed off (unlocked|starving, 4)
	// to a waiter that never comes. The wait's own look voids it
	// (voidHandOff) and takes it after one watch period.
	hMem, hm := h.NewMemory(4)
	hm.Store(0, 4)
	if r := within(inBackground(func() int32 { return b.Lock(hMem, 0, inf) }), "lock of a mutex handed off to nobody"); r != resultOK {
		t.Fatalf("lock of a mutex handed off to nobody = %d, want ok", r)
	}

	// The snapshot names every agent, the dead as dead.
	var snap [][]any
	if err := json.Unmarshal([]byte(c.Text(proto.TextSnapshot, 0)), &snap); err != nil {
		t.Fatalf("the snapshot is not JSON: %v", err)
	}
	if len(snap) != 4 || snap[0][proto.SnapshotAlive] != float64(0) || snap[1][proto.SnapshotAlive] != float64(1) || snap[3][proto.SnapshotAgent] != float64(d.ID) {
		t.Errorf("snapshot %v: want 4 agents, a (the first) dead, b alive, d last", snap)
	}
}
