package core

import "math"

// The calls that never wait, for the export call. An op's number is its
// constant below; opNames publishes it under its name, keyed by that
// constant, and callOp runs it, so that number, name and deed cannot drift
// apart. a and b are its arguments; each runs on the main thread too. (One
// switch, not a table of functions, since a function of its own costs the
// module far more than a case: docs/decisions/module-size.md.)
const (
	opTryLock int32 = iota + 1
	opUnlock
	opReleaseDead
	opHolder
	opIsLocked
	opRWTryReadLock
	opRWReadUnlock
	opRWTryLock
	opRWUnlock
	opSemSetUp
	opSemTryAcquire
	opSemRelease
	opSemAvailable
	opWGAdd
	opWGCount
	opBarrierSetUp
	opOnceFinish
	opCondWaitBegin
	opCondNotify
	opWatch
	opWatchEnd
	opSleepOut
	opReadCounter
	opRecover
	opChanSetUp
	opChanClaimSend
	opChanSendCommit
	opChanClaimRecv
	opChanRecvCommit
	opChanClose
	opChanLength
	opChanArmSend
	opChanArmRecv
	opChanWake
	opNameLookup
	opLockRequest
	opLockRelease
	opLockQuery
	opLockFastTake
	opLockFastLetGo
	opLockReleaseFast
	opLockRunAdd
	opLockRunNext
	opLockRunAdopt
	opLockToFast

	// The registry's ops, which an agent calls before it has an id (and
	// after): its id, joining a registry (registry.go) and passing text.
	// mem is the registry's memory, at is 0.
	opSetAgent
	opText
	opRegistryMake
	opRegistryJoin
	opRegistryAnnounce
	opRegistryLiveAt
	opRegistryEnded
	opTextOf
	opNamesSlots
	opNamesMake
	opLast = opNamesMake // the highest op (ProtocolText publishes 1 to opLast)
)

