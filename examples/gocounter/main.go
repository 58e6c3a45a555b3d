//go:build js && wasm

// Command gocounter is a Go worker that adds to a counter in a
// SharedArrayBuffer under a sabmutex Mutex, beside JavaScript workers and the
// page that lock the same mutex with the JavaScript API: one program per
// worker, built with the standard toolchain and run with Go's own
// wasm_exec.js (web/static/go-worker.js loads it in a browser,
// nodetest/run.mjs in Node.js worker_threads).
//
// It reads what to do from globalThis.gocounter, which its loader sets:
//
//	{ memory: SharedArrayBuffer, mutex: slot, counter: slot, n: increments,
//	  lock: false to skip the mutex (which loses updates), done: function,
//	  syncMutex: true to use Go's own sync.Mutex instead (for make bench:
//	  it cannot be shared, so only alone),
//	  registry: sabmutex.forWorker()'s object, to join the page's registry
//	  (optional), name: this agent's name there }
//
// and calls done(agentId, worked, ms) when it has made its n increments,
// ms the milliseconds they took.
package main

import (
	"sync"
	"syscall/js"

	"github.com/sabmutex/sabmutex/sabsync"
)

func main() {
	cfg := js.Global().Get("gocounter")
	// #region join
	if registry := cfg.Get("registry"); registry.Truthy() {
		// First, before any primitive: this program is then an agent of the
		// page's registry (its end frees what it holds; snapshot() names it).
		if err := sabsync.Join(registry, cfg.Get("name").String()); err != nil {
			panic(err)
		}
	}
	// #endregion
	// #region go
	mem := cfg.Get("memory") // a SharedArrayBuffer (or an Int32Array over one) the page posted
	m, err := sabsync.NewMutex(mem, cfg.Get("mutex").Int())
	if err != nil {
		panic(err) // not shared memory, a bad index
	}
	// m is a sync.Locker: m.Lock(), m.Unlock(); m.LockContext(ctx) ends the wait at ctx's end
	// #endregion
	counter := js.Global().Get("Int32Array").New(mem)
	at, n, lock := cfg.Get("counter").Int(), cfg.Get("n").Int(), cfg.Get("lock").Bool()
	var l sync.Locker = m
	if cfg.Get("syncMutex").Truthy() {
		l = new(sync.Mutex)
	}
	perf := js.Global().Get("performance")
	start := perf.Call("now").Float()
	work := 0
	for range n {
		if lock {
			l.Lock()
		}
		// A read, a little work, a write: without the lock, agents that run
		// at once overwrite each other's increments.
		v := counter.Index(at).Int()
		for k := range 30 {
			work += k
		}
		counter.SetIndex(at, v+1)
		if lock {
			l.Unlock()
		}
	}
	cfg.Call("done", sabsync.AgentID(), work > 0, perf.Call("now").Float()-start)
}
