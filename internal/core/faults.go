//go:build faults

package core

import "os"

// fault names a deliberate bug to run in the core, so that the host tests
// can show that their interleaving explorer catches it (coretest's
// TestExploreCatchesBrokenCores). One module built with the tag faults
// holds them all; each instance reads its fault from the environment when
// it starts, SABMUTEX_FAULT, which coretest's host sets for the instances
// of a broken host (Host.Fault):
//
//	go build -tags faults ./wasm/wasip1
//
// The release build, without the tag, has every flag a false constant, so
// none of their code (faults_off.go); empty, the real core.
var fault = os.Getenv("SABMUTEX_FAULT")

// The faults: each flag is true in an instance started with its name.
var (
	brokenUnlockForgetsNotify        = fault == "unlock"       // unlock of a contended mutex wakes nobody (a lost wake-up)
	brokenAsyncReportsDeadlock       = fault == "async"        // an asynchronous lock by the holder's agent reports a deadlock instead of waiting for the sibling task (as sabmutex once did)
	brokenCondReadsSeqLate           = fault == "cond"         // Cond.wait reads the sequence after it unlocks the mutex (as if it slept on a constant): a notify in between is lost
	brokenRWWriterIgnoresReaders     = fault == "rw"           // an announced writer goes in with readers inside
	brokenSemReleaseForgetsNotify    = fault == "sem"          // a release of the semaphore wakes no waiter (a lost wake-up)
	brokenWGWaitReturnsAtOne         = fault == "wg"           // WaitGroup.wait returns when the counter is 1, not 0
	brokenBarrierTimeoutKeepsArrival = fault == "barrier"      // a party that times out leaves the barrier with its arrival still counted
	brokenOnceFinishForgetsNotify    = fault == "once"         // the end of a Once's run wakes no waiter (a lost wake-up)
	brokenReleaseDeadUnclaimed       = fault == "dead"         // releaseDead clears the holder slot without claiming it (as before the watch): two waiters that find the holder dead at once can free the mutex under the next holder
	brokenRWDiedKept                 = fault == "rwdied"       // the writer after a dead one is told but leaves D set: the writers after it are told too
	brokenRWDeadReadsForgetNotify    = fault == "rwreads"      // giving back a dead reader's read locks wakes no writer (a lost wake-up)
	brokenChanSendForgetsWake        = fault == "chansend"     // a send wakes no receiver (a lost wake-up)
	brokenChanRecvKeepsHead          = fault == "chanrecv"     // a receive's claim leaves the head where it was (its message is taken again, or the next is never)
	brokenHandOffKept                = fault == "handoff"      // a watch leaves a hand-off nobody takes in place: everyone sleeps on it for good
	brokenSemReservationKept         = fault == "semvoid"      // a watch leaves a Semaphore's reservation that nobody takes in place: newcomers sleep behind it for good
	brokenSemReservationShared       = fault == "semshared"    // any waiter for a Semaphore's reserved need takes it (a need, not a name, as before): a page's woken tasks took a worker's reservation each time it made it
	brokenSemReleaseClearsWaiters    = fault == "semwoken"     // a Semaphore's release clears semWaiters when it wakes one (as before): while the woken one does not run, the next releases wake nobody
	brokenChanStarvingKept           = fault == "chanvoid"     // a watch leaves a Channel's last cell or message reserved for a waiter that never comes
	brokenChanVoidForgotten          = fault == "chanforget"   // the watch lets a DEAD agent's cell go without voiding it: a send's cell stays empty past the tail, a receive's stays full
	brokenChanClaimUnnamed           = fault == "chanunnamed"  // a claim names nobody: the watch cannot find the agent that ended holding a cell
	brokenChanVoidTwice              = fault == "chantwice"    // the watch takes a dead agent's cell with a load and a store, not a compare-and-swap: two watches both void it, the second a claim made since
	brokenJoinIDFirst                = fault == "joinid"       // a join writes its record's id before its name: a reader finds a record with its id and half a name
	brokenLiveAtJoining              = fault == "liveat"       // OP_REGISTRY_LIVE_AT gives the id of an agent that is still JOINING: the maker asks for a life lock nobody holds yet, is granted it at once, and its news is refused
	brokenDeadHolderKept             = fault == "deadkept"     // the watch finds the holder DEAD and frees nothing: its waiters wait for good
	brokenCycleAtFirstSight          = fault == "cycleearly"   // a cycle is told as soon as it is seen, without every member reading its holder again: a stale record makes a false report
	brokenCycleThroughAsync          = fault == "cycleasync"   // the cycle's walk takes a member's asynchronous wait for a blocking one: a cycle its agent can still break is told
	brokenCycleToldToAll             = fault == "cycleall"     // every member of a cycle is told, not only the lowest id
	brokenReadsOfLiveFreed           = fault == "readslive"    // the records' read locks of a live agent are given back too: a writer goes in under a reader
	brokenEdgeCountedFirst           = fault == "edgeearly"    // DebugEdge counts its edge (dEdges) before it writes it: a reader finds an edge counted and not yet whole
	brokenMarkKeyFirst               = fault == "markearly"    // DebugMark writes the key before the other fields: a reader finds a mark with its key and the fields of the one before
	brokenMarkGenKept                = fault == "markgen"      // DebugMark leaves gen as it was (the debug area before gen): a mark cleared and made again for the same lock passes a reader that read some of the old one's fields
	brokenNamePublishedFirst         = fault == "namefirst"    // a name's entry is READY before its fields are written: a prober passes it by, and creates the name a second time
	brokenNameDeadClaimKept          = fault == "namekept"     // a claim of a DEAD agent is waited for like a live one's: its name is never created
	brokenLockGrantIgnoresModes      = fault == "lqmodes"      // a lock queue's grant takes every request for shared: an exclusive one is granted beside others
	brokenLockLinkedFirst            = fault == "lqlinkfirst"  // a lock request is linked into its queue before its record is written: an agent that ends between leaves a FREE record linked
	brokenLockFreedUnguarded         = fault == "lqunguarded"  // a lock release frees its record before it takes the guard: while the guard is held, the record is free and still linked
	brokenLockStealKeepsGranted      = fault == "lqstealkept"  // a steal unlinks the robbed records and leaves them GRANTED: the robbed one's release says it released
	brokenLockFastGenUnread          = fault == "lqfastgen"    // a fast take does not look at the slot's gen: a stale cache takes a lock of another name as its own
	brokenLockFastReleaseUngranted   = fault == "lqfastgrant"  // a fast holder's release through the guard grants nothing: the request queued behind it sleeps on
	brokenLockIndexPublishedFirst    = fault == "lqindexfirst" // a lock table's new index is published before the names are moved into it: an agent that ends between leaves names unfound, and a second queue is made for one of them
	brokenLockRunUnsealed            = fault == "lqrunseal"    // a record queued behind a fast holder leaves its run unsealed: the holder's later tasks go in before that record's request, made before theirs
	brokenLockToFastNotAlone         = fault == "lqtofast"     // a first request is made the fast lock with a request queued behind it: the fast release lets the lock go and that request sleeps on
	brokenTimedOutKeepsWake          = fault == "timedwake"    // a timed lock that a notify woke gives up leaving the word as a newcomer took it (1): the wake-up it took was the only one (the soak's lost sleepers)
)

