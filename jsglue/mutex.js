// Mutex: the futex mutex of internal/core/mutex.go. Its fast paths (one
// compare-and-swap and the holder slot) and the turns of normal mode of its
// wait loop (lockTurn) are inlined here with the constants of protocol.js;
// everything else is Go's.
import * as P from "./protocol.js";
import { core, canBlock, agentId } from "./runtime.js";
import { describe, checkFn, mustNotBlock, timeoutError, timeoutOf } from "./errors.js";
import { asyncOptions, optionsNotAborted, waitBlocking, waitFor } from "./wait.js";
import { agentLabel } from "./registry.js";
import { Primitive, RESOLVED_TRUE, LockHandle, nameLock, runHolding, runHoldingAsync, slotsAfterInit } from "./primitive.js";
import { named } from "./names.js";

// One turn of the wait loop of a lock without a deadline, when the word is
// in normal mode (0, 1 or 2): Go's lockStep (internal/core/mutex.go) for the
// turns a contended loop takes most, which through the core cost many
// import calls each (docs/decisions/contended-path.md). Like lockStep, it
// takes a free mutex (as 2 once it has slept) and records its holder, or
// announces itself (1 -> 2) and returns 2 to sleep on; it does not spin.
// It returns null, having changed nothing, where the turn is Go's: a flag
// on the word or a corrupted word, this agent holding it on a first turn (a
// deadlock, for a blocking lock), or a wait past the starvation threshold.
// slept: how the last sleep ended (P.SLEPT_NONE on the first turn).
// browsertest's TestGlueAgreesWithCore compares it with Go's.
/**
 * @param {Int32Array} i32
 * @param {number} at
 * @param {number} slept
 * @param {number} startMs
 */
export function lockTurn(i32, at, slept, startMs) {
  let v = Atomics.load(i32, at);
  for (;;) {
    if (v === P.MUTEX_UNLOCKED) {
      v = Atomics.compareExchange(i32, at, v, slept === P.SLEPT_NONE ? P.MUTEX_LOCKED : P.MUTEX_CONTENDED);
      if (v !== P.MUTEX_UNLOCKED) continue;
      i32[at + P.MUTEX_HOLDER_AT] = agentId;
      return P.RESULT_OK;
    }
    if (v !== P.MUTEX_LOCKED && v !== P.MUTEX_CONTENDED) return null;
    if (slept === P.SLEPT_NONE ? i32[at + P.MUTEX_HOLDER_AT] === agentId : slept === P.SLEPT_OK && performance.now() - startMs >= P.STARVATION_THRESHOLD_US / 1000) return null;
    if (v === P.MUTEX_LOCKED && (v = Atomics.compareExchange(i32, at, v, P.MUTEX_CONTENDED)) !== P.MUTEX_LOCKED) continue;
    return P.MUTEX_CONTENDED;
  }
}

// lockTurn as waitBlocking's fast turn.
const lockFastTurn = (m, slept, startMs) => lockTurn(m._i32, m._at, slept, startMs);

