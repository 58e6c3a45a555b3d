//go:build js && wasm

package sabsync

import (
	"errors"
	"sync"
	"unicode/utf16"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// Primitives by name, as Mutex.named(name) and friends in JavaScript: every
// agent of the registry this program joined (Join) gets the same one for
// the same name, from the registry's name table (internal/core/names.go), with
// no memory to pass. A name is the JavaScript string of the same UTF-16
// code units (Go's string is UTF-8: a name with a lone surrogate, which a
// JavaScript agent can give, has no Go spelling).

var named struct {
	sync.Mutex
	m map[string]namedEntry // this program's cache, by name
}

type namedEntry struct {
	kind, a, b int32
	p          any
}

var kindNames = [...]string{"", "Mutex", "RWMutex", "Semaphore", "Cond", "WaitGroup", "Barrier", "Once", "Channel"}

// lookupNamed is the primitive of kind named name: found in the cache, or
// in the table (created if given is set, with a and b), made by mk.
func lookupNamed(kind int32, name string, given bool, a, b int32, mk func(index int, a, b int32) (any, error)) (any, error) {
	named.Lock()
	defer named.Unlock()
	c, ok := named.m[name]
	if !ok {
		if registry == nil {
			return nil, errors.New("sabmutex: primitives by name live in the registry this program joined: call Join first")
		}
		table := int32(registry.i32.Index(int(proto.RegistryNames)).Int())
		units := utf16.Encode([]rune(name))
		var e int32
		for {
			var slot, id int32
			e, slot, id = core.NameLookup(registry.mem, table, kind, a, b, units, given)
			if e != resultBusy {
				break
			}
			sleepWhileHeld(slot, id) // (another agent is creating its entry: microseconds, unless it ended)
		}
		switch {
		case e == proto.ResultNone:
			return nil, errors.New(proto.Message(proto.MsgNameNone, "type", kindNames[kind], "name", jsonQuote(name), "params", kindParams[kind],
				"call", "Named"+kindNames[kind]+"(name, ...)"))
		case e == proto.ResultTooMany:
			return nil, errors.New(proto.MsgNamesFull)
		case e < 0:
			return nil, errors.New(proto.Message(proto.MsgNamesAnswered, "result", e))
		}
		i32 := registry.i32
		c = namedEntry{kind: int32(i32.Index(int(e + proto.NameKind)).Int()), a: int32(i32.Index(int(e + proto.NameA)).Int()), b: int32(i32.Index(int(e + proto.NameB)).Int())}
		if c.kind == kind {
			p, err := mk(i32.Index(int(e+proto.NamePrim)).Int(), c.a, c.b)
			if err != nil {
				return nil, err
			}
			c.p = p
		}
		if named.m == nil {
			named.m = map[string]namedEntry{}
		}
		named.m[name] = c
	}
	if c.kind != kind {
		return nil, errors.New(proto.Message(proto.MsgNameOtherKind, "name", jsonQuote(name), "is", namedWhat(c.kind, c.a, c.b), "type", kindNames[kind],
			"call", "Named"+kindNames[c.kind]))
	}
	if given && (a != c.a || b != c.b) {
		return nil, errors.New(proto.Message(proto.MsgNameOtherParams, "name", jsonQuote(name), "is", namedWhat(kind, c.a, c.b), "want", namedWhat(kind, a, b),
			"params", kindParams[kind]))
	}
	return c.p, nil
}

// kindParams is what a primitive by name of each kind is made with, for
// messages (as its Named function's parameters name it).
var kindParams = [...]string{"", "", "", "permits", "", "", "parties", "", "capacity and maxMessageBytes"}

// namedWhat is what an entry of kind made with a and b is, for messages:
// "a Semaphore of 3 permits", "a Mutex".
func namedWhat(kind, a, b int32) string {
	text := map[int32]string{proto.NameKindSemaphore: proto.MsgNamedSemaphore, proto.NameKindBarrier: proto.MsgNamedBarrier, proto.NameKindChannel: proto.MsgNamedChannel}[kind]
	if text == "" {
		text = proto.MsgNamedIs
	}
	return proto.Message(text, "type", kindNames[kind], "a", a, "b", b)
}

// namedAs is lookupNamed for a primitive of type P, as a *P.
func namedAs[P any](kind int32, name string, given bool, a, b int32, mk func(index int, a, b int32) (*P, error)) (*P, error) {
	p, err := lookupNamed(kind, name, given, a, b, func(i int, a, b int32) (any, error) { return mk(i, a, b) })
	if err != nil {
		return nil, err
	}
	return p.(*P), nil
}

// NamedMutex is the Mutex named name in the registry this program joined
// (Mutex.named(name) in JavaScript).
func NamedMutex(name string) (*Mutex, error) {
	return namedAs(proto.NameKindMutex, name, true, 0, 0, func(i int, a, b int32) (*Mutex, error) { return NewMutex(registry.i32, i, Named(name)) })
}

// NamedRWMutex is the RWMutex named name (RWMutex.named(name); the lock of
// locks.request(name) and of Request).
func NamedRWMutex(name string) (*RWMutex, error) {
	return namedAs(proto.NameKindRwmutex, name, true, 0, 0, func(i int, a, b int32) (*RWMutex, error) { return NewRWMutex(registry.i32, i, Named(name)) })
}

// NamedSemaphore is the Semaphore named name (Semaphore.named(name,
// permits)): permits 0 for one that exists.
func NamedSemaphore(name string, permits int64) (*Semaphore, error) {
	return namedAs(proto.NameKindSemaphore, name, permits != 0, int32(permits), 0, func(i int, a, b int32) (*Semaphore, error) {
		return NewSemaphore(registry.i32, i, int64(a)) // (its permits, as its entry records them)
	})
}

// NamedBarrier is the Barrier named name (Barrier.named(name, parties)):
// parties 0 for one that exists.
func NamedBarrier(name string, parties int) (*Barrier, error) {
	return namedAs(proto.NameKindBarrier, name, parties != 0, int32(parties), 0, func(i int, a, b int32) (*Barrier, error) {
		return NewBarrier(registry.i32, i, int(a))
	})
}

// NamedCond is the Cond named name (Cond.named(name)), whose waits hold l.
func NamedCond(name string, l *Mutex) (*Cond, error) {
	return namedAs(proto.NameKindCond, name, true, 0, 0, func(i int, a, b int32) (*Cond, error) { return NewCond(registry.i32, i, l) })
}

// NamedWaitGroup is the WaitGroup named name (WaitGroup.named(name)).
func NamedWaitGroup(name string) (*WaitGroup, error) {
	return namedAs(proto.NameKindWaitgroup, name, true, 0, 0, func(i int, a, b int32) (*WaitGroup, error) { return NewWaitGroup(registry.i32, i) })
}

// NamedOnce is the Once named name (Once.named(name)).
func NamedOnce(name string) (*Once, error) {
	return namedAs(proto.NameKindOnce, name, true, 0, 0, func(i int, a, b int32) (*Once, error) { return NewOnce(registry.i32, i, Named(name)) })
}

// NamedChannel is the Channel named name (Channel.named(name, { capacity,
// maxMessageBytes })): capacity 0 for one that exists.
func NamedChannel(name string, capacity, maxMessageBytes int) (*Channel, error) {
	return namedAs(proto.NameKindChannel, name, capacity != 0, int32(capacity), int32(maxMessageBytes), func(i int, a, b int32) (*Channel, error) {
		return NewChannel(registry.i32, i, int(a), int(b))
	})
}
