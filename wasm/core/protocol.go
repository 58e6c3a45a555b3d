// Package core is sabmutex's lock protocol: a futex mutex over two int32
// slots of the user's SharedArrayBuffer. The Go code here is the one
// definition of the protocol; the JavaScript glue reads the constants below
// from the running module and never defines its own. PROTOCOL.md says the
// same in prose, for other implementations.
//
// A mutex is Slots int32 slots at index i:
//
//	i    the lock word: what agents compare-and-swap, sleep on and wake on
//	i+1  the holder: the agent id of the holder, 0 when free (see below)
//
// The lock word (read and written only with Atomics):
//
//	bits 0-1  state: stateUnlocked, stateLocked or stateContended
//	bit  2    flagStarving: a waiter has waited over starvationThresholdMs;
//	          unlock hands the mutex to the longest waiter and nobody barges
//	bit  3    flagHolderDied: free, and its last holder was released by
//	          releaseDead; the next holder is told (like EOWNERDEAD)
//
// The legal words:
//
//	0  unlocked                   free (a zeroed slot)
//	1  locked                     held; nobody asleep on the word
//	2  contended                  held; some agent may be asleep on the word
//	4  unlocked|starving          handed off: only a waiter that a notify woke may take it
//	5  locked|starving            (transient) held, starving, nobody asleep
//	6  contended|starving         held; unlock will hand it off
//	8  unlocked|holderDied        free; its last holder died holding it
//
// Any other word means something other than sabmutex wrote to the slot;
// every operation reports it as corruption and leaves the word as it found it.
//
// Transitions (each a compare-and-swap; "me" is the caller):
//
//	0 -> 1              lock or tryLock that finds it free (the fast path)
//	8 -> 1, 8 -> 2      the same, telling the caller its last holder died
//	0 -> 2              a waiter that has slept takes it: others may still sleep
//	4 -> 2|4 or 2       the waiter woken by a hand-off takes it; it ends
//	                    starvation mode if it waited long itself
//	1 -> 2, 1|4 -> 6    a waiter announces itself before it sleeps
//	2 -> 6              a waiter that has waited too long sets starving
//	1 -> 0, 5 -> 0      unlock, nobody asleep
//	2 -> 0 + notify 1   unlock in normal mode
//	6 -> 4 + notify 1   unlock in starvation mode: hand-off; if nobody was
//	                    woken, 4 -> 0 and notify all
//	4 -> 0 + notify all a waiter's watch finds a hand-off nobody took
//	                    (voidHandOff)
//	1,2,5,6 -> 8        releaseDead, by whoever terminated the holder
//
// The holder slot is written by the holder only: its id right after it takes
// the mutex, 0 right before it releases it (the glue's fast paths use plain,
// non-atomic writes: they cost nothing next to the compare-and-swap). So it
// is exact for the holder itself, which is what the deadlock and
// wrong-agent-unlock checks ask, and may lag for a moment for everyone else.
// It lives outside the lock word because sleepers compare the whole word: with
// the holder in it, every change of holder would wake them for nothing.
package core

// Slots is how many int32 slots of the user's memory one mutex uses. Zeroed
// slots are an unlocked mutex.
const Slots = 2

// Fields of the lock word.
const (
	stateMask      = 3
	stateUnlocked  = 0 // nobody holds the mutex
	stateLocked    = 1 // held, and nobody is asleep on the word
	stateContended = 2 // held, and some agent may be asleep on the word

	flagStarving   = 1 << 2
	flagHolderDied = 1 << 3

	// Agent ids are 1 to maxAgentID; the holder slot holds 0 or one of them.
	maxAgentID = 1<<31 - 1
)

// starvationThresholdMs is the policy, taken from Go's sync.Mutex. In normal
// mode a newcomer may take the mutex ahead of woken waiters ("barging"): it
// is already running, which makes for far better throughput than handing the
// mutex to a sleeper, who must first wake up. But a waiter can then lose
// again and again, and wait far longer than the others (measured with and
// without this policy: docs/decisions/starvation-mode.md). So a waiter that
// a notify wakes to find it has waited longer than this (counted from its
// first wake-up when it has no deadline: see step) sets flagStarving, and
// from then on unlock hands the mutex to the longest waiter
// (Atomics.notify wakes in FIFO order, sync and async waiters in one
// queue), newcomers queue, and tryLock fails. The mode ends when a waiter
// that itself waited this long takes the mutex, or when an unlock finds
// nobody to hand it to. (Go ends it when the waiter handed the mutex waited
// less than the threshold; that works there because a woken waiter that
// loses re-queues at the front. A waiter that loses here re-queues at the
// back of Atomics.notify's queue, so that rule could end the mode before the
// starving waiter is served.)
const starvationThresholdMs = 1.0

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

// How a caller of lockStep says its last wait ended.
const (
	wokenFirst    = 0 // first call: it has not slept
	wokenNotified = 1 // its wait ended with "ok": a notify woke it
	wokenOther    = 2 // its wait ended with "not-equal" or "timed-out"
)

// valid reports whether v is one of the legal lock words above.
func valid(v int32) bool {
	switch v {
	case 0, 1, 2, 4, 5, 6, 8:
		return true
	}
	return false
}
