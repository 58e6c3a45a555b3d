//go:build wasm

package core

// The entry points. They never block on a goroutine or channel (an export
// that does deadlocks the instance): the only place they sleep is inside the
// imported atomicWait. Each says where it may be called from.

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

// Main thread too: it never sleeps; see lockStep. The glue's asynchronous
// lock (lockAsync, acquireAsync, withLockAsync) is its only caller, so it
// waits as sleepAsync: it never reports a deadlock.
//
//go:wasmexport lockStep
func exportLockStep(mem, index int32, deadlineMs, startMs float64, woken int32) int32 {
	return lockStep(wordOf(mem, index), deadlineMs, startMs, woken, sleepAsync)
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