// The hand-off between tasks of one agent (issue 60). The asynchronous
// tasks of this agent that wait for one mutex wait in a queue of the
// agent's (HandOffs, one per mutex: by its buffer and index, whatever
// Mutex objects the tasks used), behind the first of them, which waits on
// the word (waiting: waitFor, with Atomics.waitAsync or a helper worker).
// Once that one holds the mutex, unlock() by a task of this agent, with
// tasks queued, keeps the word held and hands the mutex to the first of
// them (#handOn): its lockAsync resolves true, without a release, a
// wake-up or a take. For the other
// agents nothing has happened: this agent held the mutex all along (its id
// stays in the holder slot), so the protocol of the word is Go's as ever.
//
// The bound. A word that reads contended (2) may have another agent's
// waiter asleep on it, which the hand-offs would keep waiting; so they go
// on for STARVATION_THRESHOLD_US at most from the first unlock that found
// the word contended, and then unlock lets the word go (2 -> 0 and a
// wake-up, as ever) and the queue's first task waits on the word like any
// waiter. The worker woken then, if it loses the word to that task, has
// waited past the threshold when the next release wakes it: starvation
// mode (docs/decisions/starvation-mode.md) hands it the mutex then. A word
// in any other state (starving, a dead holder's) is never handed on.
//
// A wake-up taken by a task of this agent. The word reads 1 (locked, nobody
// asleep) when this agent took it by the fast path, even while another
// agent sleeps on it: a release 2 -> 0 wakes one sleeper, and when that
// one is this agent's task on the word (an Atomics.waitAsync, or a helper
// worker's wait), whose turn comes only when the agent's other tasks let
// its event loop run, the agent's next lockAsync takes the word as 1, and
// the worker asleep on it is never woken by a release of 1: it waited out
// a page's whole stream of tasks (TestMutexTaskHandOff, 1 run in 16 with
// three engines at once). So while a task of this agent waits on the
// word, its release of 1 wakes one sleeper too: the woken worker finds
// the word taken again, marks it 2 and, having waited past the threshold,
// starves (starvation mode); or finds it free and takes it.
// (A Task's n: what it asks for, where that varies: a Semaphore's permits;
// its data: what it brings, a Channel's message. A queue's emptied: called
// when its last task leaves, however it leaves: the queues of waitForQueue
// then end their wait on the word. waiter: a Channel queue's, see
// channel.js. timedOut: what its tasks resolve with at their timeout.)
/** @typedef {{ m: any, n: number, data: any, resolve: (v: any) => void, reject: (e: any) => void, deadlineMs: number, signal: AbortSignal | null, timer: any, onAbort: (() => void) | null, done: boolean }} Task */
/** @typedef {{ tasks: Task[], head: number, waiting: boolean, contendedMs: number, emptied: ((h: HandOffs) => void) | null, abort: AbortController | null, waiter: boolean, serving: boolean, timedOut: any }} HandOffs */
/** @type {WeakMap<ArrayBufferLike, Map<number, HandOffs>>} */
const handOffs = new WeakMap();
// How many tasks wait in queues (unlock looks for a hand-off only then).
let tasksQueued = 0;
// How many of this agent's tasks wait on a Mutex's word (waitOnWord).
let wordWaits = 0;

// (queues: the map of queues to use; rwmutex.js keeps its readers' apart.)
/** @param {Int32Array} i32 @param {number} at @returns {HandOffs} */
export function handOffsOf(i32, at, queues = handOffs) {
  let byIndex = queues.get(i32.buffer);
  if (byIndex === undefined) queues.set(i32.buffer, (byIndex = new Map()));
  let h = byIndex.get(at);
  if (h === undefined) byIndex.set(at, (h = { tasks: [], head: 0, waiting: false, contendedMs: NaN, emptied: null, abort: null, waiter: false, serving: false, timedOut: false }));
  return h;
}

// Queues lockAsync of mutex m in h, with options o (a timeout > 0, or none);
// n: what the task asks for, where that varies; data: what it brings.
/** @param {any} m @param {HandOffs} h @param {{ timeoutMs: number, signal: AbortSignal | null }} o @returns {Promise<any>} */
export function queueBehind(m, h, o, n = 1, data = undefined) {
  return new Promise((resolve, reject) => {
    /** @type {Task} */
    const task = { m, n, data, resolve, reject, deadlineMs: performance.now() + o.timeoutMs, signal: o.signal, timer: 0, onAbort: null, done: false };
    if (o.timeoutMs !== Infinity) task.timer = setTimeout(() => leave(h, task, () => resolve(h.timedOut)), o.timeoutMs);
    if (o.signal !== null) {
      const signal = o.signal;
      task.onAbort = () => leave(h, task, () => reject(signal.reason));
      signal.addEventListener("abort", task.onAbort, { once: true });
    }
    h.tasks.push(task);
    tasksQueued++;
  });
}

// A queued task's timeout or abort: it leaves the queue, and then answers.
/** @param {HandOffs} h @param {Task} task @param {() => void} answer */
function leave(h, task, answer) {
  if (task.done) return;
  done(h, task);
  answer();
}

/** @param {HandOffs} h @param {Task} task */
function done(h, task) {
  task.done = true;
  tasksQueued--;
  clearTimeout(task.timer);
  if (task.onAbort !== null) /** @type {AbortSignal} */ (task.signal).removeEventListener("abort", task.onAbort);
  while (h.head < h.tasks.length && h.tasks[h.head].done) h.head++;
  if (h.head === h.tasks.length) {
    (h.tasks = []), (h.head = 0);
    if (h.emptied !== null) h.emptied(h);
  }
}

// Takes the first task of h out of the queue (undefined: none).
/** @param {HandOffs} h */
export function nextTask(h) {
  const task = h.tasks[h.head];
  if (task !== undefined) done(h, task);
  return task;
}

