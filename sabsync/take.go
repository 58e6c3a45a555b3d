//go:build js && wasm

package sabsync

import (
	"context"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// A lock's way of being taken: the Mutex's lock, the RWMutex's write lock
// and its read lock. Their Lock, LockContext and TryLock are take and
// tryTake over one of these: the sequence, with debug mode's hooks, is
// written once, here.
type lockWay struct {
	typ   string // the primitive, as debug mode labels it
	tryOp int32  // the call that takes it if it is free, and never waits
	kind  int32  // the wait that takes it
	mark  int32  // how debug mode records the hold: markHold or markRead
}

var (
	mutexLock   = lockWay{"Mutex", proto.OpTryLock, proto.KindLock, markHold}
	rwWriteLock = lockWay{"RWMutex", proto.OpRwTryLock, proto.KindRwAnnounce, markHold}
	rwReadLock  = lockWay{"RWMutex", proto.OpRwTryReadLock, proto.KindRwRead, markRead}
)

// take takes the lock at s the way w says, or returns ctx's error once ctx
// is done (at once if it is done already, taking nothing). took says
// whether a result that is not busy took the lock, and keeps what the lock
// keeps of a take (a holder that died, a read lock's count); it panics on
// a failure. Debug mode hears of the wait, its end and the take, with the
// wait's site.
func take(ctx context.Context, w *lockWay, s *slots, d **debugLock, took func(r int32) bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The fast path: one call, no wait.
	if r := s.call(w.tryOp, 0, 0); r != resultBusy && took(r) {
		if debugging {
			debugTook(d, w.typ, s, w.mark, noSite, true)
		}
		return nil
	}
	// The slow path: the core's wait.
	site := int32(noSite)
	if debugging {
		site = debugWait(d, w.typ, s)
	}
	r, err := s.wait(ctx, w.kind, 0)
	if debugging {
		debugWaited(d)
	}
	if err == nil && took(r) && debugging {
		debugTook(d, w.typ, s, w.mark, site, true)
	}
	return err
}

// tryTake takes the lock at s the way w says if it is free, and never
// waits (took as for take).
func tryTake(w *lockWay, s *slots, d **debugLock, took func(r int32) bool) bool {
	if r := s.call(w.tryOp, 0, 0); r == resultBusy || !took(r) {
		return false
	}
	if debugging {
		debugTook(d, w.typ, s, w.mark, noSite, false)
	}
	return true
}
