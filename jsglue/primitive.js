// The skeleton every primitive shares: where it lives, its waits through the
// core (blocking and asynchronous), its outcomes and its messages. The hot
// paths are each class's own (mutex.js, rwmutex.js, ...), inlined with the
// constants of protocol.js and checked against Go's by browsertest's
// agreement tests.
//
// Guess, then swap. A fast path swaps from the value the word most likely
// holds (0 for a free RWMutex or Semaphore, 1 for one reader, the sequence
// this agent last saw for a Cond) instead of loading it first: a wrong guess
// costs nothing, as the failed swap returns the word as it is, for the
// general case. Engines run a load followed by a swap of the same word
// markedly slower than the swap alone, and that was most of the family's
// gap to the textbook versions (docs/decisions/guess-then-swap.md).
//
// The fields the fast paths read are plain properties named with an
// underscore as internal (as in Go's wasm_exec.js), not private (#): Firefox
// runs the fast paths measurably slower over private fields
// (docs/decisions/plain-fields.md).
import * as P from "./protocol.js";
import { core, mustBeStarted } from "./runtime.js";
import { slotsOf } from "./slots.js";
import { describe, timeoutError } from "./errors.js";
import { asyncOptions, optionsNotAborted, waitBlocking, waitFor } from "./wait.js";
import { deadlockMessage } from "./watch.js";

export const RESOLVED_TRUE = Promise.resolve(true);

// The names that constructors' options gave locks ({ name }): how debug
// mode's reports name them and what identifies them across agents
// (debug.js). Kept beside the objects, not on them: no fast path's object
// changes shape.
export const lockNames = new WeakMap();

// A lock's constructor options: undefined, or { name } (a string).
export function nameLock(p, type, options) {
  if (options === undefined) return;
  if (options === null || typeof options !== "object" || (options.name !== undefined && typeof options.name !== "string")) {
    throw new TypeError(`sabmutex: new ${type}(memory, index, options) takes options such as { name: "accounts" } (a string that names it in debug reports); got ${describe(options === null || typeof options !== "object" ? options : options.name)}`);
  }
  if (options.name !== undefined) lockNames.set(p, options.name);
}

export class Primitive {
  /** @type {Int32Array} */
  _i32; // Int32Array over the whole buffer
  _at; // the first slot's index in _i32
  _mem; // the buffer's handle for the Go module
  _what; // "the Mutex at index 4", or by name `the Mutex "db"` (names.js), for messages

  // main thread too. type names the class; slots: how many int32 slots it
  // uses from memory[index]; need and count, where the class's size varies,
  // what needs them and how the API counts them (see slots.js).
  constructor(type, slots, memory, index, need, count) {
    const s = slotsOf(type, slots, memory, index, need, count);
    this._i32 = s.i32;
    this._at = s.at;
    this._mem = s.mem;
    this._what = `the ${type} at index ${index}`;
  }

  // A blocking wait of `kind`. Workers only: each blocking call checks
  // canBlock first (mustNotBlock), before any fast path.
  _wait(kind, arg, timeoutMs) {
    return waitBlocking(kind, this, arg, timeoutMs);
  }

  // An asynchronous wait of `kind`: options as for Mutex.lockAsync (an
  // aborted signal rejects before the first turn, which may take).
  async _waitAsync(kind, arg, options) {
    const { timeoutMs, signal } = optionsNotAborted(options);
    return waitFor(kind, this, arg, timeoutMs, signal);
  }

  // A call that never waits (the core's ops): _call(op, a, b), a and b 0
  // when not given. They are read from `arguments`, not declared with
  // defaults: WebKit pads every call that passes fewer arguments than the
  // function declares (as Mutex.lock's comment says), and a loop can make
  // the calls that ask the core without arguments (isLocked() polled, a
  // Channel's length, a try that Go must answer).
  /** @type {(op: number, a?: number, b?: number) => number} */
  _call(op) {
    const n = arguments.length;
    return core.call(op, this._mem, this._at, n > 1 ? arguments[1] : 0, n > 2 ? arguments[2] : 0);
  }

  // The result of an acquisition: true (had), false (busy or timed out), or
  // the error.
  _outcome(r) {
    if (r === P.RESULT_OK || r === P.RESULT_HOLDER_DIED) return true;
    if (r === P.RESULT_BUSY) return false;
    throw this._failure(r);
  }

  // The sabmutex error for a result that is not an outcome the caller
  // handles: the class's own message (_message), or corruption.
  _failure(r, call) {
    if (r === P.RESULT_CYCLE) return new Error(`sabmutex: ${deadlockMessage()}`);
    const text = this._message(r, call);
    if (text) return new Error(`sabmutex: ${text}`);
    if (r === P.RESULT_CORRUPTED) {
      return new Error(
        `sabmutex: corrupted state in ${this._what}: its first slot holds ${Atomics.load(this._i32, this._at)}, which it cannot hold, ` +
          "so something else wrote to its slots; give each object SLOTS slots of its own",
      );
    }
    return new Error(`sabmutex: internal error: the Go module returned ${r} for ${this._what}; please report this`);
  }

  // The class's message for result r of call, or undefined.
  _message(r, call) {
    return undefined;
  }
}

// A class's SLOTS: its constant, once init has run (as before it, nothing
// else of the class can be used).
export function slotsAfterInit(type, slots) {
  mustBeStarted(`reading ${type}.SLOTS`);
  return slots;
}

// Symbol.dispose where the browser has it (Chromium 134+), else the
// well-known stand-in that TypeScript's downlevel `using` looks for.
const DISPOSE = Symbol.dispose || Symbol.for("Symbol.dispose");

// What acquire and acquireAsync return: release() once, or let `using`
// dispose of it.
export class LockHandle {
  #mutex;
  constructor(mutex) {
    this.#mutex = mutex;
  }
  // Main thread too. Unlocks; a second release() throws.
  release() {
    if (!this.#mutex) throw new Error("sabmutex: this lock handle was already released; release() it once");
    const m = this.#mutex;
    this.#mutex = null;
    m.unlock();
  }
  get released() {
    return this.#mutex === null;
  }
  [DISPOSE]() {
    if (this.#mutex) this.release();
  }
}

// withLock and the like: fn run after take() acquired something, which
// release() gives back whatever fn does.
export function runHolding(take, release, fn) {
  take();
  try {
    return fn();
  } finally {
    release();
  }
}

// withLockAsync and the like: fn awaited once the acquisition `took`
// resolved true (false: a sabmutex TimeoutError naming what, after the
// timeout of options), then release().
export async function runHoldingAsync(took, what, options, release, fn) {
  if (!(await took)) throw timeoutError(what, asyncOptions(options).timeoutMs);
  try {
    return await fn();
  } finally {
    release();
  }
}