// After unlock let the word go with tasks queued: the first waits on the
// word, unless a task of this agent already does.
/** @param {Int32Array} i32 @param {number} at */
export function unlockedWith(i32, at) {
  const h = handOffs.get(i32.buffer)?.get(at);
  if (h !== undefined) (h.contendedMs = NaN), nextOnWord(h);
}

// The queue of the mutex at i32[at], if it has one.
/** @param {Int32Array} i32 @param {number} at */
export const handOffsAt = (i32, at) => handOffs.get(i32.buffer)?.get(at);

// How many tasks wait in queues (rwmutex.js's unlock looks for a hand-off only then).
export const tasksWaiting = () => tasksQueued;

// After a release of mutex m outside unlock() (Cond's wait, in the core):
// the first task queued on it waits on the word.
/** @param {{ _i32: Int32Array, _at: number }} m */
export function releasedElsewhere(m) {
  if (tasksQueued !== 0) unlockedWith(m._i32, m._at);
}

// The one wait on the word that stands for all the tasks of queue h
// (h.waiting while it lasts; h.abort ends it once the queue empties: make
// the queue with emptied = endQueueWait): a wait of kind(h) for the first
// task (its n: its need), as any waiter's, so the core knows of it
// (snapshot(), the watch). Its result goes to ready(h, first, r), which
// serves the queue and says whether it took r (else r is a failure, the
// first task's). While tasks remain after, the next such wait begins. The
// Semaphore's and the Channel's queues wait so.
/** @param {HandOffs} h @param {(h: HandOffs) => number} kind @param {(h: HandOffs, first: Task, r: number) => boolean} ready */
export async function waitForQueue(h, kind, ready) {
  const first = h.tasks[h.head], ac = new AbortController();
  h.waiting = true;
  h.abort = ac;
  let r;
  try {
    r = await waitFor(kind(h), first.m, first.n, Infinity, ac.signal);
  } catch (e) {
    r = e === EMPTIED ? P.RESULT_BUSY : e;
  }
  h.waiting = false;
  h.abort = null;
  if (r !== P.RESULT_BUSY && (typeof r !== "number" || !ready(h, first, r))) {
    nextTask(h)?.reject(typeof r === "number" ? first.m._failure(r) : r);
  }
  if (h.head < h.tasks.length) waitForQueue(h, kind, ready);
}

// Why a queue's wait on the word was ended: its queue emptied.
const EMPTIED = Symbol("emptied");

// A queue's emptied for waitForQueue: its wait on the word ends.
/** @param {HandOffs} h */
export function endQueueWait(h) {
  if (h.abort !== null) h.abort.abort(EMPTIED);
}

/** @param {HandOffs} h */
export function nextOnWord(h) {
  if (h.waiting) return;
  const task = nextTask(h);
  if (task !== undefined) task.m._onWord(h, task);
}

// Mutexes by object, for Cond.
export const mutexes = new WeakSet();

export class Mutex extends Primitive {
  _holderDied = false; // see previousHolderDied
  _self = agentId; // this agent's id, at hand for the fast paths

  // main thread too. memory: a SharedArrayBuffer or an Int32Array over one;
  // index: the first of Mutex.SLOTS int32 slots (of memory) that this mutex
  // uses; options: { name }, how debug mode's reports name it.
  constructor(memory, index = 0, options) {
    super("Mutex", P.MUTEX_SLOTS, memory, index);
    mutexes.add(this);
    nameLock(this, "Mutex", options);
  }

