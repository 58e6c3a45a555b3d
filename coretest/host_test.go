// Package coretest runs sabmutex's Go core, compiled to WebAssembly, under
// wazero. wazero cannot run GOOS=js modules, so the same core package is built
// for GOOS=wasip1 as a reactor (-buildmode=c-shared); the host supplies the
// core's imports over internal/testing/futex, an emulation of Atomics on a Go-side
// buffer, and each goroutine drives an instance of its own, as each browser
// agent (page or worker) has one.
package coretest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/sabmutex/sabmutex/internal/testing/futex"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Results of the core's exports, and what its loops pass, as the core
// publishes them (internal/proto).
const (
	resultOK        = proto.ResultOK
	resultBusy      = proto.ResultBusy
	resultNotLocked = proto.ResultNotLocked
	resultDied      = proto.ResultHolderDied
	resultDeadlock  = proto.ResultDeadlock
	resultNotHolder = proto.ResultNotHolder
	resultTooMany   = proto.ResultTooMany
	resultNegative  = proto.ResultNegative
	resultLast      = proto.ResultLast
	resultRun       = proto.ResultRun
	resultCycle     = proto.ResultCycle
	resultNone      = proto.ResultNone
	waiterBlocking  = proto.WaiterBlocking
	watchMs         = float64(proto.WatchMS)
)

// Host is a wazero runtime with the core compiled once, and the memories its
// instances share. Handle h in the core's imports names memories[h].
type Host struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	epoch    time.Time

	mu       sync.RWMutex
	memories []*futex.Memory
	envs     sync.Map // api.Module -> Env, where not the default
	ids      sync.Map // api.Module -> its agent's id
	agents   int32    // ids handed out so far

	// Watched, if set before an agent is made, makes it join the host's
	// registry (Registry: made by the first agent that joins) and watch its
	// waits (internal/core/watch.go); else its id is the next of the host's and
	// nobody watches.
	Watched  bool
	Registry int32 // the registry's memory handle (-1: none yet)
	// Debug, if set with Watched, makes the registry in debug mode, as
	// init({ debug }) on its maker does: registrySlots+debugSlots long,
	// its debug area set up (DebugMake) before anyone joins.
	Debug bool
	// Fault, set before an agent is made, names the deliberate bug its
	// instance runs (internal/core/faults.go): for a host of the core built
	// with every fault (BuildCore(dir, true)).
	Fault string
}

// compilations is wazero's compilation cache, shared by every host of the
// process: a host compiles the module only where no other host has (the
// same bytes, compiled once). Each host keeps its own runtime, instances
// and memories.
var compilations = wazero.NewCompilationCache()

// BuildCore compiles ./wasm/wasip1 into dir and returns the file's path:
// the real core, or with faults the core that holds every deliberate bug
// (internal/core/faults.go, the build tag faults), each instance of it
// running the one its host names (Host.Fault; the real core if none).
func BuildCore(dir string, faults bool) (string, error) {
	out, args := filepath.Join(dir, "core-wasip1.wasm"), []string{"build", "-buildmode=c-shared"}
	if faults {
		out = filepath.Join(dir, "core-wasip1-faults.wasm")
		args = append(args, "-tags=faults")
	}
	cmd := exec.Command("go", append(args, "-o", out, "./wasm/wasip1")...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the wasip1 core: %v\n%s", err, b)
	}
	return out, nil
}

// NewHost compiles the module at path (unless a host of this process has:
// compilations).
func NewHost(ctx context.Context, path string) (*Host, error) {
	bin, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h := &Host{rt: wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(compilations)), epoch: time.Now(), Registry: -1}
	wasi_snapshot_preview1.MustInstantiate(ctx, h.rt)
	if err := h.exportImports(ctx); err != nil {
		return nil, err
	}
	if h.compiled, err = h.rt.CompileModule(ctx, bin); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *Host) Close(ctx context.Context) error { return h.rt.Close(ctx) }

// NewMemory registers a zeroed memory of n words and returns its handle.
func (h *Host) NewMemory(n int) (int32, *futex.Memory) {
	m := futex.New(n)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.memories = append(h.memories, m)
	return int32(len(h.memories) - 1), m
}

func (h *Host) memory(handle int32) *futex.Memory {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.memories[handle]
}

