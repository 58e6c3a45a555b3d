//go:build sabmutex_broken_barrier

package core

// A deliberately broken core (see fault_off.go): a party that times out
// leaves the barrier without withdrawing its arrival.
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = true
	brokenOnceFinishForgetsNotify    = false
)
