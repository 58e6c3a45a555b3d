// Package core is sabmutex's protocols: the Mutex and the rest of the
// family over int32 slots of the user's SharedArrayBuffer, the waiting
// machinery they share, and the registry of agents. The Go code here is the
// one definition of each protocol; the JavaScript glue reads the constants
// from the running module (publish.go) and never defines its own.
// PROTOCOL.md says the same in prose, for other implementations. Each
// primitive's file begins with its slots, its words and their transitions
// (the Mutex's: mutex.go); this file holds the results every call returns.
package core

// Results of the exported calls. They are negative so that lockStep can also
// return a (non-negative) word to wait on.
const (
	resultOK         = -1  // acquired, or released
	resultBusy       = -2  // not acquired: held by someone else, or timed out
	resultNotLocked  = -3  // unlock of a mutex that nobody holds; nothing changed
	resultCorrupted  = -4  // the word holds a value no mutex can hold; nothing changed
	resultHolderDied = -5  // acquired, but its previous holder died holding it
	resultDeadlock   = -6  // blocking lock by the agent that already holds it; nothing changed
	resultNotHolder  = -7  // unlock by an agent that does not hold it; nothing changed
	resultTooMany    = -8  // a count would overflow its field (readers, permits, parties, a counter); nothing changed
	resultMismatch   = -9  // an agent gave a size (permits, parties) other than the one the slots were set up with
	resultNegative   = -10 // a WaitGroup counter would go below zero, or a release exceeds what was taken; nothing changed
	resultLast       = -11 // Barrier: this arrival completed its generation
	resultRun        = -12 // Once: the caller is to run its function now
	resultCycle      = -13 // a blocking wait that closes a cycle of blocked agents (the host's watch); it took nothing
	resultRunDied    = -14 // Once: as resultRun, and the last agent to run its function ended while it ran
	resultClosed     = -15 // Channel: closed (a send: nothing sent; a receive: closed and drained; a close: already closed)
	resultNone       = -16 // registry: no such record (yet)
	resultWaiter     = -17 // Channel: a wait for room or a message is ready, for a waiter: its claim may take a cell kept for waiters
)

// What the imported atomicWait and atomicNotify take and give, as
// Atomics.wait and Atomics.notify do.
const (
	waitOK       = 0  // atomicWait's result when a notify woke it
	waitTimedOut = 2  // atomicWait's result when its timeout passed
	notifyAll    = -1 // atomicNotify's count that wakes every waiter
)

// How a caller of lockStep will sleep. This decides whether finding the
// mutex held by the caller's own agent is a deadlock:
//
//	caller                          sleeps in          own agent holds it
//	lock, acquire, withLock         Atomics.wait       resultDeadlock: the agent's one
//	                                                   thread sleeps, so nothing can
//	                                                   ever unlock it
//	lockAsync, acquireAsync,        Atomics.waitAsync  wait like anyone else: another
//	withLockAsync                                      task of the agent holds it and
//	                                                   may unlock it (as with Web Locks)
//
// So an asynchronous lock never reports a deadlock; a re-entrant one, inside
// its own critical section, waits forever, as Web Locks' would.
type sleepKind int32

const (
	sleepBlocking sleepKind = iota // the caller's agent sleeps in Atomics.wait
	sleepAsync                     // the caller awaits Atomics.waitAsync; its agent runs on
)

// valid reports whether v is one of the legal lock words above.
func valid(v int32) bool {
	switch v {
	case 0, 1, 2, 4, 5, 6, 8:
		return true
	}
	return false
}