// Env is what the core's imports do for one agent: Atomics over memories
// named by handle, and a clock. The default, futexEnv, is real: shared
// futex.Memory buffers and the wall clock's monotonic reading. The explorer
// (explore_test.go) gives agents an Env that makes every call a scheduling
// point and keeps virtual time.
type Env interface {
	Load(mem, index int32) int32
	Store(mem, index, value int32)
	CompareExchange(mem, index, expected, replacement int32) int32
	Wait(mem, index, expected int32, timeoutMs float64) int32
	Notify(mem, index, count int32) int32
	Grow(mem, slots int32) int32
	NowMs() float64
}

type futexEnv struct{ h *Host }

func (e futexEnv) Load(mem, i int32) int32      { return e.h.memory(mem).Load(i) }
func (e futexEnv) Store(mem, i, v int32)        { e.h.memory(mem).Store(i, v) }
func (e futexEnv) NowMs() float64               { return e.h.NowMs() }
func (e futexEnv) Notify(mem, i, n int32) int32 { return e.h.memory(mem).Notify(i, n) }
func (e futexEnv) Grow(mem, n int32) int32      { return e.h.memory(mem).Grow(n) }
func (e futexEnv) CompareExchange(mem, i, old, new int32) int32 {
	return e.h.memory(mem).CompareExchange(i, old, new)
}
func (e futexEnv) Wait(mem, i, expected int32, timeoutMs float64) int32 {
	return e.h.memory(mem).Wait(i, expected, timeoutMs)
}

// envOf is the Env of the instance that made a call.
func (h *Host) envOf(m api.Module) Env {
	if e, ok := h.envs.Load(m); ok {
		return e.(Env)
	}
	return futexEnv{h}
}

// exportImports defines the module "sabmutex" that the core imports
// (internal/abi/imports.go), with the same signatures as the browser glue
// (jsglue/imports.js).
func (h *Host) exportImports(ctx context.Context) error {
	i32, f64 := api.ValueTypeI32, api.ValueTypeF64
	b := h.rt.NewHostModuleBuilder("sabmutex")
	def := func(name string, params, results []api.ValueType, f func(e Env, s []uint64)) {
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, m api.Module, s []uint64) { f(h.envOf(m), s) }), params, results).
			Export(name)
	}
	d := api.DecodeI32
	// func atomicLoad(mem, index int32) int32
	def("atomicLoad", []api.ValueType{i32, i32}, []api.ValueType{i32}, func(e Env, s []uint64) {
		s[0] = api.EncodeI32(e.Load(d(s[0]), d(s[1])))
	})
	// func atomicStore(mem, index, value int32)
	def("atomicStore", []api.ValueType{i32, i32, i32}, nil, func(e Env, s []uint64) {
		e.Store(d(s[0]), d(s[1]), d(s[2]))
	})
	// func atomicCompareExchange(mem, index, expected, replacement int32) int32
	def("atomicCompareExchange", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, func(e Env, s []uint64) {
		s[0] = api.EncodeI32(e.CompareExchange(d(s[0]), d(s[1]), d(s[2]), d(s[3])))
	})
	// func atomicWait(mem, index, expected int32, timeoutMs float64) int32
	def("atomicWait", []api.ValueType{i32, i32, i32, f64}, []api.ValueType{i32}, func(e Env, s []uint64) {
		s[0] = api.EncodeI32(e.Wait(d(s[0]), d(s[1]), d(s[2]), api.DecodeF64(s[3])))
	})
	// func atomicNotify(mem, index, count int32) int32
	def("atomicNotify", []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, func(e Env, s []uint64) {
		s[0] = api.EncodeI32(e.Notify(d(s[0]), d(s[1]), d(s[2])))
	})
	// func memGrow(mem, slots int32) int32
	def("memGrow", []api.ValueType{i32, i32}, []api.ValueType{i32}, func(e Env, s []uint64) {
		s[0] = api.EncodeI32(e.Grow(d(s[0]), d(s[1])))
	})
	// func monotonicNowMs() float64
	def("monotonicNowMs", nil, []api.ValueType{f64}, func(e Env, s []uint64) {
		s[0] = api.EncodeF64(e.NowMs())
	})
	// func timeOriginMs() float64
	def("timeOriginMs", nil, []api.ValueType{f64}, func(_ Env, s []uint64) {
		s[0] = api.EncodeF64(float64(h.epoch.UnixNano()) / 1e6)
	})
	_, err := b.Instantiate(ctx)
	return err
}

// NowMs is the host's monotonic clock, as the core sees it.
func (h *Host) NowMs() float64 { return float64(time.Since(h.epoch).Nanoseconds()) / 1e6 }

