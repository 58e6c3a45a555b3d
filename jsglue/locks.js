// sabmutex.locks: the Web Locks API (navigator.locks) for every agent of
// one registry (the page, its workers, Go agents), and requestSync, its
// blocking form for workers. The lock request queues are Go's
// (internal/core/lockq.go): one queue per name in the registry's shared
// memory, so requests are granted in the order they were made, by Web
// Locks' rule, whichever agent made them; query() reads them; a steal is
// granted at once. Here are only what a host does: the request in the
// core's text, the wait (wait.js, a wait of KIND_LOCK_REQUEST on the
// request's record), the callback, and the release; and the fast path, Go's
// lqFastTake and lqFastLetGo inlined (browsertest's TestGlueAgreesWithCore
// compares them): an exclusive request of a name this agent has requested
// before, whose queue is idle, is one compare-and-swap of its queue slot's
// fast word, and its release another, without a call into Go.
import * as P from "./protocol.js";
import { agentId, arrays, canBlock, core, mustBeStarted, unrefTimer } from "./runtime.js";
import { nameString } from "./names.js";
import { describe, fill } from "./errors.js";
import { MsgLocksFull } from "./messages.js";
import { runHolding } from "./primitive.js";
import { namesTable } from "./registry.js";
import { deadlockMessage } from "./watch.js";
import { sleepAny, sleepOut, waitBlocking, waitFor, SPIN_LOOKS, HAS_PAUSE } from "./wait.js";

// The lock a callback gets: its name and mode, as Web Locks' Lock.
class Lock {
  #name;
  #mode;
  constructor(name, mode) {
    this.#name = name;
    this.#mode = mode;
  }
  get name() {
    return this.#name;
  }
  get mode() {
    return this.#mode;
  }
}

// request(name, callback) or request(name, options, callback), checked as
// WebIDL and the Web Locks spec check them: [name, options, callback].
// (The arguments come one by one, with their count: a function that hands
// on its arguments object makes one at every call, its fast path's too.)
function parse(what, argc, a0, a1, a2) {
  if (argc < 2) throw new TypeError(`sabmutex: ${what}(name, [options], callback) takes at least 2 arguments; got ${argc}`);
  const name = nameString(a0);
  const raw = argc === 2 ? undefined : a1;
  const callback = argc === 2 ? a1 : a2;
  if (raw !== undefined && raw !== null && typeof raw !== "object" && typeof raw !== "function") {
    throw new TypeError(`sabmutex: ${what}'s options must be an object such as { mode: "shared" }; got ${describe(raw)}`);
  }
  const o = raw ?? {};
  const ifAvailable = Boolean(o.ifAvailable);
  const mode = o.mode === undefined ? "exclusive" : `${o.mode}`;
  if (mode !== "exclusive" && mode !== "shared") throw new TypeError(`sabmutex: ${what}'s mode must be "exclusive" or "shared"; got ${JSON.stringify(mode)}`);
  const signal = o.signal;
  if (signal !== undefined && !(typeof AbortSignal !== "undefined" && signal instanceof AbortSignal)) {
    throw new TypeError(`sabmutex: ${what}'s signal must be an AbortSignal; got ${describe(signal)}`);
  }
  const steal = Boolean(o.steal);
  if (typeof callback !== "function") throw new TypeError(`sabmutex: ${what}'s callback must be a function; got ${describe(callback)}`);
  if (name.startsWith("-")) throw notSupported(`sabmutex: lock names that start with "-" are reserved (as in Web Locks); got ${JSON.stringify(name)}`);
  if (steal && ifAvailable) throw notSupported(`sabmutex: ${what}: steal and ifAvailable cannot be used together`);
  if (steal && mode !== "exclusive") throw notSupported(`sabmutex: ${what}: steal needs mode "exclusive"`);
  if (signal && (steal || ifAvailable)) throw notSupported(`sabmutex: ${what}: signal cannot be used with steal or ifAvailable`);
  return { name, mode, ifAvailable, steal, signal, callback };
}

function notSupported(message) {
  return new DOMException(message, "NotSupportedError");
}

// The request's text for OP_LOCK_REQUEST: mode, flags, the name's code
// units. Written before each try: another call of this agent may have
// used the text since.
function writeRequest(name, mode, flags) {
  const bytes = 8 + 2 * name.length;
  const [mem] = namesTable();
  const text = new DataView(core.mem.buffer, core.call(P.OP_TEXT, mem, 0, bytes, 0), bytes);
  text.setInt32(0, mode === "shared" ? P.LOCK_SHARED : P.LOCK_EXCLUSIVE, true);
  text.setInt32(4, flags, true);
  for (let i = 0; i < name.length; i++) text.setUint16(8 + 2 * i, name.charCodeAt(i), true);
  return bytes;
}

