//go:build js && wasm

package sabsync

import (
	"context"
	"math"
	"syscall/js"
	"time"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// How a goroutine waits: the asynchronous loop of the JavaScript glue
// (jsglue/wait.js's waitFor), with a goroutine parked on a channel where
// the glue awaits a promise. The wait's state is the core's record
// (internal/core/waitrec.go), and each turn is the record's; between turns the
// goroutine sleeps on Atomics.waitAsync, whose promise a js.Func turns into
// a channel send. A parked goroutine lets the program's other goroutines
// run, and when none can, Go returns to the JavaScript event loop, which
// delivers the promise. (A goroutine that blocked in Atomics.wait would stop
// the whole instance, the goroutine that holds the lock too.) Every decision
// is the core's: the kinds of wait, the watch, what a give-up undoes.

const (
	resultOK         = proto.ResultOK
	resultBusy       = proto.ResultBusy
	resultHolderDied = proto.ResultHolderDied
)

// call runs op (proto.Op...) on the primitive at s.
func (s slots) call(op, a, b int32) int32 { return core.Call(op, s.mem, s.at, a, b) }

// wait runs a wait of kind (proto.Kind...) on the primitive at s until the
// core gives a result, or ctx is done: then the core gives the wait up and
// wait returns ctx's error. ctx's deadline is the wait's deadline. The
// wait's state is the core's record (internal/core/waitrec.go): this loop only
// sleeps where a turn says.
//
// A done ctx wins over a ready primitive: it is looked at before the first
// turn (nothing is announced or taken yet) and after every sleep (the core
// gives up what the wait announced), so no turn runs once it is seen done.
// A wait that the give-up finds had already succeeded (a Barrier's
// generation completed with its arrival: resultOK) returns that success:
// what a call took, it reports, whatever ctx does.
func (s slots) wait(ctx context.Context, k int32, arg int32) (int32, error) {
	if err := ctx.Err(); err != nil {
		return resultBusy, err
	}
	startMs := nowMs()
	timeoutMs := math.Inf(1)
	if d, ok := ctx.Deadline(); ok {
		timeoutMs = float64(time.Until(d)) / float64(time.Millisecond)
	}
	id := core.Begin(k, s.mem, s.at, arg, timeoutMs, startMs)
	if id < 0 {
		return id, nil
	}
	for r := core.Turn(id, proto.SleptNone); ; {
		switch {
		case r == resultBusy:
			// The deadline, seen by the core first, or with ctx (a late
			// wake-up whose turn, past the deadline, gave up: the core's
			// lateTurn): either way the wait timed out.
			if err := ctx.Err(); err != nil {
				return r, err
			}
			return r, context.DeadlineExceeded
		case r == proto.ResultCycle:
			return resultBusy, &DeadlockError{deadlockMessage(core.DeadlockMembers(), nameAt, core.AgentLabel)}
		case r < 0:
			return r, nil
		}
		at, ms := core.SleepOf(id)
		slept, given, err := sleep(ctx, s.i32, at, r, ms, id)
		if err != nil {
			if given != resultBusy {
				return given, nil // it had succeeded (or the core reports an error)
			}
			return resultBusy, err
		}
		// Blocking only when this goroutine is the program's only one: a
		// wait that others could end by releasing is not in a deadlock.
		if slept == proto.SleptTimedOut && blockingNow() {
			slept |= proto.SleptBlockingNow
		}
		r = core.Turn(id, slept)
	}
}

// sleep parks the goroutine while i32[index] holds value, for at most
// timeoutMs, and returns how the sleep ended (a proto.Slept value). If ctx
// is done first, or when the sleep ends, it gives wait id up and returns
// what that gave and ctx's error; the end of the sleep it leaves queued is
// the record's last turn (a wake-up that the given-up wait took was meant
// for another waiter: the core passes it on).
func sleep(ctx context.Context, i32 js.Value, index, value int32, timeoutMs float64, id int32) (int32, int32, error) {
	if timeoutMs < 0 {
		timeoutMs = 0
	}
	done := make(chan int32, 1)
	if !sleepAsync(i32, index, value, timeoutMs, done) {
		return givenUp(ctx, <-done, id)
	}
	select {
	case slept := <-done:
		return givenUp(ctx, slept, id)
	case <-ctx.Done():
		g := core.Turn(id, proto.SleptGiveUp)
		helperGoroutines++
		go func() {
			defer func() { helperGoroutines-- }()
			core.Turn(id, late(<-done))
		}()
		return 0, g, ctx.Err()
	}
}

// givenUp is how a sleep that ended as slept ends: as it is, or, if ctx is
// done meanwhile (a select that found both ready picks either), given up.
func givenUp(ctx context.Context, slept int32, id int32) (int32, int32, error) {
	err := ctx.Err()
	if err == nil {
		return slept, 0, nil
	}
	g := core.Turn(id, proto.SleptGiveUp)
	core.Turn(id, late(slept))
	return 0, g, err
}

// late is how the queued sleep of a wait given up ended, for its last turn.
func late(slept int32) int32 {
	if slept == proto.SleptOK {
		return proto.SleptLateOK
	}
	return proto.SleptLateOther
}

// sleptOf is the Slept value of Atomics.wait's answer.
func sleptOf(outcome string) int32 {
	switch outcome {
	case "ok":
		return proto.SleptOK
	case "timed-out":
		return proto.SleptTimedOut
	}
	return proto.SleptNotEqual
}

// sleepAsync starts a sleep whose outcome arrives on done; false when it
// ended at once (the outcome is already on done). Atomics.waitAsync where
// the engine has it; elsewhere a helper worker blocks in Atomics.wait and
// posts back, as the JavaScript glue does.
func sleepAsync(i32 js.Value, index, value int32, timeoutMs float64, done chan<- int32) bool {
	if !waitAsync.Truthy() {
		return sleepOnHelper(i32, index, value, timeoutMs, done)
	}
	w := waitAsync.Invoke(i32, index, value, timeoutMs)
	if !w.Get("async").Bool() {
		done <- sleptOf(w.Get("value").String())
		return false
	}
	keepAwake(1)
	var then js.Func
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		then.Release()
		calledBack()
		keepAwake(-1)
		done <- sleptOf(args[0].String())
		return nil
	})
	w.Get("value").Call("then", then)
	return true
}