// Agent is one instance of the core, like one page or worker. Use it from one
// goroutine at a time.
type Agent struct {
	ID   int32
	ctx  context.Context
	host *Host
	mod  api.Module

	callFn, waitFn, beginFn, turnFn api.Function            // the core's exports (waits.go)
	debugFns                        map[string]api.Function // the debug area's writer (Debug), as first called

	img   *image        // the instance as the explorer restores it before each schedule (image.go)
	mem   *mappedMemory // its memory, where it is a mapping that puts back cheaply (mapped_linux_test.go); else nil
	dirty bool          // a call of it was unwound (errEnded): restore it before it runs again
	calls int           // its calls since its image was taken or put back
	task  bool          // another task of an agent (NewTask): it has no registry record of its own
}

// SetEnv makes the agent's imports go to e (nil: back to the default).
func (a *Agent) SetEnv(e Env) {
	if e == nil {
		a.host.envs.Delete(a.mod)
	} else {
		a.host.envs.Store(a.mod, e)
	}
}

// NewAgent instantiates the core and gives it the next agent id.
func (h *Host) NewAgent(ctx context.Context) (*Agent, error) {
	h.mu.Lock()
	h.agents++
	id := h.agents
	h.mu.Unlock()
	return h.newInstance(ctx, id, nil, false)
}

// NewBareAgent instantiates the core without an agent id: a worker before
// its init, which the explorer's scenarios join to the host's registry
// themselves, step by step (Agent.Join, Announce, SetAgent).
func (h *Host) NewBareAgent(ctx context.Context) (*Agent, error) {
	return h.newInstance(ctx, 0, nil, true)
}

// NewTask instantiates the core with the id of agent of: another
// asynchronous task of the same page or worker. The core keeps nothing per
// call but the agent id, so an instance per task behaves as one instance
// that several tasks call, and each can be driven from a goroutine of its own.
func (h *Host) NewTask(ctx context.Context, of *Agent) (*Agent, error) {
	return h.newInstance(ctx, of.ID, of, false)
}

func (h *Host) newInstance(ctx context.Context, id int32, of *Agent, bare bool) (*Agent, error) {
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize")
	if h.Fault != "" {
		cfg = cfg.WithEnv("SABMUTEX_FAULT", h.Fault)
	}
	var mem *mappedMemory
	mod, err := h.rt.InstantiateModule(withMappedMemory(ctx, &mem), h.compiled, cfg)
	if err != nil {
		return nil, err
	}
	a := &Agent{ID: id, ctx: ctx, host: h, mod: mod, mem: mem, task: of != nil}
	h.ids.Store(api.Module(mod), id)
	for name, f := range map[string]*api.Function{
		"call": &a.callFn, "wait": &a.waitFn, "begin": &a.beginFn, "turn": &a.turnFn,
	} {
		if *f = mod.ExportedFunction(name); *f == nil {
			return nil, fmt.Errorf("the core does not export %s", name)
		}
	}
	if bare {
		return a, nil
	}
	watched := int32(0)
	if h.Watched && of == nil {
		if a.ID, err = a.join(); err != nil {
			return nil, err
		}
		h.ids.Store(api.Module(mod), a.ID)
		watched = 1
	}
	if r := a.Call(proto.OpSetAgent, 0, 0, a.ID, watched); r != resultOK {
		return nil, fmt.Errorf("setAgent(%d) = %d", a.ID, r)
	}
	return a, nil
}

func (a *Agent) call(f api.Function, args ...uint64) int32 {
	a.calls++
	r, err := f.Call(a.ctx, args...)
	if errors.Is(err, errEnded) {
		panic(errEnded) // on to the explorer's role, which ends there
	}
	if err != nil {
		panic(fmt.Sprintf("calling %s: %v", f.Definition().Name(), err))
	}
	if len(r) == 0 {
		return 0 // (an export without a result)
	}
	return api.DecodeI32(r[0])
}

// Debug calls the export name of the core tests' module: the debug area's
// Go writer (wasm/wasip1/debug.go: debugMake, debugRegion, debugText, ...).
func (a *Agent) Debug(name string, args ...int32) int32 {
	f := a.debugFns[name]
	if f == nil {
		if f = a.mod.ExportedFunction(name); f == nil {
			panic("coretest: the core does not export " + name)
		}
		if a.debugFns == nil {
			a.debugFns = map[string]api.Function{}
		}
		a.debugFns[name] = f
	}
	in := make([]uint64, len(args))
	for i, x := range args {
		in[i] = api.EncodeI32(x)
	}
	return a.call(f, in...)
}

// The mutex's calls, as the glue makes them once its fast paths are done.

func (a *Agent) TryLock(mem, at int32) int32 { return a.Call(proto.OpTryLock, mem, at, 0, 0) }

