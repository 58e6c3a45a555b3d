// Barrier: parties wait for each other, generation after generation
// (wasm/core/barrier.go). Every step is Go's; here are the checks and the
// outcomes.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { checkSize, fill, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive, slotsAfterInit } from "./primitive.js";
import { MsgSizeMismatch } from "./messages.js";

export class Barrier extends Primitive {
  // main thread too. memory, index: as for Mutex, with Barrier.SLOTS slots
  // (zeroed: nobody arrived); parties: how many arrivals complete a
  // generation, the same in every agent (another number throws).
  constructor(memory, index, parties) {
    super("Barrier", P.BARRIER_SLOTS, memory, index);
    checkSize("parties", parties, P.MAX_PARTIES);
    const r = this._call(P.OP_BARRIER_SET_UP, parties);
    if (r === P.RESULT_MISMATCH) {
      throw new Error(fill(MsgSizeMismatch, { what: this._what, with: "for", size: Atomics.load(this._i32, this._at + 1), noun: "parties", got: parties }));
    }
    if (r !== P.RESULT_OK) throw this._failure(r);
    this._parties = parties;
  }

  _parties; // how many arrivals complete a generation

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
    if (arguments.length === 0 || arguments[0] === undefined) {
      const r = this.#waitForever();
      if (r !== null) return r;
    }
    return this.#passed(this._wait(P.KIND_BARRIER, 0, timeoutOf(arguments[0])));
  }

  // Workers only: wait() without a deadline, Go's barrierStep
  // (wasm/core/barrier.go) for its commonest turns, written out: the arrival
  // (count+1, or the next generation and wake everyone for the last), then
  // sleep until the generation moves. Without a deadline a party never
  // withdraws, so that is all the step does. It returns null, having changed
  // nothing, for a word Go must judge (corrupted; parties other than set up).
  // browsertest's TestBarrierGenerations runs it, with the core's waitAsync
  // turns on the page.
  #waitForever() {
    const i32 = this._i32, at = this._at, p = this._parties;
    let v = Atomics.load(i32, at);
    for (;;) {
      if (v < 0 || (v & P.BARRIER_COUNT_MASK) >= p || Atomics.load(i32, at + 1) !== p) return null;
      const last = (v & P.BARRIER_COUNT_MASK) === p - 1;
      const next = last ? ((v & P.BARRIER_GEN_MASK) + P.BARRIER_GEN_ONE) & P.BARRIER_GEN_MASK : v + 1;
      const got = Atomics.compareExchange(i32, at, v, next);
      if (got !== v) {
        v = got;
        continue;
      }
      if (last) {
        Atomics.notify(i32, at);
        return "last";
      }
      const g = next & P.BARRIER_GEN_MASK;
      for (let w = next; ; w = Atomics.load(i32, at)) {
        if (w < 0) throw this._failure(P.RESULT_CORRUPTED);
        if ((w & P.BARRIER_GEN_MASK) !== g) return "passed";
        Atomics.wait(i32, at, w);
      }
    }
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
