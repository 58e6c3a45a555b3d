// WaitGroup: wait for a count of tasks to finish (wasm/core/waitgroup.go).
// The steps that wake nobody are inlined (add while nobody waits; wait on a
// count of 0), as Go publishes them, and checked against Go's by
// browsertest's TestFamilyGlueAgreesWithCore; everything else is Go's,
// through the export call: here are the checks and the messages.
function makeWaitGroup(env) {
  let core = null, P = null, canBlock = false;
  const RESOLVED_TRUE = Promise.resolve(true);

  class WaitGroup {
    #s; // { i32, mem, at }: its slots
    #index; // the index the caller gave, for messages

    // main thread too. memory, index: as for Mutex, with WaitGroup.SLOTS slots (zeroed: a count of 0).
    constructor(memory, index = 0) {
      this.#s = slotsOf(env, "WaitGroup", "WAITGROUP_SLOTS", memory, index);
      this.#index = index;
    }

    // How many int32 slots one WaitGroup uses.
    static get SLOTS() {
      return slotsConstant(env, "WaitGroup", "WAITGROUP_SLOTS");
    }

    #call(op, a = 0, ms = 0) {
      return core.call(op, this.#s.mem, this.#s.at, a, 0, 0, ms);
    }

    // Main thread too. Adds delta (a whole number, may be negative) to the
    // count; at 0, every waiter returns. Throws, changing nothing, if the
    // count would go below 0.
    add(delta) {
      if (typeof delta !== "number" || !Number.isInteger(delta) || Math.abs(delta) > P.MAX_COUNT) {
        throw new RangeError(`sabmutex: add(delta) takes a whole number from -${P.MAX_COUNT} to ${P.MAX_COUNT}; got ${describe(delta)}`);
      }
      const i32 = this.#s.i32, at = this.#s.at;
      const v = Atomics.load(i32, at);
      // While nobody waits (the waiters bit is clear): count -> count+delta.
      if (v >= 0 && v < P.WG_WAITERS && v + delta >= 0 && v + delta <= P.MAX_COUNT && Atomics.compareExchange(i32, at, v, v + delta) === v) return;
      const r = this.#call(P.OP_WG_ADD, delta);
      if (r === P.RESULT_OK) return;
      const what = `the WaitGroup at index ${this.#index}`;
      throw failure(P, r, what, Atomics.load(this.#s.i32, this.#s.at), (r) => {
        if (r === P.RESULT_NEGATIVE) return `add(${delta}) would make the count of ${what} negative (it is ${this.count()}); call done() once per add(1)`;
        if (r === P.RESULT_TOO_MANY) return `add(${delta}) would take the count of ${what} past ${P.MAX_COUNT}`;
      });
    }

    // Main thread too. add(-1).
    done() {
      this.add(-1);
    }

    // Main thread too. The count now (for debugging: the answer may be stale at once).
    count() {
      const r = this.#call(P.OP_WG_COUNT);
      if (r < 0) throw failure(P, r, `the WaitGroup at index ${this.#index}`, Atomics.load(this.#s.i32, this.#s.at));
      return r;
    }

    // Workers only. Waits until the count is 0, at most timeoutMs; false if it timed out.
    wait(timeoutMs = Infinity) {
      if (!canBlock) mustNotBlock("wait()", "wg.waitAsync(timeoutMs)");
      checkTimeout(timeoutMs);
      return this.#zero() || this.#outcome(this.#call(P.OP_WG_WAIT, 0, timeoutMs));
    }

    // Main thread too. Resolves true once the count is 0, false after the
    // timeout; options as for Mutex.lockAsync.
    waitAsync(options) {
      return options === undefined && this.#zero() ? RESOLVED_TRUE : this.#waitAsyncSlow(options);
    }

    // Whether the count is 0 now (any waiters bit aside).
    #zero() {
      const v = Atomics.load(this.#s.i32, this.#s.at);
      return v >= 0 && (v & P.MAX_COUNT) === 0;
    }

    async #waitAsyncSlow(options) {
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      const { i32, at } = this.#s;
      // Nothing to abandon: the count reaching 0 wakes every waiter.
      return this.#outcome(await waitLoop(P, i32, at, timeoutMs, signal, (d) => this.#call(P.OP_WG_WAIT_STEP, 0, d), () => {}));
    }

    #outcome(r) {
      if (r === P.RESULT_OK) return true;
      if (r === P.RESULT_BUSY) return false;
      throw failure(P, r, `the WaitGroup at index ${this.#index}`, Atomics.load(this.#s.i32, this.#s.at));
    }
  }

  return {
    name: "WaitGroup",
    Class: WaitGroup,
    start(e) {
      ({ core, P, canBlock } = e);
    },
  };
}
