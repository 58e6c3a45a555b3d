//go:build js && wasm

package sabsync

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"syscall/js"
	"time"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// A Go program joins the registry of its page as a JavaScript worker's
// init({ ...forWorker(), name }) does: the registry itself (joining, the
// records, the watch) is the core's (internal/core/registry.go, watch.go);
// here is what only this host can do: hold the program's life lock (a Web
// Lock, through syscall/js, held until its worker ends) and tell the watch
// whether a wait blocks the whole program (blockingNow).

var (
	agentID  int32   // this program's agent id: what holder slots record (0: none yet)
	registry *memory // the registry joined (nil: none)
	watched  bool    // whether this program's waits are watched: it joined
)

// Join joins this Go program to the registry of the page that started it,
// under name (how messages and snapshots name it), as a JavaScript worker's
// init does. registry is the object sabmutex.forWorker() returned, posted
// to this program's worker ({ wasm, registry }, whole, or its registry
// field). Call it first: before this program makes any primitive or asks
// AgentID. Once it has returned, the program is an agent like any other:
// AgentID is the registry's id for it; when its worker ends, what it held
// is freed for the others within about 100 ms (and they are told:
// PreviousHolderDied); its waits that last are shown by Snapshot (here and
// in JavaScript), and a deadlock through them is named (see "Deadlocks" in
// the package doc).
//
// In Node.js, Deno and Bun (no Web Locks used), a program in a
// worker_thread is watched through its exit, which the JavaScript agent
// whose thread started it sees; on a main thread it joins unwatched: a
// unique id and a name, but its end is not learnt.
//
// A registry made in debug mode (init({ debug }) on its maker) puts the
// program in debug mode: see "Debug mode" in the package doc.
func Join(registry js.Value, name string) error {
	buffer := registry
	if registry.Type() == js.TypeObject && !isSharedBuffer(registry) {
		buffer = registry.Get("registry")
	}
	bytes := -1
	if isSharedBuffer(buffer) {
		bytes = buffer.Get("byteLength").Int()
	}
	// The name table after the registry, or after its debug area (jsglue/registry.js).
	names := 0
	if bytes >= int(proto.RegistrySlots)*4 {
		names = aLoad.Invoke(js.Global().Get("Int32Array").New(buffer), proto.RegistryNames).Int()
	}
	debugArea := names == int(proto.RegistrySlots+proto.DebugSlots)
	if names != int(proto.RegistrySlots) && !debugArea || bytes <= names*4 ||
		aLoad.Invoke(js.Global().Get("Int32Array").New(buffer), 0).Int() != int(proto.RegistryMagic) {
		return errors.New(proto.Message(proto.MsgRegistryExpected, "call", "Join", "got", describeValue(registry)))
	}
	if agentID != 0 {
		return errors.New("sabmutex: Join must come first: this program has already made a primitive or asked AgentID (it then has an id of its own); call Join before both")
	}
	if err := join(buffer, name); err != nil {
		return err
	}
	if debugArea {
		startDebug()
	}
	return nil
}

func join(buffer js.Value, name string) error {
	m := register(buffer, 0)
	// The life lock's name: drawn at random, as the glue's (jsglue/registry.js);
	// in a server runtime's worker_thread, with its thread id, by which the
	// JavaScript agent whose thread started it marks it ended when it
	// exits (jsglue/registry.js, watchThreads).
	lifeLock := fmt.Sprintf("sabmutex life %x", randomBytes(16))
	thread, inThread := workerThread()
	if inThread {
		lifeLock = fmt.Sprintf("sabmutex life t%d %x", thread, randomBytes(12))
	}
	id := core.JoinRegistry(m.mem, name, lifeLock)
	switch {
	case id == proto.ResultTooMany:
		return errors.New(proto.MsgTooManyJoins)
	case id <= 0:
		return fmt.Errorf("sabmutex: internal error: joining the registry failed (%d)", id)
	}
	registry = m // kept for the program's life: the watch reads it
	core.Announce(inThread || holdLifeLock(lifeLock))
	if core.SetAgent(id, true) != resultOK {
		return errors.New("sabmutex: internal error: the core refused its agent id")
	}
	agentID, watched = id, true
	return nil
}

// workerThread is this program's thread id where it runs in a server
// runtime's worker_thread (Node.js 20.16+, Deno, Bun: its
// node:worker_threads, through process.getBuiltinModule), whose end the
// thread that started it sees; false elsewhere (a browser, a main thread).
func workerThread() (int, bool) {
	p := js.Global().Get("process")
	if !p.Truthy() || p.Get("getBuiltinModule").Type() != js.TypeFunction {
		return 0, false
	}
	wt := p.Call("getBuiltinModule", "node:worker_threads")
	if !wt.Truthy() || wt.Get("isMainThread").Bool() || wt.Get("threadId").Type() != js.TypeNumber {
		return 0, false
	}
	id := wt.Get("threadId").Int()
	return id, id > 0 && id < 1e8 // (the name's room: 48 bytes)
}

