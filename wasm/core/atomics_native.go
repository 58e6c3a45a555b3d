//go:build !wasm

package core

import (
	"time"

	"github.com/sabmutex/sabmutex/internal/futex"
)

// A native build of the protocol, for its unit tests: the imports become
// calls into an emulated futex. Handle h names nativeMemories[h].
var nativeMemories []*futex.Memory

var nativeEpoch = time.Now()

func atomicLoad(mem, index int32) int32 { return nativeMemories[mem].Load(index) }

func atomicStore(mem, index, value int32) { nativeMemories[mem].Store(index, value) }

func atomicCompareExchange(mem, index, expected, replacement int32) int32 {
	return nativeMemories[mem].CompareExchange(index, expected, replacement)
}

func atomicWait(mem, index, expected int32, timeoutMs float64) int32 {
	return nativeMemories[mem].Wait(index, expected, timeoutMs)
}

func atomicNotify(mem, index, count int32) int32 {
	return nativeMemories[mem].Notify(index, count)
}

func monotonicNowMs() float64 {
	return float64(time.Since(nativeEpoch).Nanoseconds()) / 1e6
}
