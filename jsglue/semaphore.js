// Semaphore: a count of permits (internal/core/semaphore.go). The uncontended
// steps are inlined (take n while nothing is reserved; give n back while
// nobody sleeps), as Go publishes them, and checked against Go's by
// browsertest's TestFamilyGlueAgreesWithCore; every wait is Go's.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { checkCount, checkSize, fill, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive, RESOLVED_TRUE, slotsAfterInit } from "./primitive.js";
import { MsgReleaseTooMuch, MsgSizeMismatch } from "./messages.js";
import { named } from "./names.js";
import { endQueueWait, handOffsOf, nextTask, queueBehind, tasksWaiting, waitForQueue } from "./mutex.js";
import { optionsNotAborted, waitFor } from "./wait.js";

// The hand-off between tasks of one agent (issue 60), as the Mutex's
// (mutex.js, handOffs) where a waiter is a need of n permits. The
// acquireAsync tasks of this agent that wait for one Semaphore wait in a
// queue of the agent's (semQueues, by buffer and index), FIFO, and one wait
// on the word stands for them (mutex.js's waitForQueue): a wait for the first task's
// need, as any waiter's (it sets SEM_WAITERS, and reserves as any, so the
// core knows of it: snapshot(), the watch), whose permits, once it holds
// them, go to the queue's first tasks as far as they reach (the rest are
// released). release() by a task of this agent, with tasks queued, gives
// its permits to the first of them while the first's need fits in what it
// gives back (#handOn): they stay taken, and those tasks' acquireAsync
// resolve true, with no release, wake-up or take. For the other agents
// this agent held the permits all along: nothing new is written to shared
// memory.
//
// The bound, as the Mutex's. A word with SEM_WAITERS may have another
// agent's waiter asleep on it, which the hand-offs would keep waiting: so
// they go on for STARVATION_THRESHOLD_US at most from the first release()
// that found it, and then release() gives the permits back to the word as
// ever (and wakes as many sleepers; SEM_WAITERS stays while it wakes
// someone, so the next release wakes the next, however long the woken one
// takes to run). A waiter that then loses them, to the agent's wait on the
// word, has waited past the threshold when the next release wakes it, and
// reserves (semaphore.go: a need of 1 reserves once it starves, a larger
// one at once); a reserved need is never handed over, so the permits go to
// the word, where only the waiter that reserved takes them.
/** @type {WeakMap<ArrayBufferLike, Map<number, any>>} */
const semQueues = new WeakMap();

// The queue's wait on the word (mutex.js's waitForQueue), for the need of
// its first task: what it takes goes to the first tasks.
const semKind = () => P.KIND_SEM_ACQUIRE;
/** @param {any} h @param {any} first @param {number} r */
const semReady = (h, first, r) => r === P.RESULT_OK && (first.m._give(h, first.n), true);

export class Semaphore extends Primitive {
  _permits; // its size

  // main thread too. memory, index: as for Mutex, with Semaphore.SLOTS
  // slots (zeroed: every permit free); permits: its size, the same in
  // every agent (the first to use the slots records it; another size throws).
  constructor(memory, index, permits) {
    super("Semaphore", P.SEMAPHORE_SLOTS, memory, index);
    checkSize("permits", permits, P.MAX_PERMITS);
    const r = this._call(P.OP_SEM_SET_UP, permits);
    if (r === P.RESULT_MISMATCH) {
      throw new Error(
        fill(MsgSizeMismatch, { what: this._what, with: "with", size: Atomics.load(this._i32, this._at + P.SEM_PERMITS_AT), noun: "permits", got: permits }),
      );
    }
    if (r !== P.RESULT_OK) throw this._failure(r);
    this._permits = permits;
  }

  // main thread too. The Semaphore named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  // permits: its size, which the agent that creates it gives; optional
  // after, and then the same.
  static named(name, permits) {
    return named(P.NAME_KIND_SEMAPHORE, name, permits === undefined ? undefined : (checkSize("permits", permits, P.MAX_PERMITS), permits), undefined, (buffer, index, a) => new Semaphore(buffer, index, a));
  }

