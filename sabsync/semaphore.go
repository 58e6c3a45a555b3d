//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Semaphore is sabmutex's Semaphore (internal/core/semaphore.go) from Go, on the
// same slots as its JavaScript twin, with the methods of
// golang.org/x/sync/semaphore.Weighted: a large request is not starved by
// small ones.
//
// As x/sync's, it takes a weight of 0 (which takes nothing), a size of 0,
// and a request larger than its size (which no release can satisfy: it
// waits until its ctx is done). The JavaScript API refuses all three
// (acquire(n) takes 1 to permits), so they are settled here, in Go, and
// never reach the shared slots. One difference: x/sync keeps a queue, and
// a weight of 0 waits there behind earlier waiters (TryAcquire(0) fails
// while any wait); sabsync keeps none, so a weight of 0 never waits.
type Semaphore struct {
	s       slots
	permits int64 // 0: a semaphore of size 0, which never touches its slots
}

// NewSemaphore is the Semaphore of permits at mem[index] (SemaphoreSlots
// slots; zeroed: every permit free). Every agent must give the same permits.
//
// A size of 0 is recorded nowhere: the slots' size word holds 0 until the
// first agent sets the semaphore up, so 0 there means "not set up", and a
// JavaScript agent could not use a semaphore of 0 permits anyway. It only
// checks that no agent has set the slots up with another size.
func NewSemaphore(mem js.Value, index int, permits int64) (*Semaphore, error) {
	s, err := slotsOf("Semaphore", SemaphoreSlots, mem, index)
	if err != nil {
		return nil, err
	}
	maxPermits := int64(proto.MaxPermits)
	switch {
	case permits < 0 || permits > maxPermits:
		return nil, fmt.Errorf("sabmutex: permits must be a whole number from 0 to %d; got %d", maxPermits, permits)
	case permits == 0:
		if p := aLoad.Invoke(s.i32, s.at+proto.SemPermitsAt).Int(); p != 0 {
			return nil, fmt.Errorf("sabmutex: %s was set up with %d permits, not 0; every agent must pass the same permits", s.what, p)
		}
		return &Semaphore{s, 0}, nil
	}
	if err := s.setUp(proto.OpSemSetUp, permits, maxPermits, 2, "with", "permits"); err != nil {
		return nil, err
	}
	return &Semaphore{s, permits}, nil
}

// negative panics for a weight below 0, which x/sync does not check (it
// would add permits).
func negative(call string, n int64) {
	if n < 0 {
		panic(fmt.Errorf("sabmutex: %s takes a whole number of permits, 0 or more; got %d", call, n))
	}
}

// Acquire takes n permits, parking until they are free, or returns ctx's
// error once it is done (having taken none). A ctx done already wins over
// free permits, as in x/sync since golang/go#63615. A weight of 0 takes
// nothing and returns nil (or ctx's error); a weight larger than the size
// waits for ctx without holding anyone back (no release can make it fit),
// as x/sync's does.
func (sem *Semaphore) Acquire(ctx context.Context, n int64) error {
	negative("acquire(n)", n)
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case n == 0:
		return nil
	case n > sem.permits:
		<-ctx.Done() // a goroutine's wait: nothing to watch in the slots
		return ctx.Err()
	}
	if sem.TryAcquire(n) {
		return nil
	}
	r, err := sem.s.wait(ctx, proto.KindSemAcquire, int32(n))
	if err == nil {
		sem.s.acquired(r)
	}
	return err
}

// TryAcquire takes n permits if they are free now (and not held back for a
// waiter: as x/sync's, a try does not overtake those who wait). A weight
// of 0 succeeds; one larger than the size fails.
func (sem *Semaphore) TryAcquire(n int64) bool {
	negative("tryAcquire(n)", n)
	switch {
	case n == 0:
		return true
	case n > sem.permits:
		return false
	}
	return sem.s.acquired(sem.s.call(proto.OpSemTryAcquire, int32(n), 0))
}

// Release gives back n permits; it panics, changing nothing, if fewer are
// taken. Release(0) does nothing.
func (sem *Semaphore) Release(n int64) {
	if n < 0 || n > sem.permits {
		panic(fmt.Errorf("sabmutex: release(n) takes a whole number from 0 to %d; got %d", sem.permits, n))
	}
	if n == 0 {
		return
	}
	switch r := sem.s.call(proto.OpSemRelease, int32(n), 0); r {
	case resultOK:
	case resultNegative:
		panic(errors.New(proto.Message(proto.MsgReleaseTooMuch, "n", n, "what", sem.s.what, "taken", sem.permits-int64(sem.s.call(proto.OpSemAvailable, 0, 0)))))
	default:
		panic(sem.s.failure(r))
	}
}
