// WaitGroup: wait for a count of tasks to finish (internal/core/waitgroup.go).
// The steps that wake nobody are inlined (add while nobody waits; wait on a
// count of 0), as Go publishes them, and checked against Go's by
// browsertest's TestFamilyGlueAgreesWithCore; every wait is Go's.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { describe, fill, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive, RESOLVED_TRUE, slotsAfterInit } from "./primitive.js";
import { MsgAddRange, MsgCountPast } from "./messages.js";
import { named } from "./names.js";

export class WaitGroup extends Primitive {
  // main thread too. memory, index: as for Mutex, with WaitGroup.SLOTS slots (zeroed: a count of 0).
  constructor(memory, index = 0) {
    super("WaitGroup", P.WAITGROUP_SLOTS, memory, index);
  }

  // main thread too. The WaitGroup named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  static named(name) {
    return named(P.NAME_KIND_WAITGROUP, name, undefined, undefined, (buffer, index) => new WaitGroup(buffer, index));
  }

  // How many int32 slots one WaitGroup uses.
  static get SLOTS() {
    return slotsAfterInit("WaitGroup", P.WAITGROUP_SLOTS);
  }

  // Main thread too. Adds delta (a whole number, may be negative) to the
  // count; at 0, every waiter returns. Throws, changing nothing, if the
  // count would go below 0.
  add(delta) {
    if (typeof delta !== "number" || !Number.isInteger(delta) || Math.abs(delta) > P.MAX_COUNT) {
      throw new RangeError(fill(MsgAddRange, { max: P.MAX_COUNT, got: describe(delta) }));
    }
    const i32 = this._i32, at = this._at;
    const v = Atomics.load(i32, at);
    // While nobody waits (the waiters bit is clear): count -> count+delta.
    if (v >= 0 && v < P.WG_WAITERS && v + delta >= 0 && v + delta <= P.MAX_COUNT && Atomics.compareExchange(i32, at, v, v + delta) === v) return;
    const r = this._call(P.OP_WG_ADD, delta);
    if (r !== P.RESULT_OK) throw this._failure(r, `add(${delta})`);
  }

  // Main thread too. add(-1).
  done() {
    this.add(-1);
  }

  // Main thread too. The count now (for debugging: the answer may be stale at once).
  count() {
    const r = this._call(P.OP_WG_COUNT);
    if (r < 0) throw this._failure(r);
    return r;
  }

  // Workers only. wait(timeoutMs): waits until the count is 0, at most
  // timeoutMs (none: forever); false if it timed out. (The timeout: from
  // `arguments`, as in Mutex.lock.)
  wait() {
    if (!canBlock) mustNotBlock("wait()", "wg.waitAsync(timeoutMs)");
    const timeoutMs = timeoutOf(arguments[0]);
    return this.#zero() || this._outcome(this._wait(P.KIND_WG_WAIT, 0, timeoutMs));
  }

  // Main thread too. Resolves true once the count is 0, false after the
  // timeout; options as for Mutex.lockAsync.
  waitAsync(options) {
    return options === undefined && this.#zero() ? RESOLVED_TRUE : this.#waitAsyncSlow(options);
  }

  async #waitAsyncSlow(options) {
    return this._outcome(await this._waitAsync(P.KIND_WG_WAIT, 0, options));
  }

  // Whether the count is 0 now (any waiters bit aside).
  #zero() {
    const v = Atomics.load(this._i32, this._at);
    return v >= 0 && (v & P.MAX_COUNT) === 0;
  }

  _message(r, call) {
    const what = this._what;
    if (r === P.RESULT_NEGATIVE) return `${call} would make the count of ${what} negative (it is ${this.count()}); call done() once per add(1)`;
    if (r === P.RESULT_TOO_MANY) return fill(MsgCountPast, { call, what, max: P.MAX_COUNT });
  }
}
