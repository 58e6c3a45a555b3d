//go:build sabmutex_broken_wg

package core

// A deliberately broken core (see fault_off.go): WaitGroup.wait returns
// once the counter is 1, not 0.
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = true
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
)