// holdLifeLock requests the Web Lock name and holds it until this
// program's worker ends; it returns true once it is held, false where
// there are no Web Locks, or where they are not used: in Deno (and Bun or
// Node.js, should they get them), a lock held for the worker's life keeps
// it from ever ending by itself (jsglue/registry.js, webLocks).
func holdLifeLock(name string) bool {
	nav := js.Global().Get("navigator")
	if !nav.Truthy() || !nav.Get("locks").Truthy() || js.Global().Get("Deno").Type() == js.TypeObject {
		return false
	}
	if p := js.Global().Get("process"); p.Truthy() && p.Get("versions").Truthy() && p.Get("versions").Get("node").Type() == js.TypeString {
		return false
	}
	granted := make(chan bool, 1)
	hold := js.FuncOf(func(js.Value, []js.Value) any {
		calledBack()
		granted <- true
		return js.Global().Get("Promise").New(js.FuncOf(func(js.Value, []js.Value) any { return nil })) // never settles
	})
	refused := js.FuncOf(func(js.Value, []js.Value) any {
		calledBack()
		granted <- false
		return nil
	})
	nav.Get("locks").Call("request", name, hold).Call("catch", refused)
	return <-granted
}

// ensureAgent gives a program that did not join its id: random, as that of
// a JavaScript agent that joined no registry, so unlikely to meet another.
func ensureAgent() {
	if agentID != 0 {
		return
	}
	id := int32(binary.LittleEndian.Uint32(randomBytes(4))%uint32(proto.MaxAgentID)) + 1
	if core.SetAgent(id, false) != resultOK {
		panic("sabmutex: internal error: the core refused its agent id")
	}
	agentID = id
}

// randomBytes is n bytes from crypto.getRandomValues, called directly:
// crypto/rand's first use slows a Go program's start
// (docs/decisions/start-up.md).
func randomBytes(n int) []byte {
	a := js.Global().Get("Uint8Array").New(n)
	js.Global().Get("crypto").Call("getRandomValues", a)
	b := make([]byte, n)
	js.CopyBytesToGo(b, a)
	return b
}

// AgentID is this program's agent id, as holder slots record it (what
// sabmutex.agentId is in JavaScript): the registry's, after Join; else
// drawn at random the first time a primitive or AgentID needs it.
func AgentID() int32 {
	ensureAgent()
	return agentID
}

// blockingNow reports whether a wait of this program blocks all of it, as
// the watch's deadlock rule needs (internal/core/watch.go): whether the
// goroutine that waits is the program's only one (sabsync's own aside).
// Then nothing in the program can release what it holds until the wait
// ends, as for a JavaScript worker in Atomics.wait. With other goroutines,
// one of them might, so no deadlock through this program is named: its
// waits wait on (their ctx or timeouts end them). What Go cannot see: a
// js.Func called from JavaScript while the only goroutine waits runs Go
// code that could release; a program that releases from such callbacks
// must not rely on the deadlock's error.
func blockingNow() bool { return runtime.NumGoroutine()-helperGoroutines-eventGoroutine == 1 }

// helperGoroutines counts sabsync's own goroutines that are alive (those
// that pass on a wake-up after an abandoned wait: wait.go's sleep).
var helperGoroutines int

// eventGoroutine is 1 once the Go runtime has the goroutine through which
// JavaScript calls into Go (runtime/lock_js.go's handleAsyncEvent: made
// the first time the program waits for an event, alive from then on, and
// counted by runtime.NumGoroutine), else 0. It runs only js.Func
// callbacks, so it cannot release anything of its own. calledBack, in each
// of sabsync's callbacks, sets it: none can run before it exists.
var eventGoroutine int

func calledBack() { eventGoroutine = 1 }

// DeadlockError is the error of a wait that closed a cycle of blocked
// agents: the wait ended having taken nothing; Error names the agents and
// what each waits for.
type DeadlockError struct{ message string }

func (e *DeadlockError) Error() string { return "sabmutex: " + e.message }

