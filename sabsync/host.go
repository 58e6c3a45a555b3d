//go:build js && wasm

package sabsync

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"syscall/js"

	"github.com/sabmutex/sabmutex/wasm/core"
)

// The core (wasm/core) reaches shared memory through syscall/js here: Go's
// own linear memory cannot be shared, so every word lives in the user's
// SharedArrayBuffer and each atomic operation is a call of Atomics. Memory
// handles name the buffers registered so far (an Int32Array over each whole
// buffer).
var (
	atomics   = js.Global().Get("Atomics")
	aLoad     = atomics.Get("load")
	aStore    = atomics.Get("store")
	aCAS      = atomics.Get("compareExchange")
	aWait     = atomics.Get("wait")
	aNotify   = atomics.Get("notify")
	waitAsync = atomics.Get("waitAsync") // undefined where the engine lacks it
	perf      = js.Global().Get("performance")

	buffers []js.Value // handle -> SharedArrayBuffer
	arrays  []js.Value // handle -> Int32Array over the whole buffer
)

// agentID is this program's agent id: what holder slots record.
var agentID int32

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
		NowMs: nowMs,
	})
	// Ids are random, as those of a JavaScript agent that joined no
	// registry (jsglue/registry.js): this program is given no registry to
	// count in.
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("sabmutex: no random agent id: " + err.Error())
	}
	id := int32(binary.LittleEndian.Uint32(b[:])%uint32(published["MAX_AGENT_ID"])) + 1
	if core.SetAgent(id, false) != resultOK {
		panic("sabmutex: internal error: the core refused its agent id")
	}
	agentID = id
}

// AgentID is this program's agent id, as holder slots record it (what
// sabmutex.agentId is in JavaScript).
func AgentID() int32 { return agentID }

func nowMs() float64 { return perf.Call("now").Float() }

// Atomics.wait's answers, as the core takes them.
var waitResults = map[string]int32{"ok": 0, "not-equal": 1, "timed-out": 2}

// slots is where a primitive lives: its memory's handle, the Int32Array
// over that memory, and its first slot's index in it.
type slots struct {
	i32     js.Value
	mem, at int32
	what    string // "the Mutex at index 4", for messages
}

// slotsOf checks mem (a SharedArrayBuffer or an Int32Array over one) and
// index as the JavaScript constructors do (jsglue/slots.js), with their
// messages, and registers the buffer.
func slotsOf(typ string, n int32, mem js.Value, index int) (slots, error) {
	isShared := func(v js.Value) bool {
		return js.Global().Get("SharedArrayBuffer").Truthy() && v.InstanceOf(js.Global().Get("SharedArrayBuffer"))
	}
	var buffer js.Value
	var base, length int
	switch {
	case mem.Type() == js.TypeObject && mem.InstanceOf(js.Global().Get("Int32Array")):
		if !isShared(mem.Get("buffer")) {
			return slots{}, fmt.Errorf("sabmutex: memory must be shared, but this Int32Array is over an ArrayBuffer; create it over a SharedArrayBuffer")
		}
		buffer, base, length = mem.Get("buffer"), mem.Get("byteOffset").Int()>>2, mem.Get("length").Int()
	case mem.Type() == js.TypeObject && isShared(mem):
		buffer, base, length = mem, 0, mem.Get("byteLength").Int()>>2
	default:
		return slots{}, fmt.Errorf("sabmutex: memory must be a SharedArrayBuffer or an Int32Array over one; got %s", mem.Type())
	}
	if index < 0 || index+int(n) > length {
		return slots{}, fmt.Errorf("sabmutex: index must be a whole number from 0 to %d, leaving %s.SLOTS (%d) int32 slots in a memory of %d; got %d", length-int(n), typ, n, length, index)
	}
	h := -1
	for i, b := range buffers {
		if b.Equal(buffer) {
			h = i
			break
		}
	}
	if h < 0 {
		h = len(buffers)
		buffers = append(buffers, buffer)
		arrays = append(arrays, js.Global().Get("Int32Array").New(buffer, 0, buffer.Get("byteLength").Int()>>2))
	}
	return slots{i32: arrays[h], mem: int32(h), at: int32(base + index), what: fmt.Sprintf("the %s at index %d", typ, index)}, nil
}
