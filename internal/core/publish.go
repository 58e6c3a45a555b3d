package core

// Protocol lists, by name, every constant that the glue must agree with:
// the bundler writes them into the glue (jsglue/protocol.js) and the Go
// hosts' constants (internal/proto), so that its inlined fast paths use these
// values and no copies of them; the core tests read them here.
func Protocol() map[string]any {
	m := map[string]any{}
	eachConstant(func(name string, v int32) { m[name] = int(v) })
	return m
}

// ProtocolText is Protocol's values, one a line, in eachConstant's order:
// what the module publishes (the export protocol), which the glue compares
// with the values it was built with, to refuse a module of another build.
// The values alone: the names are the glue's own (published too, they and
// the kinds' and ops' names would weigh on sabmutex.wasm's budget); and as
// text, not a JavaScript object, since handing one over takes syscall/js,
// which makes sabmutex.wasm much larger. The formatting is written out,
// since strconv would cost more still. What each costs:
// docs/decisions/module-size.md.
func ProtocolText() []byte {
	var t textBuilder
	for _, v := range publishedValues {
		t.n(v).s("\n")
	}
	for _, d := range waits {
		if d.step != nil {
			t.n(int32(d.kind)).s("\n")
		}
	}
	for o := int32(1); o <= opLast; o++ {
		t.n(o).s("\n")
	}
	return t.b
}

// eachConstant calls f with every published constant, by name: the table
// below, the kinds of wait (waits and waitNames, in wait.go) and the ops
// (ops.go), in the order of ProtocolText.
func eachConstant(f func(name string, v int32)) {
	for i, v := range publishedValues {
		f(publishedNames[i], v)
	}
	for _, d := range waits {
		if d.step != nil {
			f("KIND_"+waitNames[d.kind>>2], int32(d.kind))
		}
	}
	for o, name := range opNames[1:] {
		f(name, int32(o+1))
	}
}

