//go:build wasm

package abi

import (
	"unsafe"

	"github.com/sabmutex/sabmutex/wasm/core"
)

// The module's exports: the core's entry points (wasm/core/api.go), which
// the glue and the host tests call. They never block on a goroutine or
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

// setAgent gives this instance its agent id, before any other call;
// watched is 1 when its blocking waits are to ask the import watch. A later
// call with the same id changes only watched.
//
//go:wasmexport setAgent
func exportSetAgent(id, watched int32) int32 { return core.SetAgent(id, watched != 0) }

// wait: a whole wait, sleeping in Atomics.wait. Workers only.
//
//go:wasmexport wait
func exportWait(kind, mem, at, arg int32, timeoutMs float64) int32 {
	return core.Wait(kind, mem, at, arg, timeoutMs)
}

// step: one turn of an asynchronous wait; the glue sleeps with
// Atomics.waitAsync between turns. Main thread too.
//
//go:wasmexport step
func exportStep(kind, mem, at, arg, woken, sleptOn int32, startMs, deadlineMs float64) int32 {
	return core.Step(kind, mem, at, arg, woken, sleptOn, startMs, deadlineMs)
}

// abandon: gives up an asynchronous wait; late is 1 for the queued wait
// that ended "ok" afterwards. Main thread too.
//
//go:wasmexport abandon
func exportAbandon(kind, mem, at, arg, sleptOn, late int32) int32 {
	return core.Abandon(kind, mem, at, arg, sleptOn, late != 0)
}

// call: an op that never waits. Main thread too.
//
//go:wasmexport call
func exportCall(op, mem, at, a, b int32) int32 { return core.Call(op, mem, at, a, b) }
