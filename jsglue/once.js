// Once: a function that runs once across all agents (wasm/core/once.go).
// Every step is Go's, through the export call; here are the checks, the
// running of fn and the messages.
function makeOnce(env) {
  let core = null, P = null, canBlock = false;

  class Once {
    #s; // { i32, mem, at }: its slots
    #index; // the index the caller gave, for messages

    // main thread too. memory, index: as for Mutex, with Once.SLOTS slots (zeroed: not run yet).
    constructor(memory, index = 0) {
      this.#s = slotsOf(env, "Once", "ONCE_SLOTS", memory, index);
      this.#index = index;
    }

    // How many int32 slots one Once uses.
    static get SLOTS() {
      return slotsConstant(env, "Once", "ONCE_SLOTS");
    }

    #call(op, a = 0, ms = 0) {
      return core.call(op, this.#s.mem, this.#s.at, a, 0, 0, ms);
    }

    // Workers only. Runs fn (synchronously) unless some agent's fn has run;
    // while another's runs, waits for it, at most timeoutMs (then throws a
    // sabmutex TimeoutError). Returns true if fn ran here, false if it was
    // done already. If fn throws, the error is rethrown here and the Once is
    // left as if never called: the next caller (or a waiting one) runs its fn.
    do(fn, timeoutMs = Infinity) {
      checkFn(fn, "do(fn)", "once");
      if (!canBlock) mustNotBlock("do(fn)", "once.doAsync(fn)");
      checkTimeout(timeoutMs);
      if (this.isDone()) return false;
      const r = this.#call(P.OP_ONCE_DO, 0, timeoutMs);
      if (r !== P.RESULT_RUN) return this.#outcome(r, timeoutMs);
      let ok = false;
      try {
        fn();
        ok = true;
      } finally {
        this.#finish(ok);
      }
      return true;
    }

    // Main thread too. Like do, but awaits fn (which may be async) and waits
    // with Atomics.waitAsync; options as for Mutex.lockAsync.
    async doAsync(fn, options) {
      checkFn(fn, "doAsync(fn)", "once");
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      if (this.isDone()) return false;
      const { i32, at } = this.#s;
      // Nothing to abandon: the end of a run wakes every waiter.
      const r = await waitLoop(P, i32, at, timeoutMs, signal, (d) => this.#call(P.OP_ONCE_STEP, 0, d), () => {});
      if (r !== P.RESULT_RUN) return this.#outcome(r, timeoutMs);
      let ok = false;
      try {
        await fn();
        ok = true;
      } finally {
        this.#finish(ok);
      }
      return true;
    }

    // Main thread too. Whether some agent's fn has run to the end.
    isDone() {
      return Atomics.load(this.#s.i32, this.#s.at) === P.ONCE_DONE;
    }

    #finish(ok) {
      const r = this.#call(P.OP_ONCE_FINISH, ok ? 1 : 0);
      if (r !== P.RESULT_OK) throw failure(P, r, `the Once at index ${this.#index}`, Atomics.load(this.#s.i32, this.#s.at));
    }

    #outcome(r, timeoutMs) {
      if (r === P.RESULT_OK) return false;
      if (r === P.RESULT_BUSY) throw timedOut(`the function of the Once at index ${this.#index} to finish in another agent`, timeoutMs);
      const what = `the Once at index ${this.#index}`;
      throw failure(P, r, what, Atomics.load(this.#s.i32, this.#s.at), (r) => {
        if (r === P.RESULT_DEADLOCK) return `deadlock: this agent is running the function of ${what}, and do() would wait for itself; use doAsync, or do not call do() from inside fn`;
      });
    }
  }

  return {
    name: "Once",
    Class: Once,
    start(e) {
      ({ core, P, canBlock } = e);
    },
  };
}