var opNames = [...]string{
	opTryLock:       "OP_TRY_LOCK",
	opUnlock:        "OP_UNLOCK",
	opReleaseDead:   "OP_RELEASE_DEAD", // a: the dead agent
	opHolder:        "OP_HOLDER",
	opIsLocked:      "OP_IS_LOCKED",
	opRWTryReadLock: "OP_RW_TRY_READ_LOCK",
	opRWReadUnlock:  "OP_RW_READ_UNLOCK",
	opRWTryLock:     "OP_RW_TRY_LOCK",
	opRWUnlock:      "OP_RW_UNLOCK",
	opSemSetUp:      "OP_SEM_SET_UP", // a: permits
	opSemTryAcquire: "OP_SEM_TRY_ACQUIRE",
	opSemRelease:    "OP_SEM_RELEASE",
	opSemAvailable:  "OP_SEM_AVAILABLE",
	opWGAdd:         "OP_WG_ADD", // a: delta
	opWGCount:       "OP_WG_COUNT",
	opBarrierSetUp:  "OP_BARRIER_SET_UP", // a: parties
	opOnceFinish:    "OP_ONCE_FINISH",    // a: 1 if fn succeeded
	// a, b: the mutex's memory and index. Returns the sequence to wait on (kindCond).
	opCondWaitBegin: "OP_COND_WAIT_BEGIN",
	// a: how many to wake, -1 for all. Returns how many it woke.
	opCondNotify: "OP_COND_NOTIFY",
	// a: the kind of a wait that has slept WATCH_MS through, b: its waiter<<1 | 1 if blocking
	// (watchTurn): for a wait that is not a record's (the glue's select, whose waiter numbers
	// are from 1<<28 up: below, record ids).
	opWatch:    "OP_WATCH",
	opWatchEnd: "OP_WATCH_END", // a: the waiter
	// The address, in this instance's memory, of two float64s where the export turn leaves
	// the slot and the milliseconds of the sleep it says (SleepOf).
	opSleepOut: "OP_SLEEP_OUT",
	// The slot of the registry where this agent counts its read locks of the RWMutex (readCounter).
	opReadCounter: "OP_READ_COUNTER",
	// a: a wait's kind, b: a dead agent. Frees what it holds of the primitive (see waitDef.recover).
	opRecover: "OP_RECOVER",
	// The Channel (chan.go). a: capacity, b: the slots of a cell.
	opChanSetUp: "OP_CHAN_SET_UP",
	// a: 1 for a waiter (its wait returned RESULT_WAITER). Returns the position it claimed
	// (0 or more), or a result (chan.go, chanClaim).
	opChanClaimSend: "OP_CHAN_CLAIM_SEND",
	opChanClaimRecv: "OP_CHAN_CLAIM_RECV",
	// a: the position claimed, once the message is copied in (out).
	opChanSendCommit: "OP_CHAN_SEND_COMMIT",
	opChanRecvCommit: "OP_CHAN_RECV_COMMIT",
	opChanClose:      "OP_CHAN_CLOSE",
	opChanLength:     "OP_CHAN_LENGTH",
	// A select's arming: resultOK if the send (receive) would not wait now, else the word to sleep on.
	opChanArmSend: "OP_CHAN_ARM_SEND",
	opChanArmRecv: "OP_CHAN_ARM_RECV",
	// The glue's fast paths, after a send's commit (a: 0), a receive's (1): wake the other side
	// and whoever found a cell mid-claim, if any wait; a claim let go of (2): the latter.
	opChanWake: "OP_CHAN_WAKE",
	// at: a name table (names.go). a: the text's bytes: kind, a, b and 1 to create (int32s),
	// then the name's UTF-16 code units. Returns the entry's first slot, or a result (nameLookup).
	opNameLookup: "OP_NAME_LOOKUP",
	// The lock request queues (lockq.go). at: a name table. a: the text's bytes: mode and
	// flags (int32s), then the name's UTF-16 code units. Returns the request's record, GRANTED
	// or PENDING (then a wait of KIND_LOCK_REQUEST on it), or a result (lqRequest).
	opLockRequest: "OP_LOCK_REQUEST",
	// at: a request's record. Ends the request (lqRelease).
	opLockRelease: "OP_LOCK_RELEASE",
	// at: a name table. Every queue, in the text (lqQuery); returns the text's length.
	opLockQuery: "OP_LOCK_QUERY",
	// at: a queue slot, a: its gen as the caller's cache saw it. The fast path's take
	// (lqFastTake), which the glue inlines.
	opLockFastTake: "OP_LOCK_FAST_TAKE",
	// at: a queue slot. The fast path's release (lqFastLetGo), which the glue inlines.
	opLockFastLetGo: "OP_LOCK_FAST_LET_GO",
	// at: a name table, a: a queue slot of its lock table. Releases this agent's fast lock
	// of it through the guard, once OP_LOCK_FAST_LET_GO was refused (lqReleaseFast).
	opLockReleaseFast: "OP_LOCK_RELEASE_FAST",
	// at: a queue slot whose fast lock this agent holds. Adds its next exclusive request of
	// the name to the holder's run (lqRunAdd), which the glue inlines.
	opLockRunAdd: "OP_LOCK_RUN_ADD",
	// at: a queue slot whose fast lock this agent holds. Hands it to the run's first
	// request (lqRunNext), which the glue inlines.
	opLockRunNext: "OP_LOCK_RUN_NEXT",
	// at: a name table, a: a queue slot of its lock table. The first record a steal made of
	// this agent's run, once OP_LOCK_RUN_NEXT said RESULT_NOT_HOLDER (lqRunAdopt).
	opLockRunAdopt: "OP_LOCK_RUN_ADOPT",
	// at: a request's record, GRANTED, exclusive and its queue's only one. Makes it this agent's
	// fast lock of the queue instead (lqToFast); RESULT_NONE: it stays as it is.
	opLockToFast: "OP_LOCK_TO_FAST",

	// a: this agent's id, b: 1 if its waits are watched (SetAgent). The module's first call after protocol.
	opSetAgent: "OP_SET_AGENT",
	// a: how many bytes. Makes the text that the core and the glue pass (names, messages)
	// that long, and returns its address in the core's memory.
	opText: "OP_TEXT",
	// a: a random number, for the base of ids.
	opRegistryMake: "OP_REGISTRY_MAKE",
	// a: the length of the name, b: of the life lock's name, both in the text, one after the
	// other. Returns the agent's id.
	opRegistryJoin: "OP_REGISTRY_JOIN",
	// a: 1 if the agent holds its life lock.
	opRegistryAnnounce: "OP_REGISTRY_ANNOUNCE",
	// a: a join's number (from 1). The maker's watch.
	opRegistryLiveAt: "OP_REGISTRY_LIVE_AT",
	// a: an agent whose life lock the maker was granted.
	opRegistryEnded: "OP_REGISTRY_ENDED",
	// a: which text (TEXT_...), b: of which agent. Puts it in the text and returns its length.
	opTextOf: "OP_TEXT_OF",
	// a: how many names. Returns the slots a name table for them takes (namesSlots).
	opNamesSlots: "OP_NAMES_SLOTS",
	// a: how many names, b: the table's first slot, after the registry's (and its debug area's)
	// slots. Sets it up and records it in the registry's header (regNames), before the registry is made.
	opNamesMake: "OP_NAMES_MAKE",
}

// A name for every op, the last included.
var _ = [1]struct{}{}[len(opNames)-1-int(opLast)]