// The published constants of this file: their values, which the module
// publishes (ProtocolText), and their names, which only the Go hosts and
// the bundler read (Protocol): the names cost sabmutex.wasm nothing.
var publishedValues = [...]int32{
	mutexSlots,                   // MUTEX_SLOTS
	rwSlots,                      // RWMUTEX_SLOTS
	semSlots,                     // SEMAPHORE_SLOTS
	wgSlots,                      // WAITGROUP_SLOTS
	barrierSlots,                 // BARRIER_SLOTS
	onceSlots,                    // ONCE_SLOTS
	condSlots,                    // COND_SLOTS
	chanSlots,                    // CHAN_SLOTS
	chanHeadAt,                   // CHAN_HEAD
	chanTailAt,                   // CHAN_TAIL
	chanMaxCap,                   // CHAN_MAX_CAPACITY
	chanMaxCell,                  // CHAN_MAX_CELL_SLOTS
	chanWaiters,                  // CHAN_WAITERS
	chanClaimWaiters,             // CHAN_CLAIM_WAITERS
	chanClosed,                   // CHAN_CLOSED
	chanPosMask,                  // CHAN_POS_MASK
	chanStarving,                 // CHAN_STARVING
	chanKindStr,                  // CHAN_KIND_STRING
	chanCellWords,                // CHAN_CELL_WORDS
	chanLap,                      // CHAN_LAP
	chanFull,                     // CHAN_FULL
	chanVoid,                     // CHAN_VOID
	semMaxPermits,                // MAX_PERMITS
	barrierMaxParties,            // MAX_PARTIES
	barrierCountMask,             // BARRIER_COUNT_MASK
	barrierGenOne,                // BARRIER_GEN_ONE
	barrierGenMask,               // BARRIER_GEN_MASK
	wgMax,                        // MAX_COUNT
	rwActiveMask,                 // MAX_READERS
	rwWriter,                     // RW_WRITER
	rwBlockedOne,                 // RW_BLOCKED_ONE
	semWaiters,                   // SEM_WAITERS
	wgWaiters,                    // WG_WAITERS
	condSeqMask,                  // COND_SEQ_MASK
	onceDone,                     // ONCE_DONE
	mutexUnlocked,                // MUTEX_UNLOCKED
	mutexLocked,                  // MUTEX_LOCKED
	mutexContended,               // MUTEX_CONTENDED
	maxAgentID,                   // MAX_AGENT_ID
	resultOK,                     // RESULT_OK
	resultBusy,                   // RESULT_BUSY
	resultNotLocked,              // RESULT_NOT_LOCKED
	resultCorrupted,              // RESULT_CORRUPTED
	resultHolderDied,             // RESULT_HOLDER_DIED
	resultDeadlock,               // RESULT_DEADLOCK
	resultNotHolder,              // RESULT_NOT_HOLDER
	resultTooMany,                // RESULT_TOO_MANY
	resultMismatch,               // RESULT_MISMATCH
	resultNegative,               // RESULT_NEGATIVE
	resultLast,                   // RESULT_LAST
	resultRun,                    // RESULT_RUN
	resultCycle,                  // RESULT_CYCLE
	resultRunDied,                // RESULT_RUN_DIED
	resultClosed,                 // RESULT_CLOSED
	watchMs,                      // WATCH_MS
	waiterBlocking,               // WAITER_BLOCKING
	registryMagic,                // REGISTRY_MAGIC
	registrySlots,                // REGISTRY_SLOTS
	regAnnounced,                 // REGISTRY_ANNOUNCED
	regNames,                     // REGISTRY_NAMES
	nameReady,                    // NAME_READY
	neKind,                       // NAME_KIND
	neA,                          // NAME_A
	neB,                          // NAME_B
	nePrim,                       // NAME_PRIM
	nameKindMutex,                // NAME_KIND_MUTEX
	nameKindRWMutex,              // NAME_KIND_RWMUTEX
	nameKindSem,                  // NAME_KIND_SEMAPHORE
	nameKindCond,                 // NAME_KIND_COND
	nameKindWG,                   // NAME_KIND_WAITGROUP
	nameKindBarrier,              // NAME_KIND_BARRIER
	nameKindOnce,                 // NAME_KIND_ONCE
	nameKindChan,                 // NAME_KIND_CHANNEL
	resultNone,                   // RESULT_NONE
	resultWaiter,                 // RESULT_WAITER
	textDeadlock,                 // TEXT_DEADLOCK
	textSnapshot,                 // TEXT_SNAPSHOT
	textAgentLabel,               // TEXT_AGENT_LABEL
	textLifeLockName,             // TEXT_LIFE_LOCK_NAME
	sleptNone,                    // SLEPT_NONE
	sleptOK,                      // SLEPT_OK
	sleptNotEqual,                // SLEPT_NOT_EQUAL
	sleptTimedOut,                // SLEPT_TIMED_OUT
	sleptGiveUp,                  // SLEPT_GIVE_UP
	sleptLateOK,                  // SLEPT_LATE_OK
	sleptLateOther,               // SLEPT_LATE_OTHER
	sleptBlockingNow,             // SLEPT_BLOCKING_NOW
	kindSleepsAtMask,             // KIND_SLEEPS_AT_MASK
	starvationThresholdMs * 1000, // STARVATION_THRESHOLD_US
	reqGranted,                   // LOCK_GRANTED
	reqPending,                   // LOCK_PENDING
	reqStolen,                    // LOCK_STOLEN
	lqExclusive,                  // LOCK_EXCLUSIVE
	lqShared,                     // LOCK_SHARED
	lqIfAvailable,                // LOCK_IF_AVAILABLE
	lqSteal,                      // LOCK_STEAL
	deadlockAgent,                // DEADLOCK_AGENT
	deadlockType,                 // DEADLOCK_TYPE
	deadlockMode,                 // DEADLOCK_MODE
	deadlockIndex,                // DEADLOCK_INDEX
	deadlockInRegistry,           // DEADLOCK_IN_REGISTRY
	deadlockHolder,               // DEADLOCK_HOLDER
	deadlockColumns,              // DEADLOCK_COLUMNS
	snapshotName,                 // SNAPSHOT_NAME
	snapshotKind,                 // SNAPSHOT_KIND
	snapshotAgent,                // SNAPSHOT_AGENT
	snapshotAlive,                // SNAPSHOT_ALIVE
	snapshotIndex,                // SNAPSHOT_INDEX
	snapshotHolder,               // SNAPSHOT_HOLDER
	snapshotSinceMs,              // SNAPSHOT_SINCE_MS
	snapshotBlocked,              // SNAPSHOT_BLOCKED
	snapshotDeadlineInMs,         // SNAPSHOT_DEADLINE_IN_MS
	snapshotInRegistry,           // SNAPSHOT_IN_REGISTRY
	snapshotColumns,              // SNAPSHOT_COLUMNS
}