// While a wait is pending, a timer ticks: WebKit does not always deliver a
// waitAsync's end to an idle worker until something else runs there, and
// Node.js does not count a pending waitAsync as a reason to stay alive.
// Its function is a JavaScript built-in that does nothing of note
// (Date.now; new Function() would need CSP's unsafe-eval), not a js.Func: a
// tick need not wake the Go scheduler, and a program whose main returns
// while a wait it gave up is still pending would otherwise have each tick
// throw "Go program has already exited", every 10 ms for ever.
var (
	waitsPending int
	keepAwakeID  js.Value
	noop         = js.Global().Get("Date").Get("now")
)

func keepAwake(d int) {
	waitsPending += d
	switch {
	case d > 0 && waitsPending == 1:
		keepAwakeID = js.Global().Call("setInterval", noop, 10)
	case d < 0 && waitsPending == 0:
		js.Global().Call("clearInterval", keepAwakeID)
	}
}

// The helper workers, where Atomics.waitAsync is missing: one per sleep in
// progress, kept for reuse.
var (
	idleHelpers []js.Value
	helperURL   js.Value
)

// Where Atomics.waitAsync is missing, one helper starts with the program,
// ahead of need: one started by the first wait takes a worker's start-up to
// run, and the wait sees no release meanwhile (jsglue/wait.js's
// startHelperAhead; how long: docs/decisions/helper-worker-deadline.md).
func init() {
	if waitAsync.IsUndefined() && js.Global().Get("Worker").Type() == js.TypeFunction {
		idleHelpers = append(idleHelpers, newHelper())
	}
}

func newHelper() js.Value {
	if helperURL.IsUndefined() {
		src := js.Global().Get("Array").New(helperSrc)
		blob := js.Global().Get("Blob").New(src, map[string]any{"type": "text/javascript"})
		helperURL = js.Global().Get("URL").Call("createObjectURL", blob)
	}
	return js.Global().Get("Worker").New(helperURL)
}

func sleepOnHelper(i32 js.Value, index, value int32, timeoutMs float64, done chan<- int32) bool {
	if aLoad.Invoke(i32, index).Int() != int(value) {
		done <- proto.SleptNotEqual
		return false
	}
	if !(timeoutMs > 0) {
		done <- proto.SleptTimedOut
		return false
	}
	endsAt := math.Inf(1)
	if !math.IsInf(timeoutMs, 1) {
		endsAt = perf.Get("timeOrigin").Float() + perf.Call("now").Float() + timeoutMs
	}
	var h js.Value
	if n := len(idleHelpers); n > 0 {
		h, idleHelpers = idleHelpers[n-1], idleHelpers[:n-1]
	} else {
		h = newHelper()
	}
	var onMessage js.Func
	onMessage = js.FuncOf(func(_ js.Value, args []js.Value) any {
		onMessage.Release()
		calledBack()
		idleHelpers = append(idleHelpers, h)
		done <- sleptOf(args[0].Get("data").String())
		return nil
	})
	h.Set("onmessage", onMessage)
	h.Call("postMessage", js.Global().Get("Array").New(i32, index, value, endsAt))
	return true
}

// The helper worker: [i32, index, value, endsAt] in, Atomics.wait's answer
// out. It is told when the sleep ends (performance.timeOrigin +
// performance.now(), which agents share), not how long it lasts: a helper
// that starts now is slow to run its first message, and a timeout counted
// from there would end that much late
// (docs/decisions/helper-worker-deadline.md). jsglue/wait.js's HELPER_SRC.
const helperSrc = "onmessage = ({ data: [a, i, v, end] }) => postMessage(Atomics.wait(a, i, v, Math.max(0, end - performance.timeOrigin - performance.now())));"
