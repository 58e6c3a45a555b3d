//go:build wasm

// Package abi is sabmutex.wasm's boundary with its host: the imports the
// core needs (here) and the exports the glue calls (exports.go). The browser
// module (wasm/browser) and the core tests' module (wasm/wasip1) link it;
// a user's Go program that uses sabsync does not, and so has neither.
package abi

import "github.com/sabmutex/sabmutex/internal/core"

func init() {
	core.SetHost(core.Host{
		Load:            atomicLoad,
		Store:           atomicStore,
		CompareExchange: atomicCompareExchange,
		Wait:            atomicWait,
		Notify:          atomicNotify,
		Grow:            memGrow,
		NowMs:           monotonicNowMs,
		TimeOriginMs:    timeOriginMs,
	})
}

// The Atomics operations the protocol needs, imported from the host: in a
// browser the glue (jsglue/imports.js) implements them over the user's
// SharedArrayBuffer, because Go's own linear memory cannot be shared; in the
// core tests, wazero implements them over a Go-side buffer. mem is a handle
// the host gave out for one memory, index an int32 slot in it.

//go:wasmimport sabmutex atomicLoad
func atomicLoad(mem, index int32) int32

//go:wasmimport sabmutex atomicStore
func atomicStore(mem, index, value int32)

//go:wasmimport sabmutex atomicCompareExchange
func atomicCompareExchange(mem, index, expected, replacement int32) int32

// atomicWait is Atomics.wait: it sleeps while the slot holds expected, for at
// most timeoutMs (+Inf: no limit). The result is Atomics.wait's as a number:
// waitOK (0, a notify woke it), 1 (not-equal) or 2 (timed-out). The caller
// re-reads the word either way, but the wait's record (waitrec.go) tells the
// step whether a notify woke it, and only then starts the clock of a wait
// without a deadline.
//
//go:wasmimport sabmutex atomicWait
func atomicWait(mem, index, expected int32, timeoutMs float64) int32

//go:wasmimport sabmutex atomicNotify
func atomicNotify(mem, index, count int32) int32

// memGrow makes this agent's view of memory mem reach slots int32 slots,
// growing its growable SharedArrayBuffer first if it is shorter, and
// returns how many slots the view reaches (fewer: it cannot grow so far).
//
//go:wasmimport sabmutex memGrow
func memGrow(mem, slots int32) int32

// monotonicNowMs is performance.now(): milliseconds from a clock that never
// jumps (the wall clock, Date.now, can).
//
//go:wasmimport sabmutex monotonicNowMs
func monotonicNowMs() float64

// timeOriginMs is performance.timeOrigin: when monotonicNowMs was 0, in ms
// since the epoch (the registry's clock, internal/core/registry.go).
//
//go:wasmimport sabmutex timeOriginMs
func timeOriginMs() float64
