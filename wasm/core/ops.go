package core

// The calls that never wait, for the export call: one table, so that an op's
// number, its published name and what it does cannot drift apart. Op o is
// ops[o-1], published as its name. a and b are its arguments; each runs on
// the main thread too.
var ops = [...]struct {
	name string
	do   func(w prim, a, b int32) int32
}{
	{"OP_TRY_LOCK", func(w prim, _, _ int32) int32 { return tryLock(w) }},
	{"OP_UNLOCK", func(w prim, _, _ int32) int32 { return unlock(w) }},
	{"OP_RELEASE_DEAD", func(w prim, dead, _ int32) int32 { return releaseDead(w, dead) }},
	{"OP_HOLDER", func(w prim, _, _ int32) int32 { return holder(w) }},
	{"OP_IS_LOCKED", func(w prim, _, _ int32) int32 { return isLocked(w) }},
	{"OP_RW_TRY_READ_LOCK", func(w prim, _, _ int32) int32 { return rwTryReadLock(rw{w}) }},
	{"OP_RW_READ_UNLOCK", func(w prim, _, _ int32) int32 { return rwReadUnlock(rw{w}) }},
	{"OP_RW_TRY_LOCK", func(w prim, _, _ int32) int32 { return rwTryLock(rw{w}) }},
	{"OP_RW_UNLOCK", func(w prim, _, _ int32) int32 { return rwUnlock(rw{w}) }},
	{"OP_SEM_SET_UP", func(w prim, permits, _ int32) int32 { return semSetUp(sem{w}, permits) }},
	{"OP_SEM_TRY_ACQUIRE", func(w prim, n, _ int32) int32 { return semTryAcquire(sem{w}, n) }},
	{"OP_SEM_RELEASE", func(w prim, n, _ int32) int32 { return semRelease(sem{w}, n) }},
	{"OP_SEM_AVAILABLE", func(w prim, _, _ int32) int32 { return semAvailable(sem{w}) }},
	{"OP_WG_ADD", func(w prim, delta, _ int32) int32 { return wgAdd(w, delta) }},
	{"OP_WG_COUNT", func(w prim, _, _ int32) int32 { return wgCount(w) }},
	{"OP_BARRIER_SET_UP", func(w prim, parties, _ int32) int32 { return barrierSetUp(barrier{w}, parties) }},
	{"OP_ONCE_FINISH", func(w prim, ok, _ int32) int32 { return onceFinish(w, ok != 0) }},
	// a, b: the mutex's memory and index. Returns the sequence to wait on (kindCond).
	{"OP_COND_WAIT_BEGIN", func(c prim, mem, index int32) int32 { return condWaitBegin(c, wordOf(mem, index)) }},
	// a: how many to wake, -1 for all. Returns how many it woke.
	{"OP_COND_NOTIFY", func(c prim, count, _ int32) int32 { return condNotify(c, count) }},
	// a: the kind of a wait that has slept WATCH_MS through, b: its waiter<<1 | 1 if blocking (watchTurn).
	{"OP_WATCH", func(w prim, kind, waiter int32) int32 { return watchTurn(waitKind(kind), w, waiter>>1, waiter&1 == 1) }},
	{"OP_WATCH_END", func(_ prim, waiter, _ int32) int32 { watchEnd(waiter); return resultOK }},
	// The slot of the registry where this agent counts its read locks of the RWMutex (readCounter).
	{"OP_READ_COUNTER", func(w prim, _, _ int32) int32 { return readCounter(w) }},
	// a: a wait's kind, b: a dead agent. Frees what it holds of the primitive (see waitDef.recover).
	{"OP_RECOVER", func(w prim, kind, dead int32) int32 { return recoverOf(waitKind(kind), w, dead) }},
	// The Channel (chan.go). a: capacity, b: the slots of a cell.
	{"OP_CHAN_SET_UP", func(w prim, capacity, cellSlots int32) int32 { return chanSetUp(channel{w}, capacity, cellSlots) }},
	{"OP_CHAN_TRY_SEND", func(w prim, _, _ int32) int32 { return chanTrySend(channel{w}) }},
	{"OP_CHAN_SEND_COMMIT", func(w prim, _, _ int32) int32 { return chanSendCommit(channel{w}) }},
	{"OP_CHAN_TRY_RECV", func(w prim, _, _ int32) int32 { return chanTryRecv(channel{w}) }},
	{"OP_CHAN_RECV_COMMIT", func(w prim, _, _ int32) int32 { return chanRecvCommit(channel{w}) }},
	{"OP_CHAN_CLOSE", func(w prim, _, _ int32) int32 { return chanClose(channel{w}) }},
	{"OP_CHAN_LENGTH", func(w prim, _, _ int32) int32 { return chanLength(channel{w}) }},
	// A select's arming: resultOK if the send (receive) would not wait now, else the word to sleep on.
	{"OP_CHAN_ARM_SEND", func(w prim, _, _ int32) int32 { return chanArmSend(channel{w}) }},
	{"OP_CHAN_ARM_RECV", func(w prim, _, _ int32) int32 { return chanArmRecv(channel{w}) }},
	// a: 0 wakes the receivers, 1 the senders, if any wait (the glue's fast paths, after a commit).
	{"OP_CHAN_WAKE", func(w prim, senders, _ int32) int32 {
		if senders != 0 {
			chanWake(channel{w}, chanSenders)
		} else {
			chanWake(channel{w}, chanReceivers)
		}
		return resultOK
	}},
}

// registryOps are the ops that an agent calls before it has an id (and
// after): joining a registry (registry.go) and passing text. Op o is
// registryOps[o-len(ops)-1]; mem is the registry's memory, at is 0.
var registryOps = [...]struct {
	name string
	do   func(w prim, a, b int32) int32
}{
	// a: how many bytes. Makes the text that the core and the glue pass (names, messages)
	// that long, and returns its address in the core's memory.
	{"OP_TEXT", func(_ prim, n, _ int32) int32 { return textAddress(n) }},
	// a: a random number, for the base of ids.
	{"OP_REGISTRY_MAKE", func(w prim, random, _ int32) int32 { return registryMake(w.mem, random) }},
	// a: the length of the name, b: of the life lock's name, both in the text, one after the
	// other. Returns the agent's id.
	{"OP_REGISTRY_JOIN", func(w prim, n, lock int32) int32 {
		if n < 0 || lock < 0 || int(n+lock) > len(text) {
			return resultCorrupted
		}
		return registryJoin(w.mem, text[:n], text[n:n+lock])
	}},
	// a: 1 if the agent holds its life lock.
	{"OP_REGISTRY_ANNOUNCE", func(_ prim, live, _ int32) int32 { return registryAnnounce(live != 0) }},
	// a: a join's number (from 1). The maker's watch.
	{"OP_REGISTRY_LIVE_AT", func(w prim, n, _ int32) int32 { return registryLiveAt(w.mem, n) }},
	// a: an agent whose life lock the maker was granted.
	{"OP_REGISTRY_ENDED", func(w prim, id, _ int32) int32 { return registryEnded(w.mem, id) }},
	// a: which text (TEXT_...), b: of which agent. Puts it in the text and returns its length.
	{"OP_TEXT_OF", func(w prim, which, id int32) int32 { return textOut(textOf(w.mem, which, id)) }},
}

// callOp runs op o, or reports an op it does not know as corruption.
func callOp(o int32, w prim, a, b int32) int32 {
	if o < 1 || int(o) > len(ops) {
		return resultCorrupted
	}
	return ops[o-1].do(w, a, b)
}
