//go:build sabmutex_broken_cond

package core

// A deliberately broken core (see fault_off.go): Cond.wait reads the
// sequence only after it unlocks the mutex, as good as sleeping on a
// constant: a notify between the unlock and that read is lost.
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = true
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
)
