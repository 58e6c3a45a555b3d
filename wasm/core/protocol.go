// Package core is sabmutex's lock protocol: a futex mutex whose lock word is
// one int32 slot of the user's SharedArrayBuffer. The Go code here is the one
// definition of the protocol; the JavaScript glue reads the constants below
// from the running module and never defines its own. PROTOCOL.md says the
// same in prose, for other implementations.
//
// The lock word (one int32, read and written only with Atomics):
//
//	bits 0-1   state: stateUnlocked, stateLocked or stateContended
//	bit  2     flagStarving: a waiter has waited over starvationThresholdMs;
//	           unlock hands the mutex to the longest waiter, nobody barges
//	bit  3     flagHolderDied: the last holder was released by
//	           releaseDead; the next holder is told (like EOWNERDEAD)
//	bits 4-30  holder: the agent id of the holder, 0 when unlocked
//	bit  31    never set: every legal word is >= 0, which lets lockStep
//	           return either a word to wait on or a negative result
//
// The legal words:
//
//	state      holder  starving  holderDied  meaning
//	unlocked   0       0         0           free (a zeroed slot)
//	unlocked   0       0         1           free; its last holder died
//	unlocked   0       1         0           handed off: only a waiter woken by notify may take it
//	locked     id      0/1       0           held by id; nobody asleep
//	contended  id      0/1       0           held by id; some agent may be asleep on the word
//
// Transitions, and who makes them (every one a compare-and-swap):
//
//	free                 -> locked(me)            lock/tryLock (the fast path when the word is 0)
//	free, handed off     -> contended(me)         a woken waiter (it cannot know whether others sleep)
//	locked(h)            -> contended(h)          a waiter announces itself before it sleeps
//	locked/contended(h)  -> ... | starving        a waiter that has waited too long
//	locked(me)           -> 0                     unlock, nobody asleep
//	contended(me)        -> 0, notify one         unlock in normal mode
//	... (me) | starving  -> handed off, notify one  unlock in starvation mode; if nobody was woken,
//	                                              handed off -> 0 and notify all
//	locked/contended(d)  -> free, holder died     releaseDead(d), by whoever terminated agent d
//
// Any other word means something other than sabmutex wrote to the slot;
// every operation reports it as corruption and leaves the word as it found it.
package core

// Slots is how many int32 slots of the user's memory one mutex uses. A zeroed
// slot is an unlocked mutex.
const Slots = 1

// Fields of the lock word.
const (
	stateMask      = 3
	stateUnlocked  = 0 // nobody holds the mutex
	stateLocked    = 1 // held, and nobody is asleep on the word
	stateContended = 2 // held, and some agent may be asleep on the word

	flagStarving   = 1 << 2
	flagHolderDied = 1 << 3

	holderShift = 4
	maxAgentID  = 1<<(31-holderShift) - 1
)

// starvationThresholdMs is the policy, taken from Go's sync.Mutex. In normal
// mode a newcomer may take the mutex ahead of woken waiters ("barging"): it
// is already running, which makes for far better throughput than handing the
// mutex to a sleeper. But a waiter can then lose again and again: with plain
// futex mutexes, 3 workers holding the lock for 2 µs see single waits of
// 12 ms. So a waiter that has waited longer than this sets flagStarving, and
// from then on unlock hands the mutex to the longest waiter (Atomics.notify
// wakes in FIFO order), newcomers queue, and tryLock fails. The mode ends when
// a waiter that itself waited this long takes the mutex, or when an unlock
// finds nobody to hand it to.
const starvationThresholdMs = 1.0

// starvationCheckMs bounds each nap of a waiter in normal mode; see sleepMs.
const starvationCheckMs = 0.25

// Results of the exported calls. They are negative so that lockStep can also
// return a (non-negative) word to wait on.
const (
	resultOK         = -1 // acquired, or released
	resultBusy       = -2 // not acquired: held by someone else, or timed out
	resultNotLocked  = -3 // unlock of a mutex that nobody holds; word untouched
	resultCorrupted  = -4 // the word holds a value no mutex can hold; word untouched
	resultHolderDied = -5 // acquired, but its previous holder died holding it
	resultDeadlock   = -6 // lock by the agent that already holds it; word untouched
	resultNotHolder  = -7 // unlock by an agent that does not hold it; word untouched
)

// What the imported atomicWait and atomicNotify take and give, as
// Atomics.wait and Atomics.notify do.
const (
	waitOK    = 0  // atomicWait's result when a notify woke it
	notifyAll = -1 // atomicNotify's count that wakes every waiter
)

// Wake-up reasons that the caller of lockStep reports.
const (
	wokenFirst    = 0 // first call: it has not slept
	wokenNotified = 1 // its wait ended with "ok": an unlock (or an abort) woke it
	wokenOther    = 2 // its wait ended with "not-equal" or "timed-out"
)

func held(state, id int32) int32 { return state | id<<holderShift }

func holderOf(v int32) int32 { return v >> holderShift }

// valid reports whether v is one of the legal words above.
func valid(v int32) bool {
	if v < 0 {
		return false
	}
	switch v & stateMask {
	case stateUnlocked:
		return holderOf(v) == 0 && v&(flagStarving|flagHolderDied) != flagStarving|flagHolderDied
	case stateLocked, stateContended:
		return holderOf(v) != 0 && v&flagHolderDied == 0
	default:
		return false
	}
}
