// Semaphore: a count of permits (wasm/core/semaphore.go). Every step is Go's,
// through the export call; here are the checks and the messages.
function makeSemaphore(env) {
  let core = null, P = null, canBlock = false;

  class Semaphore {
    #s; // { i32, mem, at }: its slots
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

    // Workers only. Takes n permits, waiting at most timeoutMs; false if it timed out.
    acquire(n = 1, timeoutMs = Infinity) {
      if (!canBlock) mustNotBlock("acquire()", "sem.acquireAsync(n, timeoutMs)");
      checkCount("acquire(n)", n, this.#permits);
      checkTimeout(timeoutMs);
      return this.#outcome(this.#call(P.OP_SEM_ACQUIRE, n, timeoutMs));
    }

    // Main thread too. Resolves true once it holds n permits, false after the
    // timeout; options as for Mutex.lockAsync.
    async acquireAsync(n = 1, options) {
      checkCount("acquireAsync(n)", n, this.#permits);
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      const { i32, at } = this.#s;
      return this.#outcome(
        await waitLoop(P, i32, at, timeoutMs, signal, (d) => this.#call(P.OP_SEM_ACQUIRE_STEP, n, d), (_, late) => late || this.#call(P.OP_SEM_ABANDON, n)),
      );
    }

    // Main thread too. Takes n permits if they are free now (and not
    // reserved by a waiter for more); never waits.
    tryAcquire(n = 1) {
      checkCount("tryAcquire(n)", n, this.#permits);
      return this.#outcome(this.#call(P.OP_SEM_TRY_ACQUIRE, n));
    }

    // Main thread too. Gives back n permits; throws, changing nothing, if fewer are taken.
    release(n = 1) {
      checkCount("release(n)", n, this.#permits);
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
