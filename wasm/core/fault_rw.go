//go:build sabmutex_broken_rw

package core

// A deliberately broken core (see fault_off.go): an announced writer goes
// in without waiting for the readers inside to leave.
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = true
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
)
