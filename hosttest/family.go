package hosttest

import (
	"fmt"
	"math"
	"sync"

	"github.com/tetratelabs/wazero/api"

	"github.com/sabmutex/sabmutex/internal/futex"
	"github.com/sabmutex/sabmutex/wasm/core"
)

// The rest of the family (RWMutex, Semaphore, WaitGroup, Barrier, Once,
// Cond) comes in through the one export call (wasm/core/exports.go). Call
// names its op as the core publishes it (OP_*), and the ...Async methods
// below run the loops that the glue runs (jsglue/*.js) around the step ops,
// with a blocking wait (the agent's Env) where the browser awaits
// Atomics.waitAsync, as LockAsync does for the mutex.

// More results, as the core publishes them.
var (
	resultTooMany  = protocol("RESULT_TOO_MANY")
	resultNegative = protocol("RESULT_NEGATIVE")
	resultLast     = protocol("RESULT_LAST")
	resultRun      = protocol("RESULT_RUN")
)

// Aborted is what an ...Async method returns when its abort fired: not a
// core result (the glue rejects with the signal's reason instead).
const Aborted int32 = -1000

// An AbortFunc is asked before every sleep of an ...Async method, with the
// index and the value it is about to sleep on. true: the wait was queued (an
// Atomics.waitAsync that the caller keeps, as the browser does, until a
// notify takes it off the queue) and the signal aborts it now; the method
// then gives up as the glue does. nil never aborts.
type AbortFunc func(index, value int32) bool

var (
	opsOnce sync.Once
	ops     map[string]int32
)

// opNumber is the number the core publishes for an op name such as
// "OP_RW_READ_STEP".
func opNumber(name string) int32 {
	opsOnce.Do(func() {
		ops = map[string]int32{}
		for k, v := range core.Protocol() {
			if len(k) > 3 && k[:3] == "OP_" {
				ops[k] = int32(v.(int))
			}
		}
	})
	o, ok := ops[name]
	if !ok {
		panic(fmt.Sprintf("the core publishes no op %s", name))
	}
	return o
}

// Call calls the export call(op, mem, index, a, b, c int32, ms float64) int32
// with the op the core publishes as op.
func (a *Agent) Call(op string, mem, index, x, y, z int32, ms float64) int32 {
	return a.call(a.callFn, api.EncodeI32(opNumber(op)), api.EncodeI32(mem), api.EncodeI32(index),
		api.EncodeI32(x), api.EncodeI32(y), api.EncodeI32(z), api.EncodeF64(ms))
}

// waitLoop is the glue's waitLoop (jsglue/wait.js): step until a result,
// sleeping on index at where the step says; on abort, abandon(r) as the glue
// does, with the value it slept on.
func (a *Agent) waitLoop(mem, at int32, timeoutMs float64, abort AbortFunc, step func(deadlineMs, startMs float64, woken, sleptOn int32) int32, abandon func(r int32) int32) int32 {
	env := a.host.envOf(a.mod)
	startMs := env.NowMs()
	deadlineMs := startMs + timeoutMs
	for woken, sleptOn := wokenFirst, int32(-1); ; {
		r := step(deadlineMs, startMs, woken, sleptOn)
		if r < 0 {
			return r
		}
		if abort != nil && abort(at, r) {
			return abandon(r)
		}
		woken = wokenOther
		if env.Wait(mem, at, r, deadlineMs-env.NowMs()) == futex.OK {
			woken = wokenNotified
		}
		sleptOn = r
	}
}

func aborted(int32) int32 { return Aborted }

// ReadLockAsync is RWMutex.readLockAsync: tryReadLock, then the reader's
// steps asleep on index+1 (the admissions). An aborted reader withdraws; if
// the writer's release admitted it meanwhile, it unlocks.
func (a *Agent) ReadLockAsync(mem, index int32, timeoutMs float64, abort AbortFunc) int32 {
	if a.Call("OP_RW_TRY_READ_LOCK", mem, index, 0, 0, 0, 0) == resultOK {
		return resultOK
	}
	return a.waitLoop(mem, index+1, timeoutMs, abort, func(d, _ float64, woken, sleptOn int32) int32 {
		return a.Call("OP_RW_READ_STEP", mem, index, woken, sleptOn, 0, d)
	}, func(r int32) int32 {
		if a.Call("OP_RW_READ_STEP", mem, index, wokenOther, r, 0, math.Inf(-1)) == resultOK {
			if u := a.Call("OP_RW_READ_UNLOCK", mem, index, 0, 0, 0, 0); u != resultOK {
				return u
			}
		}
		return Aborted
	})
}

