package core

// The ops of the export call (see exports.go): one per entry point of the
// primitives after the Mutex. Protocol publishes them as OP_* for the glue.
type op int32

const (
	opRWTryReadLock op = iota + 1
	opRWReadLock
	opRWReadStep
	opRWReadUnlock
	opRWTryLock
	opRWLock
	opRWAnnounceStep
	opRWWriteStep
	opRWWithdraw
	opRWUnlock
	opSemSetUp
	opSemTryAcquire
	opSemAcquire
	opSemAcquireStep
	opSemAbandon
	opSemRelease
	opSemAvailable
	opWGAdd
	opWGCount
	opWGWait
	opWGWaitStep
	opBarrierSetUp
	opBarrierWait
	opBarrierStep
	opOnceDo
	opOnceStep
	opOnceFinish
	opCondWait
	opCondWaitBegin
	opCondWaitStep
	opCondNotify
	opCondAbandon
)

// opNames names each op as Protocol publishes it: opNames[o-1] is op o.
var opNames = [...]string{
	"OP_RW_TRY_READ_LOCK",
	"OP_RW_READ_LOCK",
	"OP_RW_READ_STEP",
	"OP_RW_READ_UNLOCK",
	"OP_RW_TRY_LOCK",
	"OP_RW_LOCK",
	"OP_RW_ANNOUNCE_STEP",
	"OP_RW_WRITE_STEP",
	"OP_RW_WITHDRAW",
	"OP_RW_UNLOCK",
	"OP_SEM_SET_UP",
	"OP_SEM_TRY_ACQUIRE",
	"OP_SEM_ACQUIRE",
	"OP_SEM_ACQUIRE_STEP",
	"OP_SEM_ABANDON",
	"OP_SEM_RELEASE",
	"OP_SEM_AVAILABLE",
	"OP_WG_ADD",
	"OP_WG_COUNT",
	"OP_WG_WAIT",
	"OP_WG_WAIT_STEP",
	"OP_BARRIER_SET_UP",
	"OP_BARRIER_WAIT",
	"OP_BARRIER_STEP",
	"OP_ONCE_DO",
	"OP_ONCE_STEP",
	"OP_ONCE_FINISH",
	"OP_COND_WAIT",
	"OP_COND_WAIT_BEGIN",
	"OP_COND_WAIT_STEP",
	"OP_COND_NOTIFY",
	"OP_COND_ABANDON",
}
