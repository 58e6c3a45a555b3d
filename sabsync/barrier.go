//go:build js && wasm

package sabsync

import (
	"context"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Barrier is sabmutex's Barrier (internal/core/barrier.go) from Go, on the same
// slots as its JavaScript twin: parties wait for each other, generation
// after generation.
type Barrier struct{ s slots }

// NewBarrier is the Barrier of parties at mem[index] (BarrierSlots slots;
// zeroed: nobody arrived). Every agent must give the same parties.
func NewBarrier(mem js.Value, index int, parties int) (*Barrier, error) {
	s, err := slotsOf("Barrier", BarrierSlots, mem, index)
	if err != nil {
		return nil, err
	}
	if err := s.setUp(proto.OpBarrierSetUp, int64(parties), int64(proto.MaxParties), 1, "for", "parties"); err != nil {
		return nil, err
	}
	return &Barrier{s}, nil
}

// Wait arrives and parks until the generation is complete; it returns true
// to the one arrival per generation that completed it.
func (b *Barrier) Wait() bool {
	last, err := b.WaitContext(context.Background())
	must(err)
	return last
}

// WaitContext is Wait that gives up once ctx is done and returns ctx's
// error: its arrival is withdrawn, so the generation still waits for a full
// set of parties. With ctx done already, it does not arrive. If the
// generation completed with its arrival before the withdrawal, the arrival
// counted, and it returns as Wait does (false, nil), ctx done or not.
func (b *Barrier) WaitContext(ctx context.Context) (last bool, err error) {
	r, err := b.s.wait(ctx, proto.KindBarrier, 0)
	switch {
	case err != nil:
		return false, err
	case r == resultLast:
		return true, nil
	case r == resultOK:
		return false, nil
	}
	panic(b.s.failure(r))
}
