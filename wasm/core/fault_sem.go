//go:build sabmutex_broken_sem

package core

// A deliberately broken core (see fault_off.go): a release of the semaphore
// wakes nobody, though waiters sleep.
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = true
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
)
