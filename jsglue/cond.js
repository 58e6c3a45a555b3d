// Cond: a condition variable used with a Mutex (internal/core/cond.go). Notify
// is inlined (the sequence moves on, then Atomics.notify), as Go's condNotify
// does it, and checked against Go's by browsertest's
// TestFamilyGlueAgreesWithCore. A wait is three of the core's: begin (read
// the sequence, unlock the mutex), the wait on the sequence, and the
// mutex's own lock, without a deadline, however that wait ended.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { describe, mustNotBlock, timeoutOf } from "./errors.js";
import { mutexes, releasedElsewhere } from "./mutex.js";
import { optionsNotAborted } from "./wait.js";
import { Primitive, slotsAfterInit } from "./primitive.js";
import { MsgCondNeedsMutex } from "./messages.js";
import { named } from "./names.js";

function checkMutex(mutex, call) {
  if (!mutexes.has(mutex)) throw new TypeError(`sabmutex: ${call} takes the sabmutex.Mutex that guards the condition; got ${describe(mutex)}`);
}

export class Cond extends Primitive {
  _seq = 0; // the sequence as this agent last saw it: notify's guess

  // main thread too. memory, index: as for Mutex, with Cond.SLOTS slots (zeroed: nobody waits).
  constructor(memory, index = 0) {
    super("Cond", P.COND_SLOTS, memory, index);
  }

  // main thread too. The Cond named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  static named(name) {
    return named(P.NAME_KIND_COND, name, undefined, undefined, (buffer, index) => new Cond(buffer, index));
  }

  // How many int32 slots one Cond uses.
  static get SLOTS() {
    return slotsAfterInit("Cond", P.COND_SLOTS);
  }

  // Workers only. wait(mutex, timeoutMs): unlocks mutex (held by this
  // agent), sleeps until a notify or timeoutMs (none: forever), and locks
  // mutex again before it returns: true if notified, false if the timeout
  // passed. No notify sent after the call began is lost. Check the condition
  // again when it returns, in a loop.
  wait(mutex) {
    checkMutex(mutex, "wait(mutex)");
    if (!canBlock) mustNotBlock("wait(mutex)", "cond.waitAsync(mutex)");
    const timeoutMs = timeoutOf(arguments[1]);
    const seq = this.#begin(mutex);
    let r;
    try {
      r = this._wait(P.KIND_COND, seq, timeoutMs);
    } finally {
      mutex.lock();
    }
    return this._outcome(r);
  }

  // Main thread too. Like wait, with Atomics.waitAsync; options as for
  // Mutex.lockAsync. It settles only once mutex is held again, also when
  // the signal aborts it (then it rejects with the signal's reason).
  async waitAsync(mutex, options) {
    checkMutex(mutex, "waitAsync(mutex)");
    optionsNotAborted(options); // before it releases the mutex
    const seq = this.#begin(mutex);
    let r;
    try {
      r = await this._waitAsync(P.KIND_COND, seq, options);
    } finally {
      await mutex.lockAsync();
    }
    return this._outcome(r);
  }

  // Reads the sequence and unlocks mutex (the core's begin), which must be
  // held by this agent (else nothing changes); returns the sequence.
  #begin(mutex) {
    const seq = this._call(P.OP_COND_WAIT_BEGIN, mutex._mem, mutex._at);
    if (seq < 0) throw this._failure(seq);
    mutex._holderDied = false; // released, as an unlock() would (see Mutex's #took)
    releasedElsewhere(mutex); // (this agent's tasks queued on it: the first waits on the word)
    return seq;
  }

  // Main thread too. Wakes one waiter; returns how many it woke (0 or 1).
  notifyOne() {
    return this.#notify(1);
  }

  // Main thread too. Wakes every waiter; returns how many it woke.
  notifyAll() {
    return this.#notify(-1);
  }

  // seq -> seq+1 (modulo 2^31), then wake count. The swap starts from the
  // sequence this agent last saw (see "Guess, then swap" in primitive.js);
  // a wrong guess returns the sequence as it is, for the next swap.
  #notify(count) {
    const i32 = this._i32, at = this._at;
    for (let v = this._seq; v >= 0; ) {
      const next = (v + 1) & P.COND_SEQ_MASK;
      const got = Atomics.compareExchange(i32, at, v, next);
      if (got === v) {
        this._seq = next;
        return Atomics.notify(i32, at, count < 0 ? Infinity : count);
      }
      v = got;
    }
    const r = this._call(P.OP_COND_NOTIFY, count);
    if (r < 0) throw this._failure(r);
    return r;
  }

  _message(r) {
    if (r === P.RESULT_NOT_LOCKED || r === P.RESULT_NOT_HOLDER) {
      return MsgCondNeedsMutex;
    }
  }
}
