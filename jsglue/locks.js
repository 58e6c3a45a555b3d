// sabmutex.locks: the Web Locks API (navigator.locks) over the RWMutex of
// each name (names.js), for every agent of one registry, at shared-memory
// speed; and requestSync, its blocking form for workers.
//
// Within this agent, requests for a name queue in the order they were made
// (the spec's lock request queue): an exclusive request waits for every
// request before it, a shared one for the exclusive ones before it. A
// request at the head of this agent's queue then takes the RWMutex
// (lockAsync, readLockAsync), which orders it against other agents (a
// waiting writer blocks new readers: a shared request behind a waiting
// exclusive one of another agent waits too). The lock is held until the
// callback's promise settles. A worker that ends holding it releases it
// through the RWMutex's dead-holder recovery (wasm/core/watch.go).
//
// What is not as in Web Locks (docs/decisions/names.md): query() lists this
// agent's requests only; steal takes a lock from this agent's own holders
// only, and rejects with a NotSupportedError when another agent holds it.
import { canBlock, agentId, mustBeStarted } from "./runtime.js";
import { RWMutex } from "./rwmutex.js";
import { nameString } from "./names.js";
import { describe } from "./errors.js";

/** @typedef {{ name: string, mode: string, signal: AbortSignal | undefined, callback: Function, resolve: (v: any) => void, reject: (e: any) => void, started: boolean, stolen: boolean }} Request */

/** @type {Map<string, { held: Request[], pending: Request[] }>} */
const queues = new Map();

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
function parse(what, args) {
  if (args.length < 2) throw new TypeError(`sabmutex: ${what}(name, [options], callback) takes at least 2 arguments; got ${args.length}`);
  const name = nameString(args[0]);
  const raw = args.length === 2 ? undefined : args[1];
  const callback = args.length === 2 ? args[1] : args[2];
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

function queueOf(name) {
  let q = queues.get(name);
  if (q === undefined) queues.set(name, (q = { held: [], pending: [] }));
  return q;
}

// main thread too. Web Locks' request: resolves with what callback
// returns (its promise's value), once the lock is granted and callback has
// settled; rejects for bad input, an aborted signal, a stolen lock.
export function request(...args) {
  let r;
  try {
    mustBeStarted("sabmutex.locks.request()");
    r = parse("locks.request", args);
  } catch (e) {
    return Promise.reject(e);
  }
  const { name, mode, ifAvailable, steal, signal, callback } = r;
  if (signal && signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    /** @type {Request} */
    const req = { name, mode, signal, callback, resolve, reject, started: false, stolen: false };
    const q = queueOf(name);
    const rw = RWMutex.named(name);
    if (steal) {
      stealFor(req, q, rw);
    } else if (ifAvailable) {
      if (q.pending.length === 0 && (mode === "shared" ? q.held.every((h) => h.mode === "shared") && rw.tryReadLock() : q.held.length === 0 && rw.tryLock())) {
        grant(req, q, rw);
      } else {
        Promise.resolve().then(() => callback(null)).then(resolve, reject);
      }
    } else if (!signal && q.held.length === 0 && q.pending.length === 0 && (mode === "exclusive" ? rw.tryLock() : rw.tryReadLock())) {
      grant(req, q, rw); // (free, nobody of this agent before it: taken now, its callback still in a later microtask)
    } else {
      q.pending.push(req);
      if (signal) signal.addEventListener("abort", () => withdraw(req, q, rw), { once: true });
      queueMicrotask(() => next(q, rw)); // (an abort right after request() is still in time)
    }
  });
}

// Takes the lock for steal: from this agent's holders (their requests
// reject with an AbortError), or free; another agent's hold is refused.
function stealFor(req, q, rw) {
  const held = q.held.splice(0);
  const writing = held.length > 0 && held[0].mode === "exclusive";
  for (const h of held) {
    h.stolen = true;
    if (h.mode === "shared") rw.readUnlock();
    h.reject(new DOMException(`sabmutex: the lock ${JSON.stringify(h.name)} was stolen`, "AbortError"));
  }
  if (writing || rw.tryLock()) {
    grant(req, q, rw);
    return;
  }
  req.reject(notSupported(`sabmutex: locks.request(${JSON.stringify(req.name)}, { steal: true }): another agent of this registry holds or is taking the lock, and stealing from another agent is not supported; request it without steal, or have its holder release it`));
  next(q, rw);
}

// A pending request whose signal aborted: out of the queue, rejected with
// the signal's reason (one taking the RWMutex is withdrawn by its own abort).
function withdraw(req, q, rw) {
  const i = q.pending.indexOf(req);
  if (i < 0 || req.started) return;
  q.pending.splice(i, 1);
  req.reject(/** @type {AbortSignal} */ (req.signal).reason);
  next(q, rw);
}

