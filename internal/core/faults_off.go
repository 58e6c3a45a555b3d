//go:build !faults

package core

// The release build: no fault compiled in (faults.go), so the compiler
// drops every fault's branch.
const (
	brokenUnlockForgetsNotify        = false
	brokenAsyncReportsDeadlock       = false
	brokenCondReadsSeqLate           = false
	brokenRWWriterIgnoresReaders     = false
	brokenSemReleaseForgetsNotify    = false
	brokenWGWaitReturnsAtOne         = false
	brokenBarrierTimeoutKeepsArrival = false
	brokenOnceFinishForgetsNotify    = false
	brokenReleaseDeadUnclaimed       = false
	brokenRWDiedKept                 = false
	brokenRWDeadReadsForgetNotify    = false
	brokenChanSendForgetsWake        = false
	brokenChanRecvKeepsHead          = false
	brokenHandOffKept                = false
	brokenSemReservationKept         = false
	brokenSemReservationShared       = false
	brokenSemReleaseClearsWaiters    = false
	brokenChanStarvingKept           = false
	brokenChanVoidForgotten          = false
	brokenChanClaimUnnamed           = false
	brokenChanVoidTwice              = false
	brokenJoinIDFirst                = false
	brokenLiveAtJoining              = false
	brokenDeadHolderKept             = false
	brokenCycleAtFirstSight          = false
	brokenCycleThroughAsync          = false
	brokenCycleToldToAll             = false
	brokenReadsOfLiveFreed           = false
	brokenEdgeCountedFirst           = false
	brokenMarkKeyFirst               = false
	brokenMarkGenKept                = false
	brokenNamePublishedFirst         = false
	brokenNameDeadClaimKept          = false
	brokenLockGrantIgnoresModes      = false
	brokenLockLinkedFirst            = false
	brokenLockIndexPublishedFirst    = false
	brokenLockFreedUnguarded         = false
	brokenLockStealKeepsGranted      = false
	brokenTimedOutKeepsWake          = false
	brokenLockFastGenUnread          = false
	brokenLockFastReleaseUngranted   = false
	brokenLockRunUnsealed            = false
	brokenLockToFastNotAlone         = false
)