  // main thread too. The Mutex named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  static named(name) {
    return named(P.NAME_KIND_MUTEX, name, undefined, undefined, (buffer, index, _a, _b, n) => new Mutex(buffer, index, { name: n }));
  }

  // How many int32 slots one mutex uses. Slots start at zero: a zeroed
  // SharedArrayBuffer holds unlocked mutexes.
  static get SLOTS() {
    return slotsAfterInit("Mutex", P.MUTEX_SLOTS);
  }

  // Workers only (the browser's main thread cannot block: use lockAsync).
  // lock(timeoutMs): takes the lock, waiting at most timeoutMs (none:
  // forever); returns false if it timed out. The timeout is read from
  // `arguments`, not declared: WebKit pads a call that passes fewer
  // arguments than the function declares ("arity fixup"), which costs the
  // uncontended call (docs/decisions/arguments-not-parameters.md).
  lock() {
    if (!canBlock) mustNotBlock("lock()", "m.lockAsync(timeoutMs)");
    if (arguments.length === 0 && Atomics.compareExchange(this._i32, this._at, P.MUTEX_UNLOCKED, P.MUTEX_LOCKED) === P.MUTEX_UNLOCKED) {
      this._i32[this._at + P.MUTEX_HOLDER_AT] = this._self; // #took(), written out
      return true;
    }
    return this.#lockSlow(arguments[0]);
  }

  // Workers only: lock() with a timeout, or once its fast path failed.
  #lockSlow(timeoutMs) {
    timeoutMs = timeoutOf(timeoutMs);
    if (timeoutMs !== Infinity && Atomics.compareExchange(this._i32, this._at, P.MUTEX_UNLOCKED, P.MUTEX_LOCKED) === P.MUTEX_UNLOCKED) return this.#took();
    return this.#result(waitBlocking(P.KIND_LOCK, this, 0, timeoutMs, lockFastTurn));
  }

  // Main thread too. Resolves true once it holds the lock, false after the
  // timeout; never blocks the event loop and never polls. options: a
  // timeout in ms, or { timeoutMs, signal } where an AbortSignal's abort
  // rejects the promise with the signal's reason.
  lockAsync(options) {
    // The uncontended call without options answers with one settled promise,
    // not the fresh one an async function would make.
    if (options === undefined && Atomics.compareExchange(this._i32, this._at, P.MUTEX_UNLOCKED, P.MUTEX_LOCKED) === P.MUTEX_UNLOCKED) {
      this.#took();
      return RESOLVED_TRUE;
    }
    return this.#lockAsyncSlow(options);
  }

  // lockAsync once its fast path failed: behind another task of this agent
  // that waits for the mutex, it waits in this agent's queue of the mutex
  // (handOffs), with no wait of its own on the word; else it waits on the
  // word for the agent's tasks (so the first waiter of an agent is one the
  // core knows of: snapshot() and the watch see it).
  #lockAsyncSlow(options) {
    return lockAsyncInLine(this, P.KIND_LOCK, (r) => this.#result(r), options);
  }

  // A task of queue h (see handOffs) on this mutex, its turn come without a
  // hand-off (an unlock let the word go): it waits on the word as the
  // agent's waiter.
  /** @param {HandOffs} h @param {Task} task */
  _onWord(h, task) {
    waitOnWord(this, P.KIND_LOCK, (r) => this.#result(r), h, Math.max(0, task.deadlineMs - performance.now()), task.signal).then(task.resolve, task.reject);
  }

  // The hand-off in unlock (see handedOn): whether the next task of this
  // agent's queue now holds the mutex.
  #handOn() {
    const i32 = this._i32, at = this._at;
    if (i32[at + P.MUTEX_HOLDER_AT] !== this._self) return false;
    const h = handOffs.get(i32.buffer)?.get(at);
    if (h === undefined || h.waiting || h.head === h.tasks.length) return false; // (a task on the word is older than the queue)
    const v = Atomics.load(i32, at);
    if (v === P.MUTEX_CONTENDED) {
      const now = performance.now();
      if (h.contendedMs !== h.contendedMs) h.contendedMs = now;
      else if (now - h.contendedMs >= P.STARVATION_THRESHOLD_US / 1000) return false;
    } else if (v === P.MUTEX_LOCKED) h.contendedMs = NaN;
    else return false;
    const task = /** @type {Task} */ (nextTask(h));
    this._holderDied = false;
    /** @type {Mutex} */ (task.m)._holderDied = false;
    task.resolve(true);
    return true;
  }

  // Main thread too. Takes the lock if it is free; never waits. A mutex
  // held as locked or contended is busy without asking Go (its tryLock's
  // commonest answer, inlined: a loop of tryLock on a held mutex is a
  // compare-and-swap a turn); every other word is Go's to read.
  tryLock() {
    const v = Atomics.compareExchange(this._i32, this._at, P.MUTEX_UNLOCKED, P.MUTEX_LOCKED);
    if (v === P.MUTEX_UNLOCKED) {
      this._i32[this._at + P.MUTEX_HOLDER_AT] = this._self; // #took(), written out
      return true;
    }
    if (v === P.MUTEX_LOCKED || v === P.MUTEX_CONTENDED) return false;
    return this.#result(this._call(P.OP_TRY_LOCK));
  }

  // Main thread too. Releases the lock; throws, changing nothing, if this
  // agent does not hold it.
  unlock() {
    // The holder slot (_at + P.MUTEX_HOLDER_AT) is this agent's to write while it holds the
    // mutex: cleared before the release, as Go does (internal/core/protocol.go).
    // Go's two commonest transitions are inlined: 1 -> 0, and 2 -> 0 + wake
    // one (normal mode, someone may sleep); checked against Go's own by
    // browsertest's TestGlueAgreesWithCore.
    const i32 = this._i32, at = this._at;
    if (tasksQueued !== 0 && this.#handOn()) return;
    if (i32[at + P.MUTEX_HOLDER_AT] === this._self) {
      i32[at + P.MUTEX_HOLDER_AT] = 0;
      const v = Atomics.compareExchange(i32, at, P.MUTEX_LOCKED, P.MUTEX_UNLOCKED);
      if (v === P.MUTEX_LOCKED) {
        if (this._holderDied) this._holderDied = false; // see #took
        if (wordWaits !== 0 && handOffsAt(i32, at)?.waiting) Atomics.notify(i32, at, 1); // (see "A wake-up taken by a task of this agent")
        if (tasksQueued !== 0) unlockedWith(i32, at);
        return;
      }
      if (v === P.MUTEX_CONTENDED && Atomics.compareExchange(i32, at, P.MUTEX_CONTENDED, P.MUTEX_UNLOCKED) === P.MUTEX_CONTENDED) {
        Atomics.notify(i32, at, 1);
        this._holderDied = false;
        if (tasksQueued !== 0) unlockedWith(i32, at);
        return;
      }
      i32[at + P.MUTEX_HOLDER_AT] = this._self; // starving, changed meanwhile, or corrupted: Go's turn
    }
    this.#result(this._call(P.OP_UNLOCK)); // (clears the flag once released)
    if (tasksQueued !== 0) unlockedWith(i32, at);
  }

  // Main thread too. Whether some agent holds the mutex now (for debugging:
  // the answer may be stale at once).
  isLocked() {
    const r = this._call(P.OP_IS_LOCKED);
    return r < 0 ? this.#result(r) : r === 1;
  }

  // Main thread too. The agent id (sabmutex.agentId there) of the holder, or
  // null when the mutex is free (for debugging: the answer may be stale at once).
  holder() {
    const h = this._call(P.OP_HOLDER);
    if (h < 0) this.#result(h);
    return h === 0 ? null : h;
  }

  // True while this agent holds the mutex it took (lock, lockAsync, tryLock,
  // acquire) from a holder that died: releaseIfHeldBy or the watch released
  // it, and the data it guards may be half-written. False once it unlocks,
  // and after any other acquisition.
  get previousHolderDied() {
    return this._holderDied;
  }

  // Main thread too. For the code that terminated a worker: if agent
  // agentId (that worker's sabmutex.agentId) holds this mutex, release it,
  // so that the others do not wait forever; its next holder sees
  // previousHolderDied. Returns whether it released it.
  releaseIfHeldBy(agentId) {
    if (!Number.isInteger(agentId) || agentId < 1 || agentId > P.MAX_AGENT_ID) {
      throw new RangeError(`sabmutex: releaseIfHeldBy takes an agent id (the dead worker's sabmutex.agentId, 1 to ${P.MAX_AGENT_ID}); got ${describe(agentId)}`);
    }
    const r = this._call(P.OP_RELEASE_DEAD, agentId);
    if (r === P.RESULT_NOT_HOLDER) return false;
    return this.#result(r);
  }

  // Workers only. Runs fn holding the lock and returns its result; always unlocks.
  withLock(fn) {
    checkFn(fn, "withLock(fn)", "holding the lock");
    return runHolding(() => this.lock(), () => this.unlock(), fn);
  }

  // Main thread too. Awaits fn holding the lock and returns its result;
  // always unlocks. options as for lockAsync; if the lock is not had in
  // time, it rejects with a sabmutex timeout error and fn does not run.
  async withLockAsync(fn, options) {
    checkFn(fn, "withLockAsync(fn)", "holding the lock");
    return runHoldingAsync(this.lockAsync(options), this._what, options, () => this.unlock(), fn);
  }

  // Workers only. Like lock(timeoutMs), but returns a handle to release
  // (also with `using`), and throws a sabmutex timeout error instead of
  // returning false. (timeoutMs from `arguments`, as lock's.)
  acquire() {
    if (!canBlock) mustNotBlock("lock()", "m.lockAsync(timeoutMs)");
    const timeoutMs = timeoutOf(arguments[0]);
    if (!this.#lockSlow(timeoutMs)) throw timeoutError(this._what, timeoutMs);
    return new LockHandle(this);
  }

  // Main thread too. Like lockAsync(options), but resolves to a handle to
  // release (also with `using`), and rejects with a sabmutex timeout error
  // instead of resolving false.
  async acquireAsync(options) {
    if (!(await this.lockAsync(options))) throw timeoutError(this._what, asyncOptions(options).timeoutMs);
    return new LockHandle(this);
  }

  // The fast path took the mutex: record this agent as its holder. (lock
  // and tryLock write it out: the call costs their uncontended pairs in
  // Firefox; docs/decisions/plain-fields.md.) The fast paths leave
  // previousHolderDied alone: unlock clears it, so it is already false when
  // a fast path takes the mutex. (Read and cleared here, it cost Firefox's
  // tryLock+unlock several times what unlock's read of it costs:
  // docs/decisions/dead-holder-flag.md.)
  #took() {
    this._i32[this._at + P.MUTEX_HOLDER_AT] = this._self;
    return true;
  }

  #result(r) {
    if (r === P.RESULT_OK) return (this._holderDied = false), true;
    if (r === P.RESULT_BUSY) return false;
    if (r === P.RESULT_HOLDER_DIED) return (this._holderDied = true), true;
    throw this._failure(r);
  }

  _message(r) {
    if (r === P.RESULT_DEADLOCK) {
      return `deadlock: this agent already holds ${this._what}, and sabmutex mutexes are not recursive; unlock it before locking it again`;
    }
    if (r === P.RESULT_NOT_HOLDER) {
      return (
        `unlock() by an agent that does not hold ${this._what} ` +
        `(this is ${agentLabel(agentId)}; the holder is ${agentLabel(this._call(P.OP_HOLDER))}); only the agent that locked it may unlock it`
      );
    }
    if (r === P.RESULT_NOT_LOCKED) {
      return `unlock() of ${this._what}, which is not locked; call unlock() only after lock(), lockAsync() or tryLock() succeeded`;
    }
    if (r === P.RESULT_CORRUPTED) {
      return (
        `corrupted mutex state in ${this._what}: its lock word holds ${Atomics.load(this._i32, this._at)}, ` +
        `which no mutex can hold, so something else wrote to that slot; give each mutex Mutex.SLOTS slots of its own`
      );
    }
  }
}

