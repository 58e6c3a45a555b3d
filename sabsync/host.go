//go:build js && wasm

package sabsync

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// The core (internal/core) reaches shared memory through syscall/js here: Go's
// own linear memory cannot be shared, so every word lives in the user's
// SharedArrayBuffer and each atomic operation is a call of Atomics. Memory
// handles name the buffers that some primitive uses (an Int32Array over each
// whole buffer); see register for when a handle is freed and reused.
var (
	atomics   = js.Global().Get("Atomics")
	aLoad     = atomics.Get("load")
	aStore    = atomics.Get("store")
	aCAS      = atomics.Get("compareExchange")
	aWait     = atomics.Get("wait")
	aNotify   = atomics.Get("notify")
	waitAsync = atomics.Get("waitAsync") // undefined where the engine lacks it
	perf      = js.Global().Get("performance")
)

// The buffers that primitives use, by handle (see register). register and
// the cleanups, which run on a goroutine of their own, change the table
// under memories; the host's functions (init) read arrays[h] without it, as
// js/wasm runs one goroutine at a time and the entry of a handle in use
// never changes.
var (
	memories    sync.Mutex
	buffers     []js.Value // handle -> SharedArrayBuffer (undefined: free)
	arrays      []js.Value // handle -> Int32Array over the whole buffer (undefined: free)
	users       []int      // handle -> primitives made over it and not yet collected
	freeHandles []int32    // handles whose users are 0, for the next buffer

	// handleOf finds a buffer's handle (SharedArrayBuffer -> handle), for
	// each handle in use.
	handleOf = js.Global().Get("Map").New()
)

func init() {
	core.SetHost(core.Host{
		Load:  func(mem, i int32) int32 { return int32(aLoad.Invoke(arrays[mem], i).Int()) },
		Store: func(mem, i, v int32) { aStore.Invoke(arrays[mem], i, v) },
		CompareExchange: func(mem, i, old, new int32) int32 {
			return int32(aCAS.Invoke(arrays[mem], i, old, new).Int())
		},
		Wait: func(mem, i, expected int32, timeoutMs float64) int32 {
			return waitResults[aWait.Invoke(arrays[mem], i, expected, timeoutMs).String()]
		},
		Notify: func(mem, i, count int32) int32 {
			n := js.ValueOf(count)
			if count < 0 {
				n = js.Global().Get("Infinity")
			}
			return int32(aNotify.Invoke(arrays[mem], i, n).Int())
		},
		Grow:         grow,
		NowMs:        nowMs,
		TimeOriginMs: func() float64 { return perf.Get("timeOrigin").Float() },
	})
}

// grow is the core's Grow (the lock request queues' heap, under their
// guard: internal/core/lockq.go): the array of memory mem made to reach
// slots, its buffer grown first if it is shorter (a growable buffer, as
// the glue's registry is), and the registry's memory given the new array;
// as jsglue/imports.js's memGrow.
func grow(mem, slots int32) int32 {
	memories.Lock()
	defer memories.Unlock()
	a := arrays[mem]
	if n := int32(a.Get("length").Int()); n >= slots {
		return n
	}
	b := buffers[mem]
	if bytes := b.Get("byteLength").Int(); bytes < 4*int(slots) {
		most := b.Get("maxByteLength").Int()
		if !b.Get("growable").Truthy() || most < 4*int(slots) {
			return int32(a.Get("length").Int())
		}
		to := min(most, (max(4*int(slots), bytes+bytes/2)+65535)/65536*65536)
		func() {
			defer func() { recover() }() // (a RangeError: the engine could not reserve it)
			b.Call("grow", to)
		}()
	}
	arrays[mem] = js.Global().Get("Int32Array").New(b, 0, b.Get("byteLength").Int()>>2)
	if registry != nil && registry.mem == mem {
		registry.i32 = arrays[mem]
	}
	return int32(arrays[mem].Get("length").Int())
}

func nowMs() float64 { return perf.Call("now").Float() }

// Atomics.wait's answers, as the core takes them.
var waitResults = map[string]int32{"ok": 0, "not-equal": 1, "timed-out": 2}

// slots is where a primitive lives: its memory (the handle and the
// Int32Array over it) and its first slot's index in it.
type slots struct {
	*memory
	at   int32
	what string // "the Mutex at index 4", or by name `the Mutex "db"`, for messages
}

// memory is one primitive's hold on a registered buffer: slotsOf makes one
// per primitive, and the handle is freed once every memory for it is
// collected. It is embedded by pointer so that every use of s.mem or s.i32
// reads through it: a goroutine that will still use the handle (one parked
// in a wait, say) keeps its memory reachable, even where nothing else holds
// the primitive any more. (Between such a read and the next time the
// goroutine blocks, nothing else runs on js/wasm, the cleanups' goroutine
// included, so a handle read just before a call of the core stays good
// through it.)
type memory struct {
	i32 js.Value
	mem int32
}

func isSharedBuffer(v js.Value) bool {
	return v.Type() == js.TypeObject && js.Global().Get("SharedArrayBuffer").Truthy() && v.InstanceOf(js.Global().Get("SharedArrayBuffer"))
}

// describeValue is how messages show what they were given: its type, or
// its constructor's name.
func describeValue(v js.Value) string {
	if v.Type() == js.TypeObject && v.Get("constructor").Truthy() {
		return "a " + v.Get("constructor").Get("name").String()
	}
	return v.Type().String()
}

