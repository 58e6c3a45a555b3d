//go:build wasm

package core

// The entry points. They never block on a goroutine or channel (an export
// that does deadlocks the instance): the only place they sleep is inside the
// imported atomicWait.

// func tryLock(mem, index int32) int32
//
//go:wasmexport tryLock
func exportTryLock(mem, index int32) int32 { return tryLock(word{mem, index}) }

// Workers only: it may sleep in Atomics.wait.
//
//go:wasmexport lock
func exportLock(mem, index int32, timeoutMs float64) int32 {
	return lock(word{mem, index}, timeoutMs)
}

// Main thread too: it never sleeps; see lockStep.
//
//go:wasmexport lockStep
func exportLockStep(mem, index int32, deadlineMs float64, woken int32) int32 {
	return lockStep(word{mem, index}, deadlineMs, woken != 0)
}

//go:wasmexport unlock
func exportUnlock(mem, index int32) int32 { return unlock(word{mem, index}) }
