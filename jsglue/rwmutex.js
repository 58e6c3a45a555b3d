// RWMutex: many readers or one writer (internal/core/rwmutex.go). The writer side
// is Mutex's API; readers have their own. The uncontended steps are inlined
// (a reader: active+1 and -1 while no writer is there; a writer: 0 -> W and
// W -> 0, with the writer slot), as Go publishes them, and checked against
// Go's by browsertest's TestFamilyGlueAgreesWithCore; every wait is Go's.
//
// Readers are counted in the state word, not named; this agent's own count
// of its read locks is in its registry record (internal/core/registry.go,
// readCounter), so that when it ends the watch of a writer waiting for it
// can give them back. Every read lock taken adds 1 to it after, every release
// subtracts 1 before.
import * as P from "./protocol.js";
import { agentId, canBlock } from "./runtime.js";
import { readCounter } from "./registry.js";
import { checkFn, fill, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive, RESOLVED_TRUE, nameLock, runHolding, runHoldingAsync, slotsAfterInit } from "./primitive.js";
import { MsgTooManyReaders, MsgWriterNotHolder } from "./messages.js";
import { named } from "./names.js";
import { handOffsAt, handOffsOf, lockAsyncInLine, nextTask, queueBehind, tasksWaiting, unlockedWith, waitOnWord } from "./mutex.js";
import { optionsNotAborted, waitFor } from "./wait.js";

// The readers' hand-off between tasks of one agent (issue 60). The
// readLockAsync tasks of this agent that wait for one RWMutex (a writer is
// in, or waits for the readers inside to leave) wait in a queue of the
// agent's (readersWaiting, by buffer and index, apart from the writers'
// queue of mutex.js), behind the first of them, which waits on the word as
// any reader does (registered as blocked, then admitted by a writer's
// release), so the core knows of it (snapshot(), the watch). The queued
// ones make no wait of their own: they go in, each with the protocol's own
// try of a reader (Go's rwTryReadLock, the fast path's active+1 while no
// writer is there), when a reader of the agent could go in just now:
// after this agent's write unlock (admitReaders from unlock), and when the
// agent's reader on the word is admitted. Nothing new is written to shared
// memory. Go's rule holds because the try is the protocol's: a writer in,
// or waiting for the readers to leave (W), makes the try busy, and then
// the queued readers each wait on the word as before (registered as
// blocked), so that writer's release admits them all at once, before the
// next writer, as Go's RWMutex does; they are not left to one admission per
// writer's turn.
/** @type {WeakMap<ArrayBufferLike, Map<number, any>>} */
const readersWaiting = new WeakMap();

// Lets the queued readers of the RWMutex at i32[at] in while a reader may
// go in (see readersWaiting), in their order; once one finds the lock
// busy, it and the rest wait on the word each.
/** @param {Int32Array} i32 @param {number} at */
function admitReaders(i32, at) {
  const h = readersWaiting.get(i32.buffer)?.get(at);
  if (h === undefined) return;
  for (let task; (task = h.tasks[h.head]) !== undefined; ) {
    let had;
    try {
      had = task.m._tryReadQueued();
    } catch (e) {
      nextTask(h);
      task.reject(e);
      continue;
    }
    if (!had) {
      while ((task = nextTask(h)) !== undefined) task.m._readOnWord(null, task);
      return;
    }
    nextTask(h);
    task.resolve(true);
  }
}

// The first queued reader of h waits on the word for the queue, unless one does.
/** @param {any} h */
function nextReaderOnWord(h) {
  if (h.waiting) return;
  const task = nextTask(h);
  if (task !== undefined) task.m._readOnWord(h, task);
}

export class RWMutex extends Primitive {
  _self = agentId; // this agent's id, at hand for the fast paths
  _holderDied = false; // see previousHolderDied
  _reads; // the Int32Array with this agent's count of its read locks
  _readsAt; // the count's index in it

  // main thread too. memory: a SharedArrayBuffer or an Int32Array over one;
  // index: the first of RWMutex.SLOTS int32 slots that it uses (zeroed:
  // free); options: { name }, as for Mutex.
  constructor(memory, index = 0, options) {
    super("RWMutex", P.RWMUTEX_SLOTS, memory, index);
    [this._reads, this._readsAt] = readCounter(this);
    nameLock(this, "RWMutex", options);
  }