// An op of the lock table that takes its guard, until the guard is free:
// RESULT_BUSY means another agent holds it (for one call), and this one
// sleeps on it while that agent holds it, WATCH_MS at most (the core takes
// over the guard of an agent that ended). write() writes the op's text, if
// it has one. guarded blocks (workers only); guardedAsync sleeps
// asynchronously (main thread too: the page must never spin on a guard,
// since it may be the agent that learns that the holder ended).
function guarded(op, at, write) {
  const [mem] = namesTable();
  for (;;) {
    const r = core.call(op, mem, at, write === null ? 0 : write(), 0);
    if (r !== P.RESULT_BUSY) return r;
    const [slot, id] = sleepOut();
    Atomics.wait(arrays[mem], slot, id, P.WATCH_MS);
  }
}

async function guardedAsync(op, at, write) {
  const [mem] = namesTable();
  for (;;) {
    const r = core.call(op, mem, at, write === null ? 0 : write(), 0);
    if (r !== P.RESULT_BUSY) return r;
    const [slot, id] = sleepOut();
    await sleepAny([[arrays[mem], slot, id]], P.WATCH_MS, null);
  }
}

// OP_LOCK_REQUEST for request (write writes its text), in the order of
// this agent's calls: a request that finds the guard held by another agent
// waits for it asynchronously, and the requests this agent makes meanwhile
// wait behind it (line), or a later one would be queued first. (Found by
// TestLocksQueuedHandOff: a worker's watch took the guard while the page
// made its requests, and one of them was queued after the next five.)
/** @type {Promise<number> | null} */
let line = null;

/** @param {() => number} write @returns {number | Promise<number>} */
function inLine(write) {
  const [mem, table] = namesTable();
  if (line === null) {
    const r = core.call(P.OP_LOCK_REQUEST, mem, table, write(), 0);
    if (r !== P.RESULT_BUSY) return r;
  }
  const p = (line ?? RESOLVED).then(() => guardedAsync(P.OP_LOCK_REQUEST, table, write));
  line = p;
  p.then(() => {
    if (line === p) line = null;
  });
  return p;
}

// What a request's answer from the core means, when it is no record:
// RESULT_NONE is an ifAvailable request not granted (null); the rest throw.
function notRecord(r, name) {
  if (r === P.RESULT_NONE) return null;
  if (r === P.RESULT_TOO_MANY) {
    throw new RangeError(fill(MsgLocksFull, { name: JSON.stringify(name), bytes: arrays[namesTable()[0]].buffer.byteLength }));
  }
  throw new Error(`sabmutex: internal error: the lock request queues answered ${r}`);
}

// The record r of this agent's request, as wait.js's loops take a primitive.
function recordOf(r) {
  const [mem] = namesTable();
  return { _mem: mem, _at: r, _i32: arrays[mem] };
}

// The fast path. slots: this agent's cache of the queue slots of the names
// it has requested, name -> { i32, q, gen, k } (the slot's gen when it was
// found, and its number k). A stale entry (the slot given another name
// since: another gen) is found out by its first take. At most SLOT_CACHE
// names; the oldest goes first. heldSlots[k]: this agent holds the fast
// lock of the queue at q, k = q >> 3 (queues are blocks of 16 slots at
// least, lockq.go's heap, so no two have one k; the array grows as queues
// are found further on), so that it never takes a second one of a slot whose first its
// release has not let go (by slot, not by name: a steal, then the slot
// given another name, could otherwise make the second one the first's).
// Each entry keeps the Lock its fast path hands the callback (one object per
// name: an allocation per call showed in Firefox's requestSync). And the
// page's fast path passes its callback to the job that runs it in the entry
// (callback, run: the job, made once), as no closure per call does
// (measured: docs/decisions/lock-queue-speed.md).
/** @typedef {{ i32: Int32Array, q: number, gen: number, k: number, lock: Lock, callback: Function | null, run: () => any, runSync: () => any, letGo: () => void, runs: (RunEntry | null)[], runHead: number }} Slot */
/** @type {Map<string, Slot>} */
const slots = new Map();
let heldSlots = new Uint8Array(0);
const SLOT_CACHE = 4096;
// The last entry looked up, and its name: a loop on one name finds it
// without hashing the name.
/** @type {string | null} */
let lastName = null;
/** @type {Slot | undefined} */
let lastSlot;

/** @param {string} name */
function slotOf(name) {
  if (name === lastName) return lastSlot;
  const c = slots.get(name);
  if (c !== undefined) (lastName = name), (lastSlot = c);
  return c;
}

// Go's lqFastTake and lqFastLetGo (internal/core/lockq.go), on queue slot
// q of i32 (main thread too): RESULT_OK, RESULT_BUSY, or (a take)
// RESULT_MISMATCH, as Go's.
/** @param {Int32Array} i32 @param {number} q @param {number} gen */
export function fastTakeStep(i32, q, gen) {
  if (Atomics.compareExchange(i32, q + P.LOCK_QUEUE_FAST, 0, agentId) !== 0) return P.RESULT_BUSY;
  // A plain read: the gen was written before the 0 this compare-and-swap
  // read, and cannot change while the word holds this agent's id.
  return i32[q + P.LOCK_QUEUE_GEN] === gen ? P.RESULT_OK : P.RESULT_MISMATCH;
}

/** @param {Int32Array} i32 @param {number} q */
export function fastLetGoStep(i32, q) {
  return Atomics.compareExchange(i32, q + P.LOCK_QUEUE_FAST, agentId, 0) === agentId ? P.RESULT_OK : P.RESULT_BUSY;
}

