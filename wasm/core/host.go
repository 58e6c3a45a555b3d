package core

// Host is how the core reaches shared memory and the clock: the Atomics
// operations the protocol needs, over int32 slots of memories named by
// handle. Go's own linear memory cannot be shared, so the words live in the
// user's SharedArrayBuffer and the host reaches them for the core:
//
//	sabmutex.wasm   imports that the glue implements (wasm/abi, jsglue/imports.js)
//	sabsync         syscall/js, in the user's own Go program (sabsync/host.go)
//	host tests      wazero imports over internal/futex (hosttest/host.go)
//
// Each field does what its namesake in Atomics does; the host sets them once,
// with SetHost, before any call.
type Host struct {
	Load            func(mem, index int32) int32
	Store           func(mem, index, value int32)
	CompareExchange func(mem, index, expected, replacement int32) int32
	// Wait is Atomics.wait: it sleeps while the slot holds expected, for at
	// most timeoutMs (+Inf: no limit), and returns waitOK (0) when a notify
	// woke it, 1 for not-equal, 2 for timed-out. Only a worker's blocking
	// wait (the export wait) calls it.
	Wait func(mem, index, expected int32, timeoutMs float64) int32
	// Notify wakes count sleepers (notifyAll: every one) and returns how many.
	Notify func(mem, index, count int32) int32
	// NowMs is performance.now(): milliseconds from a clock that never jumps.
	NowMs func() float64
	// Watch, where the host has it (the browser's glue: jsglue/watch.js),
	// is asked by a blocking wait each time it has slept watchMs through:
	// the wait's kind, its primitive (mem, index) and the agent whose
	// release it needs (0: none or not known). It answers watchGoOn,
	// watchDead (that agent has ended: the wait frees what it held) or
	// watchCycle (the wait closes a cycle of blocked agents: it ends with
	// resultCycle). A wait that asked once says watchEnd when it ends. nil:
	// waits sleep as long as their deadline allows and nobody watches.
	Watch func(kind, mem, index, holder int32) int32
}

var host Host

// SetHost gives the core its host.
func SetHost(h Host) { host = h }

func atomicLoad(mem, index int32) int32 { return host.Load(mem, index) }

func atomicStore(mem, index, value int32) { host.Store(mem, index, value) }

func atomicCompareExchange(mem, index, expected, replacement int32) int32 {
	return host.CompareExchange(mem, index, expected, replacement)
}

func atomicWait(mem, index, expected int32, timeoutMs float64) int32 {
	return host.Wait(mem, index, expected, timeoutMs)
}

func atomicNotify(mem, index, count int32) int32 { return host.Notify(mem, index, count) }

func monotonicNowMs() float64 { return host.NowMs() }
