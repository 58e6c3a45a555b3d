// Once: a function that runs once across all agents (internal/core/once.go).
// Every step is Go's; here are the checks, the running of fn and the
// messages.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { checkFn, mustNotBlock, timeoutError, timeoutOf } from "./errors.js";
import { optionsNotAborted } from "./wait.js";
import { Primitive, nameLock, slotsAfterInit } from "./primitive.js";
import { named } from "./names.js";

export class Once extends Primitive {
  _holderDied = false; // see previousHolderDied
  // main thread too. memory, index: as for Mutex, with Once.SLOTS slots (zeroed: not run yet).
  // options: { name }, as for Mutex.
  constructor(memory, index = 0, options) {
    super("Once", P.ONCE_SLOTS, memory, index);
    nameLock(this, "Once", options);
  }

  // main thread too. The Once named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  static named(name) {
    return named(P.NAME_KIND_ONCE, name, undefined, undefined, (buffer, index, _a, _b, n) => new Once(buffer, index, { name: n }));
  }

  // How many int32 slots one Once uses.
  static get SLOTS() {
    return slotsAfterInit("Once", P.ONCE_SLOTS);
  }

  // Workers only. do(fn, timeoutMs): runs fn (synchronously) unless some
  // agent's fn has run; while another's runs, waits for it, at most
  // timeoutMs (none: forever; then throws a sabmutex TimeoutError). Returns
  // true if fn ran here, false if it was done already. If fn throws, the
  // error is rethrown here and the Once is left as if never called: the next
  // caller (or a waiting one) runs its fn.
  do(fn) {
    checkFn(fn, "do(fn)", "once");
    if (!canBlock) mustNotBlock("do(fn)", "once.doAsync(fn)");
    const timeoutMs = timeoutOf(arguments[1]);
    if (this.isDone()) return (this._holderDied = false);
    const r = this._wait(P.KIND_ONCE, 0, timeoutMs);
    if (!this.#runs(r)) return this.#done(r, timeoutMs);
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
    const { timeoutMs } = optionsNotAborted(options); // an aborted signal rejects, run or not
    if (this.isDone()) return (this._holderDied = false);
    const r = await this._waitAsync(P.KIND_ONCE, 0, options);
    if (!this.#runs(r)) return this.#done(r, timeoutMs);
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
    return Atomics.load(this._i32, this._at) === P.ONCE_DONE;
  }

  // True while and after this agent runs fn because the agent that last ran
  // its own ended while it ran it (the watch ended that run, as if its fn
  // had thrown): what it set up may be half done. False after any other do.
  get previousHolderDied() {
    return this._holderDied;
  }

  // Whether the wait's result r says to run fn here; notes whether the last
  // runner died.
  #runs(r) {
    this._holderDied = r === P.RESULT_RUN_DIED;
    return r === P.RESULT_RUN || r === P.RESULT_RUN_DIED;
  }

  #finish(ok) {
    const r = this._call(P.OP_ONCE_FINISH, ok ? 1 : 0);
    if (r !== P.RESULT_OK) throw this._failure(r);
  }

  // The end of a wait that did not run fn: false (done elsewhere), or the error.
  #done(r, timeoutMs) {
    if (r === P.RESULT_OK) return false;
    if (r === P.RESULT_BUSY) throw timeoutError(`the function of ${this._what} to finish in another agent`, timeoutMs);
    throw this._failure(r);
  }

  _message(r) {
    if (r === P.RESULT_DEADLOCK) return `deadlock: this agent is running the function of ${this._what}, and do() would wait for itself; use doAsync, or do not call do() from inside fn`;
  }
}
