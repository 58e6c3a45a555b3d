//go:build js && wasm

package sabsync

import (
	"context"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Once is sabmutex's Once (internal/core/once.go) from Go, on the same slots as
// its JavaScript twin: one function runs once across all agents.
type Once struct {
	s     slots
	debug *debugLock // what debug mode knows of it (nil: not named, not yet recorded)
}

// NewOnce is the Once at mem[index] (OnceSlots slots; zeroed: not run
// yet). Its option: Named.
func NewOnce(mem js.Value, index int, opts ...Option) (*Once, error) {
	s, err := slotsOf("Once", OnceSlots, mem, index)
	if err != nil {
		return nil, err
	}
	return &Once{s: s, debug: debugLockOf(opts)}, nil
}

// Do calls f unless some agent's function has run; while another's runs,
// it parks until that one ends. As in sync.Once, f counts as run when it
// returns and also when it panics (or calls runtime.Goexit): the Once is
// done, the panic goes on here, and no caller in any agent runs f again.
// A JavaScript agent sharing the Once sees it done, as after a normal run:
// isDone() is true and its do(fn) returns false without running fn. (A
// JavaScript fn that throws leaves the Once as if never called, for the
// next caller in any language: each language keeps its own rule for its
// own functions.) It returns whether f ran here.
func (o *Once) Do(f func()) bool {
	if o.Done() {
		return false
	}
	if ran, err := o.DoContext(context.Background(), f); err != nil {
		panic(err)
	} else {
		return ran
	}
}

// DoContext is Do that stops waiting for another agent's function once ctx
// is done, and returns ctx's error. A ctx done already wins, run or not:
// it returns ctx's error, and f does not run. A panicking f makes the Once
// done, as in Do.
func (o *Once) DoContext(ctx context.Context, f func()) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if o.Done() {
		return false, nil
	}
	site := int32(noSite)
	if debugging {
		site = debugWait(&o.debug, "Once", &o.s)
	}
	r, err := o.s.wait(ctx, proto.KindOnce, 0)
	if debugging {
		debugWaited(&o.debug)
	}
	switch {
	case err != nil:
		return false, err
	case r == resultOK:
		return false, nil
	case r != resultRun && r != resultRunDied: // (a JavaScript agent's watch may have ended a dead runner's run)
		panic(o.s.failure(r))
	}
	// Done however f ends, as sync.Once: a panicking f is not retried, by
	// this program or any other agent (OP_ONCE_FINISH's 1 is "done").
	defer func() {
		if r := o.s.call(proto.OpOnceFinish, 1, 0); r != resultOK {
			panic(o.s.failure(r))
		}
	}()
	// In debug mode, the Once is held while f runs (see debug.go).
	if debugging {
		debugTook(&o.debug, "Once", &o.s, markHold, site, true)
		defer debugReleased(&o.debug, markHold)
	}
	f()
	return true, nil
}

// Done reports whether some agent's function has run (returned, or, in Go,
// panicked).
func (o *Once) Done() bool { return aLoad.Invoke(o.s.i32, o.s.at).Int() == int(proto.OnceDone) }
