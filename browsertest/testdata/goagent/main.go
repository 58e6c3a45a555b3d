//go:build js && wasm

// Command goagent is the Go side of browsertest's goagent_test.go: a Go
// program in a worker that joins the page's registry (sabsync.Join) or not,
// and then holds, waits or deadlocks with JavaScript agents. It reads its
// task from globalThis.goagent, which testdata/go-agent-worker.js sets from
// the page's message:
//
//	{ registry: sabmutex.forWorker()'s object, join: bool, name,
//	  memory: SharedArrayBuffer, role, kind, timeoutMs, extra: bool,
//	  names: [string], report: function }
//
// and tells the page how it goes with report({ ... }), each time with its
// agent id (id) and the registry's clock (atMs: performance.timeOrigin +
// performance.now()). The roles:
//
//	hold      takes kind at slot 0 and reports { held: true }, then holds it
//	          until its worker is terminated. kind: "Mutex"; "RWMutex" (the
//	          write lock); "RWMutex read" (two read locks); "Once" (runs
//	          Do's f, which never returns); "Channel" (a Channel of capacity
//	          3 and 16-byte messages at slot 0, empty, whose cell at
//	          position 0 it claims as a sender does, and holds mid-copy:
//	          the stamp names it, then the tail moves, internal/core/chan.go); "Cond" (locks the Mutex at slot 4 and wakes every
//	          waiter of the Cond at slot 0, whose relock then waits for it)
//	wait      reports { waiting: true }, then locks the Mutex at slot 0:
//	          joined, with Lock(); not joined, with a timeout of timeoutMs.
//	          Reports { took, died: PreviousHolderDied() }
//	deadlock  locks the Mutex A at slot 0, reports { held: true }, waits
//	          until the page sets slot 8 (a JavaScript agent then holds the
//	          Mutex B at slot 2), then locks B with no deadline (a wait with
//	          one is never told of a deadlock: it ends at its deadline), its
//	          context cancelled after timeoutMs if given, and adds 1 to slot
//	          9 when that wait ends. Then it releases what it holds. Reports
//	          { took, err (its text), deadlock (it is a
//	          *sabsync.DeadlockError) }. With extra, a second goroutine
//	          sleeps in a loop all along, so that the wait for B does not
//	          block the whole program (sabsync's blockingNow)
//	          With names ([A, B]), A and B are sabsync.NamedMutex(A) and
//	          NamedMutex(B) instead
//	snapshot  waits (up to 5 s) until sabsync.Snapshot() shows an agent
//	          waiting (not joined: at once, as it is nil), reports { snapshot: JSON of Snapshot() }, then locks
//	          the Mutex at slot 0 (Lock()) and reports { took }; with
//	          names ([A]), NamedMutex(A) instead
//	request   n times, sabsync.Request(ctx, "shared counter", nil, fn) (in
//	          the lock request queue of locks.request's), fn adding 1 to slot 0 as
//	          a separate load and store (another goroutine runs between
//	          them); then tries NamedMutex("named by js"), which the page
//	          holds; reports { done, namedHeld: its TryLock failed }
//	order     locks the Mutexes of locks ([{ index, name }], name optional:
//	          sabsync.Named) one after the other with Lock(), at the line
//	          marked "the order's site" (debug_go_test.go looks for it), then
//	          unlocks them, and reports { done: true }; a registry in debug
//	          mode records the orders
//
// After its last report the program stays, as a worker's program may,
// until its worker is terminated. A panic ends it: the worker script
// reports { error }.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"syscall/js"
	"time"

	"github.com/sabmutex/sabmutex/internal/proto"
	"github.com/sabmutex/sabmutex/sabsync"
)

var (
	cfg  = js.Global().Get("goagent")
	perf = js.Global().Get("performance")
)

func clockMs() float64 { return perf.Get("timeOrigin").Float() + perf.Call("now").Float() }

