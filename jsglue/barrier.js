// Barrier: parties wait for each other, generation after generation
// (wasm/core/barrier.go). Every step is Go's, through the export call; here
// are the checks and the messages.
function makeBarrier(env) {
  let core = null, P = null, canBlock = false;

  class Barrier {
    #s; // { i32, mem, at }: its slots
    #index; // the index the caller gave, for messages

    // main thread too. memory, index: as for Mutex, with Barrier.SLOTS slots
    // (zeroed: nobody arrived); parties: how many arrivals complete a
    // generation, the same in every agent (another number throws).
    constructor(memory, index, parties) {
      const s = slotsOf(env, "Barrier", "BARRIER_SLOTS", memory, index);
      checkSize("parties", parties, P.MAX_PARTIES);
      const r = core.call(P.OP_BARRIER_SET_UP, s.mem, s.at, parties, 0, 0, 0);
      if (r === P.RESULT_MISMATCH) {
        throw new Error(`sabmutex: the Barrier at index ${index} was set up for ${Atomics.load(s.i32, s.at + 1)} parties, not ${parties}; every agent must pass the same parties`);
      }
      if (r !== P.RESULT_OK) throw failure(P, r, `the Barrier at index ${index}`, Atomics.load(s.i32, s.at));
      this.#s = s;
      this.#index = index;
    }

    // How many int32 slots one Barrier uses.
    static get SLOTS() {
      return slotsConstant(env, "Barrier", "BARRIER_SLOTS");
    }

    #step(woken, sleptOn, deadlineMs) {
      return core.call(P.OP_BARRIER_STEP, this.#s.mem, this.#s.at, woken, sleptOn, 0, deadlineMs);
    }

    // Workers only. Arrives and waits, at most timeoutMs, for the others:
    // "last" for the one arrival per generation that completed it, "passed"
    // for the others, "timed-out" if it gave up (its arrival is withdrawn, so
    // the generation still waits for a full set of parties).
    wait(timeoutMs = Infinity) {
      if (!canBlock) mustNotBlock("wait()", "barrier.waitAsync(timeoutMs)");
      checkTimeout(timeoutMs);
      return this.#outcome(core.call(P.OP_BARRIER_WAIT, this.#s.mem, this.#s.at, 0, 0, 0, timeoutMs));
    }

    // Main thread too. Resolves as wait returns; options as for
    // Mutex.lockAsync. An abort withdraws the arrival (unless the generation
    // completed first) and rejects with the signal's reason.
    async waitAsync(options) {
      const { timeoutMs, signal } = asyncOptions(options);
      if (signal && signal.aborted) throw signal.reason;
      const { i32, at } = this.#s;
      return this.#outcome(
        await waitLoop(P, i32, at, timeoutMs, signal, (d, s, woken, sleptOn) => this.#step(woken, sleptOn, d), (sleptOn, late) => late || this.#step(P.WOKEN_OTHER, sleptOn, -Infinity)),
      );
    }

    #outcome(r) {
      if (r === P.RESULT_LAST) return "last";
      if (r === P.RESULT_OK) return "passed";
      if (r === P.RESULT_BUSY) return "timed-out";
      throw failure(P, r, `the Barrier at index ${this.#index}`, Atomics.load(this.#s.i32, this.#s.at));
    }
  }

  return {
    name: "Barrier",
    Class: Barrier,
    start(e) {
      ({ core, P, canBlock } = e);
    },
  };
}
