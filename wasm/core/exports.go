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

// agentID is this instance's agent id, which the host sets once (setAgent)
// before any other call.
var agentID int32

// wordOf is the mutex at mem[index], as this agent sees it.
func wordOf(mem, index int32) word {
	if agentID == 0 {
		panic("sabmutex: the core was called before setAgent; call sabmutex.init() first")
	}
	return word{mem, index, agentID}
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

// Main thread too.
//
//go:wasmexport tryLock
func exportTryLock(mem, index int32) int32 { return tryLock(wordOf(mem, index)) }

// Workers only: it may sleep in Atomics.wait.
//
//go:wasmexport lock
func exportLock(mem, index int32, timeoutMs float64) int32 {
	return lock(wordOf(mem, index), timeoutMs)
}

// Main thread too: it never sleeps; see lockStep. The glue's wait loops call
// it: lockAsync and the like (sleep = sleepAsync: never a deadlock), and a
// worker's lock for the turns it does not run itself (sleepBlocking).
//
//go:wasmexport lockStep
func exportLockStep(mem, index int32, deadlineMs, startMs float64, woken, sleep int32) int32 {
	if sleep != int32(sleepBlocking) {
		sleep = int32(sleepAsync)
	}
	return lockStep(wordOf(mem, index), deadlineMs, startMs, woken, sleepKind(sleep))
}

// Main thread too.
//
//go:wasmexport unlock
func exportUnlock(mem, index int32) int32 { return unlock(wordOf(mem, index)) }

// Main thread too.
//
//go:wasmexport releaseDead
func exportReleaseDead(mem, index, dead int32) int32 {
	return releaseDead(wordOf(mem, index), dead)
}

// Main thread too.
//
//go:wasmexport abandonWait
func exportAbandonWait(mem, index int32) { abandonWait(wordOf(mem, index)) }

// Main thread too.
//
//go:wasmexport holder
func exportHolder(mem, index int32) int32 { return holder(wordOf(mem, index)) }

// Main thread too.
//
//go:wasmexport isLocked
func exportIsLocked(mem, index int32) int32 { return isLocked(wordOf(mem, index)) }

// The rest of the family (RWMutex, Semaphore, WaitGroup, Barrier, Once,
// Cond) comes in through one export, call, that dispatches on an op. Each
// //go:wasmexport costs about 1.5 KB of wasm (the trampoline into the Go
// scheduler): the family's 36 entry points as exports of their own made
// sabmutex.wasm 2.03 MB, past its 2 MB budget; through call it stays under
// (the mutex keeps its own exports: its fast paths are the hot ones). The
// ops, their arguments, and where each may run:
//
//	op                   a        b        c      ms          runs on
//	opRWTryReadLock                                           main thread too
//	opRWReadLock                                  timeoutMs   workers only
//	opRWReadStep         woken                    deadlineMs  main thread too (a deadline of -Inf withdraws)
//	opRWReadUnlock                                            main thread too
//	opRWTryLock                                               main thread too
//	opRWLock                                      timeoutMs   workers only
//	opRWAnnounceStep                              deadlineMs  main thread too (then opRWWriteStep)
//	opRWWriteStep                                 deadlineMs  main thread too
//	opRWWithdraw                                              main thread too (an announced writer that gives up)
//	opRWUnlock                                                main thread too
//	opSemSetUp           permits                              main thread too
//	opSemTryAcquire      n                                    main thread too
//	opSemAcquire         n                        timeoutMs   workers only
//	opSemAcquireStep     n        woken           deadlineMs  main thread too
//	opSemAbandon         n                                    main thread too
//	opSemRelease         n                                    main thread too
//	opSemAvailable                                            main thread too
//	opWGAdd              delta                                main thread too
//	opWGCount                                                 main thread too
//	opWGWait                                      timeoutMs   workers only
//	opWGWaitStep                                  deadlineMs  main thread too
//	opBarrierSetUp       parties                              main thread too
//	opBarrierWait                                 timeoutMs   workers only
//	opBarrierStep        woken    sleptOn         deadlineMs  main thread too (a deadline of -Inf withdraws)
//	opOnceDo                                      timeoutMs   workers only
//	opOnceStep                                    deadlineMs  main thread too
//	opOnceFinish         ok (0/1)                             main thread too
//	opCondWait           mutexMem mutexIndex      timeoutMs   workers only
//	opCondWaitBegin      mutexMem mutexIndex                  main thread too
//	opCondWaitStep       seq                      deadlineMs  main thread too
//	opCondNotify         count (-1: all)                      main thread too
//	opCondAbandon                                             main thread too
//
//go:wasmexport call
func exportCall(o, mem, index, a, b, c int32, ms float64) int32 {
	w := wordOf(mem, index)
	switch op(o) {
	case opRWTryReadLock:
		return rwTryReadLock(rw{w})
	case opRWReadLock:
		return rwReadLock(rw{w}, ms)
	case opRWReadStep:
		return rwReadStep(rw{w}, ms, a, sleepAsync)
	case opRWReadUnlock:
		return rwReadUnlock(rw{w})
	case opRWTryLock:
		return rwTryLock(rw{w})
	case opRWLock:
		return rwLock(rw{w}, ms)
	case opRWAnnounceStep:
		return rwAnnounceStep(rw{w}, ms, sleepAsync)
	case opRWWriteStep:
		return rwWriteStep(rw{w}, ms)
	case opRWWithdraw:
		return rwRelease(rw{w})
	case opRWUnlock:
		return rwUnlock(rw{w})
	case opSemSetUp:
		return semSetUp(sem{w}, a)
	case opSemTryAcquire:
		return semTryAcquire(sem{w}, a)
	case opSemAcquire:
		return semAcquire(sem{w}, a, ms)
	case opSemAcquireStep:
		return semAcquireStep(sem{w}, a, ms, b)
	case opSemAbandon:
		semGiveUp(sem{w}, a)
		atomicNotify(w.mem, w.index, notifyAll) // its wait, left queued, may have taken a wake-up
		return resultOK
	case opSemRelease:
		return semRelease(sem{w}, a)
	case opSemAvailable:
		return semAvailable(sem{w})
	case opWGAdd:
		return wgAdd(w, a)
	case opWGCount:
		return wgCount(w)
	case opWGWait:
		return wgWait(w, ms)
	case opWGWaitStep:
		return wgWaitStep(w, ms)
	case opBarrierSetUp:
		return barrierSetUp(barrier{w}, a)
	case opBarrierWait:
		return barrierWait(barrier{w}, ms)
	case opBarrierStep:
		return barrierStep(barrier{w}, ms, a, b)
	case opOnceDo:
		return onceDo(w, ms)
	case opOnceStep:
		return onceStep(w, ms, sleepAsync)
	case opOnceFinish:
		return onceFinish(w, a != 0)
	case opCondWait:
		return condWait(w, wordOf(a, b), ms)
	case opCondWaitBegin:
		return condWaitBegin(w, wordOf(a, b))
	case opCondWaitStep:
		return condWaitStep(w, a, ms)
	case opCondNotify:
		return condNotify(w, a)
	case opCondAbandon:
		condAbandon(w)
		return resultOK
	}
	return resultCorrupted
}