// report posts m to the page, with this program's id and the time.
func report(m map[string]any) {
	m["id"] = sabsync.AgentID()
	m["atMs"] = clockMs()
	cfg.Call("report", m)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func main() {
	if cfg.Get("join").Bool() {
		if err := sabsync.Join(cfg.Get("registry"), cfg.Get("name").String()); err != nil {
			panic(err)
		}
	}
	mem := cfg.Get("memory")
	var timeout time.Duration
	if t := cfg.Get("timeoutMs"); t.Truthy() {
		timeout = time.Duration(t.Int()) * time.Millisecond
	}
	switch role := cfg.Get("role").String(); role {
	case "hold":
		hold(mem, cfg.Get("kind").String())
	case "wait":
		m := must(sabsync.NewMutex(mem, 0))
		report(map[string]any{"waiting": true})
		took := true
		if cfg.Get("join").Bool() {
			m.Lock()
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			took = m.LockContext(ctx) == nil
			cancel()
		}
		died := m.PreviousHolderDied()
		if took {
			m.Unlock()
		}
		report(map[string]any{"took": took, "died": died})
	case "deadlock":
		deadlock(mem, timeout, cfg.Get("extra").Bool())
	case "snapshot":
		snapshot(mem)
	case "order":
		order(mem, cfg.Get("locks"))
	case "request":
		request(mem, cfg.Get("n").Int())
	default:
		panic("goagent: no role " + role)
	}
	select {} // until terminate(), as a worker's program may
}

// hold takes kind at slot 0 and holds it until the worker ends.
func hold(mem js.Value, kind string) {
	held := func() {
		report(map[string]any{"held": true})
		select {} // until terminate(): the program's life lock stays held
	}
	switch kind {
	case "Mutex":
		must(sabsync.NewMutex(mem, 0)).Lock()
	case "RWMutex":
		must(sabsync.NewRWMutex(mem, 0)).Lock()
	case "RWMutex read":
		rw := must(sabsync.NewRWMutex(mem, 0))
		rw.RLock()
		rw.RLock()
	case "Once":
		must(sabsync.NewOnce(mem, 0)).Do(held)
		panic("goagent: the Once's f returned")
	case "Channel":
		must(sabsync.NewChannel(mem, 0, 3, 16)) // set up as a user's would be (114 slots)
		m := must(sabsync.NewMutex(mem, 120))   // (its holder slot: this agent's id)
		m.Lock()
		i32, atomics := js.Global().Get("Int32Array").New(mem), js.Global().Get("Atomics")
		// The claimer in the stamp (channel.mark): this agent's number in
		// the registry, its id less the registry's base; joined to none,
		// a number no record has.
		mark := int32(proto.ChanUnnamed)
		if cfg.Get("join").Bool() {
			reg := cfg.Get("registry")
			if r := reg.Get("registry"); r.Truthy() {
				reg = r
			}
			base := atomics.Call("load", js.Global().Get("Int32Array").New(reg), proto.RegistryBase).Int()
			mark = int32(atomics.Call("load", i32, 121).Int() - base)
		}
		atomics.Call("store", i32, proto.ChanSlots, mark<<proto.ChanOwnerShift)
		atomics.Call("store", i32, proto.ChanTail, 1) // the tail 0 -> 1: claimed, as mid-copy
	case "Cond":
		m := must(sabsync.NewMutex(mem, 4))
		c := must(sabsync.NewCond(mem, 0, m))
		m.Lock() // the waiter unlocked it in its wait
		c.Broadcast()
	default:
		panic("goagent: no kind " + kind)
	}
	held()
}

// deadlock holds A, then waits for B (see the package doc).
func deadlock(mem js.Value, timeout time.Duration, extra bool) {
	if extra {
		go func() {
			for {
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	a, b := mutexAt(mem, 0, 0), mutexAt(mem, 2, 1)
	a.Lock()
	report(map[string]any{"held": true})
	w, atomics := js.Global().Get("Int32Array").New(mem), js.Global().Get("Atomics")
	for atomics.Call("load", w, 8).Int() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	startMs := clockMs()
	ctx, cancel := context.WithCancel(context.Background())
	if timeout > 0 {
		// A cancel, not a deadline: the wait stays one that could block
		// the program for good, which only the rule of goroutines (or not
		// joining) keeps from being told. (AfterFunc starts its goroutine
		// only when it fires.)
		time.AfterFunc(timeout, cancel)
	}
	err := b.LockContext(ctx)
	cancel()
	endMs := clockMs()
	var dl *sabsync.DeadlockError
	r := map[string]any{"took": err == nil, "deadlock": errors.As(err, &dl), "startMs": startMs, "endMs": endMs}
	atomics.Call("add", w, 9, 1)
	if err != nil {
		r["err"] = err.Error()
		a.Unlock()
	} else {
		b.Unlock()
		a.Unlock()
	}
	report(r)
}

// mutexAt is the Mutex at slot index of mem, or with names (the task's
// names: [A, B]) the Mutex named names[i] (sabsync.NamedMutex).
func mutexAt(mem js.Value, index, i int) *sabsync.Mutex {
	if names := cfg.Get("names"); names.Truthy() {
		return must(sabsync.NamedMutex(names.Index(i).String()))
	}
	return must(sabsync.NewMutex(mem, index))
}

// snapshot reports Snapshot() once it shows a wait, then waits itself.
func snapshot(mem js.Value) {
	m := mutexAt(mem, 0, 0)
	var s []sabsync.AgentState
	for until := time.Now().Add(5 * time.Second); time.Now().Before(until); time.Sleep(10 * time.Millisecond) {
		s = sabsync.Snapshot()
		if s == nil || waits(s) { // nil: not joined
			break
		}
	}
	report(map[string]any{"snapshot": string(must(json.Marshal(s)))})
	m.Lock()
	died := m.PreviousHolderDied()
	m.Unlock()
	report(map[string]any{"took": true, "died": died})
}

func waits(s []sabsync.AgentState) bool {
	for _, a := range s {
		if a.Waiting != nil {
			return true
		}
	}
	return false
}

// order locks the Mutexes of locks in their order, then unlocks them.
func order(mem js.Value, locks js.Value) {
	ms := make([]*sabsync.Mutex, locks.Length())
	for i := range ms {
		l := locks.Index(i)
		var opts []sabsync.Option
		if name := l.Get("name"); !name.IsUndefined() {
			opts = append(opts, sabsync.Named(name.String()))
		}
		ms[i] = must(sabsync.NewMutex(mem, l.Get("index").Int(), opts...))
	}
	for _, m := range ms {
		m.Lock() // the order's site
	}
	for i := len(ms) - 1; i >= 0; i-- {
		ms[i].Unlock()
	}
	report(map[string]any{"done": true})
}

// request is the role request (the package doc).
func request(mem js.Value, n int) {
	i32 := js.Global().Get("Int32Array").New(mem)
	atomics := js.Global().Get("Atomics")
	go func() { // (another goroutine, so that Gosched has someone to run)
		for {
			time.Sleep(time.Millisecond)
		}
	}()
	for range n {
		must(0, sabsync.Request(context.Background(), "shared counter", nil, func() error {
			v := atomics.Call("load", i32, 0).Int()
			runtime.Gosched()
			atomics.Call("store", i32, 0, v+1)
			return nil
		}))
	}
	m := must(sabsync.NamedMutex("named by js"))
	report(map[string]any{"done": true, "namedHeld": !m.TryLock()})
}