// lockAsync once its fast path failed, of a Mutex or an RWMutex's write
// lock p (kind: its wait's, outcome: what its result means): behind
// another task of this agent that waits for it, a task waits in the
// agent's queue (handOffs), with no wait of its own on the word; else it
// waits on the word for the agent's tasks (so the first waiter of an agent
// is one the core knows of: snapshot() and the watch see it).
/** @param {any} p @param {number} kind @param {(r: number) => boolean} outcome @param {any} options */
export function lockAsyncInLine(p, kind, outcome, options) {
  let o;
  try {
    o = optionsNotAborted(options);
  } catch (e) {
    return Promise.reject(e);
  }
  if (o.timeoutMs === 0) return waitFor(kind, p, 0, 0, o.signal).then(outcome); // (never sleeps)
  const h = handOffsOf(p._i32, p._at);
  if (h.waiting || h.head < h.tasks.length) return queueBehind(p, h, o);
  return waitOnWord(p, kind, outcome, h, o.timeoutMs, o.signal);
}

// The wait on p's word for this agent's tasks (h.waiting while it lasts):
// waitFor's, with the core's turns. If it ends without the lock (a timeout,
// an abort), the next task of the queue waits on the word in its place.
/** @param {any} p @param {number} kind @param {(r: number) => boolean} outcome @param {HandOffs} h @param {number} timeoutMs @param {AbortSignal | null} signal */
export async function waitOnWord(p, kind, outcome, h, timeoutMs, signal) {
  h.waiting = true;
  wordWaits++;
  let r;
  try {
    r = await waitFor(kind, p, 0, timeoutMs, signal);
  } catch (e) {
    h.waiting = false;
    wordWaits--;
    nextOnWord(h);
    throw e;
  }
  h.waiting = false;
  wordWaits--;
  if (r !== P.RESULT_OK && r !== P.RESULT_HOLDER_DIED) nextOnWord(h);
  return outcome(r);
}
