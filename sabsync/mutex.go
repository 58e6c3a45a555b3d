//go:build js && wasm

package sabsync

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Mutex is sabmutex's Mutex (internal/core/mutex.go) from Go: the same two
// slots as new sabmutex.Mutex(memory, index) in JavaScript, so Go programs,
// JavaScript workers and the page exclude each other on one mutex. It is a
// sync.Locker. Its goroutines are to this program what async tasks are to a
// page: a goroutine that waits parks, the others run on, and one goroutine
// may unlock what another locked (as with sync.Mutex).
type Mutex struct {
	s          slots
	holderDied bool
	debug      *debugLock // what debug mode knows of it (nil: not named, not yet recorded)
}

// NewMutex is the mutex at mem[index]: mem is a SharedArrayBuffer or an
// Int32Array over one, index the first of its MutexSlots int32 slots.
// Zeroed slots are an unlocked mutex. Its option: Named.
func NewMutex(mem js.Value, index int, opts ...Option) (*Mutex, error) {
	s, err := slotsOf("Mutex", MutexSlots, mem, index)
	if err != nil {
		return nil, err
	}
	return &Mutex{s: s, debug: debugLockOf(opts)}, nil
}

// The int32 slots each primitive uses, as in JavaScript (Mutex.SLOTS and so on).
var (
	MutexSlots     int32 = proto.MutexSlots
	RWMutexSlots   int32 = proto.RwmutexSlots
	SemaphoreSlots int32 = proto.SemaphoreSlots
	WaitGroupSlots int32 = proto.WaitgroupSlots
	BarrierSlots   int32 = proto.BarrierSlots
	OnceSlots      int32 = proto.OnceSlots
	CondSlots      int32 = proto.CondSlots
)

// Lock takes the mutex, parking the goroutine while another agent or
// another goroutine holds it.
func (m *Mutex) Lock() {
	must(m.LockContext(context.Background()))
}

// LockContext takes the mutex, or gives up when ctx is done (its deadline,
// or a cancel) and returns ctx's error. A ctx done already wins over a free
// mutex: it returns ctx's error and takes nothing.
func (m *Mutex) LockContext(ctx context.Context) error {
	return take(ctx, &mutexLock, &m.s, &m.debug, m.took)
}

// TryLock takes the mutex if it is free, and never waits.
func (m *Mutex) TryLock() bool {
	return tryTake(&mutexLock, &m.s, &m.debug, m.took)
}

// took keeps what a take's result r says (the holder died), and panics
// unless r took the mutex.
func (m *Mutex) took(r int32) bool {
	if !m.s.acquired(r) {
		panic(m.s.failure(r))
	}
	m.holderDied = r == resultHolderDied
	return true
}

// Unlock releases the mutex, which this program must hold. Like sync.Mutex,
// an unlock of a mutex that is not locked, or held by another agent, is a
// bug: it panics, having changed nothing.
func (m *Mutex) Unlock() {
	switch r := m.s.call(proto.OpUnlock, 0, 0); r {
	case resultOK:
		if debugging {
			debugReleased(&m.debug, markHold)
		}
	case resultNotLocked:
		panic(fmt.Errorf("sabmutex: unlock() of %s, which is not locked; call Unlock only after Lock or TryLock succeeded", m.s.what))
	case resultNotHolder:
		panic(fmt.Errorf("sabmutex: unlock() by an agent that does not hold %s (this is agent %d; the holder is agent %d); only the agent that locked it may unlock it",
			m.s.what, agentID, m.s.call(proto.OpHolder, 0, 0)))
	default:
		panic(m.s.failure(r))
	}
}

// PreviousHolderDied reports whether the last acquisition by this program
// took the mutex from a holder that died holding it (see the JavaScript
// releaseIfHeldBy): the data it guards may be half-written.
func (m *Mutex) PreviousHolderDied() bool { return m.holderDied }
