package core

import (
	"time"

	"github.com/sabmutex/sabmutex/internal/testing/futex"
)

// The unit tests run the protocol natively, over an emulated futex: handle
// h names nativeMemories[h].
var nativeMemories []*futex.Memory

var nativeEpoch = time.Now()

func init() {
	SetHost(Host{
		Load:  func(mem, index int32) int32 { return nativeMemories[mem].Load(index) },
		Store: func(mem, index, value int32) { nativeMemories[mem].Store(index, value) },
		CompareExchange: func(mem, index, expected, replacement int32) int32 {
			return nativeMemories[mem].CompareExchange(index, expected, replacement)
		},
		Wait: func(mem, index, expected int32, timeoutMs float64) int32 {
			return nativeMemories[mem].Wait(index, expected, timeoutMs)
		},
		Notify:       func(mem, index, count int32) int32 { return nativeMemories[mem].Notify(index, count) },
		Grow:         func(mem, slots int32) int32 { return nativeMemories[mem].Grow(slots) },
		NowMs:        func() float64 { return float64(time.Since(nativeEpoch).Nanoseconds()) / 1e6 },
		TimeOriginMs: func() float64 { return float64(nativeEpoch.UnixNano()) / 1e6 },
	})
}