// Starts the pending requests that this agent's queue lets go: the first,
// if nothing is held, and the shared ones that only shared ones precede.
function next(q, rw) {
  for (let i = 0; i < q.pending.length; i++) {
    const req = q.pending[i];
    const exclusive = req.mode === "exclusive";
    if (exclusive ? i > 0 || q.held.length > 0 : q.held.some((h) => h.mode === "exclusive")) break;
    if (req.started) continue;
    if (req.signal && req.signal.aborted) {
      q.pending.splice(i--, 1);
      req.reject(req.signal.reason);
      continue;
    }
    req.started = true;
    const options = req.signal ? { signal: req.signal } : undefined;
    (exclusive ? rw.lockAsync(options) : rw.readLockAsync(options)).then(
      () => {
        q.pending.splice(q.pending.indexOf(req), 1);
        grant(req, q, rw);
      },
      (e) => {
        q.pending.splice(q.pending.indexOf(req), 1);
        req.reject(e);
        next(q, rw);
      },
    );
    if (exclusive) break;
  }
}

// Runs req's callback holding the lock (in a later task than request's),
// and releases it once the callback's promise settles.
function grant(req, q, rw) {
  q.held.push(req);
  const release = () => {
    if (req.stolen) return;
    q.held.splice(q.held.indexOf(req), 1);
    if (req.mode === "exclusive") rw.unlock();
    else rw.readUnlock();
    next(q, rw);
  };
  Promise.resolve()
    .then(() => req.callback(new Lock(req.name, req.mode)))
    .then(
      (v) => {
        release();
        req.resolve(v);
      },
      (e) => {
        release();
        req.reject(e);
      },
    );
}

// Workers only. The blocking form: waits until granted, runs callback
// with the lock, releases it, and returns what callback returned (or
// throws what it threw). Options: mode and ifAvailable.
export function requestSync(name, options, callback) {
  // The fast path: requestSync(name, fn) of a name this worker has taken
  // before, exclusive, with none of its own requests of the name about.
  const c = arguments.length === 2 && typeof options === "function" ? syncNames.get(name) : undefined;
  if (c !== undefined && (queues.size === 0 || !queues.has(name))) {
    c.rw.lock();
    try {
      return options(c.lock);
    } finally {
      c.rw.unlock();
    }
  }
  return requestSyncSlow(Array.from(arguments));
}

// requestSync's names taken before, exclusive: name -> its RWMutex and a Lock.
/** @type {Map<any, { rw: RWMutex, lock: Lock }>} */
const syncNames = new Map();

function requestSyncSlow(args) {
  mustBeStarted("sabmutex.locks.requestSync()");
  if (!canBlock) {
    throw new Error("sabmutex: locks.requestSync() blocks, which the page's main thread cannot do: use `await sabmutex.locks.request(name, callback)` there");
  }
  const { name, mode, ifAvailable, steal, signal, callback } = parse("locks.requestSync", args);
  if (steal || signal) throw notSupported("sabmutex: locks.requestSync takes neither steal nor signal; use locks.request for them");
  const q = queues.get(name);
  if (q !== undefined && (q.held.length > 0 || q.pending.length > 0)) {
    throw new Error(`sabmutex: locks.requestSync(${JSON.stringify(name)}) in a worker whose own locks.request of it holds or waits for it would wait for good; finish that request first`);
  }
  const rw = RWMutex.named(name);
  const shared = mode === "shared";
  if (typeof args[0] === "string" && args.length === 2 && !syncNames.has(name)) syncNames.set(name, { rw, lock: new Lock(name, "exclusive") });
  if (ifAvailable ? !(shared ? rw.tryReadLock() : rw.tryLock()) : (shared ? rw.readLock() : rw.lock(), false)) {
    return callback(null);
  }
  try {
    return callback(new Lock(name, mode));
  } finally {
    if (shared) rw.readUnlock();
    else rw.unlock();
  }
}

// main thread too. Web Locks' query: { held, pending } of this agent's
// requests, each { name, mode, clientId } (clientId: this agent's id).
export async function query() {
  mustBeStarted("sabmutex.locks.query()");
  await new Promise((r) => setTimeout(r, 0)); // (requests made just before, that can be granted, are)
  const clientId = `${agentId}`;
  const held = [];
  const pending = [];
  for (const q of queues.values()) {
    for (const r of q.held) held.push({ name: r.name, mode: r.mode, clientId });
    for (const r of q.pending) pending.push({ name: r.name, mode: r.mode, clientId });
  }
  return { held, pending };
}

// The object sabmutex.locks.
export const locks = Object.freeze({ request, requestSync, query });
