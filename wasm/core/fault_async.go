//go:build sabmutex_broken_async

package core

// A deliberately broken core (see fault_off.go): an asynchronous lock by
// the agent that holds the mutex reports a deadlock, as sabmutex did before
// async tasks of one agent could queue.
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = true
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
)
