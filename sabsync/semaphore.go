//go:build js && wasm

package sabsync

import (
	"context"
	"fmt"
	"syscall/js"
)

// Semaphore is sabmutex's Semaphore (wasm/core/semaphore.go) from Go, on the
// same slots as its JavaScript twin, with the methods of
// golang.org/x/sync/semaphore.Weighted: a large request is not starved by
// small ones.
type Semaphore struct {
	s       slots
	permits int64
}

// NewSemaphore is the Semaphore of permits at mem[index] (SemaphoreSlots
// slots; zeroed: every permit free). Every agent must give the same permits.
func NewSemaphore(mem js.Value, index int, permits int64) (*Semaphore, error) {
	s, err := slotsOf("Semaphore", SemaphoreSlots, mem, index)
	if err != nil {
		return nil, err
	}
	if err := s.setUp("OP_SEM_SET_UP", permits, int64(published["MAX_PERMITS"]), 2, "with", "permits"); err != nil {
		return nil, err
	}
	return &Semaphore{s, permits}, nil
}

func (sem *Semaphore) check(call string, n int64) {
	if n < 1 || n > sem.permits {
		panic(fmt.Errorf("sabmutex: %s takes a whole number from 1 to %d; got %d", call, sem.permits, n))
	}
}

// Acquire takes n permits, parking until they are free, or returns ctx's
// error once it is done (having taken none). A ctx done already wins over
// free permits, as in x/sync since golang/go#63615.
func (sem *Semaphore) Acquire(ctx context.Context, n int64) error {
	sem.check("acquire(n)", n)
	if err := ctx.Err(); err != nil {
		return err
	}
	if sem.TryAcquire(n) {
		return nil
	}
	r, err := sem.s.wait(ctx, "KIND_SEM_ACQUIRE", int32(n))
	if err == nil {
		sem.s.acquired(r)
	}
	return err
}

// TryAcquire takes n permits if they are free now (and not held back for a
// waiter: as x/sync's, a try does not overtake those who wait).
func (sem *Semaphore) TryAcquire(n int64) bool {
	sem.check("tryAcquire(n)", n)
	return sem.s.acquired(sem.s.call("OP_SEM_TRY_ACQUIRE", int32(n), 0))
}

// Release gives back n permits; it panics, changing nothing, if fewer are taken.
func (sem *Semaphore) Release(n int64) {
	sem.check("release(n)", n)
	switch r := sem.s.call("OP_SEM_RELEASE", int32(n), 0); r {
	case resultOK:
	case resultNegative:
		panic(fmt.Errorf("sabmutex: release(%d) of %s gives back more than is taken (%d); release only what acquire took", n, sem.s.what, sem.permits-int64(sem.s.call("OP_SEM_AVAILABLE", 0, 0))))
	default:
		panic(sem.s.failure(r))
	}
}