var publishedNames = [...]string{
	"MUTEX_SLOTS",
	"RWMUTEX_SLOTS",
	"SEMAPHORE_SLOTS",
	"WAITGROUP_SLOTS",
	"BARRIER_SLOTS",
	"ONCE_SLOTS",
	"COND_SLOTS",
	"CHAN_SLOTS",
	"CHAN_HEAD",
	"CHAN_TAIL",
	"CHAN_MAX_CAPACITY",
	"CHAN_MAX_CELL_SLOTS",
	"CHAN_WAITERS",
	"CHAN_CLAIM_WAITERS",
	"CHAN_CLOSED",
	"CHAN_POS_MASK",
	"CHAN_STARVING",
	"CHAN_KIND_STRING",
	"CHAN_CELL_WORDS",
	"CHAN_LAP",
	"CHAN_FULL",
	"CHAN_VOID",
	"MAX_PERMITS",
	"MAX_PARTIES",
	"BARRIER_COUNT_MASK",
	"BARRIER_GEN_ONE",
	"BARRIER_GEN_MASK",
	"MAX_COUNT",
	"MAX_READERS",
	"RW_WRITER",
	"RW_BLOCKED_ONE",
	"SEM_WAITERS",
	"WG_WAITERS",
	"COND_SEQ_MASK",
	"ONCE_DONE",
	"MUTEX_UNLOCKED",
	"MUTEX_LOCKED",
	"MUTEX_CONTENDED",
	"MAX_AGENT_ID",
	"RESULT_OK",
	"RESULT_BUSY",
	"RESULT_NOT_LOCKED",
	"RESULT_CORRUPTED",
	"RESULT_HOLDER_DIED",
	"RESULT_DEADLOCK",
	"RESULT_NOT_HOLDER",
	"RESULT_TOO_MANY",
	"RESULT_MISMATCH",
	"RESULT_NEGATIVE",
	"RESULT_LAST",
	"RESULT_RUN",
	"RESULT_CYCLE",
	"RESULT_RUN_DIED",
	"RESULT_CLOSED",
	"WATCH_MS",
	"WAITER_BLOCKING",
	"REGISTRY_MAGIC",
	"REGISTRY_SLOTS",
	"REGISTRY_ANNOUNCED",
	"REGISTRY_NAMES",
	"NAME_READY",
	"NAME_KIND",
	"NAME_A",
	"NAME_B",
	"NAME_PRIM",
	"NAME_KIND_MUTEX",
	"NAME_KIND_RWMUTEX",
	"NAME_KIND_SEMAPHORE",
	"NAME_KIND_COND",
	"NAME_KIND_WAITGROUP",
	"NAME_KIND_BARRIER",
	"NAME_KIND_ONCE",
	"NAME_KIND_CHANNEL",
	"RESULT_NONE",
	"RESULT_WAITER",
	"TEXT_DEADLOCK",
	"TEXT_SNAPSHOT",
	"TEXT_AGENT_LABEL",
	"TEXT_LIFE_LOCK_NAME",
	"SLEPT_NONE",
	"SLEPT_OK",
	"SLEPT_NOT_EQUAL",
	"SLEPT_TIMED_OUT",
	"SLEPT_GIVE_UP",
	"SLEPT_LATE_OK",
	"SLEPT_LATE_OTHER",
	"SLEPT_BLOCKING_NOW",
	"KIND_SLEEPS_AT_MASK",
	"STARVATION_THRESHOLD_US",
	"LOCK_GRANTED",
	"LOCK_PENDING",
	"LOCK_STOLEN",
	"LOCK_EXCLUSIVE",
	"LOCK_SHARED",
	"LOCK_IF_AVAILABLE",
	"LOCK_STEAL",
	"DEADLOCK_AGENT",
	"DEADLOCK_TYPE",
	"DEADLOCK_MODE",
	"DEADLOCK_INDEX",
	"DEADLOCK_IN_REGISTRY",
	"DEADLOCK_HOLDER",
	"DEADLOCK_COLUMNS",
	"SNAPSHOT_NAME",
	"SNAPSHOT_KIND",
	"SNAPSHOT_AGENT",
	"SNAPSHOT_ALIVE",
	"SNAPSHOT_INDEX",
	"SNAPSHOT_HOLDER",
	"SNAPSHOT_SINCE_MS",
	"SNAPSHOT_BLOCKED",
	"SNAPSHOT_DEADLINE_IN_MS",
	"SNAPSHOT_IN_REGISTRY",
	"SNAPSHOT_COLUMNS",
}

// The two lists are one table: a name for each value, in order.
var _ = [1]struct{}{}[len(publishedNames)-len(publishedValues)]

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
		"CHAN_REGISTRY_AT": chanRegistryAt, "CHAN_CELL_META_AT": chanCellMetaAt,
		"CHAN_OWNER_SHIFT": chanOwnerShift, "CHAN_UNNAMED": chanUnnamed, // (not offsets: a stamp's claimer)
	}
}
