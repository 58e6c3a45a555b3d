// Semaphore: a count of permits (wasm/core/semaphore.go). The uncontended
// steps are inlined (take n while nothing is reserved; give n back while
// nobody sleeps), as Go publishes them, and checked against Go's by
// browsertest's TestFamilyGlueAgreesWithCore; everything else is Go's, through
// the export call: here are the checks and the messages.
function makeSemaphore(env) {
  let core = null, P = null, canBlock = false;
  const RESOLVED_TRUE = Promise.resolve(true);

  class Semaphore {
    #s; // { i32, mem, at }: its slots
    #i32; // the same, at hand for the fast paths
    #at;
    #index; // the index the caller gave, for messages
    #permits;

    // main thread too. memory, index: as for Mutex, with Semaphore.SLOTS
    // slots (zeroed: every permit free); permits: its size, the same in
    // every agent (the first to use the slots records it; another size throws).
    constructor(memory, index, permits) {
      const s = slotsOf(env, "Semaphore", "SEMAPHORE_SLOTS", memory, index);
      checkSize("permits", permits, P.MAX_PERMITS);
      const r = core.call(P.OP_SEM_SET_UP, s.mem, s.at, permits, 0, 0, 0);
      if (r === P.RESULT_MISMATCH) {
        throw new Error(
          `sabmutex: the Semaphore at index ${index} was set up with ${Atomics.load(s.i32, s.at + 2)} permits, not ${permits}; every agent must pass the same permits`,
        );
      }
      if (r !== P.RESULT_OK) throw failure(P, r, `the Semaphore at index ${index}`, Atomics.load(s.i32, s.at));
      this.#s = s;
      this.#i32 = s.i32;
      this.#at = s.at;
      this.#index = index;
      this.#permits = permits;
    }

    // How many int32 slots one Semaphore uses.
    static get SLOTS() {
      return slotsConstant(env, "Semaphore", "SEMAPHORE_SLOTS");
    }

    #call(op, n = 0, ms = 0) {
      return core.call(op, this.#s.mem, this.#s.at, n, 0, 0, ms);
    }

    // The fast path of acquire: taken -> taken+n, if the permits allow and
    // nobody has reserved (the reservation read after the word, as Go does).
    #take(n) {
      const i32 = this.#i32, at = this.#at;
      const v = Atomics.load(i32, at);
      const taken = v & ~P.SEM_WAITERS;
      return v >= 0 && taken + n <= this.#permits && Atomics.load(i32, at + 1) === 0 && Atomics.compareExchange(i32, at, v, v + n) === v;
    }

    // Workers only. acquire(n = 1, timeoutMs): takes n permits, waiting at
    // most timeoutMs (none: forever); false if it timed out. (The arguments
    // are read from `arguments`, as in Mutex.lock: WebKit pads calls that
    // pass fewer arguments than declared.)
    acquire() {
      if (!canBlock) mustNotBlock("acquire()", "sem.acquireAsync(n, timeoutMs)");
      let n = 1, timeoutMs = Infinity;
      if (arguments.length !== 0) {
        if (arguments[0] !== undefined) n = arguments[0];
        if ((n | 0) !== n || n < 1 || n > this.#permits) checkCount("acquire(n)", n, this.#permits);
        timeoutMs = timeoutOf(arguments[1]);
      }
      return this.#take(n) || this.#outcome(this.#call(P.OP_SEM_ACQUIRE, n, timeoutMs));
    }

    // Main thread too. Resolves true once it holds n permits, false after the
    // timeout; options as for Mutex.lockAsync.
    acquireAsync(n = 1, options) {
      if ((n | 0) !== n || n < 1 || n > this.#permits) checkCount("acquireAsync(n)", n, this.#permits);
      return options === undefined && this.#take(n) ? RESOLVED_TRUE : this.#acquireAsyncSlow(n, options);
    }

    async #acquireAsyncSlow(n, options) {
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      const { i32, at } = this.#s;
      return this.#outcome(
        await waitLoop(P, i32, at, timeoutMs, signal, (d, s, woken) => core.call(P.OP_SEM_ACQUIRE_STEP, this.#s.mem, this.#s.at, n, woken, 0, d), () => this.#call(P.OP_SEM_ABANDON, n)),
      );
    }

    // Main thread too. Takes n permits if they are free now (and not
    // reserved by a waiter for more); never waits.
    tryAcquire(n = 1) {
      if ((n | 0) !== n || n < 1 || n > this.#permits) checkCount("tryAcquire(n)", n, this.#permits);
      return this.#take(n) || this.#outcome(this.#call(P.OP_SEM_TRY_ACQUIRE, n));
    }

    // Main thread too. release(n = 1): gives back n permits; throws, changing
    // nothing, if fewer are taken. (n: from `arguments`, as acquire's.)
    release() {
      const n = arguments[0] === undefined ? 1 : arguments[0];
      if ((n | 0) !== n || n < 1 || n > this.#permits) checkCount("release(n)", n, this.#permits);
      // While nobody sleeps: taken -> taken-n, and nobody to wake.
      const i32 = this.#i32, at = this.#at;
      const v = Atomics.load(i32, at);
      if (v >= n && v <= this.#permits && Atomics.compareExchange(i32, at, v, v - n) === v) return;
      const r = this.#call(P.OP_SEM_RELEASE, n);
      if (r === P.RESULT_NEGATIVE) {
        throw new Error(`sabmutex: release(${n}) of the Semaphore at index ${this.#index} gives back more than is taken (${this.#permits - this.available()}); release only what acquire took`);
      }
      if (r !== P.RESULT_OK) throw this.#failure(r);
    }

    // Main thread too. The permits free now (for debugging: the answer may be stale at once).
    available() {
      const r = this.#call(P.OP_SEM_AVAILABLE);
      if (r < 0) throw this.#failure(r);
      return r;
    }

    #outcome(r) {
      if (r === P.RESULT_OK) return true;
      if (r === P.RESULT_BUSY) return false;
      throw this.#failure(r);
    }

    #failure(r) {
      return failure(P, r, `the Semaphore at index ${this.#index}`, Atomics.load(this.#s.i32, this.#s.at));
    }
  }

  return {
    name: "Semaphore",
    Class: Semaphore,
    start(e) {
      ({ core, P, canBlock } = e);
    },
  };
}