// Go's lqRunAdd and lqRunNext (internal/core/lockq.go), on queue slot q of
// i32, whose fast lock this agent holds (main thread too): as Go's.
/** @param {Int32Array} i32 @param {number} q */
export function runAddStep(i32, q) {
  const v = Atomics.load(i32, q + P.LOCK_QUEUE_RUN);
  if ((v & (P.LOCK_RUN_SEALED | P.LOCK_RUN_STOLEN)) !== 0 || (v & P.LOCK_RUN_COUNT) === P.LOCK_RUN_COUNT) return P.RESULT_BUSY;
  const f = Atomics.load(i32, q + P.LOCK_QUEUE_FAST);
  if (f !== agentId && f !== -agentId) return P.RESULT_BUSY;
  return Atomics.compareExchange(i32, q + P.LOCK_QUEUE_RUN, v, v + 1) === v ? P.RESULT_OK : P.RESULT_BUSY;
}

/** @param {Int32Array} i32 @param {number} q */
export function runNextStep(i32, q) {
  for (;;) {
    const v = Atomics.load(i32, q + P.LOCK_QUEUE_RUN);
    if ((v & P.LOCK_RUN_STOLEN) !== 0) return P.RESULT_NOT_HOLDER;
    if ((v & P.LOCK_RUN_COUNT) === 0) return P.RESULT_NONE;
    if (Atomics.compareExchange(i32, q + P.LOCK_QUEUE_RUN, v, v - 1) === v) return P.RESULT_OK;
  }
}

// The run (lockq.go): while this agent holds the fast lock of entry c's
// queue, its next exclusive requests of the name (no options but the
// mode) wait here, c.runs from c.runHead, in the order made, behind the
// lock and ahead of every record of the queue; each release hands the
// lock to the next (handOn) without a call into Go. request's fast path
// adds to it (joinRun), unless a request of this agent is on its way into
// the queue (line: it was made first) or the run is sealed (a record
// queued behind: then through the queue, behind it). A steal makes the run
// records: this agent adopts them (adoptRun), as requests of its own.
/** @typedef {{ callback: Function, resolve: (v: any) => void, reject: (e: any) => void }} RunEntry */

/** @param {Slot} c @param {Function} callback @returns {Promise<any> | null} */
function joinRun(c, callback) {
  if (heldSlots[c.k] === 0 || line !== null || c.i32[c.q + P.LOCK_QUEUE_GEN] !== c.gen) return null;
  if (runAddStep(c.i32, c.q) !== P.RESULT_OK) return null;
  return new Promise((resolve, reject) => c.runs.push({ callback, resolve, reject }));
}

// Hands c's fast lock to the run's first request (runNextStep said so),
// whose callback runs in a job, as a request's does.
/** @param {Slot} c */
function handOn(c) {
  const next = /** @type {RunEntry} */ (c.runs[c.runHead]);
  c.runs[c.runHead++] = null;
  if (c.runHead === c.runs.length) (c.runs = []), (c.runHead = 0);
  c.callback = next.callback;
  RESOLVED.then(c.run).then(next.resolve, next.reject);
}

// The run of c, made records by a steal (runNextStep said
// RESULT_NOT_HOLDER, or the fast word was found robbed): each of its
// requests waits for its record as a request of this agent does, ahead of
// this agent's other pending requests of the queue (they were made
// before them), then holds and releases it.
/** @param {Slot} c @param {string} name */
function adoptRun(c, name) {
  const runs = c.runs.slice(c.runHead);
  c.runs = [];
  c.runHead = 0;
  if (runs.length === 0) return;
  const [mem, table] = namesTable();
  let r = core.call(P.OP_LOCK_RUN_ADOPT, mem, table, c.q, 0);
  if (r <= 0) {
    const e = new Error(`sabmutex: internal error: the robbed run of the lock ${JSON.stringify(name)} answered ${r}`);
    for (const x of runs) /** @type {RunEntry} */ (x).reject(e);
    return;
  }
  const m = queueOf(c.q);
  for (let i = 0; i < runs.length; i++) {
    const rec = recordOf(r);
    r = Atomics.load(rec._i32, r + P.LOCK_RECORD_NEXT);
    const { callback, resolve, reject } = /** @type {RunEntry} */ (runs[i]);
    /** @type {Promise<number>} */
    const got = new Promise((ok, no) => m.waits.splice(m.head + i, 0, { rec, exclusive: true, signal: null, real: false, done: false, resolve: ok, reject: no, onAbort: null }));
    got.then(() => hold(rec, c.q, true, name, "exclusive", callback, null)).then(resolve, reject);
  }
  noticeGrants(c.q);
}

