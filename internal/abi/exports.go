//go:build wasm

package abi

import (
	"unsafe"

	"github.com/sabmutex/sabmutex/internal/core"
)

// The module's exports: the core's entry points (internal/core/api.go), which
// the glue and the core tests call. They never block on a goroutine or
// channel (an export that does deadlocks the instance): the only place they
// sleep is inside the imported atomicWait. Each says where it may be called
// from. Each //go:wasmexport adds its own trampoline into the Go scheduler
// to the module, so they are few (docs/decisions/module-size.md).

// protocolText is core.ProtocolText, NUL-terminated, made at the first call
// of protocol.
var protocolText []byte

// protocol returns the address, in this instance's memory, of the protocol's
// constants as NUL-terminated text (see core.ProtocolText): how the glue
// checks them at start-up. Main thread too.
//
//go:wasmexport protocol
func exportProtocol() int32 {
	if protocolText == nil {
		protocolText = append(core.ProtocolText(), 0)
	}
	return int32(uintptr(unsafe.Pointer(&protocolText[0])))
}

// wait: a whole wait, sleeping in Atomics.wait, from its start or resumed
// after the glue's own turns (core.Wait). Workers only.
//
//go:wasmexport wait
func exportWait(kind, mem, at, arg int32, timeoutMs, startMs float64, sleptOn, slept int32) int32 {
	return core.Wait(kind, mem, at, arg, timeoutMs, startMs, sleptOn, slept)
}

// begin: begins an asynchronous wait and returns its id (core.Begin).
// Main thread too.
//
//go:wasmexport begin
func exportBegin(kind, mem, at, arg int32, timeoutMs, startMs float64) int32 {
	return core.Begin(kind, mem, at, arg, timeoutMs, startMs)
}

// turn: the next turn of asynchronous wait id, told how its last sleep
// ended; where to sleep is left at the op OP_SLEEP_OUT's address
// (core.Turn). Main thread too.
//
//go:wasmexport turn
func exportTurn(id, slept int32) int32 { return core.Turn(id, slept) }

// call: an op that never waits. Main thread too.
//
//go:wasmexport call
func exportCall(op, mem, at, a, b int32) int32 { return core.Call(op, mem, at, a, b) }
