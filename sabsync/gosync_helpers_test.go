//go:build js && wasm

package sabsync_test

import (
	"syscall/js"

	. "github.com/sabmutex/sabmutex/sabsync"
)

// The gosync_*_test.go files are Go's own tests of sync and of
// golang.org/x/sync/semaphore, adapted to sabsync as a new user would: the
// same bodies, with sync's zero value (var m Mutex, new(Once),
// &WaitGroup{}) replaced by fresh(NewMutex) and its kin, since a sabsync
// primitive lives in a SharedArrayBuffer, not in a Go variable. Each file
// names the Go file and version it came from, the tests it dropped and why,
// and every other change. They are under Go's BSD license (LICENSE-go).

// fresh is sync's zero value in sabsync: the primitive that newT makes over
// zeroed slots at index 0 of a SharedArrayBuffer of its own. It panics on a
// constructor's error, as there is none to expect, and Go's helpers that
// make primitives have no *testing.T to fail. newT is a constructor with
// options (NewMutex, NewRWMutex, NewOnce), or one made like it
// (newWaitGroup).
func fresh[T any](newT func(mem js.Value, index int, opts ...Option) (*T, error)) *T {
	const words = 8 // more than any primitive here takes (RWMutexSlots, 4)
	p, err := newT(js.Global().Get("SharedArrayBuffer").New(4*words), 0)
	if err != nil {
		panic(err)
	}
	return p
}

// condOf is sync.NewCond(l): a Cond over fresh slots, guarded by l.
func condOf(l *Mutex) *Cond {
	return fresh(func(mem js.Value, index int, _ ...Option) (*Cond, error) { return NewCond(mem, index, l) })
}

// newWeighted is semaphore.NewWeighted(n): a Semaphore of n permits over
// fresh slots.
func newWeighted(n int64) *Semaphore {
	return fresh(func(mem js.Value, index int, _ ...Option) (*Semaphore, error) { return NewSemaphore(mem, index, n) })
}

// newWaitGroup is NewWaitGroup, for fresh.
func newWaitGroup(mem js.Value, index int, _ ...Option) (*WaitGroup, error) {
	return NewWaitGroup(mem, index)
}

// panicMessage is what f panicked with ("" if it returned): sabsync panics
// with errors, sync with strings.
func panicMessage(f func()) (msg string) {
	defer func() {
		switch r := recover().(type) {
		case nil:
		case error:
			msg = r.Error()
		case string:
			msg = r
		default:
			msg = "a panic with a value of an unexpected type"
		}
	}()
	f()
	return ""
}
