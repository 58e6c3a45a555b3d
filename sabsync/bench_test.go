//go:build js && wasm

package sabsync

import (
	"sync"
	"syscall/js"
	"testing"
)

// What a Go program pays for sabsync's Mutex beside Go's own sync.Mutex
// (which cannot be shared between programs) and beside its floor, two bare
// calls of Atomics through syscall/js (the compare-and-swap that takes a
// free word and the store that frees it): uncontended Lock+Unlock, each
// word access such a call. The program has joined a registry (TestMain),
// as a Go worker does: the watch costs nothing until a wait has lasted.
// make bench runs these in Node.js (-count).

func BenchmarkAtomicsFloor(b *testing.B) {
	atomics := js.Global().Get("Atomics")
	i32 := js.Global().Get("Int32Array").New(newSAB(4))
	for b.Loop() {
		atomics.Call("compareExchange", i32, 0, 0, 1)
		atomics.Call("store", i32, 0, 0)
	}
}

// The same floor with each function looked up once (Invoke), as sabsync
// calls them.
func BenchmarkAtomicsFloorInvoke(b *testing.B) {
	i32 := js.Global().Get("Int32Array").New(newSAB(4))
	for b.Loop() {
		aCAS.Invoke(i32, 0, 0, 1)
		aStore.Invoke(i32, 0, 0)
	}
}

func BenchmarkLockUnlock(b *testing.B) {
	m, err := NewMutex(newSAB(4), 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m.Lock()
		m.Unlock()
	}
}

func BenchmarkSyncMutexLockUnlock(b *testing.B) {
	var m sync.Mutex
	for b.Loop() {
		m.Lock()
		m.Unlock()
	}
}

func BenchmarkTryLockUnlock(b *testing.B) {
	m, _ := NewMutex(newSAB(4), 0)
	for b.Loop() {
		if m.TryLock() {
			m.Unlock()
		}
	}
}