// deadlockMessage is the message of the deadlock this program's last wait
// was told of (a DeadlockError's), worded from members, the core's
// (core.DeadlockMembers: a JSON array of rows, columns proto.Deadlock*), as
// proto.MsgDeadlock says, and the debug area's where (debugWhere); name
// names a primitive by name from its index (nameAt), label an agent.
func deadlockMessage(members []byte, name func(index int32) (string, bool), label func(id int32) string) string {
	var rows [][proto.DeadlockColumns]any
	if err := json.Unmarshal(members, &rows); err != nil {
		panic("sabmutex: internal error: the core's deadlock: " + err.Error())
	}
	texts, ids := make([]string, len(rows)), make([]int32, len(rows))
	for i, m := range rows {
		num := func(j int) int32 { return int32(m[j].(float64)) }
		typ, index, mode := m[proto.DeadlockType].(string), num(proto.DeadlockIndex), m[proto.DeadlockMode].(string)
		if mode != "" {
			mode = proto.Message(proto.MsgMode, "mode", mode)
		}
		primitive := proto.Message(proto.MsgPrimitiveAt, "type", typ, "mode", mode, "index", index)
		if num(proto.DeadlockInRegistry) == 1 {
			if n, ok := name(index); ok {
				primitive = proto.Message(proto.MsgPrimitiveNamed, "type", typ, "name", jsonQuote(n), "mode", mode)
			}
		}
		ids[i] = num(proto.DeadlockAgent)
		texts[i] = proto.Message(proto.MsgDeadlockMember, "agent", label(ids[i]), "primitive", primitive, "holder", label(num(proto.DeadlockHolder)))
	}
	return proto.Message(proto.MsgDeadlock, "members", strings.Join(texts, "; ")) + debugWhere(ids)
}

// AgentState is one agent of a Snapshot.
type AgentState struct {
	AgentID int32
	Name    string
	Alive   bool
	Waiting *WaitState // nil: in no wait that has lasted 50 ms (WATCH_MS)
	Holding []Hold     // in debug mode: what it holds, and where it took it
}

// Hold is a lock an agent holds, as Snapshot shows it in debug mode.
type Hold struct {
	Lock    string // how messages name it: the Mutex "accounts", the Mutex at index 4
	Read    bool   // a read lock of an RWMutex
	At      string // where it was taken: the caller's frames
	SinceMs int32  // when, in ms on the registry's clock
}

// WaitState is the wait an agent is in, once it has lasted WATCH_MS (an
// agent in several waits shows the first to last).
type WaitState struct {
	Kind string // what it waits for: "Mutex", "RWMutex (read)", "Channel (send)", ...
	// Name: its primitive's name, for one made by name (NamedMutex,
	// Request's lock; Mutex.named in JavaScript), with Named true ("" is a
	// name too). A JavaScript name's lone surrogates read as U+FFFD.
	Name   string
	Named  bool
	Index  int32         // the primitive's first slot (for one by name, in the registry's memory)
	Holder int32         // the agent it waits for (0: none or not known)
	Since  time.Duration // how long it has waited
	// Blocked: its agent can run nothing else until the call returns (a
	// worker's blocking call; a Go program's only goroutine), deadline or
	// not. (Only a blocked wait without a deadline can be in a deadlock.)
	Blocked bool
	// Deadline: when the wait ends at the latest (zero: it has none).
	Deadline time.Time
	At       string // in debug mode: where it waits
}

// Snapshot is who waits for whom, as this program's registry says, as
// sabmutex.snapshot() is in JavaScript: every agent that joined it (Go
// programs too), in join order. nil before Join.
func Snapshot() []AgentState {
	if registry == nil {
		return nil
	}
	now, rows := time.Now(), snapshotRows() // (now: when the core's deadlines are counted from)
	out := make([]AgentState, len(rows))
	for i, r := range rows {
		num := r.num
		id := num(proto.SnapshotAgent)
		out[i] = AgentState{AgentID: id, Name: r[proto.SnapshotName].(string), Alive: num(proto.SnapshotAlive) == 1}
		holds, at := debugHolds(id)
		out[i].Holding = holds
		if kind := r[proto.SnapshotKind].(string); kind != "" {
			w := &WaitState{Kind: kind, Index: num(proto.SnapshotIndex), Holder: num(proto.SnapshotHolder), At: at,
				Since: time.Duration(num(proto.SnapshotSinceMS)) * time.Millisecond, Blocked: num(proto.SnapshotBlocked) == 1}
			if left := num(proto.SnapshotDeadlineInMS); left >= 0 {
				w.Deadline = now.Add(time.Duration(left) * time.Millisecond)
			}
			if num(proto.SnapshotInRegistry) == 1 {
				w.Name, w.Named = nameAt(w.Index)
			}
			out[i].Waiting = w
		}
	}
	return out
}

// snapshotRow is one agent of the core's snapshot (internal/core/watch.go's
// snapshotJSON), its columns proto.Snapshot*.
type snapshotRow [proto.SnapshotColumns]any

func (r *snapshotRow) num(j int) int32 { return int32(r[j].(float64)) }

func snapshotRows() []snapshotRow {
	var rows []snapshotRow
	if err := json.Unmarshal(core.SnapshotJSON(), &rows); err != nil {
		panic("sabmutex: internal error: the core's snapshot: " + err.Error())
	}
	return rows
}
