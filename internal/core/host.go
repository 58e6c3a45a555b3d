package core

// Host is how the core reaches shared memory and the clock: the Atomics
// operations the protocol needs, over int32 slots of memories named by
// handle. A host, here and everywhere in sabmutex, is what runs the core
// (one of the three below): it gives the core these, and runs its waits'
// loops (waitrec.go). Go's own linear memory cannot be shared, so the words live in the
// user's SharedArrayBuffer and the host reaches them for the core:
//
//	sabmutex.wasm   imports that the glue implements (internal/abi, jsglue/imports.js)
//	sabsync         syscall/js, in the user's own Go program (sabsync/host.go)
//	core tests      wazero imports over internal/testing/futex (coretest/host_test.go)
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
	// Grow makes the memory's view in this agent reach slots int32 slots,
	// growing the memory first if it is shorter (a growable
	// SharedArrayBuffer's grow), and returns how many slots the view
	// reaches: fewer than slots when the memory cannot grow that far. Only
	// the lock request queues' heap calls it (lockq.go), under their guard.
	Grow func(mem, slots int32) int32
	// TimeOriginMs is performance.timeOrigin: when this agent's NowMs was
	// 0, in ms since the epoch, so that agents give times on one clock (the
	// registry's, registry.go).
	TimeOriginMs func() float64
}

var host Host

// SetHost gives the core its host.
func SetHost(h Host) { host = h }

// The wrappers are not inlined: in Go's WebAssembly an inlined call of a
// Host field grows each of the core's hundreds of call sites, and a direct
// call costs little beside the import it makes
// (docs/decisions/registry-in-go.md).

//go:noinline
func atomicLoad(mem, index int32) int32 { return host.Load(mem, index) }

//go:noinline
func atomicStore(mem, index, value int32) { host.Store(mem, index, value) }

//go:noinline
func atomicCompareExchange(mem, index, expected, replacement int32) int32 {
	return host.CompareExchange(mem, index, expected, replacement)
}

//go:noinline
func atomicWait(mem, index, expected int32, timeoutMs float64) int32 {
	return host.Wait(mem, index, expected, timeoutMs)
}

//go:noinline
func memGrow(mem, slots int32) int32 { return host.Grow(mem, slots) }

//go:noinline
func atomicNotify(mem, index, count int32) int32 { return host.Notify(mem, index, count) }

// atomicAdd adds delta to the slot and returns what it held before (a
// compare-and-swap loop: the imports have no fetch-and-add).
//
//go:noinline
func atomicAdd(mem, index, delta int32) int32 {
	for v := atomicLoad(mem, index); ; {
		got := atomicCompareExchange(mem, index, v, v+delta)
		if got == v {
			return v
		}
		v = got
	}
}

//go:noinline
func monotonicNowMs() float64 { return host.NowMs() }
