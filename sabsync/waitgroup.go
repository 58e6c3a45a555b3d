//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// WaitGroup is sabmutex's WaitGroup (internal/core/waitgroup.go) from Go, on the
// same slot as its JavaScript twin.
type WaitGroup struct{ s slots }

// NewWaitGroup is the WaitGroup at mem[index] (WaitGroupSlots slots; zeroed: a count of 0).
func NewWaitGroup(mem js.Value, index int) (*WaitGroup, error) {
	s, err := slotsOf("WaitGroup", WaitGroupSlots, mem, index)
	if err != nil {
		return nil, err
	}
	return &WaitGroup{s}, nil
}

// Add adds delta to the count; at 0, every waiter returns. As with
// sync.WaitGroup, a count that would go negative panics (here having
// changed nothing).
func (wg *WaitGroup) Add(delta int) {
	max := int(proto.MaxCount)
	if delta > max || delta < -max {
		panic(errors.New(proto.Message(proto.MsgAddRange, "max", max, "got", delta)))
	}
	switch r := wg.s.call(proto.OpWgAdd, int32(delta), 0); r {
	case resultOK:
	case resultNegative:
		panic(fmt.Errorf("sabmutex: add(%d) would make the count of %s negative (it is %d); call Done once per Add(1)", delta, wg.s.what, wg.s.call(proto.OpWgCount, 0, 0)))
	case resultTooMany:
		panic(errors.New("sabmutex: " + proto.Message(proto.MsgCountPast, "call", fmt.Sprintf("add(%d)", delta), "what", wg.s.what, "max", max)))
	default:
		panic(wg.s.failure(r))
	}
}

// Done is Add(-1).
func (wg *WaitGroup) Done() { wg.Add(-1) }

// Go calls f on a new goroutine, counted by Add(1) until f returns, as
// sync.WaitGroup.Go: f must not panic. If it does, Done is not called, as
// in sync: the panic ends the program, and a Wait (here, or in another
// agent) must not return as though f had finished.
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	go func() {
		defer func() {
			if x := recover(); x != nil {
				panic(x)
			}
			wg.Done() // f returned, or ran runtime.Goexit
		}()
		f()
	}()
}

// Wait parks until the count is 0.
func (wg *WaitGroup) Wait() { must(wg.WaitContext(context.Background())) }

// WaitContext waits until the count is 0, or returns ctx's error once it is done.
func (wg *WaitGroup) WaitContext(ctx context.Context) error {
	r, err := wg.s.wait(ctx, proto.KindWgWait, 0)
	if err == nil && r != resultOK {
		panic(wg.s.failure(r))
	}
	return err
}
