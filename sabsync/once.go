//go:build js && wasm

package sabsync

import (
	"context"
	"syscall/js"
)

// Once is sabmutex's Once (wasm/core/once.go) from Go, on the same slots as
// its JavaScript twin: one function runs once across all agents.
type Once struct{ s slots }

// NewOnce is the Once at mem[index] (OnceSlots slots; zeroed: not run yet).
func NewOnce(mem js.Value, index int) (*Once, error) {
	s, err := slotsOf("Once", OnceSlots, mem, index)
	if err != nil {
		return nil, err
	}
	return &Once{s}, nil
}

// Do calls f unless some agent's function has run to the end; while
// another's runs, it parks until that one ends. If f panics, the panic goes
// on here and the Once is left as if never called: the next caller, or a
// waiting one, runs its own (unlike sync.Once, which counts a panicking f
// as done). It returns whether f ran here.
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
// it returns ctx's error, and f does not run.
func (o *Once) DoContext(ctx context.Context, f func()) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if o.Done() {
		return false, nil
	}
	r, err := o.s.wait(ctx, "KIND_ONCE", 0)
	switch {
	case err != nil:
		return false, err
	case r == resultOK:
		return false, nil
	case r != resultRun && r != resultRunDied: // (a JavaScript agent's watch may have ended a dead runner's run)
		panic(o.s.failure(r))
	}
	ok := false
	defer func() {
		finished := int32(0)
		if ok {
			finished = 1
		}
		if r := o.s.call("OP_ONCE_FINISH", finished, 0); r != resultOK {
			panic(o.s.failure(r))
		}
	}()
	f()
	ok = true
	return true, nil
}

// Done reports whether some agent's function has run to the end.
func (o *Once) Done() bool { return aLoad.Invoke(o.s.i32, o.s.at).Int() == int(published["ONCE_DONE"]) }