func (a *Agent) Unlock(mem, at int32) int32 { return a.Call(proto.OpUnlock, mem, at, 0, 0) }

func (a *Agent) Holder(mem, at int32) int32 { return a.Call(proto.OpHolder, mem, at, 0, 0) }

func (a *Agent) ReleaseDead(mem, at, dead int32) int32 {
	return a.Call(proto.OpReleaseDead, mem, at, dead, 0)
}

func (a *Agent) Lock(mem, at int32, timeoutMs float64) int32 {
	return a.Wait(proto.KindLock, mem, at, 0, timeoutMs)
}

func (a *Agent) LockAsync(mem, at int32, timeoutMs float64) int32 {
	return a.WaitAsync(proto.KindLock, mem, at, 0, timeoutMs, nil)
}

// join joins the agent to the host's registry (making it first, if none),
// as the glue's init does (jsglue/registry.js): its id, LIVE.
func (a *Agent) join() (int32, error) {
	h := a.host
	h.mu.Lock()
	made := h.Registry < 0
	if made {
		if len(h.memories) == 0 {
			h.memories = append(h.memories, futex.New(1)) // handle 0 is the explorer's scenario memory (schedEnv), never the registry
		}
		n := proto.RegistrySlots
		if h.Debug {
			n += proto.DebugSlots
		}
		h.memories = append(h.memories, futex.New(int(n)))
		h.Registry = int32(len(h.memories) - 1)
	}
	h.mu.Unlock()
	if made {
		if r := a.Call(proto.OpRegistryMake, h.Registry, 0, int32(time.Now().UnixNano()), 0); r != resultOK {
			return 0, fmt.Errorf("OP_REGISTRY_MAKE = %d", r)
		}
		if h.Debug {
			a.Debug("debugMake", h.Registry, 0)
		}
	}
	id := a.Join(fmt.Sprintf("agent %d of the host", h.agents))
	if id <= 0 {
		return 0, fmt.Errorf("OP_REGISTRY_JOIN = %d", id)
	}
	if r := a.Announce(true); r != resultOK {
		return 0, fmt.Errorf("OP_REGISTRY_ANNOUNCE = %d", r)
	}
	return id, nil
}

// Join is the glue's joinRegistry up to the life lock: the name in the
// core's text, then OP_REGISTRY_JOIN of the host's registry. It returns
// the agent's id, or the core's result.
func (a *Agent) Join(name string) int32 {
	reg := a.host.Registry
	lifeLock := "life of " + name // (the core tests' maker learns of ends from End, not from locks)
	at := a.Call(proto.OpText, reg, 0, int32(len(name)+len(lifeLock)), 0)
	if !a.mod.Memory().Write(uint32(at), []byte(name+lifeLock)) {
		panic(fmt.Sprintf("OP_TEXT gave %d, outside the module's memory", at))
	}
	return a.Call(proto.OpRegistryJoin, reg, 0, int32(len(name)), int32(len(lifeLock)))
}

// Announce ends joining (OP_REGISTRY_ANNOUNCE): live says whether the
// agent holds its life lock.
func (a *Agent) Announce(live bool) int32 {
	l := int32(0)
	if live {
		l = 1
	}
	return a.Call(proto.OpRegistryAnnounce, a.host.Registry, 0, l, 0)
}

// SetAgent gives a bare agent (NewBareAgent) the id it joined with, watched.
func (a *Agent) SetAgent(id int32) int32 {
	a.ID = id
	return a.Call(proto.OpSetAgent, 0, 0, id, 1)
}

// End is the maker's news that agent a has ended (its life lock granted):
// its record says DEAD, and the watches of those that wait for it free
// what it held.
func (h *Host) End(a *Agent) int32 {
	return a.Call(proto.OpRegistryEnded, h.Registry, 0, a.ID, 0)
}

// Text is the core's text which (proto.Text...) of agent id, read from the
// agent's memory as the glue reads it (jsglue/registry.js, textOf).
func (a *Agent) Text(which, id int32) string {
	n := a.Call(proto.OpTextOf, a.host.Registry, 0, which, id)
	at := a.Call(proto.OpText, a.host.Registry, 0, n, 0)
	b, ok := a.mod.Memory().Read(uint32(at), uint32(n))
	if !ok {
		panic(fmt.Sprintf("OP_TEXT gave %d bytes at %d, outside the module's memory", n, at))
	}
	return string(b)
}

// label is how the core's messages name the agent.
func (a *Agent) label() string { return a.Text(proto.TextAgentLabel, a.ID) }
