// sabmutex's public API: init() and Mutex. The lock protocol itself is Go
// (wasm/core/mutex.go); this file validates input and inlines the fast paths
// (one compare-and-swap and the holder slot) with the constants the Go module
// publishes. The waiting machinery (wait.js) drives Go's asynchronous wait
// loop with Atomics.waitAsync, which Go cannot do itself.
function createSabmutex(goRuntime, wasmBeside) {
  const NOT_ISOLATED =
    "SharedArrayBuffer needs a cross-origin isolated page: serve the page (and its workers) " +
    "with the headers `Cross-Origin-Opener-Policy: same-origin` and " +
    "`Cross-Origin-Embedder-Policy: require-corp`";

  // Set once by init; a Mutex cannot be made before, so its methods may rely on them.
  let core = null; // the Go module's exports: lock, lockStep, tryLock, unlock
  let P = null; // the protocol constants, from Go (core.Protocol in wasm/core/publish.go)
  let canBlock = false; // whether Atomics.wait may run here (false on a page's main thread)
  let agentId = 0; // this agent's id: what a mutex's holder slot records
  let wasmModule = null;
  let loading = null;

  const arrays = []; // memory handle -> Int32Array over a whole SharedArrayBuffer
  const handles = new Map(); // SharedArrayBuffer -> memory handle

  // main thread too. Loads and starts the Go module; calling it again returns the same promise.
  function init(options = {}) {
    if (options === null || typeof options !== "object") {
      return Promise.reject(new TypeError(`sabmutex: init(options) takes an object such as { wasm: sabmutex.module }; got ${describe(options)}`));
    }
    if (!loading) {
      loading = load(options).catch((e) => {
        loading = null; // let the caller try again, e.g. with another URL
        throw e;
      });
    }
    return loading;
  }

  async function load(options) {
    if (globalThis.crossOriginIsolated === false) {
      throw new Error(`sabmutex: this page is not cross-origin isolated. ${NOT_ISOLATED}`);
    }
    if (typeof SharedArrayBuffer === "undefined") {
      throw new Error(
        "sabmutex: this browser does not expose SharedArrayBuffer here, although the page is cross-origin isolated " +
          "(WebKitGTK on Linux exposes it only with the environment variable JSC_useSharedArrayBuffer=1); run the page in a browser that does (Chrome 92+, Firefox 79+, Safari 15.2+)",
      );
    }
    // jsglue/load.js: the default URL is worked out only now, so that importing never throws.
    const module = await compileWasm(options.wasm === undefined ? locateWasm(wasmBeside) : options.wasm);
    const go = new goRuntime.Go();
    go.importObject.sabmutex = coreImports(arrays);
    let instance;
    try {
      instance = await WebAssembly.instantiate(module, go.importObject);
    } catch (e) {
      throw new Error(`sabmutex: could not start the module (${e.message}); is it the sabmutex.wasm that came with this script?`);
    }
    const protocol = await new Promise((resolve, reject) => {
      goRuntime.privateGlobal.sabmutexGoReady = resolve;
      go.run(instance).then(
        () => reject(new Error("sabmutex: the Go module exited during start-up; see the console for its output")),
        reject,
      );
    });
    P = Object.freeze({ ...protocol });
    // Ids are random: agents share no memory until a Mutex exists, so they
    // cannot count. Two of 8 agents draw the same id about once in 80
    // million page loads; the README says what that would confuse.
    const id = (crypto.getRandomValues(new Uint32Array(1))[0] % P.MAX_AGENT_ID) + 1;
    if (instance.exports.setAgent(id) !== P.RESULT_OK) throw new Error("sabmutex: internal error: the module refused its agent id");
    core = instance.exports;
    agentId = id;
    try {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
      canBlock = true;
    } catch {
      canBlock = false; // the browser's main thread
    }
    wasmModule = module;
  }

  // The memory handle for buffer, registering it on first use.
  function handleOf(buffer) {
    let h = handles.get(buffer);
    if (h === undefined) {
      h = arrays.length;
      arrays.push(new Int32Array(buffer, 0, buffer.byteLength >> 2));
      handles.set(buffer, h);
    }
    return h;
  }

  function isShared(buffer) {
    return Object.prototype.toString.call(buffer) === "[object SharedArrayBuffer]";
  }

  const RESOLVED_TRUE = Promise.resolve(true);

  class Mutex {
    #i32; // Int32Array over the whole buffer
    #mem; // its handle for the Go module
    #at; // the lock word's index in #i32
    #index; // the index the caller gave, for messages

    // main thread too. memory: a SharedArrayBuffer or an Int32Array over one;
    // index: the first of Mutex.SLOTS int32 slots (of memory) that this mutex uses.
    constructor(memory, index = 0) {
      if (!core) throw new Error("sabmutex: call `await sabmutex.init()` before `new sabmutex.Mutex(...)`");
      let buffer, base, length;
      if (ArrayBuffer.isView(memory)) {
        const kind = describe(memory);
        if (!isShared(memory.buffer)) {
          throw new TypeError(`sabmutex: memory must be shared, but this ${kind} is over an ArrayBuffer; create it over a SharedArrayBuffer. ${NOT_ISOLATED}`);
        }
        if (kind !== "Int32Array") {
          throw new TypeError(`sabmutex: memory is a ${kind}; pass the SharedArrayBuffer itself or an Int32Array over it (new Int32Array(sab))`);
        }
        [buffer, base, length] = [memory.buffer, memory.byteOffset >> 2, memory.length];
      } else if (isShared(memory)) {
        [buffer, base, length] = [memory, 0, memory.byteLength >> 2];
      } else if (memory instanceof ArrayBuffer) {
        throw new TypeError(`sabmutex: memory must be a SharedArrayBuffer, not an ArrayBuffer, so that the page and its workers see the same lock. ${NOT_ISOLATED}`);
      } else {
        throw new TypeError(`sabmutex: memory must be a SharedArrayBuffer or an Int32Array over one; got ${describe(memory)}`);
      }
      if (typeof index !== "number") {
        throw new TypeError(`sabmutex: index must be a number (an int32 slot); got ${describe(index)}`);
      }
      if (!Number.isInteger(index) || index < 0 || index + P.SLOTS > length) {
        throw new RangeError(
          `sabmutex: index must be a whole number from 0 to ${length - P.SLOTS}, leaving Mutex.SLOTS (${P.SLOTS}) ` +
            `int32 slots in a memory of ${length}; got ${index}`,
        );
      }
      this.#i32 = arrays[handleOf(buffer)];
      this.#mem = handles.get(buffer);
      this.#at = base + index;
      this.#index = index;
    }

    // How many int32 slots one mutex uses. Slots start at zero: a zeroed
    // SharedArrayBuffer holds unlocked mutexes.
    static get SLOTS() {
      if (!P) throw new Error("sabmutex: call `await sabmutex.init()` before reading Mutex.SLOTS");
      return P.SLOTS;
    }

    // Workers only (the browser's main thread cannot block: use lockAsync).
    // Takes the lock, waiting at most timeoutMs; returns false if it timed out.
    lock(timeoutMs = Infinity) {
      if (!canBlock) {
        throw new Error("sabmutex: lock() cannot block the browser's main thread (Atomics.wait is not allowed there); use `await m.lockAsync(timeoutMs)`, or call lock() in a worker");
      }
      if (typeof timeoutMs !== "number" || !(timeoutMs >= 0)) badTimeout(timeoutMs);
      if (Atomics.compareExchange(this.#i32, this.#at, P.STATE_UNLOCKED, P.STATE_LOCKED) === P.STATE_UNLOCKED) return this.#took();
      return this.#result(core.lock(this.#mem, this.#at, timeoutMs));
    }

    // Main thread too. Resolves true once it holds the lock, false after the
    // timeout; never blocks the event loop and never polls. options: a
    // timeout in ms, or { timeoutMs, signal } where an AbortSignal's abort
    // rejects the promise with the signal's reason.
    lockAsync(options) {
      // The uncontended call without options answers with one settled promise,
      // not the fresh one an async function would make.
      if (options === undefined && Atomics.compareExchange(this.#i32, this.#at, P.STATE_UNLOCKED, P.STATE_LOCKED) === P.STATE_UNLOCKED) {
        this.#took();
        return RESOLVED_TRUE;
      }
      return this.#lockAsyncSlow(options);
    }

    async #lockAsyncSlow(options) {
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      if (Atomics.compareExchange(this.#i32, this.#at, P.STATE_UNLOCKED, P.STATE_LOCKED) === P.STATE_UNLOCKED) return this.#took();
      const mem = this.#mem, at = this.#at;
      const r = await waitLoop(
        P,
        this.#i32,
        at,
        timeoutMs,
        signal,
        (deadlineMs, startMs, woken) => core.lockStep(mem, at, deadlineMs, startMs, woken),
        () => core.abandonWait(mem, at),
      );
      return this.#result(r);
    }

    // Main thread too. Takes the lock if it is free; never waits.
    tryLock() {
      if (Atomics.compareExchange(this.#i32, this.#at, P.STATE_UNLOCKED, P.STATE_LOCKED) === P.STATE_UNLOCKED) return this.#took();
      return this.#result(core.tryLock(this.#mem, this.#at));
    }

    // Main thread too. Releases the lock; throws, changing nothing, if this
    // agent does not hold it.
    unlock() {
      // The holder slot (#at + 1) is this agent's to write while it holds the
      // mutex: cleared before the release, as Go does (wasm/core/protocol.go).
      // Go's two commonest transitions are inlined: 1 -> 0, and 2 -> 0 + wake
      // one (normal mode, someone may sleep); checked against Go's own by
      // browsertest's TestGlueAgreesWithCore.
      const i32 = this.#i32, at = this.#at;
      if (i32[at + 1] === agentId) {
        i32[at + 1] = 0;
        const v = Atomics.compareExchange(i32, at, P.STATE_LOCKED, P.STATE_UNLOCKED);
        if (v === P.STATE_LOCKED) return;
        if (v === P.STATE_CONTENDED && Atomics.compareExchange(i32, at, P.STATE_CONTENDED, P.STATE_UNLOCKED) === P.STATE_CONTENDED) {
          Atomics.notify(i32, at, 1);
          return;
        }
        i32[at + 1] = agentId; // starving, changed meanwhile, or corrupted: Go's turn
      }
      const r = core.unlock(this.#mem, this.#at);
      if (r !== P.RESULT_OK) this.#result(r);
    }

    // Main thread too. Whether some agent holds the mutex now (for debugging:
    // the answer may be stale at once).
    isLocked() {
      const r = core.isLocked(this.#mem, this.#at);
      return r < 0 ? this.#result(r) : r === 1;
    }

    // Main thread too. The agent id (sabmutex.agentId there) of the holder, or
    // null when the mutex is free (for debugging: the answer may be stale at once).
    holder() {
      const h = core.holder(this.#mem, this.#at);
      if (h < 0) this.#result(h);
      return h === 0 ? null : h;
    }

    // True after this agent took the mutex (lock, lockAsync, tryLock, acquire)
    // from a holder that died: releaseIfHeldBy released it, and the data it
    // guards may be half-written. False after any other acquisition.
    get previousHolderDied() {
      return this.#holderDied;
    }

    // Main thread too. For the code that terminated a worker: if agent
    // agentId (that worker's sabmutex.agentId) holds this mutex, release it,
    // so that the others do not wait forever; its next holder sees
    // previousHolderDied. Returns whether it released it.
    releaseIfHeldBy(agentId) {
      if (!Number.isInteger(agentId) || agentId < 1 || agentId > P.MAX_AGENT_ID) {
        throw new RangeError(`sabmutex: releaseIfHeldBy takes an agent id (the dead worker's sabmutex.agentId, 1 to ${P.MAX_AGENT_ID}); got ${describe(agentId)}`);
      }
      const r = core.releaseDead(this.#mem, this.#at, agentId);
      if (r === P.RESULT_NOT_HOLDER) return false;
      return this.#result(r);
    }

    // Workers only. Runs fn holding the lock and returns its result; always unlocks.
    withLock(fn) {
      checkFn(fn);
      this.lock();
      try {
        return fn();
      } finally {
        this.unlock();
      }
    }

    // Main thread too. Awaits fn holding the lock and returns its result;
    // always unlocks. options as for lockAsync; if the lock is not had in
    // time, it rejects with a sabmutex timeout error and fn does not run.
    async withLockAsync(fn, options) {
      checkFn(fn);
      const handle = await this.acquireAsync(options);
      try {
        return await fn();
      } finally {
        handle.release();
      }
    }

    // Workers only. Like lock(timeoutMs), but returns a handle to release
    // (also with `using`), and throws a sabmutex timeout error instead of
    // returning false.
    acquire(timeoutMs = Infinity) {
      if (!this.lock(timeoutMs)) throw timedOut(`the mutex at index ${this.#index}`, timeoutMs);
      return new LockHandle(this);
    }

    // Main thread too. Like lockAsync(options), but resolves to a handle to
    // release (also with `using`), and rejects with a sabmutex timeout error
    // instead of resolving false.
    async acquireAsync(options) {
      if (!(await this.lockAsync(options))) throw timedOut(`the mutex at index ${this.#index}`, asyncOptions(options).timeoutMs);
      return new LockHandle(this);
    }

    #holderDied = false;

    // The fast path took the mutex: record this agent as its holder.
    #took() {
      this.#i32[this.#at + 1] = agentId;
      this.#holderDied = false;
      return true;
    }

    #result(r) {
      if (r === P.RESULT_OK) return (this.#holderDied = false), true;
      if (r === P.RESULT_BUSY) return false;
      if (r === P.RESULT_HOLDER_DIED) return (this.#holderDied = true), true;
      if (r === P.RESULT_DEADLOCK) {
        throw new Error(`sabmutex: deadlock: this agent already holds the mutex at index ${this.#index}, and sabmutex mutexes are not recursive; unlock it before locking it again`);
      }
      if (r === P.RESULT_NOT_HOLDER) {
        throw new Error(
          `sabmutex: unlock() by an agent that does not hold the mutex at index ${this.#index} ` +
            `(this is agent ${agentId}; the holder is agent ${core.holder(this.#mem, this.#at)}); only the agent that locked it may unlock it`,
        );
      }
      if (r === P.RESULT_NOT_LOCKED) {
        throw new Error(`sabmutex: unlock() of a mutex that is not locked (index ${this.#index}); call unlock() only after lock(), lockAsync() or tryLock() succeeded`);
      }
      if (r === P.RESULT_CORRUPTED) {
        throw new Error(
          `sabmutex: corrupted mutex state at index ${this.#index}: its lock word holds ${Atomics.load(this.#i32, this.#at)}, ` +
            `which no mutex can hold, so something else wrote to that slot; give each mutex Mutex.SLOTS slots of its own`,
        );
      }
      throw new Error(`sabmutex: internal error: the Go module returned ${r}; please report this`);
    }
  }

  const api = {
    init,
    Mutex,
    // The compiled WebAssembly.Module, after init: post it to workers, which
    // then call init({ wasm: module }) and skip fetching and compiling.
    get module() {
      return wasmModule;
    },
    // This agent's id (0 before init): what holder() reports, and what the
    // code that terminates this worker passes to releaseIfHeldBy.
    get agentId() {
      return agentId;
    },
    // Bytes of linear memory that this agent's Go instance holds (0 before init).
    memoryBytes() {
      return core ? core.mem.buffer.byteLength : 0;
    },
  };
  // For sabmutex's own tests only (browsertest's TestGlueAgreesWithCore):
  // the Go exports and constants, so that the glue's inlined steps can be
  // compared with Go's. Not part of the API.
  Object.defineProperty(api, Symbol.for("sabmutex.internals"), { value: () => ({ core, P, agentId, handleOf }) });
  return api;
}
