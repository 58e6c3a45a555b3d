//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// Web Locks for Go agents: Request is locks.request, Query is
// locks.query, over the same lock request queues as the JavaScript agents'
// (internal/core/lockq.go: one queue per name in the registry's shared
// memory), so a Go agent's requests are granted in the order made among
// theirs, and appear in their query() with its clientId.

// LockOptions are Request's options, as Web Locks' (locks.request's).
type LockOptions struct {
	Shared      bool // mode "shared" (default: "exclusive")
	IfAvailable bool // take it only if it would be granted now, else ErrNotAvailable
	Steal       bool // take it at once, from whoever holds it (exclusive only)
}

// ErrNotAvailable is Request's error when IfAvailable finds the lock taken
// (where Web Locks calls the callback with null); fn did not run.
var ErrNotAvailable = errors.New("sabmutex: the lock is taken (IfAvailable)")

// ErrStolen is Request's error when another agent stole the lock while fn
// ran (Web Locks' AbortError); fn's own error, if any, is lost.
var ErrStolen = errors.New("sabmutex: the lock was stolen (another agent requested it with steal)")

// Request is locks.request(name, options, callback) for Go: it waits until
// the lock named name is granted (exclusive, or shared with opts.Shared),
// in the order of its name's queue, runs fn, releases it, and returns fn's
// error; or ctx's error if ctx is done first (taking nothing); or
// ErrStolen once fn returns, if the lock was stolen meanwhile. JavaScript
// agents' locks.request and locks.requestSync of the name share its queue.
func Request(ctx context.Context, name string, opts *LockOptions, fn func() error) error {
	var o LockOptions
	if opts != nil {
		o = *opts
	}
	units := utf16.Encode([]rune(name))
	switch {
	case len(name) > 0 && name[0] == '-':
		return errors.New("sabmutex: lock names that start with \"-\" are reserved (as in Web Locks); got " + strconv.Quote(name))
	case o.Steal && (o.Shared || o.IfAvailable):
		return errors.New("sabmutex: Request: Steal needs an exclusive request, without IfAvailable")
	case registry == nil:
		return errors.New("sabmutex: locks live in the registry this program joined: call Join first")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if o == (LockOptions{}) {
		if q, ok := fastTake(name); ok {
			err := fn()
			if !fastLetGo(q) {
				return ErrStolen
			}
			return err
		}
	}
	mode, flags := int32(proto.LockExclusive), int32(0)
	if o.Shared {
		mode = proto.LockShared
	}
	if o.IfAvailable {
		flags |= proto.LockIfAvailable
	}
	if o.Steal {
		flags |= proto.LockSteal
	}
	names := namesAt()
	r := guarded(func() (int32, int32, int32) { return core.LockRequest(registry.mem, names, mode, flags, units) })
	switch {
	case r == proto.ResultNone:
		return ErrNotAvailable
	case r == proto.ResultTooMany:
		return errors.New(proto.Message(proto.MsgLocksFull, "name", strconv.Quote(name), "bytes", registry.i32.Get("buffer").Get("byteLength").Int()))
	case r < 0:
		return fmt.Errorf("sabmutex: internal error: the lock request queues answered %d", r)
	}
	s := slots{memory: registry, at: r, what: "the lock " + strconv.Quote(name)}
	remember(name, s.i32.Index(int(r+proto.LockRecordQueue)).Int())
	release := func() int32 {
		return guarded(func() (int32, int32, int32) { return core.LockRelease(registry.mem, r) })
	}
	if s.i32.Index(int(r)).Int() == proto.LockPending {
		got, err := s.wait(ctx, proto.KindLockRequest, 0)
		if got != resultOK { // (a wait that ctx gave up after its grant keeps it)
			release() // out of the queue
			if err != nil {
				return err
			}
			return fmt.Errorf("sabmutex: internal error: the wait for %s answered %d", s.what, got)
		}
	}
	err := fn()
	if release() == proto.ResultNotHolder {
		return ErrStolen
	}
	return err
}

// The fast path, as the glue's (jsglue/locks.js): an exclusive request of
// a name this program has requested before, whose queue is idle, is one
// compare-and-swap of its queue slot's fast word (the core's lqFastTake),
// its release another. fastSlots caches each name's slot and gen, and
// which slots' fast locks the program's goroutines hold: the core lets an
// agent hold one fast lock of a slot at a time (by slot, not by name: a
// steal, then the slot given another name, could otherwise make a second
// one the first's), so a second goroutine goes through the queue, behind it.
var fastSlots struct {
	sync.Mutex
	m    map[string]fastSlot
	held map[int32]bool
}

type fastSlot struct{ q, gen int32 }

// remember caches the queue slot q of name, from a request in its queue
// (which keeps the slot's name while it is there).
func remember(name string, q int) {
	gen := int32(registry.i32.Index(q + int(proto.LockQueueGen)).Int())
	fastSlots.Lock()
	defer fastSlots.Unlock()
	if fastSlots.m == nil || len(fastSlots.m) >= 4096 {
		fastSlots.m = map[string]fastSlot{} // (forgets them all: each is found again by its next request)
	}
	fastSlots.m[name] = fastSlot{int32(q), gen}
}

// fastTake takes name's lock through the fast path: its slot, held, and
// true; or false, to go through the queue.
func fastTake(name string) (int32, bool) {
	fastSlots.Lock()
	c, ok := fastSlots.m[name]
	if !ok || fastSlots.held[c.q] {
		fastSlots.Unlock()
		return 0, false
	}
	if fastSlots.held == nil {
		fastSlots.held = map[int32]bool{}
	}
	fastSlots.held[c.q] = true
	fastSlots.Unlock()
	switch core.LockFastTake(registry.mem, c.q, c.gen) {
	case resultOK:
		return c.q, true
	case proto.ResultMismatch: // the slot has another name now: let it go, forget it
		fastLetGo(c.q)
		fastSlots.Lock()
		if fastSlots.m[name] == c {
			delete(fastSlots.m, name)
		}
		fastSlots.Unlock()
		return 0, false
	}
	fastSlots.Lock()
	delete(fastSlots.held, c.q)
	fastSlots.Unlock()
	return 0, false
}

// fastLetGo releases slot q's fast lock (through the guard if its
// compare-and-swap is refused): false if it was stolen.
func fastLetGo(q int32) bool {
	ok := core.LockFastLetGo(registry.mem, q) == resultOK ||
		guarded(func() (int32, int32, int32) { return core.LockReleaseFast(registry.mem, namesAt(), q) }) != proto.ResultNotHolder
	fastSlots.Lock()
	delete(fastSlots.held, q)
	fastSlots.Unlock()
	return ok
}

// LockInfo is one request in Query's answer, as Web Locks' LockInfo.
type LockInfo struct {
	Name     string
	Shared   bool   // mode "shared" (else "exclusive")
	ClientID string // the agent's id, as JavaScript agents' query() gives it
}

// LockSnapshot is Query's answer: every agent's held locks and pending
// requests, each name's pending ones in request order.
type LockSnapshot struct {
	Held, Pending []LockInfo
}

// Query is locks.query() for Go: what the registry's lock request queues
// hold now, read from shared memory (no agent is asked).
func Query() (LockSnapshot, error) {
	var q LockSnapshot
	if registry == nil {
		return q, errors.New("sabmutex: locks live in the registry this program joined: call Join first")
	}
	var text []byte
	names := namesAt()
	guarded(func() (int32, int32, int32) {
		t, r, slot, id := core.LockQuery(registry.mem, names)
		text = t
		return r, slot, id
	})
	le := func(at int) int32 {
		return int32(uint32(text[at]) | uint32(text[at+1])<<8 | uint32(text[at+2])<<16 | uint32(text[at+3])<<24)
	}
	for at := 0; at+4 <= len(text); {
		n := int(le(at))
		units := make([]uint16, n)
		for u := range units {
			units[u] = uint16(text[at+4+2*u]) | uint16(text[at+5+2*u])<<8
		}
		name := string(utf16.Decode(units))
		at += 4 + 4*((n+1)/2)
		count := int(le(at))
		at += 4
		for range count {
			l := LockInfo{Name: name, Shared: le(at+4) == proto.LockShared, ClientID: strconv.Itoa(int(le(at)))}
			if le(at+8) == proto.LockGranted {
				q.Held = append(q.Held, l)
			} else {
				q.Pending = append(q.Pending, l)
			}
			at += 12
		}
	}
	return q, nil
}

// namesAt is the first slot of the registry's name table, which holds the
// lock table.
func namesAt() int32 { return int32(registry.i32.Index(int(proto.RegistryNames)).Int()) }

// guarded runs op, a call of the lock table that takes its guard, until the
// guard is free: while another agent holds it (for one call), this
// goroutine sleeps while the guard's slot holds that agent's id, WATCH_MS
// at most (the core takes over the guard of an agent that ended).
func guarded(op func() (r, slot, id int32)) int32 {
	for {
		r, slot, id := op()
		if r != resultBusy {
			return r
		}
		sleepWhileHeld(slot, id)
	}
}

// sleepWhileHeld sleeps while the registry's slot holds agent id (a guard
// or a claim that agent holds for one call), WATCH_MS at most: then the
// core asks whether the agent ended, and takes over what it held.
func sleepWhileHeld(slot, id int32) {
	for t0 := time.Now(); registry.i32.Index(int(slot)).Int() == int(id) && time.Since(t0) < proto.WatchMS*time.Millisecond; {
		time.Sleep(time.Millisecond)
	}
}
