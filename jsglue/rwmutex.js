// RWMutex: many readers or one writer (wasm/core/rwmutex.go). The writer side
// is Mutex's API; readers have their own. The uncontended steps are inlined
// (a reader: active+1 and -1 while no writer is there; a writer: 0 -> W and
// W -> 0, with the writer slot), as Go publishes them, and checked against
// Go's by browsertest's TestFamilyGlueAgreesWithCore; everything else is Go's,
// through the export call: here are the checks, the two-phase asynchronous
// writer (W, then the wait for readers to leave) and the messages.
function makeRWMutex(env) {
  let core = null, P = null, canBlock = false, agentId = 0;
  const RESOLVED_TRUE = Promise.resolve(true);

  class RWMutex {
    #s; // { i32, mem, at }: its slots
    #i32; // the same, at hand for the fast paths
    #at;
    #index; // the index the caller gave, for messages

    // main thread too. memory: a SharedArrayBuffer or an Int32Array over one;
    // index: the first of RWMutex.SLOTS int32 slots that it uses (zeroed: free).
    constructor(memory, index = 0) {
      this.#s = slotsOf(env, "RWMutex", "RWMUTEX_SLOTS", memory, index);
      this.#i32 = this.#s.i32;
      this.#at = this.#s.at;
      this.#index = index;
    }

    // The fast paths. A writer: 0 -> W, then the writer slot (at + 2) is this
    // agent's to write, cleared before the release (as Go does). A reader:
    // active+1 while the word holds only readers.
    #tryWrite() {
      if (Atomics.compareExchange(this.#i32, this.#at, 0, P.RW_WRITER) !== 0) return false;
      this.#i32[this.#at + 2] = agentId;
      return true;
    }

    #tryRead() {
      const v = Atomics.load(this.#i32, this.#at);
      return v >= 0 && v < P.MAX_READERS && Atomics.compareExchange(this.#i32, this.#at, v, v + 1) === v;
    }

    // How many int32 slots one RWMutex uses.
    static get SLOTS() {
      return slotsConstant(env, "RWMutex", "RWMUTEX_SLOTS");
    }

    #call(op, a = 0, b = 0, ms = 0) {
      return core.call(op, this.#s.mem, this.#s.at, a, b, 0, ms);
    }

    // Workers only. lock(timeoutMs): takes the write lock, waiting at most
    // timeoutMs (none: forever); false if it timed out. (The timeout is read
    // from `arguments`, as in Mutex.lock: WebKit pads calls that pass fewer
    // arguments than declared.)
    lock() {
      if (!canBlock) mustNotBlock("lock()", "rw.lockAsync(timeoutMs)");
      const timeoutMs = arguments.length === 0 ? Infinity : timeoutOf(arguments[0]);
      return this.#tryWrite() || this.#outcome(this.#call(P.OP_RW_LOCK, 0, 0, timeoutMs));
    }

    // Main thread too. Resolves true once it holds the write lock, false after
    // the timeout; options as for Mutex.lockAsync.
    lockAsync(options) {
      // Uncontended and without options: one settled promise, as Mutex.lockAsync.
      return options === undefined && this.#tryWrite() ? RESOLVED_TRUE : this.#lockAsyncSlow(options);
    }

    async #lockAsyncSlow(options) {
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      if (this.#tryWrite()) return true;
      const { i32, at } = this.#s;
      const deadlineMs = performance.now() + timeoutMs;
      // First W (one writer at a time; nothing to undo on abort: every
      // wake-up on the word is notify-all) ...
      const r = await waitLoop(P, i32, at, timeoutMs, signal, (d) => this.#call(P.OP_RW_ANNOUNCE_STEP, 0, 0, d), () => {});
      if (r === P.RESULT_BUSY) return false;
      if (r !== P.RESULT_OK) throw this.#failure(r);
      // ... then, announced (new readers wait), for the readers inside to leave.
      return this.#outcome(
        await waitLoop(P, i32, at, Math.max(0, deadlineMs - performance.now()), signal, (d) => this.#call(P.OP_RW_WRITE_STEP, 0, 0, d), (_, late) => late || this.#call(P.OP_RW_WITHDRAW)),
      );
    }

    // Main thread too. Takes the write lock if nobody reads or writes; never waits.
    tryLock() {
      return this.#tryWrite() || this.#outcome(this.#call(P.OP_RW_TRY_LOCK));
    }

    // Main thread too. Releases the write lock; throws, changing nothing, if this agent does not hold it.
    unlock() {
      const i32 = this.#i32, at = this.#at;
      if (i32[at + 2] === agentId) {
        i32[at + 2] = 0;
        if (Atomics.compareExchange(i32, at, P.RW_WRITER, 0) === P.RW_WRITER) return; // nobody blocked or waiting
        i32[at + 2] = agentId; // Go's turn
      }
      const r = this.#call(P.OP_RW_UNLOCK);
      if (r !== P.RESULT_OK) throw this.#failure(r);
    }

    // Workers only. readLock(timeoutMs): takes a read lock, waiting at most
    // timeoutMs (none: forever); false if it timed out. (The timeout: as lock's.)
    readLock() {
      if (!canBlock) mustNotBlock("readLock()", "rw.readLockAsync(timeoutMs)");
      const timeoutMs = arguments.length === 0 ? Infinity : timeoutOf(arguments[0]);
      return this.#tryRead() || this.#outcome(this.#call(P.OP_RW_READ_LOCK, 0, 0, timeoutMs));
    }

    // Main thread too. Resolves true once it holds a read lock, false after the timeout.
    readLockAsync(options) {
      return options === undefined && this.#tryRead() ? RESOLVED_TRUE : this.#readLockAsyncSlow(options);
    }

    async #readLockAsyncSlow(options) {
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      if (this.#tryRead()) return true;
      const { i32, at } = this.#s;
      return this.#outcome(
        await waitLoop(
          P,
          i32,
          at + 1,
          timeoutMs,
          signal,
          (d, s, woken, sleptOn) => this.#call(P.OP_RW_READ_STEP, woken, sleptOn, d),
          // Withdraw; if the writer's unlock admitted it meanwhile, it holds a read lock: give it back.
          (sleptOn, late) => late || (this.#call(P.OP_RW_READ_STEP, P.WOKEN_OTHER, sleptOn, -Infinity) === P.RESULT_OK && this.#call(P.OP_RW_READ_UNLOCK)),
        ),
      );
    }

    // Main thread too. Takes a read lock if no writer holds or waits for it; never waits.
    tryReadLock() {
      return this.#tryRead() || this.#outcome(this.#call(P.OP_RW_TRY_READ_LOCK));
    }

    // Main thread too. Releases a read lock; throws, changing nothing, if no reader holds one.
    readUnlock() {
      // While no writer is there: active-1, and nobody to wake.
      const v = Atomics.load(this.#i32, this.#at);
      if (v > 0 && v < P.RW_BLOCKED_ONE && Atomics.compareExchange(this.#i32, this.#at, v, v - 1) === v) return;
      const r = this.#call(P.OP_RW_READ_UNLOCK);
      if (r !== P.RESULT_OK) throw this.#failure(r, "readUnlock()");
    }

    // Workers only. Runs fn holding the write lock and returns its result; always unlocks.
    withLock(fn) {
      checkFn(fn, "withLock(fn)", "holding the write lock");
      return runHolding(() => this.lock(), () => this.unlock(), fn);
    }

    // Main thread too. Awaits fn holding the write lock; rejects with a sabmutex timeout error if not had in time.
    async withLockAsync(fn, options) {
      checkFn(fn, "withLockAsync(fn)", "holding the write lock");
      return runHoldingAsync(this.lockAsync(options), `the write lock of the RWMutex at index ${this.#index}`, options, () => this.unlock(), fn);
    }

    // Workers only. Runs fn holding a read lock and returns its result; always unlocks.
    withReadLock(fn) {
      checkFn(fn, "withReadLock(fn)", "holding a read lock");
      return runHolding(() => this.readLock(), () => this.readUnlock(), fn);
    }

    // Main thread too. Awaits fn holding a read lock; rejects with a sabmutex timeout error if not had in time.
    async withReadLockAsync(fn, options) {
      checkFn(fn, "withReadLockAsync(fn)", "holding a read lock");
      return runHoldingAsync(this.readLockAsync(options), `a read lock of the RWMutex at index ${this.#index}`, options, () => this.readUnlock(), fn);
    }

    // true: acquired; false: busy or timed out; anything else throws.
    #outcome(r) {
      if (r === P.RESULT_OK || r === P.RESULT_HOLDER_DIED) return true;
      if (r === P.RESULT_BUSY) return false;
      throw this.#failure(r);
    }

    #failure(r, call = "unlock()") {
      const what = `the RWMutex at index ${this.#index}`;
      return failure(P, r, what, Atomics.load(this.#s.i32, this.#s.at), (r) => {
        if (r === P.RESULT_DEADLOCK) return `deadlock: this agent holds the write lock of ${what}, and would wait for itself; unlock it first`;
        if (r === P.RESULT_NOT_LOCKED && call === "readUnlock()") return `readUnlock() of ${what}, but no reader holds it; call readUnlock() once per readLock() that succeeded`;
        if (r === P.RESULT_NOT_LOCKED) return `unlock() of ${what}, which is not write-locked; call unlock() only after lock(), lockAsync() or tryLock() succeeded (readers call readUnlock())`;
        if (r === P.RESULT_NOT_HOLDER) return `unlock() by an agent that does not hold the write lock of ${what}; only the agent that locked it may unlock it`;
        if (r === P.RESULT_TOO_MANY) return `too many readers of ${what} (at most ${P.MAX_READERS})`;
      });
    }
  }

  return {
    name: "RWMutex",
    Class: RWMutex,
    start(e) {
      ({ core, P, canBlock, agentId } = e);
    },
  };
}
