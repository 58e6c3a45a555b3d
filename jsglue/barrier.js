// Barrier: parties wait for each other, generation after generation
// (wasm/core/barrier.go). Every step is Go's; here are the checks and the
// outcomes.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { checkSize, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive, slotsAfterInit } from "./primitive.js";

export class Barrier extends Primitive {
  // main thread too. memory, index: as for Mutex, with Barrier.SLOTS slots
  // (zeroed: nobody arrived); parties: how many arrivals complete a
  // generation, the same in every agent (another number throws).
  constructor(memory, index, parties) {
    super("Barrier", P.BARRIER_SLOTS, memory, index);
    checkSize("parties", parties, P.MAX_PARTIES);
    const r = this._call(P.OP_BARRIER_SET_UP, parties);
    if (r === P.RESULT_MISMATCH) {
      throw new Error(`sabmutex: ${this._what} was set up for ${Atomics.load(this._i32, this._at + 1)} parties, not ${parties}; every agent must pass the same parties`);
    }
    if (r !== P.RESULT_OK) throw this._failure(r);
  }

  // How many int32 slots one Barrier uses.
  static get SLOTS() {
    return slotsAfterInit("Barrier", P.BARRIER_SLOTS);
  }

  // Workers only. wait(timeoutMs): arrives and waits, at most timeoutMs
  // (none: forever), for the others: "last" for the one arrival per
  // generation that completed it, "passed" for the others, "timed-out" if it
  // gave up (its arrival is withdrawn, so the generation still waits for a
  // full set of parties). (The timeout: from `arguments`, as in Mutex.lock.)
  wait() {
    if (!canBlock) mustNotBlock("wait()", "barrier.waitAsync(timeoutMs)");
    return this.#passed(this._wait(P.KIND_BARRIER, 0, timeoutOf(arguments[0])));
  }

  // Main thread too. Resolves as wait returns; options as for
  // Mutex.lockAsync. An abort withdraws the arrival (unless the generation
  // completed first) and rejects with the signal's reason.
  async waitAsync(options) {
    return this.#passed(await this._waitAsync(P.KIND_BARRIER, 0, options));
  }

  #passed(r) {
    if (r === P.RESULT_LAST) return "last";
    if (r === P.RESULT_OK) return "passed";
    if (r === P.RESULT_BUSY) return "timed-out";
    throw this._failure(r);
  }
}