// The fast take of the cached entry c (main thread too): true once this
// agent holds its name's lock exclusively; false, having changed nothing
// (or let go of a slot with another name: the entry goes), to go through
// the queue.
/** @param {string} name @param {Slot} c */
function fastTake(name, c) {
  if (heldSlots[c.k] !== 0) return false;
  const r = fastTakeStep(c.i32, c.q, c.gen);
  if (r === P.RESULT_OK) return (heldSlots[c.k] = 1), true;
  if (r === P.RESULT_BUSY) return false;
  slots.delete(name);
  lastName = null;
  if (fastLetGoStep(c.i32, c.q) !== P.RESULT_OK) {
    // (Requests of that other name queued behind it meanwhile: the page lets it go asynchronously.)
    if (canBlock) guarded(P.OP_LOCK_RELEASE_FAST, namesTable()[1], () => c.q);
    else guardedAsync(P.OP_LOCK_RELEASE_FAST, namesTable()[1], () => c.q);
  }
  return false;
}

// Go's lqFastLetGo, then, if refused (requests queued behind, or stolen),
// its release through the guard: whether it released (false: stolen).
// Workers only (the page's is fastReleased).
/** @param {Slot} c */
function fastLetGo(c) {
  if (c.runHead < c.runs.length) {
    const r = runNextStep(c.i32, c.q);
    if (r === P.RESULT_OK) return handOn(c), true;
    if (r === P.RESULT_NOT_HOLDER) return (heldSlots[c.k] = 0), adoptRun(c, c.lock.name), false;
  }
  heldSlots[c.k] = 0;
  if (fastLetGoStep(c.i32, c.q) === P.RESULT_OK) return true;
  const r = guarded(P.OP_LOCK_RELEASE_FAST, namesTable()[1], () => c.q);
  noticeGrants(c.q);
  return r !== P.RESULT_NOT_HOLDER;
}


// Caches the queue slot of request rec's name (granted: its slot keeps
// its name while the request is in its queue).
/** @param {{ _i32: Int32Array, _at: number }} rec @param {string} name */
function remember(rec, name) {
  if (slots.has(name)) return;
  if (slots.size >= SLOT_CACHE) {
    slots.delete(/** @type {string} */ (slots.keys().next().value));
    lastName = null;
  }
  const i32 = rec._i32, q = Atomics.load(i32, rec._at + P.LOCK_RECORD_QUEUE);
  const k = q >> 3;
  if (k >= heldSlots.length) {
    const more = new Uint8Array(Math.max(k + 1, 2 * heldSlots.length));
    more.set(heldSlots);
    heldSlots = more;
  }
  /** @type {Slot} */
  const c = { i32, q, gen: Atomics.load(i32, q + P.LOCK_QUEUE_GEN), k, lock: new Lock(name, "exclusive"), callback: null, run: () => {}, runSync: () => {}, letGo: () => {}, runs: [], runHead: 0 };
  // requestSync's callback and release, for runHolding (made once: see callback).
  c.runSync = () => /** @type {Function} */ (c.callback)(c.lock);
  c.letGo = () => {
    c.callback = null;
    if (!fastLetGo(c)) throwStolen(name);
  };
  c.run = () => {
    const callback = /** @type {Function} */ (c.callback);
    c.callback = null;
    return runFast(c, name, callback);
  };
  slots.set(name, c);
}

function stolenError(name) {
  return new DOMException(`sabmutex: the lock ${JSON.stringify(name)} was stolen`, "AbortError");
}

// main thread too. Web Locks' request: resolves with what callback
// returns (its promise's value), once the lock is granted and callback has
// settled; rejects for bad input, an aborted signal, a stolen lock.
export function request(name, options, callback) {
  if (arguments.length === 2 && typeof options === "function") {
    const c = slotOf(name);
    if (c !== undefined) {
      if (fastTake(name, c)) {
        c.callback = options; // (held: this agent's one fast lock of the slot)
        return RESOLVED.then(c.run);
      }
      const p = joinRun(c, options);
      if (p !== null) return p;
    }
  }
  return requestSlow(arguments.length, name, options, callback);
}

// request once its fast path has declined (see requestSyncSlow).
function requestSlow(argc, name, options, callback) {
  try {
    mustBeStarted("sabmutex.locks.request()");
    const r = parse("locks.request", argc, name, options, callback);
    if (r.signal && r.signal.aborted) return Promise.reject(r.signal.reason);
    if (r.mode === "exclusive" && !r.ifAvailable && !r.steal && !r.signal) {
      const c = slotOf(r.name);
      if (c !== undefined) {
        const p = joinRun(c, r.callback);
        if (p !== null) return p;
      } else if (line === null) return firstRequest(r);
    }
    return requestAsync(r);
  } catch (e) {
    return Promise.reject(e);
  }
}

async function requestAsync(o) {
  const flags = (o.ifAvailable ? P.LOCK_IF_AVAILABLE : 0) | (o.steal ? P.LOCK_STEAL : 0);
  return requested(await inLine(() => writeRequest(o.name, o.mode, flags)), o);
}

