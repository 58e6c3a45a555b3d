package hosttest

import (
	"github.com/tetratelabs/wazero/api"

	"github.com/sabmutex/sabmutex/internal/futex"

	"github.com/sabmutex/sabmutex/wasm/proto"
)

// The core's entry points as the glue calls them (wasm/abi/exports.go):
// call for what never waits, wait for a blocking wait (a worker's), and
// step and abandon, which WaitAsync drives as the glue's waitFor
// (jsglue/wait.js) does, with a blocking wait (the agent's Env) where the
// browser awaits Atomics.waitAsync. So the explorer proves the loop that
// users run, for every kind of wait.

// Aborted is what WaitAsync returns when its abort fired and the wait was
// given up: not a core result (the glue rejects with the signal's reason).
const Aborted int32 = -1000

// An AbortFunc is asked before every sleep of WaitAsync, with the index and
// the value it is about to sleep on. true: the wait was queued (an
// Atomics.waitAsync that the caller keeps, as the browser does, until a
// notify takes it off the queue) and the signal aborts it now; WaitAsync
// then abandons it as the glue does. nil never aborts.
type AbortFunc func(index, value int32) bool

// Call calls the export call(op, mem, at, a, b int32) int32.
func (a *Agent) Call(op, mem, at, x, y int32) int32 {
	return a.call(a.callFn, api.EncodeI32(op), api.EncodeI32(mem), api.EncodeI32(at), api.EncodeI32(x), api.EncodeI32(y))
}

// Wait calls the export wait(kind, mem, at, arg int32, timeoutMs float64) int32.
func (a *Agent) Wait(kind, mem, at, arg int32, timeoutMs float64) int32 {
	return a.call(a.waitFn, api.EncodeI32(kind), api.EncodeI32(mem), api.EncodeI32(at), api.EncodeI32(arg), api.EncodeF64(timeoutMs))
}

// Step calls the export step(kind, mem, at, arg, woken, sleptOn int32, startMs, deadlineMs float64) int32.
func (a *Agent) Step(kind, mem, at, arg, woken, sleptOn int32, startMs, deadlineMs float64) int32 {
	return a.call(a.stepFn, api.EncodeI32(kind), api.EncodeI32(mem), api.EncodeI32(at), api.EncodeI32(arg),
		api.EncodeI32(woken), api.EncodeI32(sleptOn), api.EncodeF64(startMs), api.EncodeF64(deadlineMs))
}

// Abandon calls the export abandon(kind, mem, at, arg, sleptOn, late int32) int32.
func (a *Agent) Abandon(kind, mem, at, arg, sleptOn int32, late bool) int32 {
	l := int32(0)
	if late {
		l = 1
	}
	return a.call(a.abandonFn, api.EncodeI32(kind), api.EncodeI32(mem), api.EncodeI32(at), api.EncodeI32(arg), api.EncodeI32(sleptOn), api.EncodeI32(l))
}

// WaitAsync is the glue's waitFor (jsglue/wait.js): turn after turn of a
// wait of the kind the core publishes as kind, sleeping where each turn
// says, following the core to the next kind where a turn says so; on abort,
// the core abandons the wait: Aborted when it gave it up, else what it said
// (resultOK: the wait had succeeded, as a Barrier's generation can).
//
// On a Watched host, as the glue's waitTurns once its registry is shared,
// it sleeps at most WATCH_MS at a time; after a sleep that timed out before
// the deadline, it asks the watch (OP_WATCH) about the wait, numbered as
// the glue's newWaiter numbers it and not blocking, and it ends the watch
// of the wait (OP_WATCH_END) however the wait ends. The glue ignores the
// watch's answer; the only one the core gives an asynchronous wait is
// RESULT_OK, so any other ends the wait with it, for the role to report.
func (a *Agent) WaitAsync(kind, mem, at, arg int32, timeoutMs float64, abort AbortFunc) int32 {
	if !a.host.Watched {
		return a.waitTurns(kind, mem, at, arg, timeoutMs, abort, 0)
	}
	a.waiters = a.waiters%(waiterBlocking-1) + 1
	waiter := a.waiters
	r := a.waitTurns(kind, mem, at, arg, timeoutMs, abort, waiter)
	a.Call(proto.OpWatchEnd, 0, 0, waiter, 0) // (not deferred: an agent that ends in the wait calls nothing more)
	return r
}

// waitTurns is WaitAsync's loop; waiter 0: not watched.
func (a *Agent) waitTurns(kind, mem, at, arg int32, timeoutMs float64, abort AbortFunc, waiter int32) int32 {
	env := a.host.envOf(a.mod)
	k := kind
	startMs := env.NowMs()
	deadlineMs := startMs + timeoutMs
	for woken, sleptOn := int32(wokenFirst), int32(-1); ; {
		r := a.Step(k, mem, at, arg, woken, sleptOn, startMs, deadlineMs)
		if r <= resultGoOnAs {
			k, woken, sleptOn = resultGoOnAs-r, wokenFirst, -1
			continue
		}
		if r < 0 {
			return r
		}
		sleepAt := at + k&sleepsAtMask
		if abort != nil && abort(sleepAt, r) {
			if g := a.Abandon(k, mem, at, arg, r, false); g != resultBusy {
				return g
			}
			return Aborted
		}
		woken, sleptOn = wokenOther, r
		sleepMs := deadlineMs - env.NowMs()
		if waiter != 0 {
			sleepMs = min(sleepMs, watchMs)
		}
		switch env.Wait(mem, sleepAt, r, sleepMs) {
		case futex.OK:
			woken = wokenNotified
		case futex.TimedOut:
			if waiter != 0 && env.NowMs() < deadlineMs {
				if w := a.Call(proto.OpWatch, mem, at, k, waiter<<1); w != resultOK {
					return w
				}
			}
		}
	}
}
