//go:build !sabmutex_broken && !sabmutex_broken_async && !sabmutex_broken_cond && !sabmutex_broken_rw && !sabmutex_broken_sem && !sabmutex_broken_wg && !sabmutex_broken_barrier && !sabmutex_broken_once

package core

// Deliberate bugs, each compiled in only with its build tag, so that the host
// tests can show that their interleaving explorer catches it:
//
//	brokenUnlockForgetsNotify          sabmutex_broken (fault_on.go): unlock of a
//	                                   contended mutex wakes nobody (a lost wake-up)
//	brokenAsyncReportsDeadlock         sabmutex_broken_async (fault_async.go): an
//	                                   asynchronous lock by the holder's agent reports
//	                                   a deadlock instead of waiting for the sibling task
//	brokenCondReadsSeqLate             sabmutex_broken_cond (fault_cond.go): wait
//	                                   reads the sequence after it unlocks the mutex (as if
//	                                   it slept on a constant): a notify in between is lost
//	brokenRWWriterIgnoresReaders       sabmutex_broken_rw (fault_rw.go): an
//	                                   announced writer goes in with readers inside
//	brokenSemReleaseForgetsNotify      sabmutex_broken_sem (fault_sem.go): a
//	                                   release wakes no waiter (a lost wake-up)
//	brokenWGWaitReturnsAtOne           sabmutex_broken_wg (fault_wg.go): WaitGroup.wait
//	                                   returns when the counter is 1
//	brokenBarrierTimeoutKeepsArrival   sabmutex_broken_barrier (fault_barrier.go): a
//	                                   party that times out leaves its arrival counted
//	brokenOnceFinishForgetsNotify      sabmutex_broken_once (fault_once.go): the end of
//	                                   a Once's run wakes no waiter (a lost wake-up)
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
)