// An exclusive request of a name this agent has no queue of in its cache
// (its first, or one since the cache let it go), with no options but the
// mode, and no request of this agent on its way into the queue: made at
// once, and, if granted at once with nothing else in the queue, made this
// agent's fast lock (OP_LOCK_TO_FAST), so that the agent's next requests of
// the name, made before this one's callback runs, join its run.
/** @param {ReturnType<typeof parse>} o */
function firstRequest(o) {
  const [mem, table] = namesTable();
  const r = core.call(P.OP_LOCK_REQUEST, mem, table, writeRequest(o.name, "exclusive", 0), 0);
  if (r === P.RESULT_BUSY) return requestAsync(o);
  if (r > 0 && Atomics.load(arrays[mem], r) === P.LOCK_GRANTED) {
    remember(recordOf(r), o.name);
    if (core.call(P.OP_LOCK_TO_FAST, mem, r, 0, 0) === P.RESULT_OK) {
      const c = /** @type {Slot} */ (slotOf(o.name));
      heldSlots[c.k] = 1;
      c.callback = o.callback; // (held: this agent's one fast lock of the slot)
      return RESOLVED.then(c.run);
    }
  }
  return requested(r, o);
}

// The rest of a request once the core answered r (a record, or a result).
/** @param {number} r @param {ReturnType<typeof parse>} o */
async function requested(r, { name, mode, steal, signal, callback }) {
  if (r < 0) {
    notRecord(r, name);
    return callback(null);
  }
  const rec = recordOf(r);
  if (steal) stolen(); // (this agent's own robbed requests, at once)
  const q = Atomics.load(rec._i32, r + P.LOCK_RECORD_QUEUE);
  const exclusive = mode === "exclusive";
  if (Atomics.load(rec._i32, r) === P.LOCK_PENDING) {
    let got;
    try {
      got = await granted(rec, q, exclusive, signal ?? null);
    } catch (e) {
      await guardedAsync(P.OP_LOCK_RELEASE, r, null); // (abandoned: out of the queue)
      noticeGrants(q);
      throw e;
    }
    if (got !== P.RESULT_OK) {
      await guardedAsync(P.OP_LOCK_RELEASE, r, null);
      noticeGrants(q);
      throw new Error(`sabmutex: internal error: the wait for the lock ${JSON.stringify(name)} answered ${got}`);
    }
  } else if (exclusive) queueOf(q).held++;
  remember(rec, name);
  return hold(rec, q, exclusive, name, mode, callback, signal);
}

// The hand-off between tasks of this agent. When a release of this agent
// grants the next request of the name's queue (lqRelease decides, by Web
// Locks' rule), and that request is this agent's too, its task is told at
// once: its record reads GRANTED after the release returns, and the task
// goes on without waiting for Atomics.waitAsync's wake-up or a helper
// worker's message. The glue decides no grant; it only notices one sooner.
//
// mine: this agent's pending requests of each queue slot q, in the order
// they were made, which is their order in the queue. Since the core grants
// a queue's requests in its order (the first pending, or a run of shared
// ones from the first), the granted ones among them are always a prefix:
// so the first pending one alone needs a wait that notices a grant made by
// another agent (a real wait: waitFor, with Atomics.waitAsync or a helper);
// the ones behind it learn of theirs from noticeGrants, run after each
// grant noticed and each release of this agent. And while this agent holds
// an exclusive lock of the queue (held: records; or its fast word), not
// even the first needs one: nothing is granted before that lock is let go,
// by this agent (a release here) or by a steal (hold's watch notices it).
// So a thousand tasks queued on one name wait with one real wait at most.
/** @typedef {{ rec: { _i32: Int32Array, _at: number, _mem: number }, exclusive: boolean, signal: AbortSignal | null, real: boolean, done: boolean, resolve: (r: number) => void, reject: (e: any) => void, onAbort: (() => void) | null }} Pending */
/** @typedef {{ held: number, waits: Pending[], head: number }} Mine */
/** @type {Map<number, Mine>} */
const mine = new Map();

/** @param {number} q */
function queueOf(q) {
  let m = mine.get(q);
  if (m === undefined) mine.set(q, (m = { held: 0, waits: [], head: 0 }));
  return m;
}

// Whether this agent holds an exclusive lock of queue q now: a granted
// record (m.held), or the fast word (its id, or less it: requests queued
// behind).
/** @param {Mine} m @param {Int32Array} i32 @param {number} q */
function holdsHere(m, i32, q) {
  if (m.held > 0) return true;
  const f = Atomics.load(i32, q + P.LOCK_QUEUE_FAST);
  return f === agentId || f === -agentId;
}

// Resolves with RESULT_OK once pending request rec (of queue q) is granted,
// whether a release of this agent granted it or another agent did; rejects
// with signal's reason if it aborts first (the record given up: abandoned).
/** @param {Pending["rec"]} rec @param {number} q @param {boolean} exclusive @param {AbortSignal | null} signal @returns {Promise<number>} */
function granted(rec, q, exclusive, signal) {
  const m = queueOf(q);
  return new Promise((resolve, reject) => {
    /** @type {Pending} */
    const w = { rec, exclusive, signal, real: false, done: false, resolve, reject, onAbort: null };
    const behind = m.head < m.waits.length || holdsHere(m, rec._i32, q);
    m.waits.push(w);
    if (!behind) waitReally(w, q);
    else if (signal !== null) {
      w.onAbort = () => waitReally(w, q);
      signal.addEventListener("abort", w.onAbort, { once: true });
    }
  });
}