// callOp runs op o on w, or reports an op it does not know as corruption.
// Ops from opSetAgent on are the registry's (registryOp).
func callOp(o int32, w prim, a, b int32) int32 {
	switch o {
	case opTryLock:
		return tryLock(w)
	case opUnlock:
		return unlock(w)
	case opReleaseDead:
		return releaseDead(w, a)
	case opHolder:
		return holder(w)
	case opIsLocked:
		return isLocked(w)
	case opRWTryReadLock:
		return rwTryReadLock(rw{w})
	case opRWReadUnlock:
		return rwReadUnlock(rw{w})
	case opRWTryLock:
		return rwTryLock(rw{w})
	case opRWUnlock:
		return rwUnlock(rw{w})
	case opSemSetUp:
		return semSetUp(sem{w}, a)
	case opSemTryAcquire:
		return semTryAcquire(sem{w}, a)
	case opSemRelease:
		return semRelease(sem{w}, a)
	case opSemAvailable:
		return semAvailable(sem{w})
	case opWGAdd:
		return wgAdd(w, a)
	case opWGCount:
		return wgCount(w)
	case opBarrierSetUp:
		return barrierSetUp(barrier{w}, a)
	case opOnceFinish:
		return onceFinish(w, a != 0)
	case opCondWaitBegin:
		return condWaitBegin(w, wordOf(a, b))
	case opCondNotify:
		return condNotify(w, a)
	case opWatch:
		return watchTurn(waitKind(a), w, b>>1, b&1 == 1, math.Inf(1))
	case opWatchEnd:
		watchEnd(a)
		return resultOK
	case opSleepOut:
		return sleepOutAddress()
	case opReadCounter:
		return readCounter(w)
	case opRecover:
		return recoverOf(waitKind(a), w, b)
	case opChanSetUp:
		return chanSetUp(channel{w}, a, b)
	case opChanClaimSend:
		return chanClaim(channel{w}, chanSenders, a != 0)
	case opChanSendCommit:
		return chanCommit(channel{w}, chanSenders, a)
	case opChanClaimRecv:
		return chanClaim(channel{w}, chanReceivers, a != 0)
	case opChanRecvCommit:
		return chanCommit(channel{w}, chanReceivers, a)
	case opChanClose:
		return chanClose(channel{w})
	case opChanLength:
		return chanLength(channel{w})
	case opChanArmSend:
		return chanArm(channel{w}, chanSenders, false)
	case opChanArmRecv:
		return chanArm(channel{w}, chanReceivers, false)
	case opChanWake:
		switch a {
		case 0, 1:
			chanWakeAfter(channel{w}, chanSides[a])
		default:
			chanWakeClaimers(channel{w})
		}
		return resultOK
	case opNameLookup:
		if a < 16 || int(a) > len(text) {
			return resultCorrupted
		}
		return nameLookup(w, int32le(text, 0), int32le(text, 4), int32le(text, 8), text[16:a], int32le(text, 12) != 0)
	case opLockRequest:
		if a < 8 || int(a) > len(text) {
			return resultCorrupted
		}
		return lqRequest(lqOf(w), text[8:a], int32le(text, 0), int32le(text, 4))
	case opLockRelease:
		return lqRelease(w)
	case opLockQuery:
		return lqQuery(lqOf(w))
	case opLockFastTake:
		return lqFastTake(w, a)
	case opLockFastLetGo:
		return lqFastLetGo(w)
	case opLockReleaseFast:
		return lqReleaseFast(lqOf(w), a)
	case opLockRunAdd:
		return lqRunAdd(w)
	case opLockRunNext:
		return lqRunNext(w)
	case opLockRunAdopt:
		return lqRunAdopt(lqOf(w), a)
	case opLockToFast:
		return lqToFast(w)
	}
	return resultCorrupted
}

func int32le(b []byte, i int) int32 {
	return int32(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24)
}

// registryOp runs registry op o (mem: the registry's memory).
func registryOp(o, mem, a, b int32) int32 {
	switch o {
	case opSetAgent:
		return SetAgent(a, b != 0)
	case opText:
		return textAddress(a)
	case opRegistryMake:
		return registryMake(mem, a)
	case opRegistryJoin:
		if a < 0 || b < 0 || int(a+b) > len(text) {
			return resultCorrupted
		}
		return registryJoin(mem, text[:a], text[a:a+b])
	case opRegistryAnnounce:
		return registryAnnounce(a != 0)
	case opRegistryLiveAt:
		return registryLiveAt(mem, a)
	case opRegistryEnded:
		return registryEnded(mem, a)
	case opTextOf:
		return textOut(textOf(mem, a, b))
	case opNamesSlots:
		return namesSlots(a)
	case opNamesMake:
		if atomicLoad(mem, 0) != 0 || b < registrySlots {
			return resultCorrupted
		}
		atomicStore(mem, regNames, b)
		return namesMake(mem, b, a)
	}
	return resultCorrupted
}
