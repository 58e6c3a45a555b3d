//go:build js && wasm

package sabsync

import (
	"sync"
	"testing"
)

// What a Go program pays for sabsync's Mutex beside Go's own sync.Mutex
// (which cannot be shared between programs): uncontended Lock+Unlock, each
// word access a call of Atomics through syscall/js. make bench runs these
// in Node.js, alternating the two (-count).

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
