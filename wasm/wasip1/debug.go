//go:build wasip1

package main

import (
	"unsafe"

	"github.com/sabmutex/sabmutex/internal/core"
)

// The debug area's Go writer (internal/core/debugarea.go), exported from the
// core tests' module alone, so that their explorer can run it step by step
// beside agents that read the area (coretest/debug_explore_test.go). Not
// in internal/abi: the browser module (sabmutex.wasm, at its size budget)
// never writes the area, the glue does, in JavaScript; Go's linker leaves
// out of it what none of its exports reaches, so the writer costs it
// nothing while only this package calls it. Each function is its
// namesake in core; bools are 1 or 0.

// debugBytes is where the host puts the bytes of a text for debugText and
// debugKey (debugBuffer).
var debugBytes []byte

// debugBuffer makes debugBytes n bytes long and returns the address of its
// first byte in this instance's memory.
//
//go:wasmexport debugBuffer
func exportDebugBuffer(n int32) int32 {
	if int(n) > cap(debugBytes) {
		debugBytes = make([]byte, n, n+64)
	}
	debugBytes = debugBytes[:n]
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(debugBytes[:cap(debugBytes)]))))
}

//go:wasmexport debugMake
func exportDebugMake(mem, heldMs int32) { core.DebugMake(mem, heldMs) }

//go:wasmexport debugRegion
func exportDebugRegion(on int32) int32 { return core.DebugRegion(on != 0) }

// debugText writes the n bytes in debugBytes.
//
//go:wasmexport debugText
func exportDebugText(r, n int32) int32 { return core.DebugText(r, debugBytes[:n]) }

//go:wasmexport debugMark
func exportDebugMark(r, key, mode, label, site int32) int32 {
	return bit(core.DebugMark(r, key, mode, label, site))
}

//go:wasmexport debugUnmark
func exportDebugUnmark(r, key, mode int32) { core.DebugUnmark(r, key, mode) }

//go:wasmexport debugEdge
func exportDebugEdge(r, from, to int32) int32 { return bit(core.DebugEdge(r, from, to)) }

// debugKey is the key of the lock identified by the n bytes in debugBytes.
//
//go:wasmexport debugKey
func exportDebugKey(n int32) int32 { return core.DebugKey(debugBytes[:n]) }

func bit(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