  // How many int32 slots one Semaphore uses.
  static get SLOTS() {
    return slotsAfterInit("Semaphore", P.SEMAPHORE_SLOTS);
  }

  // The fast path of acquire: taken -> taken+n, if the permits allow and
  // nobody has reserved. Go's semTake, written out: first the guess that
  // nothing is taken (the reservation read before that swap), then the word
  // as it is (the reservation read after it). See "Guess, then swap" in
  // primitive.js.
  #take(n) {
    const i32 = this._i32, at = this._at;
    if (Atomics.load(i32, at + P.SEM_RESERVED_AT) !== 0) return false;
    const v = Atomics.compareExchange(i32, at, 0, n);
    if (v === 0) return true;
    return v > 0 && (v & ~P.SEM_WAITERS) + n <= this._permits && Atomics.load(i32, at + P.SEM_RESERVED_AT) === 0 && Atomics.compareExchange(i32, at, v, v + n) === v;
  }

  // Workers only. acquire(n = 1, timeoutMs): takes n permits, waiting at
  // most timeoutMs (none: forever); false if it timed out. A call without
  // arguments takes one permit inline; the others, and every check, are in
  // #acquire. (SpiderMonkey ran every call slower for the checks of n, also
  // when n was not given: docs/decisions/guess-then-swap.md. The arguments
  // are read from `arguments`, as in Mutex.lock.)
  acquire() {
    if (arguments.length === 0 && canBlock && this.#take(1)) return true;
    return this.#acquire(arguments[0], arguments[1]);
  }

  #acquire(n = 1, timeoutMs) {
    if (!canBlock) mustNotBlock("acquire()", "sem.acquireAsync(n, timeoutMs)");
    this.#check(n, "acquire(n)");
    const t = timeoutOf(timeoutMs); // checked before anything is taken
    return this.#take(n) || this._outcome(this._wait(P.KIND_SEM_ACQUIRE, n, t));
  }

  // Main thread too. acquireAsync(n = 1, options): resolves true once it
  // holds n permits, false after the timeout; options as for
  // Mutex.lockAsync. (The arguments: as acquire's.)
  acquireAsync() {
    if (arguments.length === 0 && this.#take(1)) return RESOLVED_TRUE;
    const n = arguments[0] === undefined ? 1 : arguments[0], options = arguments[1];
    this.#check(n, "acquireAsync(n)");
    return options === undefined && this.#take(n) ? RESOLVED_TRUE : this.#acquireAsyncSlow(n, options);
  }

  // acquireAsync once its fast path failed (or was not tried, with
  // options): with no task of this agent waiting, one try; else, and if
  // the try fails, it waits in the agent's queue (see semQueues), FIFO.
  #acquireAsyncSlow(n, options) {
    let o;
    try {
      o = optionsNotAborted(options);
    } catch (e) {
      return Promise.reject(e);
    }
    if (o.timeoutMs === 0) return waitFor(P.KIND_SEM_ACQUIRE, this, n, 0, o.signal).then((r) => this._outcome(r)); // (never sleeps)
    const h = handOffsOf(this._i32, this._at, semQueues);
    h.emptied = endQueueWait;
    const alone = h.head === h.tasks.length;
    if (alone && this.#take(n)) return RESOLVED_TRUE;
    const p = queueBehind(this, h, o, n);
    if (!h.waiting) waitForQueue(h, semKind, semReady);
    return p;
  }

  // Gives n permits, which this agent holds, to the first tasks of queue h
  // while their needs fit; the rest go back to the word.
  /** @param {any} h @param {number} n */
  _give(h, n) {
    for (let task; (task = h.tasks[h.head]) !== undefined && task.n <= n; ) {
      nextTask(h);
      n -= task.n;
      task.resolve(true);
    }
    if (n > 0) this.#releaseWord(n);
  }

  // The hand-off in release(n) (see semQueues): whether the first task of
  // this agent's queue fits in the n permits given back, and the bound lets
  // them go to it; then they go to the queue (_give).
  #handOn(n) {
    const i32 = this._i32, at = this._at;
    const h = semQueues.get(i32.buffer)?.get(at);
    if ((n | 0) !== n || n < 1 || h === undefined || h.head === h.tasks.length || h.tasks[h.head].n > n) return false;
    const v = Atomics.load(i32, at);
    if (v < 0 || (v & ~P.SEM_WAITERS) < n || Atomics.load(i32, at + P.SEM_RESERVED_AT) !== 0) return false;
    if ((v & P.SEM_WAITERS) === 0) h.contendedMs = NaN;
    else {
      const now = performance.now();
      if (h.contendedMs !== h.contendedMs) h.contendedMs = now;
      else if (now - h.contendedMs >= P.STARVATION_THRESHOLD_US / 1000) return (h.contendedMs = NaN), false;
    }
    this._give(h, n);
    return true;
  }

  // Main thread too. tryAcquire(n = 1): takes n permits if they are free now
  // (and not held back for a waiter: see internal/core/semaphore.go); never waits.
  // (The try is written out twice: in a method of its own, Firefox's
  // failing tryAcquire() was slower; docs/decisions/failing-tries.md.)
  tryAcquire() {
    if (arguments.length === 0) return !this.#short(1) && (this.#take(1) || this._outcome(this._call(P.OP_SEM_TRY_ACQUIRE, 1)));
    const n = arguments[0] === undefined ? 1 : arguments[0];
    this.#check(n, "tryAcquire(n)");
    return !this.#short(n) && (this.#take(n) || this._outcome(this._call(P.OP_SEM_TRY_ACQUIRE, n)));
  }

  // Whether fewer than n permits are free by the word as it is now: Go's
  // semTryAcquire's commonest "busy", inlined, and looked at before the
  // compare-and-swap of #take: a loop of tries on a semaphore with no
  // permits left is a load a turn, as the textbook's (a try that succeeds
  // pays the load). Other words are Go's to read (a reservation, a lost
  // race, corruption).
  #short(n) {
    const v = Atomics.load(this._i32, this._at), taken = v & ~P.SEM_WAITERS;
    return v >= 0 && taken <= this._permits && taken + n > this._permits;
  }

  // Main thread too. release(n = 1): gives back n permits; throws, changing
  // nothing, if fewer are taken. Without arguments, the commonest release
  // is inline: the only permit taken, nobody asleep (1 -> 0).
  release() {
    if (tasksWaiting() !== 0 && this.#handOn(arguments.length === 0 ? 1 : arguments[0])) return;
    if (arguments.length === 0 && Atomics.compareExchange(this._i32, this._at, 1, 0) === 1) return;
    this.#release(arguments[0]);
  }

  #release(n = 1) {
    this.#check(n, "release(n)");
    this.#releaseWord(n);
  }

  // The release of n permits (checked) to the word.
  #releaseWord(n) {
    // While nobody sleeps: taken -> taken-n, and nobody to wake (guessed: n taken).
    const i32 = this._i32, at = this._at;
    const v = Atomics.compareExchange(i32, at, n, 0);
    if (v === n || (v > n && v <= this._permits && Atomics.compareExchange(i32, at, v, v - n) === v)) return;
    const r = this._call(P.OP_SEM_RELEASE, n);
    if (r === P.RESULT_NEGATIVE) {
      throw new Error(fill(MsgReleaseTooMuch, { n, what: this._what, taken: this._permits - this.available() }));
    }
    if (r !== P.RESULT_OK) throw this._failure(r);
  }

  // n: a whole number of permits from 1 to the semaphore's size.
  #check(n, call) {
    if ((n | 0) !== n || n < 1 || n > this._permits) checkCount(call, n, this._permits);
  }

  // Main thread too. The permits free now (for debugging: the answer may be stale at once).
  available() {
    const r = this._call(P.OP_SEM_AVAILABLE);
    if (r < 0) throw this._failure(r);
    return r;
  }
}
