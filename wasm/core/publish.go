package core

// Protocol lists, by name, every constant that the glue must agree with: the
// glue reads them from the running module (ProtocolText, through the export
// protocol), so its inlined fast paths use these values and no copies of
// them. The core tests read them here.
func Protocol() map[string]any {
	m := map[string]any{}
	eachConstant(func(name string, v int32) { m[name] = int(v) })
	return m
}

// ProtocolText is Protocol as lines of "NAME=value", for the glue. (Text
// rather than a JavaScript object: handing one over takes syscall/js, which
// makes sabmutex.wasm much larger: docs/decisions/module-size.md. The
// formatting is written out here, since strconv would cost more still.)
func ProtocolText() []byte {
	var t textBuilder
	eachConstant(func(name string, v int32) { t.s(name).s("=").n(v).s("\n") })
	return t.b
}

// eachConstant calls f with every published constant: the table below, the
// kinds of wait (waits, in wait.go) and the ops (ops.go).
func eachConstant(f func(name string, v int32)) {
	for _, c := range published {
		f(c.name, c.value)
	}
	for _, d := range waits {
		if d.step != nil {
			f("KIND_"+d.name, int32(d.kind))
		}
	}
	for o, name := range opNames[1:] {
		f(name, int32(o+1))
	}
}

var published = [...]struct {
	name  string
	value int32
}{
	{"MUTEX_SLOTS", mutexSlots},
	{"RWMUTEX_SLOTS", rwSlots},
	{"SEMAPHORE_SLOTS", semSlots},
	{"WAITGROUP_SLOTS", wgSlots},
	{"BARRIER_SLOTS", barrierSlots},
	{"ONCE_SLOTS", onceSlots},
	{"COND_SLOTS", condSlots},
	{"CHAN_SLOTS", chanSlots},
	{"CHAN_HEAD", chanHeadAt},
	{"CHAN_TAIL", chanTailAt},
	{"CHAN_MAX_CAPACITY", chanMaxCap},
	{"CHAN_MAX_CELL_SLOTS", chanMaxCell},
	{"CHAN_WAITERS", chanWaiters},
	{"CHAN_CLAIM_WAITERS", chanClaimWaiters},
	{"CHAN_CLOSED", chanClosed},
	{"CHAN_POS_MASK", chanPosMask},
	{"CHAN_STARVING", chanStarving},
	{"CHAN_KIND_STRING", chanKindStr},
	{"CHAN_CELL_WORDS", chanCellWords},
	{"CHAN_LAP", chanLap},
	{"CHAN_FULL", chanFull},
	{"CHAN_VOID", chanVoid},
	{"MAX_PERMITS", semMaxPermits},
	{"MAX_PARTIES", barrierMaxParties},
	{"BARRIER_COUNT_MASK", barrierCountMask},
	{"BARRIER_GEN_ONE", barrierGenOne},
	{"BARRIER_GEN_MASK", barrierGenMask},
	{"MAX_COUNT", wgMax},
	{"MAX_READERS", rwActiveMask},
	{"RW_WRITER", rwWriter},
	{"RW_BLOCKED_ONE", rwBlockedOne},
	{"SEM_WAITERS", semWaiters},
	{"WG_WAITERS", wgWaiters},
	{"COND_SEQ_MASK", condSeqMask},
	{"ONCE_DONE", onceDone},
	{"MUTEX_UNLOCKED", mutexUnlocked},
	{"MUTEX_LOCKED", mutexLocked},
	{"MUTEX_CONTENDED", mutexContended},
	{"MAX_AGENT_ID", maxAgentID},
	{"RESULT_OK", resultOK},
	{"RESULT_BUSY", resultBusy},
	{"RESULT_NOT_LOCKED", resultNotLocked},
	{"RESULT_CORRUPTED", resultCorrupted},
	{"RESULT_HOLDER_DIED", resultHolderDied},
	{"RESULT_DEADLOCK", resultDeadlock},
	{"RESULT_NOT_HOLDER", resultNotHolder},
	{"RESULT_TOO_MANY", resultTooMany},
	{"RESULT_MISMATCH", resultMismatch},
	{"RESULT_NEGATIVE", resultNegative},
	{"RESULT_LAST", resultLast},
	{"RESULT_RUN", resultRun},
	{"RESULT_CYCLE", resultCycle},
	{"RESULT_RUN_DIED", resultRunDied},
	{"RESULT_CLOSED", resultClosed},
	{"WATCH_MS", watchMs},
	{"WAITER_BLOCKING", waiterBlocking},
	{"REGISTRY_MAGIC", registryMagic},
	{"REGISTRY_SLOTS", registrySlots},
	{"REGISTRY_ANNOUNCED", regAnnounced},
	{"REGISTRY_NAMES", regNames},
	{"NAME_READY", nameReady},
	{"NAME_KIND", neKind},
	{"NAME_A", neA},
	{"NAME_B", neB},
	{"NAME_PRIM", nePrim},
	{"NAME_KIND_MUTEX", nameKindMutex},
	{"NAME_KIND_RWMUTEX", nameKindRWMutex},
	{"NAME_KIND_SEMAPHORE", nameKindSem},
	{"NAME_KIND_COND", nameKindCond},
	{"NAME_KIND_WAITGROUP", nameKindWG},
	{"NAME_KIND_BARRIER", nameKindBarrier},
	{"NAME_KIND_ONCE", nameKindOnce},
	{"NAME_KIND_CHANNEL", nameKindChan},
	{"RESULT_NONE", resultNone},
	{"RESULT_WAITER", resultWaiter},
	{"TEXT_DEADLOCK", textDeadlock},
	{"TEXT_SNAPSHOT", textSnapshot},
	{"TEXT_AGENT_LABEL", textAgentLabel},
	{"TEXT_LIFE_LOCK_NAME", textLifeLockName},
	{"SLEPT_NONE", sleptNone},
	{"SLEPT_OK", sleptOK},
	{"SLEPT_NOT_EQUAL", sleptNotEqual},
	{"SLEPT_TIMED_OUT", sleptTimedOut},
	{"SLEPT_GIVE_UP", sleptGiveUp},
	{"SLEPT_LATE_OK", sleptLateOK},
	{"SLEPT_LATE_OTHER", sleptLateOther},
	{"SLEPT_BLOCKING_NOW", sleptBlockingNow},
	{"KIND_SLEEPS_AT_MASK", kindSleepsAtMask},
	{"STARVATION_THRESHOLD_US", starvationThresholdMs * 1000},
}

// SlotLayout is where each primitive keeps what the glue and sabsync read or
// write beside its word: offsets from its first slot, used by name there
// (cmd/jsbundle writes them into protocol.js and proto.go beside the
// published constants). The module itself has no use for the names, so they
// are not in its published text, which every byte of sabmutex.wasm pays for.
func SlotLayout() map[string]int32 {
	return map[string]int32{
		"MUTEX_HOLDER_AT": mutexHolderAt, "RWMUTEX_WRITER_AT": rwWriterAt,
		"SEM_RESERVED_AT": semReservedAt, "SEM_PERMITS_AT": semPermitsAt,
		"BARRIER_PARTIES_AT": barrierPartiesAt,
		"CHAN_RECV_SEQ_AT":   chanRecvSeqAt, "CHAN_SEND_SEQ_AT": chanSendSeqAt,
		"CHAN_CAPACITY_AT": chanCapacityAt, "CHAN_CELL_SIZE_AT": chanCellSizeAt,
		"CHAN_CELL_OWNER_AT": chanCellOwnerAt, "CHAN_CELL_META_AT": chanCellMetaAt,
	}
}