// slotsOf checks mem (a SharedArrayBuffer or an Int32Array over one) and
// index for a typ of n slots as the JavaScript constructors do
// (jsglue/slots.js), with their messages, and registers the buffer.
func slotsOf(typ string, n int32, mem js.Value, index int) (slots, error) {
	article := "a " // a Mutex, a Once
	if typ == "RWMutex" {
		article = "an "
	}
	return slotsNeeded(typ, article+typ, typ+"Slots", int(n), mem, index)
}

// slotsNeeded is slotsOf where what needs the n slots, and how the API
// counts them, vary (a Channel's capacity and message size).
func slotsNeeded(typ, need, count string, n int, mem js.Value, index int) (slots, error) {
	var buffer js.Value
	var base, length int
	kind := "SharedArrayBuffer"
	switch {
	case mem.Type() == js.TypeObject && mem.InstanceOf(js.Global().Get("Int32Array")):
		if !isSharedBuffer(mem.Get("buffer")) {
			return slots{}, errors.New(proto.Message(proto.MsgMemoryNotShared, "kind", "Int32Array"))
		}
		buffer, base, length, kind = mem.Get("buffer"), mem.Get("byteOffset").Int()>>2, mem.Get("length").Int(), "Int32Array"
	case mem.Type() == js.TypeObject && isSharedBuffer(mem):
		buffer, base, length = mem, 0, mem.Get("byteLength").Int()>>2
	default:
		return slots{}, errors.New(proto.Message(proto.MsgMemoryKind, "got", describeValue(mem)))
	}
	if length < n {
		grow := proto.MsgMemoryLarger
		if kind == "SharedArrayBuffer" && buffer.Get("growable").Truthy() && buffer.Get("maxByteLength").Int() >= 4*n {
			grow = proto.Message(proto.MsgMemoryGrow, "max", buffer.Get("maxByteLength").Int())
		}
		return slots{}, errors.New(proto.Message(proto.MsgMemoryTooSmall, "need", need, "bytes", 4*n, "slots", n, "count", count,
			"kind", kind, "has", 4*length, "grow", grow))
	}
	// (index > length-n, not index+n > length: a huge index must not wrap.)
	if index < 0 || index > length-n {
		return slots{}, errors.New(proto.Message(proto.MsgIndexRange, "max", length-n, "count", count, "slots", n,
			"length", length, "bytes", 4*length, "got", index))
	}
	ensureAgent()
	m := register(buffer, base+index+n)
	return slots{memory: m, at: int32(base + index), what: whatAt(typ, buffer, base+index, index)}, nil
}

// whatAt is how messages name the typ at slot at of buffer (index, as the
// caller counts): by its name when it is a primitive by name (in the
// registry's memory, where only those live: `the Mutex "db"`, as the
// glue's names.js names them), else by its index.
func whatAt(typ string, buffer js.Value, at, index int) string {
	if registry != nil && buffer.Equal(registry.i32.Get("buffer")) {
		if name, ok := nameAt(int32(at)); ok {
			return "the " + typ + " " + jsonQuote(name)
		}
	}
	return fmt.Sprintf("the %s at index %d", typ, index)
}

// register gives buffer's handle to a new primitive, registering the buffer
// if no primitive uses it yet, and arranges for the handle's release once
// that primitive's memory is collected.
//
// The core names memories by handle, so a handle is freed only when no
// primitive over it can be used again (every memory for it collected), and
// only then reused, for another buffer. Without the release, a program that
// makes buffers as it goes would keep every one for ever.
func register(buffer js.Value, end int) *memory {
	memories.Lock()
	defer memories.Unlock()
	var h int32
	if v := handleOf.Call("get", buffer); !v.IsUndefined() {
		h = int32(v.Int())
		if arrays[h].Get("length").Int() < end {
			// A growable buffer grew: a new array over its length, not one
			// that tracks it, which engines run several times slower
			// (jsglue/slots.js, docs/decisions/growable-memory.md).
			// Primitives made before keep theirs, which covers their slots.
			arrays[h] = js.Global().Get("Int32Array").New(buffer, 0, buffer.Get("byteLength").Int()>>2)
		}
	} else {
		if n := len(freeHandles); n > 0 {
			h, freeHandles = freeHandles[n-1], freeHandles[:n-1]
		} else {
			h = int32(len(buffers))
			buffers, arrays, users = append(buffers, js.Undefined()), append(arrays, js.Undefined()), append(users, 0)
		}
		buffers[h] = buffer
		arrays[h] = js.Global().Get("Int32Array").New(buffer, 0, buffer.Get("byteLength").Int()>>2)
		handleOf.Call("set", buffer, h)
	}
	users[h]++
	m := &memory{i32: arrays[h], mem: h}
	runtime.AddCleanup(m, unregister, h)
	return m
}

// unregister is the cleanup of one primitive's memory: the last frees h.
func unregister(h int32) {
	memories.Lock()
	defer memories.Unlock()
	if users[h]--; users[h] > 0 {
		return
	}
	handleOf.Call("delete", buffers[h])
	buffers[h], arrays[h] = js.Undefined(), js.Undefined()
	freeHandles = append(freeHandles, h)
}