  // main thread too. The RWMutex named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  static named(name) {
    return named(P.NAME_KIND_RWMUTEX, name, undefined, undefined, (buffer, index, _a, _b, n) => new RWMutex(buffer, index, { name: n }));
  }

  // How many int32 slots one RWMutex uses.
  static get SLOTS() {
    return slotsAfterInit("RWMutex", P.RWMUTEX_SLOTS);
  }

  // The fast paths. A writer: 0 -> W, then the writer slot (at + P.RWMUTEX_WRITER_AT) is this
  // agent's to write, cleared before the release (as Go does). A reader:
  // active+1 while the word holds only readers, first guessed from 0 (see
  // "Guess, then swap" in primitive.js).
  // (The word is 0 or a count of readers alone only while the last writer's
  // death is not to be told: D is set above them, internal/core/rwmutex.go.)
  #tryWrite() {
    if (Atomics.compareExchange(this._i32, this._at, 0, P.RW_WRITER) !== 0) return false;
    this._i32[this._at + P.RWMUTEX_WRITER_AT] = this._self;
    if (this._holderDied) this._holderDied = false;
    return true;
  }

  #tryRead() {
    const i32 = this._i32, at = this._at;
    const v = Atomics.compareExchange(i32, at, 0, 1);
    if (v !== 0 && !(v > 0 && v < P.MAX_READERS && Atomics.compareExchange(i32, at, v, v + 1) === v)) return false;
    this._reads[this._readsAt]++;
    if (this._holderDied) this._holderDied = false;
    return true;
  }

  // An acquisition's outcome, as Primitive's, noting whether it was told
  // that the last writer died.
  _outcome(r) {
    const had = super._outcome(r);
    if (had) this._holderDied = r === P.RESULT_HOLDER_DIED;
    return had;
  }

  // A read lock's outcome: counted in this agent's record if had.
  #read(r) {
    if (!this._outcome(r)) return false;
    this._reads[this._readsAt]++;
    return true;
  }

  // Workers only. lock(timeoutMs): takes the write lock, waiting at most
  // timeoutMs (none: forever); false if it timed out. (The timeout is read
  // from `arguments`, as in Mutex.lock.)
  lock() {
    if (!canBlock) mustNotBlock("lock()", "rw.lockAsync(timeoutMs)");
    const timeoutMs = arguments.length === 0 ? Infinity : timeoutOf(arguments[0]);
    return this.#tryWrite() || this._outcome(this._wait(P.KIND_RW_ANNOUNCE, 0, timeoutMs));
  }

  // Main thread too. Resolves true once it holds the write lock, false after
  // the timeout; options as for Mutex.lockAsync.
  lockAsync(options) {
    // Uncontended and without options: one settled promise, as Mutex.lockAsync.
    return options === undefined && this.#tryWrite() ? RESOLVED_TRUE : this.#lockAsyncSlow(options);
  }

  // lockAsync once its fast path failed: as Mutex's (mutex.js, handOffs),
  // behind another writer task of this agent that waits for the lock it
  // waits in the agent's queue, with no wait of its own on the word.
  #lockAsyncSlow(options) {
    return lockAsyncInLine(this, P.KIND_RW_ANNOUNCE, (r) => this._outcome(r), options);
  }

  /** @param {any} h @param {any} task */
  _onWord(h, task) {
    waitOnWord(this, P.KIND_RW_ANNOUNCE, (r) => this._outcome(r), h, Math.max(0, task.deadlineMs - performance.now()), task.signal).then(task.resolve, task.reject);
  }

  // The hand-off in unlock, as Mutex's: the write lock stays held (W, this
  // agent in the writer slot) for the next writer task of the agent. With
  // nobody else waiting (the word is W alone) at once; with readers blocked
  // or writers waiting, for STARVATION_THRESHOLD_US from the first unlock
  // that saw them, and then unlock lets it go (Go's release admits them).
  #handOn() {
    const i32 = this._i32, at = this._at;
    if (i32[at + P.RWMUTEX_WRITER_AT] !== this._self) return false;
    const h = handOffsAt(i32, at);
    if (h === undefined || h.waiting || h.head === h.tasks.length) return false; // (a task on the word is older than the queue)
    const v = Atomics.load(i32, at);
    if (v === P.RW_WRITER) h.contendedMs = NaN;
    else if (v < 0 || (v & P.RW_WRITER) === 0 || (v & (P.RW_BLOCKED_ONE - 1)) !== 0) return false;
    else {
      const now = performance.now();
      if (h.contendedMs !== h.contendedMs) h.contendedMs = now;
      else if (now - h.contendedMs >= P.STARVATION_THRESHOLD_US / 1000) return false;
    }
    const task = nextTask(h);
    this._holderDied = false;
    task.m._holderDied = false;
    task.resolve(true);
    return true;
  }

  // Main thread too. Takes the write lock if nobody reads or writes; never waits.
  tryLock() {
    return !this.#busy(true) && (this.#tryWrite() || this._outcome(this._call(P.OP_RW_TRY_LOCK)));
  }

  // Whether a try of a writer (write) or a reader is busy by the word as it
  // is now: a writer in or waiting (W), or, for a writer, readers alone
  // inside. Go's rwTryLock's and rwTryReadLock's commonest answer, inlined,
  // and looked at before the compare-and-swap of the fast path: a loop of
  // tries on a held RWMutex is a load a turn, as the textbook's (a try that
  // succeeds pays the load). Other words are Go's to read (a dead writer
  // told, too many readers, corruption).
  #busy(write) {
    const v = Atomics.load(this._i32, this._at);
    return v >= 0 && ((v & P.RW_WRITER) !== 0 || (write && v > 0 && v < P.RW_BLOCKED_ONE));
  }

  // Main thread too. Releases the write lock; throws, changing nothing, if this agent does not hold it.
  unlock() {
    const i32 = this._i32, at = this._at;
    if (tasksWaiting() !== 0 && this.#handOn()) return;
    if (i32[at + P.RWMUTEX_WRITER_AT] === this._self) {
      i32[at + P.RWMUTEX_WRITER_AT] = 0;
      if (Atomics.compareExchange(i32, at, P.RW_WRITER, 0) === P.RW_WRITER) {
        if (tasksWaiting() !== 0) unlockedWith(i32, at), admitReaders(i32, at);
        return; // nobody blocked or waiting
      }
      i32[at + P.RWMUTEX_WRITER_AT] = this._self; // Go's turn
    }
    const r = this._call(P.OP_RW_UNLOCK);
    if (r !== P.RESULT_OK) throw this._failure(r, "unlock()");
    if (tasksWaiting() !== 0) unlockedWith(i32, at), admitReaders(i32, at);
  }

  // Workers only. readLock(timeoutMs): takes a read lock, waiting at most
  // timeoutMs (none: forever); false if it timed out. (The timeout: as lock's.)
  readLock() {
    if (!canBlock) mustNotBlock("readLock()", "rw.readLockAsync(timeoutMs)");
    const timeoutMs = arguments.length === 0 ? Infinity : timeoutOf(arguments[0]);
    return this.#tryRead() || this.#read(this._wait(P.KIND_RW_READ, 0, timeoutMs));
  }

  // Main thread too. Resolves true once it holds a read lock, false after the timeout.
  readLockAsync(options) {
    return options === undefined && this.#tryRead() ? RESOLVED_TRUE : this.#readLockAsyncSlow(options);
  }

  // readLockAsync once its fast path failed: behind another reader task
  // of this agent that waits, it waits in the agent's queue (see
  // readersWaiting), with no wait of its own; else on the word, for the
  // agent's readers.
  #readLockAsyncSlow(options) {
    let o;
    try {
      o = optionsNotAborted(options);
    } catch (e) {
      return Promise.reject(e);
    }
    if (o.timeoutMs === 0) return waitFor(P.KIND_RW_READ, this, 0, 0, o.signal).then((r) => this.#read(r)); // (never sleeps)
    const h = handOffsOf(this._i32, this._at, readersWaiting);
    if (h.waiting || h.head < h.tasks.length) return queueBehind(this, h, o);
    return this.#readOnWord(h, o.timeoutMs, o.signal);
  }

  // A reader's wait on the word (waitFor's, as before the hand-off): for the
  // agent's queued readers while h.waiting (h: their queue), else for its
  // task alone (h null: admitReaders found the lock busy). Once it is in,
  // the queued readers try to go in too; if it ends without the lock, the
  // next queued reader waits on the word in its place.
  /** @param {any} h @param {number} timeoutMs @param {AbortSignal | null} signal */
  async #readOnWord(h, timeoutMs, signal) {
    if (h !== null) h.waiting = true;
    let r;
    try {
      r = await waitFor(P.KIND_RW_READ, this, 0, timeoutMs, signal);
    } catch (e) {
      if (h !== null) (h.waiting = false), nextReaderOnWord(h);
      throw e;
    }
    if (h !== null) h.waiting = false;
    const had = r === P.RESULT_OK || r === P.RESULT_HOLDER_DIED;
    if (h !== null) had ? admitReaders(this._i32, this._at) : nextReaderOnWord(h);
    return this.#read(r);
  }

  // A queued reader task sent to the word: by admitReaders (h null), or as
  // the queue's reader on the word (h).
  /** @param {any} h @param {any} task */
  _readOnWord(h, task) {
    this.#readOnWord(h, Math.max(0, task.deadlineMs - performance.now()), task.signal).then(task.resolve, task.reject);
  }

  // A queued reader's try (admitReaders): whether it now holds a read lock.
  _tryReadQueued() {
    return this.#tryRead() || this.#read(this._call(P.OP_RW_TRY_READ_LOCK));
  }

  // Main thread too. Takes a read lock if no writer holds or waits for it; never waits.
  tryReadLock() {
    return !this.#busy(false) && (this.#tryRead() || this.#read(this._call(P.OP_RW_TRY_READ_LOCK)));
  }

  // Main thread too. Releases a read lock; throws, changing nothing, if no reader holds one.
  readUnlock() {
    // While no writer is there: active-1, and nobody to wake (guessed: one reader).
    const i32 = this._i32, at = this._at;
    this._reads[this._readsAt]--;
    const v = Atomics.compareExchange(i32, at, 1, 0);
    if (v === 1 || (v > 1 && v < P.RW_BLOCKED_ONE && Atomics.compareExchange(i32, at, v, v - 1) === v)) return;
    const r = this._call(P.OP_RW_READ_UNLOCK);
    if (r !== P.RESULT_OK) {
      this._reads[this._readsAt]++;
      throw this._failure(r, "readUnlock()");
    }
  }

  // True after this agent took the lock (either kind, any call) while the
  // last writer's death was not yet told: the watch released the write
  // lock of an agent that ended holding it (README, "When a worker ends"),
  // and no writer has held it since, so the data it guards may be
  // half-written. Readers are told until a writer holds the lock again;
  // that writer is told, and clears it. False after any other acquisition.
  get previousHolderDied() {
    return this._holderDied;
  }

  // Workers only. Runs fn holding the write lock and returns its result; always unlocks.
  withLock(fn) {
    checkFn(fn, "withLock(fn)", "holding the write lock");
    return runHolding(() => this.lock(), () => this.unlock(), fn);
  }

  // Main thread too. Awaits fn holding the write lock; rejects with a sabmutex timeout error if not had in time.
  async withLockAsync(fn, options) {
    checkFn(fn, "withLockAsync(fn)", "holding the write lock");
    return runHoldingAsync(this.lockAsync(options), `the write lock of ${this._what}`, options, () => this.unlock(), fn);
  }

  // Workers only. Runs fn holding a read lock and returns its result; always unlocks.
  withReadLock(fn) {
    checkFn(fn, "withReadLock(fn)", "holding a read lock");
    return runHolding(() => this.readLock(), () => this.readUnlock(), fn);
  }

  // Main thread too. Awaits fn holding a read lock; rejects with a sabmutex timeout error if not had in time.
  async withReadLockAsync(fn, options) {
    checkFn(fn, "withReadLockAsync(fn)", "holding a read lock");
    return runHoldingAsync(this.readLockAsync(options), `a read lock of ${this._what}`, options, () => this.readUnlock(), fn);
  }

  _message(r, call) {
    const what = this._what;
    if (r === P.RESULT_DEADLOCK) return `deadlock: this agent holds the write lock of ${what}, and would wait for itself; unlock it first`;
    if (r === P.RESULT_NOT_LOCKED && call === "readUnlock()") return `readUnlock() of ${what}, but no reader holds it; call readUnlock() once per readLock() that succeeded`;
    if (r === P.RESULT_NOT_LOCKED) return `unlock() of ${what}, which is not write-locked; call unlock() only after lock(), lockAsync() or tryLock() succeeded (readers call readUnlock())`;
    if (r === P.RESULT_NOT_HOLDER) return fill(MsgWriterNotHolder, { what });
    if (r === P.RESULT_TOO_MANY) return fill(MsgTooManyReaders, { what, max: P.MAX_READERS });
  }
}
