package core

// The core's entry points, for the hosts (wasm/abi exports them from
// sabmutex.wasm; sabsync calls them from a user's Go program): the wait ABI
// of wait.go and ops.go, which PROTOCOL.md describes ("The module's entry
// points"). kind is a waitKind, op an op's number; mem and at name the
// primitive (its memory's handle and first slot).

// agentID is this agent's id, which the host sets once (SetAgent) before
// any other call; watching, whether its blocking waits ask Host.Watch.
var (
	agentID  int32
	watching bool
)

// wordOf is the primitive at mem[index], as this agent sees it.
func wordOf(mem, index int32) word {
	if agentID == 0 {
		panic("sabmutex: the core was called before setAgent; call sabmutex.init() first")
	}
	return word{mem, index, agentID}
}

// SetAgent gives this agent its id (1 to Protocol's MAX_AGENT_ID), once,
// before any other call, and says whether its blocking waits are watched
// (Host.Watch: the glue's agents are, once another agent shares their
// registry). A later call with the same id changes only that. Returns
// resultOK, or resultCorrupted for an id out of range or another id.
func SetAgent(id int32, watched bool) int32 {
	if id <= 0 || id > maxAgentID || agentID != 0 && agentID != id {
		return resultCorrupted
	}
	agentID = id
	watching = watched && host.Watch != nil
	return resultOK
}

// Call runs an op that never waits (ops.go). Main thread too.
func Call(op, mem, at, a, b int32) int32 { return callOp(op, wordOf(mem, at), a, b) }

// Wait runs a wait of kind to its end, sleeping in the host's Wait, for at
// most timeoutMs (+Inf: no limit). Workers only.
func Wait(kind, mem, at, arg int32, timeoutMs float64) int32 {
	return wait(waitKind(kind), wordOf(mem, at), arg, timeoutMs)
}

// Step is one turn of an asynchronous wait (see waitDef.step): woken and
// sleptOn say how the last turn's sleep ended and on what (wokenFirst and
// -1 on the first turn), startMs when the wait began and deadlineMs when it
// gives up (NowMs values; +Inf for never). Main thread too.
func Step(kind, mem, at, arg, woken, sleptOn int32, startMs, deadlineMs float64) int32 {
	t := turn{woken: woken, sleptOn: sleptOn, startMs: startMs, deadlineMs: deadlineMs}
	return stepOf(waitKind(kind), wordOf(mem, at), arg, t)
}

// Abandon gives up an asynchronous wait whose last turn said to sleep on
// sleptOn (see waitDef.abandon); late: the queued wait ended "ok" after an
// earlier Abandon. Main thread too.
func Abandon(kind, mem, at, arg, sleptOn int32, late bool) int32 {
	return abandonOf(waitKind(kind), wordOf(mem, at), arg, sleptOn, late)
}
