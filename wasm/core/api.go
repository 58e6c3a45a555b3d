package core

// The core's entry points, for the hosts (wasm/abi exports them from
// sabmutex.wasm; sabsync calls them from a user's Go program): the wait ABI
// of wait.go and ops.go, which PROTOCOL.md describes ("The module's entry
// points"). kind is a waitKind, op an op's number; mem and at name the
// primitive (its memory's handle and first slot).

// agentID is this agent's id, which the host sets once (SetAgent) before
// any other call; watching, whether its waits are watched (watch.go).
var (
	agentID  int32
	watching bool
)

// wordOf is the primitive at mem[index], as this agent sees it.
func wordOf(mem, index int32) prim {
	if agentID == 0 {
		panic("sabmutex: the core was called before setAgent; call sabmutex.init() first")
	}
	return prim{mem, index, agentID}
}

// SetAgent gives this agent its id (1 to Protocol's MAX_AGENT_ID), once,
// before any other call, and says whether its blocking waits are watched
// (watch.go: an agent is, once another agent shares its registry). A later call with the same id changes only that. Returns
// resultOK, or resultCorrupted for an id out of range or another id.
func SetAgent(id int32, watched bool) int32 {
	if id <= 0 || id > maxAgentID || agentID != 0 && agentID != id {
		return resultCorrupted
	}
	agentID = id
	watching = watched
	return resultOK
}

// Call runs an op that never waits (ops.go). Main thread too.
func Call(op, mem, at, a, b int32) int32 {
	if i := int(op) - len(ops) - 1; i >= 0 && i < len(registryOps) {
		return registryOps[i].do(prim{mem, at, agentID}, a, b)
	}
	return callOp(op, wordOf(mem, at), a, b)
}

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

// The registry (registry.go) and the watch (watch.go), for a host that
// joins from Go (sabsync); the glue reaches the same through the ops of
// registryOps.

// JoinRegistry joins this agent to the registry at mem under name, its life
// lock named lifeLock, and returns its id (or a result below 0: see
// registryJoin). Then the host holds the life lock and calls Announce.
func JoinRegistry(mem int32, name, lifeLock string) int32 {
	return registryJoin(mem, []byte(name), []byte(lifeLock))
}

// Announce ends joining: live says whether the agent holds its life lock.
func Announce(live bool) int32 { return registryAnnounce(live) }

// ReadCounter is the slot of this agent's registry where it counts its
// read locks of the RWMutex at mem[at] (-1: none; see readCounter).
func ReadCounter(mem, at int32) int32 { return readCounter(wordOf(mem, at)) }

// Watch is one watch of a wait of kind on mem[at] that has slept WATCH_MS
// through (watchTurn): waiter numbers the wait (1 to WAITER_BLOCKING-1),
// blocking says whether this agent can run nothing else until it ends.
// resultCycle: the wait is in a deadlock; end it (abandon).
func Watch(kind, mem, at, waiter int32, blocking bool) int32 {
	return watchTurn(waitKind(kind), wordOf(mem, at), waiter, blocking)
}

// WatchEnd ends the watch of waiter's wait.
func WatchEnd(waiter int32) { watchEnd(waiter) }

// DeadlockMessage is the message of the last deadlock a watch told this
// agent of (without "sabmutex: ").
func DeadlockMessage() string { return string(watchState.lastCycle) }

// AgentLabel is how messages name agent id: `agent 7 ("decoder 2")`.
func AgentLabel(id int32) string {
	var t textBuilder
	return string(t.agent(id).b)
}

// SnapshotJSON is who waits for whom, as this agent's registry says (see
// snapshotJSON for its rows).
func SnapshotJSON() []byte { return snapshotJSON() }
