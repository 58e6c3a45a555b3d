//go:build js && wasm

package sabsync

import (
	"runtime"
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