// A misspelt name would quietly build the real core: refuse it.
func init() {
	if fault != "" && !(brokenUnlockForgetsNotify || brokenAsyncReportsDeadlock || brokenCondReadsSeqLate ||
		brokenRWWriterIgnoresReaders || brokenSemReleaseForgetsNotify || brokenWGWaitReturnsAtOne ||
		brokenBarrierTimeoutKeepsArrival || brokenOnceFinishForgetsNotify || brokenReleaseDeadUnclaimed || brokenRWDiedKept || brokenRWDeadReadsForgetNotify ||
		brokenChanSendForgetsWake || brokenChanRecvKeepsHead || brokenHandOffKept || brokenSemReservationKept || brokenSemReservationShared || brokenSemReleaseClearsWaiters || brokenChanStarvingKept ||
		brokenChanVoidForgotten || brokenChanClaimUnnamed || brokenChanVoidTwice ||
		brokenJoinIDFirst || brokenLiveAtJoining || brokenDeadHolderKept || brokenCycleAtFirstSight || brokenCycleThroughAsync || brokenCycleToldToAll ||
		brokenReadsOfLiveFreed || brokenEdgeCountedFirst || brokenMarkKeyFirst || brokenMarkGenKept || brokenNamePublishedFirst || brokenNameDeadClaimKept ||
		brokenLockGrantIgnoresModes || brokenLockLinkedFirst || brokenLockFreedUnguarded || brokenLockStealKeepsGranted || brokenTimedOutKeepsWake ||
		brokenLockFastGenUnread || brokenLockFastReleaseUngranted || brokenLockIndexPublishedFirst || brokenLockRunUnsealed || brokenLockToFastNotAlone) {
		panic("sabmutex: unknown fault " + fault + " (internal/core/faults.go)")
	}
}