// The real wait of pending request w: the core's, which gives the request
// up on abort (or finds it granted first).
/** @param {Pending} w @param {number} q */
function waitReally(w, q) {
  if (w.real || w.done) return;
  w.real = true;
  waitFor(P.KIND_LOCK_REQUEST, w.rec, 0, Infinity, w.signal).then(
    (got) => {
      settle(w, q, got, null);
      noticeGrants(q);
    },
    (e) => settle(w, q, 0, e),
  );
}

// Ends pending request w's wait, once: with got, or rejecting with e.
/** @param {Pending} w @param {number} q @param {number} got @param {any} e */
function settle(w, q, got, e) {
  if (w.done) return;
  w.done = true;
  if (w.onAbort !== null) /** @type {AbortSignal} */ (w.signal).removeEventListener("abort", w.onAbort);
  const m = queueOf(q);
  if (e === null && got === P.RESULT_OK && w.exclusive) m.held++;
  while (m.head < m.waits.length && m.waits[m.head].done) m.head++;
  if (m.head === m.waits.length) (m.waits = []), (m.head = 0);
  if (e !== null) w.reject(e);
  else w.resolve(got);
}

// After a release of this agent, or a grant noticed: tells this agent's
// pending requests of queue q that the core has granted (a prefix of them),
// and gives the first still pending a real wait unless this agent holds an
// exclusive lock of q.
/** @param {number} q */
function noticeGrants(q) {
  const m = mine.get(q);
  if (m === undefined) return;
  for (let i = m.head; i < m.waits.length; i++) {
    const w = m.waits[i];
    if (w.done) continue;
    const s = Atomics.load(w.rec._i32, w.rec._at);
    if (s === P.LOCK_GRANTED || s === P.LOCK_STOLEN) settle(w, q, P.RESULT_OK, null);
    else if (s === P.LOCK_PENDING) {
      if (!holdsHere(m, w.rec._i32, q)) waitReally(w, q);
      return;
    } // (else abandoned by its abort: its real wait ends it)
  }
  if (m.held === 0 && m.head === m.waits.length) mine.delete(q);
}

// An exclusive lock of queue q that this agent held is let go (released,
// or found stolen): the requests of this agent behind it are told.
/** @param {number} q */
function letGoHere(q) {
  const m = mine.get(q);
  if (m !== undefined && m.held > 0) m.held--;
  noticeGrants(q);
}

const RESOLVED = Promise.resolve();

