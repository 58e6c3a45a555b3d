//go:build js && wasm

package sabsync

import (
	"context"
	"math"
	"runtime"
	"strings"
	"syscall/js"
	"testing"
	"time"
)

// handlesInUse is how many buffers the table holds now.
func handlesInUse() int {
	memories.Lock()
	defer memories.Unlock()
	return len(buffers) - len(freeHandles)
}

// collectUntil runs the GC, and lets the cleanups' goroutine run, until
// done says so or 5 s have passed; it returns done's last answer.
func collectUntil(done func() bool) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		if done() {
			return true
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	return done()
}

// A program that makes buffers as it goes, with primitives over them, does
// not keep them: once its primitives are collected, their buffers'
// handles are freed and reused. A primitive still in use keeps its handle,
// and keeps working on its own buffer while handles around it are reused.
func TestBuffersReleased(t *testing.T) {
	keptSAB := newSAB(4)
	kept, _ := NewMutex(keptSAB, 0)
	NewMutex(keptSAB, 2) // a second user of the same buffer, dropped at once: kept still holds it
	before := handlesInUse()
	const buffersMade = 200
	for i := range buffersMade {
		sab := newSAB(8)
		m, _ := NewMutex(sab, 0)
		c, _ := NewCond(i32Of(sab), 2, m) // an Int32Array over the same buffer: the same handle
		s, _ := NewSemaphore(sab, 3, 2)
		m.Lock()
		c.Signal()
		s.Release(0)
		m.Unlock()
		if i == 0 && handlesInUse() != before+1 {
			t.Fatalf("three primitives over one new buffer took %d handles", handlesInUse()-before)
		}
	}
	if !collectUntil(func() bool { return handlesInUse() <= before }) {
		t.Fatalf("%d buffers still registered after the GC, %d before %d buffers were made and dropped", handlesInUse(), before, buffersMade)
	}
	tableSize := len(buffers)
	for range 3 {
		other := newSAB(4)
		m, _ := NewMutex(other, 0)
		m.Lock() // a reused handle must name other, not keptSAB
		if got := i32Of(keptSAB).Index(0).Int(); got != 0 {
			t.Fatalf("locking a mutex over a new buffer wrote %d into the kept buffer", got)
		}
		if got := i32Of(other).Index(0).Int(); got == 0 {
			t.Fatal("locking a mutex over a new buffer left its word 0")
		}
	}
	if len(buffers) != tableSize {
		t.Errorf("the table grew from %d to %d handles though some were free", tableSize, len(buffers))
	}
	kept.Lock()
	if got := i32Of(keptSAB).Index(0).Int(); got == 0 {
		t.Error("the kept mutex, locked, left its own word 0: its handle was reused")
	}
	kept.Unlock()
	runtime.KeepAlive(kept)
}

// A goroutine parked in a wait keeps its primitive's buffer registered even
// when nothing else holds the primitive: its wait will use the handle again
// when it wakes.
func TestWaitKeepsBufferRegistered(t *testing.T) {
	sab := newSAB(2)
	m, _ := NewMutex(sab, 0)
	m.Lock()
	done := make(chan struct{})
	go func() {
		m2, _ := NewMutex(sab, 0) // the goroutine's own primitive; m is dropped below
		m2.Lock()                 // parks: m holds it
		m2.Unlock()
		close(done)
	}()
	time.Sleep(10 * time.Millisecond) // until it parks
	m = nil                           // the parked goroutine's m2 is the buffer's only primitive now
	for range 5 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	memories.Lock()
	registered := !handleOf.Call("get", sab).IsUndefined()
	memories.Unlock()
	if !registered {
		t.Error("the buffer was unregistered while a goroutine waited on a primitive over it")
	}
	// Unlock through the words, as another agent would: the holder is this
	// program, so a new Mutex over the same slots may unlock it.
	unlocker, _ := NewMutex(sab, 0)
	unlocker.Unlock()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter still waits 5 s after the unlock")
	}
}

