// Package sabsync is sabmutex for Go programs compiled to WebAssembly
// (GOOS=js GOARCH=wasm) and run in a browser's workers, its page or Node.js
// with Go's own wasm_exec.js: the same Mutex, RWMutex, Cond, WaitGroup,
// Once, Semaphore, Barrier and Channel as sabmutex's JavaScript API, on the
// same slots of a SharedArrayBuffer, so one Go program per worker,
// JavaScript workers and the page share them, exclude each other and pass
// messages.
//
//	mem := js.Global().Get("shared")   // a SharedArrayBuffer, or an Int32Array over one
//	m, err := sabsync.NewMutex(mem, 0) // the slots of new sabmutex.Mutex(sab, 0)
//	m.Lock()                           // a sync.Locker
//	defer m.Unlock()
//
// Go in the browser has no threads; several cores take one Go program per
// worker, over one buffer. Within a program, goroutines are to sabsync what
// async tasks are to a page: a goroutine that waits parks (on
// Atomics.waitAsync, through syscall/js), the program's other goroutines
// run meanwhile, and when none can, the program returns to the JavaScript
// event loop until a wake-up comes. So a goroutine may wait for a lock that
// another goroutine of the same program holds, on the page's main thread
// too; a goroutine that locks a Mutex it holds itself waits forever, as
// with sync.Mutex.
//
// The protocols are sabmutex's Go core (internal/core), linked into the
// program; it reaches the shared words through syscall/js, one call of
// Atomics per access, so a wait-free Lock+Unlock costs far more than the
// JavaScript API's, whose fast paths are inlined (make bench measures
// both). Misuse panics, as in sync (an Unlock of an unlocked Mutex), with
// the "sabmutex:" message the JavaScript API would throw; constructors
// return errors.
//
// Every call that takes a context.Context honours it as a JavaScript call
// honours an AbortSignal: a ctx done already wins over a ready primitive
// (the call returns ctx's error and takes nothing: a free Mutex stays free,
// a Channel keeps its message), and a ctx done while the call waits ends
// it the same way, unless what it waited for had already happened (a
// Barrier's generation completed with its arrival): then it returns that.
//
// A program joins its page's registry with Join (before it makes any
// primitive): AgentID is then the registry's id for it, its worker's end
// frees what it held for the other agents, JavaScript and Go, and
// Snapshot shows who waits for whom. A program that does not join draws a
// random agent id, as a JavaScript agent that joined no registry does.
//
// # Deadlocks
//
// A wait that closes a cycle of blocked agents (each waits for the next's
// lock, none can go on) ends, for the agent of the cycle with the lowest id,
// with a *DeadlockError (a panic from Lock and the other calls without a
// context), having taken nothing. A Go program's wait counts as blocked only
// while the goroutine that waits is the program's only one: with other
// goroutines alive, one of them might release, so sabsync never names such
// a cycle (the waits end at their context or timeout).
//
// # Debug mode
//
// A program that joins a registry made in debug mode (init({ debug }) on
// the page that made it) follows it: it records what each goroutine holds
// (a Mutex, an RWMutex to write or to read, a Once while its f runs) and
// waits for, where (the call's stack, trimmed to the user's frames: at most
// three, as "main.worker (main.go:42) < main.main (main.go:17)"), and the
// order in which each goroutine takes its locks, for the page's collector,
// which reports lock-order inversions across every agent of the registry,
// JavaScript and Go, and locks held too long (sabmutex.onReport; see
// "Debugging" in the README). Goroutines are a program's tasks: an
// acquisition that may wait (Lock, RLock, their Context forms, Do running
// f, a Cond's relock) records an order from what its own goroutine holds
// only; a try (TryLock, TryRLock) records none to what it takes. A lock is
// known across agents by its first slot and its buffer's length, or by a
// name given with Named, as JavaScript's { name: "accounts" } gives one:
// NewMutex(mem, 0, Named("accounts")) is, to the reports, the lock of new
// sabmutex.Mutex(sab, 0, { name: "accounts" }). Debug
// mode makes a Lock+Unlock far slower (most of it finding the goroutine's
// id, from runtime.Stack: docs/decisions/debug-mode.md); off, it costs
// nothing.
package sabsync
