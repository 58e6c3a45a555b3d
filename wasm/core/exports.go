//go:build wasm

package core

import "unsafe"

// The entry points. They never block on a goroutine or channel (an export
// that does deadlocks the instance): the only place they sleep is inside the
// imported atomicWait. Each says where it may be called from.

// protocolText is ProtocolText, NUL-terminated, made at the first call of
// protocol.
var protocolText []byte

// protocol returns the address, in this instance's memory, of the protocol's
// constants as NUL-terminated text (see ProtocolText): how the glue learns
// them at start-up. Main thread too.
//
//go:wasmexport protocol
func exportProtocol() int32 {
	if protocolText == nil {
		protocolText = append(ProtocolText(), 0)
	}
	return int32(uintptr(unsafe.Pointer(&protocolText[0])))
}

// setAgent gives this instance its agent id (1 to Protocol's MAX_AGENT_ID),
// once, before any other call. Returns resultOK, or resultCorrupted for an id
// out of range or a second call.
//
//go:wasmexport setAgent
func exportSetAgent(id int32) int32 {
	if agentID != 0 || id <= 0 || id > maxAgentID {
		return resultCorrupted
	}
	agentID = id
	return resultOK
}

// The waits (wasm/core/wait.go). kind is a waitKind, published as KIND_*;
// mem and at name the primitive (its memory handle and first slot); arg is
// what the kind takes (Semaphore: n; Cond: the sequence), else 0.

// wait runs a wait to its end, sleeping in Atomics.wait, for at most
// timeoutMs (+Inf: no limit). Workers only.
//
//go:wasmexport wait
func exportWait(kind, mem, at, arg int32, timeoutMs float64) int32 {
	return wait(waitKind(kind), wordOf(mem, at), arg, timeoutMs)
}

// step is one turn of an asynchronous wait (see waitDef.step); the glue
// sleeps with Atomics.waitAsync between turns. woken and sleptOn say how the
// last turn's sleep ended and on what (WOKEN_FIRST and -1 on the first turn),
// startMs when the wait began and deadlineMs when it gives up
// (performance.now() values; deadlineMs +Inf for never). Main thread too.
//
//go:wasmexport step
func exportStep(kind, mem, at, arg, woken, sleptOn int32, startMs, deadlineMs float64) int32 {
	t := turn{woken: woken, sleptOn: sleptOn, startMs: startMs, deadlineMs: deadlineMs}
	return stepOf(waitKind(kind), wordOf(mem, at), arg, t)
}

// abandon gives up an asynchronous wait whose last turn said to sleep on
// sleptOn (see waitDef.abandon); late is 1 for the queued wait that ended
// "ok" afterwards. Main thread too.
//
//go:wasmexport abandon
func exportAbandon(kind, mem, at, arg, sleptOn, late int32) int32 {
	return abandonOf(waitKind(kind), wordOf(mem, at), arg, sleptOn, late != 0)
}

// call runs an op that never waits (ops.go): main thread too. Each
// //go:wasmexport costs about 1.5 KB of wasm (its trampoline into the Go
// scheduler), so the calls that never wait share this one.
//
//go:wasmexport call
func exportCall(o, mem, at, a, b int32) int32 { return callOp(o, wordOf(mem, at), a, b) }
