//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// RWMutex is sabmutex's RWMutex (internal/core/rwmutex.go) from Go, on the same
// slots as its JavaScript twin: many readers or one writer, a waiting
// writer blocking new readers, as sync.RWMutex.
//
// As a JavaScript agent does, a program that joined (Join) counts its read
// locks of each RWMutex in its registry record (internal/core/registry.go's
// readCounter): one more after each read lock it takes, one fewer before
// each it releases, so that when its worker ends a writer waiting for it
// gets them back.
type RWMutex struct {
	s       slots
	reads   js.Value // the Int32Array of that count (undefined: none is kept)
	readsAt int
	debug   *debugLock // what debug mode knows of it (nil: not named, not yet recorded)
}

// NewRWMutex is the RWMutex at mem[index] (RWMutexSlots slots; zeroed:
// free). Its option: Named.
func NewRWMutex(mem js.Value, index int, opts ...Option) (*RWMutex, error) {
	s, err := slotsOf("RWMutex", RWMutexSlots, mem, index)
	if err != nil {
		return nil, err
	}
	rw := &RWMutex{s: s, debug: debugLockOf(opts)}
	if registry != nil {
		if at := core.ReadCounter(s.mem, s.at); at >= 0 {
			rw.reads, rw.readsAt = registry.i32, int(at)
		}
	}
	return rw, nil
}

// counted adds delta to this program's count of its read locks.
func (rw *RWMutex) counted(delta int) {
	if !rw.reads.IsUndefined() {
		rw.reads.SetIndex(rw.readsAt, rw.reads.Index(rw.readsAt).Int()+delta)
	}
}

// Lock takes the write lock.
func (rw *RWMutex) Lock() {
	must(rw.LockContext(context.Background()))
}

// LockContext takes the write lock, or returns ctx's error once it is done
// (at once if it is done already, taking nothing).
func (rw *RWMutex) LockContext(ctx context.Context) error {
	return take(ctx, &rwWriteLock, &rw.s, &rw.debug, rw.s.acquired)
}

// TryLock takes the write lock if nobody reads or writes.
func (rw *RWMutex) TryLock() bool {
	return tryTake(&rwWriteLock, &rw.s, &rw.debug, rw.s.acquired)
}

// Unlock releases the write lock; it panics, changing nothing, if this
// program does not hold it.
func (rw *RWMutex) Unlock() {
	switch r := rw.s.call(proto.OpRwUnlock, 0, 0); r {
	case resultOK:
		if debugging {
			debugReleased(&rw.debug, markHold)
		}
	case resultNotLocked:
		panic(fmt.Errorf("sabmutex: unlock() of %s, which is not write-locked; call Unlock only after Lock or TryLock succeeded (readers call RUnlock)", rw.s.what))
	case resultNotHolder:
		panic(errors.New("sabmutex: " + proto.Message(proto.MsgWriterNotHolder, "what", rw.s.what)))
	default:
		panic(rw.s.failure(r))
	}
}

// RLock takes a read lock.
func (rw *RWMutex) RLock() {
	must(rw.RLockContext(context.Background()))
}

// RLockContext takes a read lock, or returns ctx's error once it is done
// (at once if it is done already, taking nothing).
func (rw *RWMutex) RLockContext(ctx context.Context) error {
	return take(ctx, &rwReadLock, &rw.s, &rw.debug, rw.tookRead)
}

// TryRLock takes a read lock if no writer holds or waits for it.
func (rw *RWMutex) TryRLock() bool {
	return tryTake(&rwReadLock, &rw.s, &rw.debug, rw.tookRead)
}

// tookRead: whether a read lock's result r took it (counted, then), or
// was busy; it panics on too many readers or a failure.
func (rw *RWMutex) tookRead(r int32) bool {
	if rw.s.acquired(rw.tooMany(r)) {
		rw.counted(1)
		return true
	}
	return false
}

func (rw *RWMutex) tooMany(r int32) int32 {
	if r == resultTooMany {
		panic(errors.New("sabmutex: " + proto.Message(proto.MsgTooManyReaders, "what", rw.s.what, "max", proto.MaxReaders)))
	}
	return r
}

// RUnlock releases a read lock; it panics, changing nothing, if no reader holds one.
func (rw *RWMutex) RUnlock() {
	rw.counted(-1)
	switch r := rw.s.call(proto.OpRwReadUnlock, 0, 0); r {
	case resultOK:
		if debugging {
			debugReleased(&rw.debug, markRead)
		}
	case resultNotLocked:
		rw.counted(1)
		panic(fmt.Errorf("sabmutex: readUnlock() of %s, but no reader holds it; call RUnlock once per RLock that succeeded", rw.s.what))
	default:
		rw.counted(1)
		panic(rw.s.failure(r))
	}
}

// RLocker is a sync.Locker whose Lock and Unlock are RLock and RUnlock.
func (rw *RWMutex) RLocker() sync.Locker { return rlocker{rw} }

type rlocker struct{ rw *RWMutex }

func (r rlocker) Lock()   { r.rw.RLock() }
func (r rlocker) Unlock() { r.rw.RUnlock() }

// must panics with err, which a wait without a deadline or cancel gives
// only for a corrupted word.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
