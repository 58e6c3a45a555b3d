//go:build !sabmutex_broken && !sabmutex_broken_async

package core

// Deliberate bugs, each compiled in only with its build tag, so that the host
// tests can show that their interleaving explorer catches it:
//
//	brokenUnlockForgetsNotify    sabmutex_broken (fault_on.go): unlock of a
//	                             contended mutex wakes nobody (a lost wake-up)
//	brokenAsyncReportsDeadlock   sabmutex_broken_async (fault_async.go): an
//	                             asynchronous lock by the holder's agent reports
//	                             a deadlock instead of waiting for the sibling task
const (
	brokenUnlockForgetsNotify  = false
	brokenAsyncReportsDeadlock = false
)
