package coretest

import (
	"math"

	"github.com/tetratelabs/wazero/api"

	"github.com/sabmutex/sabmutex/internal/testing/futex"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The core's entry points as the glue calls them (internal/abi/exports.go):
// call for what never waits, wait for a blocking wait (a worker's), and
// begin and turn, which WaitAsync drives as the glue's waitFor
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
// then gives it up as the glue does. nil never aborts.
type AbortFunc func(index, value int32) bool

// Call calls the export call(op, mem, at, a, b int32) int32.
func (a *Agent) Call(op, mem, at, x, y int32) int32 {
	return a.call(a.callFn, api.EncodeI32(op), api.EncodeI32(mem), api.EncodeI32(at), api.EncodeI32(x), api.EncodeI32(y))
}

// Wait calls the export wait(kind, mem, at, arg int32, timeoutMs, startMs
// float64, sleptOn, slept int32) int32 for a wait from its start.
func (a *Agent) Wait(kind, mem, at, arg int32, timeoutMs float64) int32 {
	return a.call(a.waitFn, api.EncodeI32(kind), api.EncodeI32(mem), api.EncodeI32(at), api.EncodeI32(arg),
		api.EncodeF64(timeoutMs), api.EncodeF64(math.NaN()), api.EncodeI32(-1), api.EncodeI32(proto.SleptNone))
}

// Begin calls the export begin(kind, mem, at, arg int32, timeoutMs, startMs float64) int32.
func (a *Agent) Begin(kind, mem, at, arg int32, timeoutMs, startMs float64) int32 {
	return a.call(a.beginFn, api.EncodeI32(kind), api.EncodeI32(mem), api.EncodeI32(at), api.EncodeI32(arg),
		api.EncodeF64(timeoutMs), api.EncodeF64(startMs))
}

// Turn calls the export turn(id, slept int32) int32.
func (a *Agent) Turn(id, slept int32) int32 {
	return a.call(a.turnFn, api.EncodeI32(id), api.EncodeI32(slept))
}

// sleepOut is where the last Turn said to sleep: a slot and how many
// milliseconds at most (the op OP_SLEEP_OUT's two float64s).
func (a *Agent) sleepOut() (int32, float64) {
	at := uint32(a.Call(proto.OpSleepOut, 0, 0, 0, 0))
	index, _ := a.mod.Memory().ReadFloat64Le(at)
	ms, _ := a.mod.Memory().ReadFloat64Le(at + 8)
	return int32(index), ms
}

// WaitAsync is the glue's waitFor (jsglue/wait.js): a wait of the kind the
// core publishes as kind, begun as a record of the core's, whose turns say
// where to sleep (at most WATCH_MS at a time on a Watched host, and then
// the turn asks the watch); on abort, the core gives the wait up: Aborted
// when it did, else what it said (resultOK: the wait had succeeded, as a
// Barrier's generation can). The queued sleep that a give-up leaves is
// taken to end without a wake-up.
func (a *Agent) WaitAsync(kind, mem, at, arg int32, timeoutMs float64, abort AbortFunc) int32 {
	env := a.host.envOf(a.mod)
	id := a.Begin(kind, mem, at, arg, timeoutMs, env.NowMs())
	if id < 0 {
		return id
	}
	for r := a.Turn(id, proto.SleptNone); ; {
		if r < 0 {
			return r
		}
		sleepAt, sleepMs := a.sleepOut()
		if abort != nil && abort(sleepAt, r) {
			g := a.Turn(id, proto.SleptGiveUp)
			a.Turn(id, proto.SleptLateOther)
			if g != resultBusy {
				return g
			}
			return Aborted
		}
		slept := int32(proto.SleptNotEqual)
		switch env.Wait(mem, sleepAt, r, sleepMs) {
		case futex.OK:
			slept = proto.SleptOK
		case futex.TimedOut:
			slept = proto.SleptTimedOut
		}
		r = a.Turn(id, slept)
	}
}
