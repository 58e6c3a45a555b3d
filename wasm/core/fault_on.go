//go:build sabmutex_broken

package core

// A deliberately broken core (see fault_off.go): unlock of a contended
// mutex forgets to wake a waiter.
const (
	brokenUnlockForgetsNotify        = true
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
)
