// Cond: a condition variable used with a Mutex (wasm/core/cond.go). Notify
// is inlined (the sequence moves on, then Atomics.notify), as Go's condNotify
// does it, and checked against Go's by browsertest's
// TestFamilyGlueAgreesWithCore; the wait is Go's, through the export call:
// here are the checks, the asynchronous wait (sequence, then the mutex
// again) and the messages.
function makeCond(env) {
  let core = null, P = null, canBlock = false;

  class Cond {
    #s; // { i32, mem, at }: its slots
    #index; // the index the caller gave, for messages

    // main thread too. memory, index: as for Mutex, with Cond.SLOTS slots (zeroed: nobody waits).
    constructor(memory, index = 0) {
      this.#s = slotsOf(env, "Cond", "COND_SLOTS", memory, index);
      this.#index = index;
    }

    // How many int32 slots one Cond uses.
    static get SLOTS() {
      return slotsConstant(env, "Cond", "COND_SLOTS");
    }

    #mutexSlots(mutex, call) {
      const m = env.mutexSlots.get(mutex);
      if (!m) throw new TypeError(`sabmutex: ${call} takes the sabmutex.Mutex that guards the condition; got ${describe(mutex)}`);
      return m;
    }

    // Workers only. Unlocks mutex (held by this agent), sleeps until a
    // notify or timeoutMs, and locks mutex again before it returns: true if
    // notified, false if the timeout passed. No notify sent after the call
    // began is lost. Check the condition again when it returns, in a loop.
    wait(mutex, timeoutMs = Infinity) {
      const m = this.#mutexSlots(mutex, "wait(mutex)");
      if (!canBlock) mustNotBlock("wait(mutex)", "cond.waitAsync(mutex)");
      checkTimeout(timeoutMs);
      return this.#outcome(core.call(P.OP_COND_WAIT, this.#s.mem, this.#s.at, m.mem, m.at, 0, timeoutMs));
    }

    // Main thread too. Like wait, with Atomics.waitAsync; options as for
    // Mutex.lockAsync. It settles only once mutex is held again, also when
    // the signal aborts it (then it rejects with the signal's reason).
    async waitAsync(mutex, options) {
      const m = this.#mutexSlots(mutex, "waitAsync(mutex)");
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      const { i32, mem, at } = this.#s;
      const seq = core.call(P.OP_COND_WAIT_BEGIN, mem, at, m.mem, m.at, 0, 0);
      if (seq < 0) this.#outcome(seq);
      let r;
      try {
        r = await waitLoop(P, i32, at, timeoutMs, signal, (d) => core.call(P.OP_COND_WAIT_STEP, mem, at, seq, 0, 0, d), () => core.call(P.OP_COND_ABANDON, mem, at, 0, 0, 0, 0));
      } finally {
        await mutex.lockAsync();
      }
      return this.#outcome(r);
    }

    // Main thread too. Wakes one waiter; returns how many it woke (0 or 1).
    notifyOne() {
      return this.#notify(1);
    }

    // Main thread too. Wakes every waiter; returns how many it woke.
    notifyAll() {
      return this.#notify(-1);
    }

    #notify(count) {
      const i32 = this.#s.i32, at = this.#s.at;
      const v = Atomics.load(i32, at);
      if (v >= 0 && Atomics.compareExchange(i32, at, v, (v + 1) & P.COND_SEQ_MASK) === v) return Atomics.notify(i32, at, count < 0 ? Infinity : count);
      const r = core.call(P.OP_COND_NOTIFY, this.#s.mem, this.#s.at, count, 0, 0, 0);
      if (r < 0) this.#outcome(r);
      return r;
    }

    #outcome(r) {
      if (r === P.RESULT_OK) return true;
      if (r === P.RESULT_BUSY) return false;
      throw failure(P, r, `the Cond at index ${this.#index}`, Atomics.load(this.#s.i32, this.#s.at), (r) => {
        if (r === P.RESULT_NOT_LOCKED || r === P.RESULT_NOT_HOLDER) {
          return "wait(mutex) needs mutex held by this agent: lock it first, check the condition, then wait (it unlocks and relocks it for you)";
        }
        if (r === P.RESULT_DEADLOCK) return "deadlock: after the wait, another task of this agent held the mutex, which a blocking wait() can never get back";
      });
    }
  }

  return {
    name: "Cond",
    Class: Cond,
    start(e) {
      ({ core, P, canBlock } = e);
    },
  };
}