// hold for a lock taken through the fast path (of cache entry c), run in
// a job after request's (a then of a settled promise: an async function's
// jobs cost Firefox's request as much again): the callback, and the release
// once what it returned settles (at once if it returned no thenable); a
// steal (the fast word neither this agent's id nor less it) rejects.
/** @param {Slot} c @param {string} name @param {Function} callback */
function runFast(c, name, callback) {
  let v;
  try {
    v = callback(c.lock);
  } catch (e) {
    return fastReleased(c, name, e, true);
  }
  if (v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function") return holdFastAsync(c, name, v);
  return fastReleased(c, name, v, false);
}

// Releases c's fast lock, then returns v, or throws it if failed (what the
// callback threw); a stolen lock throws an AbortError instead.
/** @param {Slot} c @param {string} name @param {any} v @param {boolean} failed */
function fastReleased(c, name, v, failed) {
  if (c.runHead < c.runs.length) {
    const r = runNextStep(c.i32, c.q);
    if (r === P.RESULT_OK) {
      handOn(c);
      if (failed) throw v;
      return v;
    }
    if (r === P.RESULT_NOT_HOLDER) {
      heldSlots[c.k] = 0;
      adoptRun(c, name);
      throw stolenError(name);
    }
  }
  heldSlots[c.k] = 0;
  if (fastLetGoStep(c.i32, c.q) !== P.RESULT_OK) {
    return guardedAsync(P.OP_LOCK_RELEASE_FAST, namesTable()[1], () => c.q).then((r) => {
      noticeGrants(c.q);
      if (r === P.RESULT_NOT_HOLDER) throw stolenError(name);
      if (failed) throw v;
      return v;
    });
  }
  if (failed) throw v;
  return v;
}

// What a held lock's callback returned (thenable), once it settles: { x,
// failed }; or null, once the lock is stolen first (isStolen(the word at
// i32[at]): a record's state, or a fast lock's fast word); settled, the
// callback's outcome, for the robbed caller's release. A callback that
// settles within a few jobs (an async function with nothing to wait for,
// the commonest) is never watched: watchSteal's Atomics.waitAsync costs a
// queued task more than the rest of its hand-off (docs/decisions/task-hand-off.md),
// and a steal meanwhile is told when it settles, a few jobs later.
/** @param {PromiseLike<any>} thenable @param {Int32Array} i32 @param {number} at @param {(w: number) => boolean} isStolen */
async function settledUnlessStolen(thenable, i32, at, isStolen) {
  const settled = Promise.resolve(thenable).then(
    (x) => ({ x, failed: false }),
    (x) => ({ x, failed: true }),
  );
  const soon = await Promise.race([settled, RESOLVED.then().then().then(() => null)]);
  if (soon !== null) return { first: isStolen(Atomics.load(i32, at)) ? null : soon, settled };
  const robbed = watchSteal(i32, at, isStolen);
  const first = await Promise.race([settled, robbed.then(() => null)]);
  /** @type {() => void} */ (robbed.stop)();
  return { first, settled };
}

/** @param {Slot} c @param {string} name @param {PromiseLike<any>} thenable */
async function holdFastAsync(c, name, thenable) {
  const { first, settled } = await settledUnlessStolen(thenable, c.i32, c.q + P.LOCK_QUEUE_FAST, (w) => w !== agentId && w !== -agentId);
  if (first === null) {
    adoptRun(c, name); // (its run, made records by the steal)
    noticeGrants(c.q); // (the stealer's release may grant this agent's next)
    settled.then(() => fastReleased(c, name, undefined, false)).catch(() => {}); // (stolen: releases nothing)
    throw stolenError(name);
  }
  return fastReleased(c, name, first.x, first.failed);
}

// Runs callback holding the lock of request rec (in a job after the one
// that granted it, never inside request() itself), and releases it once what
// callback returned settles. A signal that aborts before the callback
// starts wins: the lock is released, and the request rejects with its
// reason. A steal rejects the request with an AbortError: while the
// callback's promise is pending, as soon as watchSteal sees it; a callback
// that returned no thenable, once it has returned. Either way the robbed
// release releases nothing of the stealer's.
async function hold(rec, q, exclusive, name, mode, callback, signal) {
  await null;
  if (signal && signal.aborted) {
    await guardedAsync(P.OP_LOCK_RELEASE, rec._at, null);
    if (exclusive) letGoHere(q);
    else noticeGrants(q);
    throw signal.reason;
  }
  let v, failed = false;
  try {
    v = callback(new Lock(name, mode));
  } catch (e) {
    v = e;
    failed = true;
  }
  if (!failed && v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function") {
    const { first, settled } = await settledUnlessStolen(v, rec._i32, rec._at, (w) => w === P.LOCK_STOLEN);
    if (first === null) {
      if (exclusive) letGoHere(q); // (the stealer's release may grant this agent's next)
      settled.then(() => guardedAsync(P.OP_LOCK_RELEASE, rec._at, null)); // (frees the robbed record)
      throw stolenError(name);
    }
    ({ x: v, failed } = first);
  }
  // (Tried at once, without a job of guardedAsync's unless the guard is
  // busy: the next task of this agent is told within this job.)
  const [mem] = namesTable();
  let r = core.call(P.OP_LOCK_RELEASE, mem, rec._at, 0, 0);
  if (r === P.RESULT_BUSY) r = await guardedAsync(P.OP_LOCK_RELEASE, rec._at, null);
  if (exclusive) letGoHere(q);
  else noticeGrants(q);
  if (r === P.RESULT_NOT_HOLDER) throw stolenError(name);
  if (failed) throw v;
  return v;
}

// A promise that resolves when a held lock is stolen, with stop() to stop
// watching: once isStolen(the word at i32[at]) (a record's state, or a
// fast lock's fast word); an Atomics.waitAsync on the word where there is
// one; else a look at every watched lock every WATCH_MS (a helper worker a
// held lock is too dear), and at once after this agent's own steals
// (stolen()).
/** @param {Int32Array} i32 @param {number} at @param {(w: number) => boolean} isStolen */
function watchSteal(i32, at, isStolen) {
  /** @type {Promise<void> & { stop?: () => void }} */
  let p;
  if (typeof Atomics.waitAsync === "function") {
    let stopped = false;
    p = (async () => {
      for (;;) {
        const v = Atomics.load(i32, at);
        if (isStolen(v)) return;
        const w = Atomics.waitAsync(i32, at, v);
        if (w.async) await w.value;
        if (stopped) return new Promise(() => {});
      }
    })();
    p.stop = () => {
      stopped = true;
    };
    return p;
  }
  const entry = { i32, at, isStolen, resolve: () => {} };
  p = new Promise((resolve) => (entry.resolve = resolve));
  watched.add(entry);
  if (pollTimer === null) unrefTimer((pollTimer = setInterval(stolen, P.WATCH_MS)));
  p.stop = () => {
    watched.delete(entry);
    if (watched.size === 0 && pollTimer !== null) {
      clearInterval(pollTimer);
      pollTimer = null;
    }
  };
  return p;
}

// The requests watchSteal looks at without Atomics.waitAsync, and its timer.
/** @type {Set<{ i32: Int32Array, at: number, isStolen: (w: number) => boolean, resolve: () => void }>} */
const watched = new Set();
/** @type {any} */
let pollTimer = null;

// Settles the watches of the watched requests that were stolen.
function stolen() {
  for (const e of watched) if (e.isStolen(Atomics.load(e.i32, e.at))) e.resolve();
}

// Workers only. The blocking form: waits until granted, runs callback
// with the lock, releases it, and returns what callback returned (or
// throws what it threw; an AbortError once it returns, if the lock was
// stolen meanwhile). Options: mode and ifAvailable.
export function requestSync(name, options, callback) {
  if (arguments.length === 2 && canBlock && typeof options === "function") {
    const c = slotOf(name);
    if (c !== undefined && fastTake(name, c)) {
      c.callback = options; // (held: this agent's one fast lock of the slot)
      return runHolding(noop, c.letGo, c.runSync);
    }
  }
  return requestSyncSlow(arguments.length, name, options, callback);
}

const noop = () => {};

/** @param {string} name */
function throwStolen(name) {
  throw stolenError(name);
}

// requestSync once its fast path has declined (a function of its own: the
// fast path's stays small enough for the engines to compile it as withLock's).
function requestSyncSlow(argc, name, options, callback) {
  mustBeStarted("sabmutex.locks.requestSync()");
  if (!canBlock) {
    throw new Error("sabmutex: locks.requestSync() blocks, which the page's main thread cannot do: use `await sabmutex.locks.request(name, callback)` there");
  }
  const { name: n, mode, ifAvailable, steal, signal, callback: fn } = parse("locks.requestSync", argc, name, options, callback);
  if (steal || signal) throw notSupported("sabmutex: locks.requestSync takes neither steal nor signal; use locks.request for them");
  const [, table] = namesTable();
  const r = guarded(P.OP_LOCK_REQUEST, table, () => writeRequest(n, mode, ifAvailable ? P.LOCK_IF_AVAILABLE : 0));
  if (r < 0) {
    notRecord(r, n);
    return fn(null);
  }
  const rec = recordOf(r);
  remember(rec, n);
  if (Atomics.load(rec._i32, r) === P.LOCK_PENDING && !grantedWithin(rec._i32, r)) {
    const got = waitBlocking(P.KIND_LOCK_REQUEST, rec, 0, Infinity);
    if (got !== P.RESULT_OK) {
      const deadlock = got === P.RESULT_CYCLE ? deadlockMessage() : ""; // (before the release: it names the lock by its record)
      guarded(P.OP_LOCK_RELEASE, r, null);
      if (got === P.RESULT_CYCLE) throw new Error(`sabmutex: locks.requestSync(${JSON.stringify(n)}): ${deadlock}`);
      throw new Error(`sabmutex: internal error: the wait for the lock ${JSON.stringify(n)} answered ${got}`);
    }
  }
  let robbed = false;
  try {
    return fn(new Lock(n, mode));
  } finally {
    const q = Atomics.load(rec._i32, r + P.LOCK_RECORD_QUEUE);
    robbed = guarded(P.OP_LOCK_RELEASE, r, null) === P.RESULT_NOT_HOLDER;
    noticeGrants(q); // (the async requests of this worker behind it)
    if (robbed) throw stolenError(n); // eslint-disable-line no-unsafe-finally
  }
}

// Whether pending request r is granted within GRANT_LOOKS looks at its
// state (workers only): a releaser that runs grants the head of the queue
// within microseconds, and a grant found by a look costs the waiter no
// sleep and the releaser no wake-up, as the Channel's spin (channel.js).
// A tenth of the Channel's looks: with more waiters than cores, a longer
// spin takes the releaser's core (docs/decisions/lock-queue-speed.md).
const GRANT_LOOKS = SPIN_LOOKS / 10;

/** @param {Int32Array} i32 @param {number} r */
function grantedWithin(i32, r) {
  for (let left = GRANT_LOOKS; left > 0; left--) {
    if (Atomics.load(i32, r) !== P.LOCK_PENDING) return true;
    if (HAS_PAUSE) /** @type {any} */ (Atomics).pause();
  }
  return false;
}

// main thread too. Web Locks' query: { held, pending } of every agent of
// this registry, read from the queues in shared memory (blocked workers and
// Go agents alike), each entry { name, mode, clientId } (clientId: the
// agent's id, as a string), each name's pending ones in request order.
export async function query() {
  mustBeStarted("sabmutex.locks.query()");
  const [, table] = namesTable();
  const n = await guardedAsync(P.OP_LOCK_QUERY, table, null);
  if (n < 0) throw new Error(`sabmutex: internal error: the lock request queues answered ${n}`);
  const [mem] = namesTable();
  const start = core.call(P.OP_TEXT, mem, 0, n, 0);
  const text = new DataView(core.mem.buffer.slice(start, start + n));
  const held = [];
  const pending = [];
  for (let at = 0; at < n; ) {
    const units = text.getInt32(at, true);
    let name = "";
    for (let u = 0; u < units; u++) name += String.fromCharCode(text.getUint16(at + 4 + 2 * u, true));
    at += 4 + 4 * ((units + 1) >> 1);
    const count = text.getInt32(at, true);
    at += 4;
    for (let i = 0; i < count; i++, at += 12) {
      const entry = { name, mode: text.getInt32(at + 4, true) === P.LOCK_SHARED ? "shared" : "exclusive", clientId: `${text.getInt32(at, true)}` };
      (text.getInt32(at + 8, true) === P.LOCK_GRANTED ? held : pending).push(entry);
    }
  }
  return { held, pending };
}

// The object sabmutex.locks.
export const locks = Object.freeze({ request, requestSync, query });