// WriteLockAsync is RWMutex.lockAsync: tryLock; else the wait to set W
// (announce steps), then for the readers inside to leave, both asleep on
// index and within one deadline. Aborted in the first phase it has nothing
// to undo (every wake-up on the word is notify-all); in the second it
// withdraws.
func (a *Agent) WriteLockAsync(mem, index int32, timeoutMs float64, abort AbortFunc) int32 {
	if a.Call("OP_RW_TRY_LOCK", mem, index, 0, 0, 0, 0) == resultOK {
		return resultOK
	}
	env := a.host.envOf(a.mod)
	deadlineMs := env.NowMs() + timeoutMs
	r := a.waitLoop(mem, index, timeoutMs, abort, func(d, _ float64, _, _ int32) int32 {
		return a.Call("OP_RW_ANNOUNCE_STEP", mem, index, 0, 0, 0, d)
	}, func(int32) int32 { return Aborted })
	if r != resultOK {
		return r
	}
	return a.waitLoop(mem, index, math.Max(0, deadlineMs-env.NowMs()), abort, func(d, _ float64, _, _ int32) int32 {
		return a.Call("OP_RW_WRITE_STEP", mem, index, 0, 0, 0, d)
	}, func(int32) int32 {
		if w := a.Call("OP_RW_WITHDRAW", mem, index, 0, 0, 0, 0); w != resultOK {
			return w
		}
		return Aborted
	})
}

// AcquireAsync is Semaphore.acquireAsync(n): the acquire steps asleep on
// index; an aborted waiter abandons its reservation.
func (a *Agent) AcquireAsync(mem, index, n int32, timeoutMs float64, abort AbortFunc) int32 {
	return a.waitLoop(mem, index, timeoutMs, abort, func(d, _ float64, woken, _ int32) int32 {
		return a.Call("OP_SEM_ACQUIRE_STEP", mem, index, n, woken, 0, d)
	}, func(int32) int32 { a.Call("OP_SEM_ABANDON", mem, index, n, 0, 0, 0); return Aborted })
}

// WGWaitAsync is WaitGroup.waitAsync: nothing to abandon (the counter
// reaching 0 wakes every waiter).
func (a *Agent) WGWaitAsync(mem, index int32, timeoutMs float64, abort AbortFunc) int32 {
	return a.waitLoop(mem, index, timeoutMs, abort, func(d, _ float64, _, _ int32) int32 {
		return a.Call("OP_WG_WAIT_STEP", mem, index, 0, 0, 0, d)
	}, aborted)
}

// BarrierWaitAsync is Barrier.waitAsync. An aborted party withdraws its
// arrival: it returns Aborted, or, if the generation had completed
// meanwhile, what the withdrawal said (resultOK: it passed; the glue rejects
// either way).
func (a *Agent) BarrierWaitAsync(mem, index int32, timeoutMs float64, abort AbortFunc) int32 {
	return a.waitLoop(mem, index, timeoutMs, abort, func(d, _ float64, woken, sleptOn int32) int32 {
		return a.Call("OP_BARRIER_STEP", mem, index, woken, sleptOn, 0, d)
	}, func(r int32) int32 {
		if w := a.Call("OP_BARRIER_STEP", mem, index, wokenOther, r, 0, math.Inf(-1)); w != resultBusy {
			return w
		}
		return Aborted
	})
}

// OnceDoAsync is the wait of Once.doAsync: resultRun (the caller runs fn,
// then calls OP_ONCE_FINISH), resultOK (done), resultBusy (timed out).
// Nothing to abandon: the end of a run wakes every waiter.
func (a *Agent) OnceDoAsync(mem, index int32, timeoutMs float64, abort AbortFunc) int32 {
	return a.waitLoop(mem, index, timeoutMs, abort, func(d, _ float64, _, _ int32) int32 {
		return a.Call("OP_ONCE_STEP", mem, index, 0, 0, 0, d)
	}, aborted)
}

// CondWaitAsync is Cond.waitAsync(mutex): unlock the mutex at mutexIndex
// (waitBegin), sleep on the sequence, and then, however that ended (an
// abort abandons the wait first), lock the mutex again with no deadline.
func (a *Agent) CondWaitAsync(mem, index, mutexMem, mutexIndex int32, timeoutMs float64, abort AbortFunc) int32 {
	seq := a.Call("OP_COND_WAIT_BEGIN", mem, index, mutexMem, mutexIndex, 0, 0)
	if seq < 0 {
		return seq
	}
	r := a.waitLoop(mem, index, timeoutMs, abort, func(d, _ float64, _, _ int32) int32 {
		return a.Call("OP_COND_WAIT_STEP", mem, index, seq, 0, 0, d)
	}, func(int32) int32 { a.Call("OP_COND_ABANDON", mem, index, 0, 0, 0, 0); return Aborted })
	if l := a.LockAsync(mutexMem, mutexIndex, math.Inf(1)); l != resultOK && l != resultDied {
		return l
	}
	return r
}
