package core

// The core's entry points, for the hosts (internal/abi exports them from
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
	if op >= opSetAgent {
		return registryOp(op, mem, a, b)
	}
	return callOp(op, wordOf(mem, at), a, b)
}

// Wait runs a wait of kind to its end in Atomics.wait, for at most
// timeoutMs (+Inf: no limit) from startMs: from its start (startMs NaN,
// sleptOn -1, slept sleptNone), or resumed after the glue's own turns,
// whose last slept on sleptOn and ended as slept (waitrec.go). Workers only.
func Wait(kind, mem, at, arg int32, timeoutMs, startMs float64, sleptOn, slept int32) int32 {
	return waitBlocking(waitKind(kind), wordOf(mem, at), arg, timeoutMs, startMs, sleptOn, slept)
}

// Begin begins an asynchronous wait of kind, which began at startMs (a
// NowMs value) and gives up timeoutMs later (+Inf: never), and returns its
// id, for Turn and SleepOf (or resultCorrupted). Main thread too.
func Begin(kind, mem, at, arg int32, timeoutMs, startMs float64) int32 {
	id := newRec()
	r := &recs[id-1]
	if v := r.begin(waitKind(kind), wordOf(mem, at), arg, timeoutMs, startMs, -1, sleepAsync); v != resultOK {
		freeRecOf(id)
		return v
	}
	r.waiter = id
	return id
}

// Turn is the next turn of the asynchronous wait id, told how its last
// sleep ended (slept: a SLEPT_ value): a result, below 0, which ends the
// wait; or a value to sleep on where SleepOf says. sleptGiveUp gives the
// wait up (resultBusy, or what a wait that had succeeded keeps); then the
// end of its queued sleep is sleptLateOK or sleptLateOther. Main thread too.
func Turn(id, slept int32) int32 {
	r := recOf(id)
	if r == nil {
		return resultCorrupted
	}
	var v int32
	if slept == sleptGiveUp || r.givenUp {
		v = r.giveUp(slept)
	} else if v = r.turn(slept); v >= 0 {
		sleepOut = [2]float64{float64(r.sleepAt), r.sleepMs}
	}
	if !r.inUse {
		freeRecOf(id)
	}
	return v
}

// SleepOf is where wait id's last turn said to sleep: a slot of its
// memory, and for at most how many milliseconds. (The export turn leaves
// both at the address that the op OP_SLEEP_OUT returns.)
func SleepOf(id int32) (at int32, ms float64) {
	if r := recOf(id); r != nil {
		return r.sleepAt, r.sleepMs
	}
	return -1, 0
}

// The registry (registry.go) and the watch (watch.go), for a host that
// joins from Go (sabsync); the glue reaches the same through the
// registry's ops (ops.go).

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

// DeadlockMembers is the members of the last deadlock a watch told this
// agent of (TEXT_DEADLOCK: a JSON array of rows, columns DEADLOCK_AGENT,
// ...), from which the host words its message.
func DeadlockMembers() []byte { return watchState.lastCycle }

// AgentLabel is how messages name agent id: `agent 7 ("decoder 2")`.
func AgentLabel(id int32) string {
	var t textBuilder
	return string(t.agent(id).b)
}

// SnapshotJSON is who waits for whom, as this agent's registry says (see
// snapshotJSON for its rows, columns SNAPSHOT_NAME, ...).
func SnapshotJSON() []byte { return snapshotJSON() }

// NameLookup is OP_NAME_LOOKUP for Go hosts (sabsync): the entry of name
// (UTF-16 code units) in the name table at mem[at], found, or created of
// kind with a and b if create (nameLookup); on resultBusy, also the slot
// to sleep on and the id it holds meanwhile.
func NameLookup(mem, at, kind, a, b int32, name []uint16, create bool) (e, busySlot, busyID int32) {
	bytes := make([]byte, 2*len(name))
	for i, u := range name {
		bytes[2*i], bytes[2*i+1] = byte(u), byte(u>>8)
	}
	e = nameLookup(wordOf(mem, at), kind, a, b, bytes, create)
	return e, int32(sleepOut[0]), int32(sleepOut[1])
}

// NamesSlots is OP_NAMES_SLOTS: the slots of a name table for n names.
func NamesSlots(n int32) int32 { return namesSlots(n) }

// The lock request queues (lockq.go), for Go hosts (sabsync's Request): as
// OP_LOCK_REQUEST, OP_LOCK_RELEASE and OP_LOCK_QUERY, the table that of the
// name table at mem[names]; on resultBusy, also the guard's slot and the
// id it holds meanwhile (sleep while it does, at most WATCH_MS).

// LockRequest asks for the lock name (UTF-16 code units) in mode with
// flags (the published LOCK_ constants): a record, GRANTED or PENDING (then
// a wait of kind KIND_LOCK_REQUEST on it), or a result.
func LockRequest(mem, names, mode, flags int32, name []uint16) (r, busySlot, busyID int32) {
	b := make([]byte, 2*len(name))
	for i, u := range name {
		b[2*i], b[2*i+1] = byte(u), byte(u>>8)
	}
	r = lqRequest(lqOf(wordOf(mem, names)), b, mode, flags)
	return r, int32(sleepOut[0]), int32(sleepOut[1])
}

// LockRelease ends request rec (lqRelease).
func LockRelease(mem, rec int32) (r, busySlot, busyID int32) {
	r = lqRelease(wordOf(mem, rec))
	return r, int32(sleepOut[0]), int32(sleepOut[1])
}

// LockFastTake and LockFastLetGo are the fast path's two steps
// (lqFastTake, lqFastLetGo) on queue slot q; LockReleaseFast releases a
// fast lock through the guard once LockFastLetGo was refused
// (lqReleaseFast).
func LockFastTake(mem, q, gen int32) int32 { return lqFastTake(wordOf(mem, q), gen) }

func LockFastLetGo(mem, q int32) int32 { return lqFastLetGo(wordOf(mem, q)) }

func LockReleaseFast(mem, names, q int32) (r, busySlot, busyID int32) {
	r = lqReleaseFast(lqOf(wordOf(mem, names)), q)
	return r, int32(sleepOut[0]), int32(sleepOut[1])
}

// LockQuery is every queue, as OP_LOCK_QUERY's text (lqQuery), or a result.
func LockQuery(mem, names int32) (rows []byte, r, busySlot, busyID int32) {
	if r = lqQuery(lqOf(wordOf(mem, names))); r < 0 {
		return nil, r, int32(sleepOut[0]), int32(sleepOut[1])
	}
	return append([]byte(nil), text...), resultOK, 0, 0
}
