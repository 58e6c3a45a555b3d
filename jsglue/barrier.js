// Barrier: parties wait for each other, generation after generation
// (internal/core/barrier.go). Every step is Go's (the blocking wait's commonest
// turns written out: barrierTurn); here are the checks and the
// outcomes.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { waitBlocking, wakeShared } from "./wait.js";
import { checkSize, fill, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive, slotsAfterInit } from "./primitive.js";
import { MsgSizeMismatch } from "./messages.js";
import { named } from "./names.js";

export class Barrier extends Primitive {
  // main thread too. memory, index: as for Mutex, with Barrier.SLOTS slots
  // (zeroed: nobody arrived); parties: how many arrivals complete a
  // generation, the same in every agent (another number throws).
  constructor(memory, index, parties) {
    super("Barrier", P.BARRIER_SLOTS, memory, index);
    checkSize("parties", parties, P.MAX_PARTIES);
    const r = this._call(P.OP_BARRIER_SET_UP, parties);
    if (r === P.RESULT_MISMATCH) {
      throw new Error(fill(MsgSizeMismatch, { what: this._what, with: "for", size: Atomics.load(this._i32, this._at + P.BARRIER_PARTIES_AT), noun: "parties", got: parties }));
    }
    if (r !== P.RESULT_OK) throw this._failure(r);
    this._parties = parties;
  }

  _parties; // how many arrivals complete a generation

  // main thread too. The Barrier named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  // parties: as for the constructor, which the agent that creates it
  // gives; optional after, and then the same.
  static named(name, parties) {
    return named(P.NAME_KIND_BARRIER, name, parties === undefined ? undefined : (checkSize("parties", parties, P.MAX_PARTIES), parties), undefined, (buffer, index, a) => new Barrier(buffer, index, a));
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
    return this.#passed(waitBlocking(P.KIND_BARRIER, this, 0, timeoutOf(arguments[0]), barrierTurn, false));
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

// One turn of Barrier.wait() without a deadline, in a worker: Go's
// barrierStep (internal/core/barrier.go) for its commonest turns, written out
// (docs/decisions/barrier-in-glue.md), as waitBlocking's fast turn. The
// first is the arrival (count+1, or the next generation and wake everyone
// for the last); then, until the generation moves, the word to sleep on.
// Without a deadline a party never withdraws, so that is all the step does.
// It returns null, having changed nothing, for a word Go must judge
// (corrupted; parties other than set up). browsertest's
// TestBarrierGenerations runs it, with the core's waitAsync turns on the
// page; the agreement checks (TestFamilyGlueAgreesWithCore, make nodetest)
// compare it with the core's turns.
export function barrierTurn(b, slept, _startMs, sleptOn) {
  /** @type {Int32Array} */ const i32 = b._i32;
  const at = b._at;
  if (slept === P.SLEPT_NONE) {
    const p = b._parties;
    for (let v = Atomics.load(i32, at); ; ) {
      if (v < 0 || (v & P.BARRIER_COUNT_MASK) >= p || Atomics.load(i32, at + P.BARRIER_PARTIES_AT) !== p) return null;
      const last = (v & P.BARRIER_COUNT_MASK) === p - 1;
      const next = last ? ((v & P.BARRIER_GEN_MASK) + P.BARRIER_GEN_ONE) & P.BARRIER_GEN_MASK : v + 1;
      const got = Atomics.compareExchange(i32, at, v, next);
      if (got !== v) {
        v = got;
        continue;
      }
      if (!last) return next;
      Atomics.notify(i32, at);
      wakeShared(i32, at);
      return P.RESULT_LAST;
    }
  }
  const w = Atomics.load(i32, at);
  if (w < 0) return null;
  return (w & P.BARRIER_GEN_MASK) !== (sleptOn & P.BARRIER_GEN_MASK) ? P.RESULT_OK : w;
}