// A memory too small for a primitive at any index says so, with the bytes
// it needs, for every constructor; a memory large enough gives an index
// range that is never empty; a huge index does not wrap past the check;
// ChannelSlots refuses what NewChannel refuses (issue 45, point 2).
func TestMemoryTooSmall(t *testing.T) {
	small := newSAB(16) // 64 bytes
	tooSmall := map[string]func() error{
		"Channel(4, 16)": func() error { _, err := NewChannel(small, 0, 4, 16); return err },
		"Channel(1, 0)":  func() error { _, err := NewChannel(newSAB(95), 0, 1, 0); return err },
		"Mutex":          func() error { _, err := NewMutex(newSAB(1), 0); return err },
		"RWMutex":        func() error { _, err := NewRWMutex(i32Of(newSAB(3)), 0); return err },
		"Semaphore":      func() error { _, err := NewSemaphore(newSAB(2), 0, 1); return err },
		"Barrier":        func() error { _, err := NewBarrier(newSAB(1), 0, 2); return err },
		"Once":           func() error { _, err := NewOnce(newSAB(1), 0); return err },
		"WaitGroup":      func() error { _, err := NewWaitGroup(newSAB(0), 0); return err },
		"Cond":           func() error { _, err := NewCond(newSAB(0), 0, nil); return err },
	}
	want := map[string][]string{
		"Channel(4, 16)": {"sabmutex: a Channel of capacity 4 and 16-byte messages needs 480 bytes (120 int32 slots: ChannelSlots(4, 16)); this SharedArrayBuffer has 64 bytes"},
		"Channel(1, 0)":  {"needs 392 bytes (98 int32 slots", "has 380 bytes"},
		"Mutex":          {"sabmutex: a Mutex needs 8 bytes (2 int32 slots: MutexSlots); this SharedArrayBuffer has 4 bytes, too few at any index"},
		"RWMutex":        {"an RWMutex needs 16 bytes", "this Int32Array has 12 bytes"},
		"Semaphore":      {"a Semaphore needs 12 bytes", "has 8 bytes"},
		"Barrier":        {"a Barrier needs 8 bytes"},
		"Once":           {"a Once needs 8 bytes"},
		"WaitGroup":      {"a WaitGroup needs 4 bytes", "has 0 bytes"},
		"Cond":           {"a Cond needs 4 bytes"},
	}
	for name, f := range tooSmall {
		err := f()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		for _, part := range want[name] {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: %q does not say %q", name, err, part)
			}
		}
		if strings.Contains(err.Error(), "from 0 to -") {
			t.Errorf("%s: a negative range: %q", name, err)
		}
	}

	// Room for it: the range is from 0 to what is left, never below 0.
	if _, err := NewMutex(newSAB(2), 1); err == nil || !strings.Contains(err.Error(), "from 0 to 0, leaving MutexSlots (2) int32 slots in a memory of 2 int32 slots (8 bytes); got 1") {
		t.Errorf("NewMutex(8 bytes, 1): %v", err)
	}
	// An index so large that index+slots wraps must not pass the check.
	if _, err := NewMutex(newSAB(4), math.MaxInt); err == nil || !strings.Contains(err.Error(), "from 0 to 2") {
		t.Errorf("NewMutex(16 bytes, MaxInt): %v", err)
	}
	// A Channel whose slots do not fit an int32 must not wrap to a small
	// number: 2^20 cells of 4096 slots (2 words and 16376 bytes) is 2^32 + 96 slots.
	if _, err := NewChannel(newSAB(ChannelSlots(1, 0)), 0, 1<<20, 4094*4); err == nil || !strings.Contains(err.Error(), "needs 17179869568 bytes") {
		t.Errorf("NewChannel(capacity 2^20, 16376 bytes): %v", err)
	}
	for _, c := range [][2]int{{0, 16}, {-1, 16}, {4, -1}, {4, 1 << 30}} {
		msg := panicOf(func() { ChannelSlots(c[0], c[1]) })
		if !strings.HasPrefix(msg, "sabmutex: ") {
			t.Errorf("ChannelSlots(%d, %d) did not panic with a sabmutex: error: %q", c[0], c[1], msg)
		}
	}
}

// A growable SharedArrayBuffer: primitives work at any index inside its
// length, before it grows and after, also a buffer registered before it
// grew (issue 45, point 1; docs/decisions/growable-memory.md).
func TestGrowableMemory(t *testing.T) {
	opts := js.Global().Get("Object").New()
	opts.Set("maxByteLength", 4096)
	sab := js.Global().Get("SharedArrayBuffer").New(64, opts)
	first, err := NewMutex(sab, 0) // registers the buffer at 64 bytes
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMutex(sab, 200); err == nil || !strings.Contains(err.Error(), "from 0 to 14") {
		t.Errorf("NewMutex(64 bytes, 200) before the growth: %v", err)
	}
	if _, err := NewChannel(sab, 0, 4, 16); err == nil || !strings.Contains(err.Error(), "grow it first (it may grow to 4096 bytes)") {
		t.Errorf("NewChannel(64 growable bytes, 4, 16): %v", err)
	}
	sab.Call("grow", 1024)
	m, err := NewMutex(sab, 200)
	if err != nil {
		t.Fatal(err)
	}
	m.Lock()
	first.Lock()
	if m.TryLock() || first.TryLock() {
		t.Error("TryLock of a held Mutex succeeded")
	}
	m.Unlock()
	first.Unlock()
	ch, err := NewChannel(sab, 16, 4, 16)
	if err != nil {
		t.Fatal(err)
	}
	sab.Call("grow", 4096)
	ctx := context.Background()
	if err := ch.SendString(ctx, "after"); err != nil {
		t.Fatal(err)
	}
	if msg, err := ch.Recv(ctx); err != nil || msg.String() != "after" || !msg.Text {
		t.Errorf("Recv: %v %v", msg, err)
	}
	late, err := NewMutex(i32Of(sab), 1000) // a length-tracking Int32Array
	if err != nil {
		t.Fatal(err)
	}
	late.Lock()
	late.Unlock()
}
