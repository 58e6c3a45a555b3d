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
// through the RWMutex's dead-holder recovery (internal/core/watch.go).
//
// Across agents, each agent's queues are its own memory: query() and a
// steal of another agent's lock ask the others over a BroadcastChannel of
// the registry (below), and each answers from its event loop.
//
// What is not as in Web Locks (docs/decisions/names.md): a steal from
// another agent takes effect when that agent's event loop turns, and the
// stealer then takes the RWMutex in its order; an agent that does not
// answer query() in QUERY_MS (busy in synchronous code, blocked, a Go
// agent) is listed from shared memory: the write locks it holds.
import * as P from "./protocol.js";
import { arrays, canBlock, agentId, mustBeStarted, SERVER_RUNTIME } from "./runtime.js";
import { RWMutex } from "./rwmutex.js";
import { nameAt, nameString } from "./names.js";
import { describe } from "./errors.js";
import { namesTable, registryKey, textOf } from "./registry.js";

/** @typedef {{ name: string, mode: string, signal: AbortSignal | undefined, callback: Function, resolve: ((v: any) => void) | null, abort: ((e: any) => void) | null, stolen: DOMException | null, started: boolean }} Request */
/** @typedef {{ name: string, held: Request[], pending: Request[], rw: RWMutex, lock: Lock }} Queue */

// name -> this agent's requests of it (held, and pending in the order made),
// the name's RWMutex, and the Lock requestSync's fast path hands out.
/** @type {Map<string, Queue>} */
const queues = new Map();

// The queue the last fast path used: a loop on one name skips the Map.
/** @type {Queue | null} */
let last = null;

// The queue of a name this agent asked for before, or undefined.
function queueAt(name) {
  if (last !== null && last.name === name) return last;
  const q = queues.get(name);
  if (q !== undefined) last = q;
  return q;
}

const RESOLVED = Promise.resolve();

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
  if (q === undefined) queues.set(name, (q = { name, held: [], pending: [], rw: RWMutex.named(name), lock: new Lock(name, "exclusive") }));
  return q;
}

/** @returns {Request} */
function newRequest(name, mode, signal, callback) {
  return { name, mode, signal, callback, resolve: null, abort: null, stolen: null, started: false };
}

// main thread too. Web Locks' request: resolves with what callback
// returns (its promise's value), once the lock is granted and callback has
// settled; rejects for bad input, an aborted signal, a stolen lock.
export function request(name, options, callback) {
  // The fast path: request(name, callback) of a name this agent asked for
  // before, free, with none of this agent's requests of it about.
  if (arguments.length === 2 && typeof options === "function" && typeof name === "string") {
    const q = queueAt(name);
    if (q !== undefined && q.held.length === 0 && q.pending.length === 0 && q.rw.tryLock()) return hold(newRequest(name, "exclusive", undefined, options), q);
  }
  return requestSlow(Array.from(arguments));
}

function requestSlow(args) {
  let r, q;
  try {
    mustBeStarted("sabmutex.locks.request()");
    r = parse("locks.request", args);
    if (r.signal && r.signal.aborted) return Promise.reject(r.signal.reason);
    q = queueOf(r.name); // (a name that is another kind, say)
  } catch (e) {
    return Promise.reject(e);
  }
  const { name, mode, ifAvailable, steal, signal, callback } = r;
  const req = newRequest(name, mode, signal, callback);
  const free = () => (mode === "shared" ? q.held.every((h) => h.mode === "shared") && q.rw.tryReadLock() : q.held.length === 0 && q.rw.tryLock());
  if (ifAvailable) return q.pending.length === 0 && free() ? hold(req, q) : Promise.resolve(null).then(callback);
  if (!signal && !steal && q.pending.length === 0 && q.held.length === 0 && free()) return hold(req, q); // (nobody of this agent before it)
  return new Promise((resolve, reject) => {
    req.resolve = resolve;
    req.abort = reject;
    if (steal) return stealFor(req, q);
    q.pending.push(req);
    if (signal) signal.addEventListener("abort", () => withdraw(req, q), { once: true });
    queueMicrotask(() => next(q)); // (an abort right after request() is still in time)
  });
}

// Runs req's callback holding the lock, in a job after this one (never
// inside request() itself), and releases the lock once what the callback
// returned settles. Returns the promise req settles by. A callback that
// returns no thenable (the common case) costs that one job, and the
// caller's await the next: each job more costs 0.5-1 us in Firefox and
// WebKit (docs/decisions/names.md).
function hold(req, q) {
  q.held.push(req);
  return RESOLVED.then(() => {
    let v;
    try {
      v = req.callback(new Lock(req.name, req.mode));
    } catch (e) {
      letGo(req, q);
      throw req.stolen ?? e;
    }
    if (v === null || (typeof v !== "object" && typeof v !== "function")) {
      letGo(req, q);
      if (req.stolen !== null) throw req.stolen;
      return v;
    }
    return new Promise((resolve, reject) => {
      req.abort = reject; // (a steal rejects it at once)
      if (req.stolen !== null) reject(req.stolen);
      Promise.resolve(v).then(
        (x) => {
          letGo(req, q);
          resolve(x);
        },
        (e) => {
          letGo(req, q);
          reject(e);
        },
      );
    });
  });
}

// Lets req's lock go (unless stolen: its stealer has it) and starts what
// this agent's queue then lets go.
function letGo(req, q) {
  if (req.stolen !== null) return;
  q.held.splice(q.held.indexOf(req), 1);
  if (req.mode === "exclusive") q.rw.unlock();
  else q.rw.readUnlock();
  if (q.pending.length > 0) next(q);
}

// Takes the lock for steal: from this agent's holders (their requests
// reject with an AbortError, at once or, for one whose callback is running
// now, when it returns), or free; another agent's hold is refused.
function stealFor(req, q) {
  const held = q.held.splice(0);
  const writing = held.length > 0 && held[0].mode === "exclusive";
  for (const h of held) {
    h.stolen = new DOMException(`sabmutex: the lock ${JSON.stringify(h.name)} was stolen`, "AbortError");
    if (h.mode === "shared") q.rw.readUnlock();
    if (h.abort !== null) h.abort(h.stolen);
  }
  if (writing || q.rw.tryLock()) {
    /** @type {(v: any) => void} */ (req.resolve)(hold(req, q));
    return;
  }
  // Another agent holds it, or is taking it: asked to let it go (letGoFor),
  // this agent takes it in the RWMutex's order once it has.
  req.started = true;
  q.pending.unshift(req);
  if (agentsChannel !== null) agentsChannel.postMessage({ steal: req.name, from: agentId });
  q.rw.lockAsync().then(
    () => {
      q.pending.splice(q.pending.indexOf(req), 1);
      /** @type {(v: any) => void} */ (req.resolve)(hold(req, q));
    },
    (e) => {
      q.pending.splice(q.pending.indexOf(req), 1);
      /** @type {(e: any) => void} */ (req.abort)(e);
      next(q);
    },
  );
}

// Another agent's steal of name: this agent's holders of it let it go
// (their requests reject with an AbortError, as stealFor's).
function letGoFor(name) {
  const q = queues.get(name);
  if (q === undefined || q.held.length === 0) return;
  for (const h of q.held.splice(0)) {
    h.stolen = new DOMException(`sabmutex: the lock ${JSON.stringify(h.name)} was stolen by another agent`, "AbortError");
    if (h.mode === "shared") q.rw.readUnlock();
    else q.rw.unlock();
    if (h.abort !== null) h.abort(h.stolen);
  }
  next(q);
}

// A pending request whose signal aborted: out of the queue, rejected with
// the signal's reason (one taking the RWMutex is withdrawn by its own abort).
function withdraw(req, q) {
  const i = q.pending.indexOf(req);
  if (i < 0 || req.started) return;
  q.pending.splice(i, 1);
  /** @type {(e: any) => void} */ (req.abort)(/** @type {AbortSignal} */ (req.signal).reason);
  next(q);
}

// Starts the pending requests that this agent's queue lets go: the first,
// if nothing is held, and the shared ones that only shared ones precede.
function next(q) {
  for (let i = 0; i < q.pending.length; i++) {
    const req = q.pending[i];
    const exclusive = req.mode === "exclusive";
    if (exclusive ? i > 0 || q.held.length > 0 : q.held.some((h) => h.mode === "exclusive")) break;
    if (req.started) continue;
    if (req.signal && req.signal.aborted) {
      q.pending.splice(i--, 1);
      /** @type {(e: any) => void} */ (req.abort)(req.signal.reason);
      continue;
    }
    req.started = true;
    const options = req.signal ? { signal: req.signal } : undefined;
    (exclusive ? q.rw.lockAsync(options) : q.rw.readLockAsync(options)).then(
      () => {
        q.pending.splice(q.pending.indexOf(req), 1);
        /** @type {(v: any) => void} */ (req.resolve)(hold(req, q));
      },
      (e) => {
        q.pending.splice(q.pending.indexOf(req), 1);
        /** @type {(e: any) => void} */ (req.abort)(e);
        next(q);
      },
    );
    if (exclusive) break;
  }
}

// Workers only. The blocking form: waits until granted, runs callback
// with the lock, releases it, and returns what callback returned (or
// throws what it threw). Options: mode and ifAvailable.
export function requestSync(name, options, callback) {
  // The fast path: requestSync(name, fn) of a name this worker asked for
  // before, with none of its own requests of the name about.
  if (arguments.length === 2 && typeof options === "function" && typeof name === "string" && canBlock) {
    const q = queueAt(name);
    if (q !== undefined && q.held.length === 0 && q.pending.length === 0) {
      q.rw.lock();
      try {
        return options(q.lock);
      } finally {
        q.rw.unlock();
      }
    }
  }
  return requestSyncSlow(Array.from(arguments));
}

function requestSyncSlow(args) {
  mustBeStarted("sabmutex.locks.requestSync()");
  if (!canBlock) {
    throw new Error("sabmutex: locks.requestSync() blocks, which the page's main thread cannot do: use `await sabmutex.locks.request(name, callback)` there");
  }
  const { name, mode, ifAvailable, steal, signal, callback } = parse("locks.requestSync", args);
  if (steal || signal) throw notSupported("sabmutex: locks.requestSync takes neither steal nor signal; use locks.request for them");
  const q = queueOf(name);
  if (q.held.length > 0 || q.pending.length > 0) {
    throw new Error(`sabmutex: locks.requestSync(${JSON.stringify(name)}) in a worker whose own locks.request of it holds or waits for it would wait for good; finish that request first`);
  }
  const rw = q.rw;
  const shared = mode === "shared";
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

// This agent's requests: { held, pending }, each a list of [name, mode].
function ownRequests() {
  const held = [];
  const pending = [];
  for (const q of queues.values()) {
    for (const r of q.held) held.push([r.name, r.mode]);
    for (const r of q.pending) pending.push([r.name, r.mode]);
  }
  return { held, pending };
}

// How long query() waits for the other agents' answers: an agent whose
// event loop turns answers within a task or two.
const QUERY_MS = 100;

// The registry's channel (null: none; in server runtimes, where it would
// keep a process alive, or where there is no BroadcastChannel), and
// query()'s answers being gathered: token -> id -> answer.
/** @type {BroadcastChannel | null} */
let agentsChannel = null;
/** @type {Map<number, { answers: Map<number, any>, done: () => void, expected: Set<number> }>} */
const asked = new Map();

// Called by init once this agent has joined its registry: answers the
// other agents' queries and steals.
export function listenAcrossAgents() {
  if (SERVER_RUNTIME || typeof BroadcastChannel !== "function") return;
  agentsChannel = new BroadcastChannel(`sabmutex locks ${registryKey()}`);
  agentsChannel.onmessage = ({ data }) => {
    if (data.ask !== undefined) {
      /** @type {BroadcastChannel} */ (agentsChannel).postMessage({ answer: data.ask, to: data.from, from: agentId, ...ownRequests() });
    } else if (data.answer !== undefined && data.to === agentId) {
      const a = asked.get(data.answer);
      if (a === undefined) return;
      a.answers.set(data.from, data);
      if ([...a.expected].every((id) => a.answers.has(id))) a.done();
    } else if (data.steal !== undefined) {
      letGoFor(data.steal);
    }
  };
}

// main thread too. Web Locks' query: { held, pending } of every agent of
// this registry, each entry { name, mode, clientId } (clientId: the agent's
// id, as a string), each agent's in the order its requests were made.
export async function query() {
  mustBeStarted("sabmutex.locks.query()");
  await new Promise((r) => setTimeout(r, 0)); // (requests made just before, that can be granted, are)
  const others = JSON.parse(textOf(P.TEXT_SNAPSHOT))
    .filter((row) => row[3] === 1 && row[2] !== agentId)
    .map((row) => row[2]);
  const answers = await askOthers(others);
  const held = [];
  const pending = [];
  const add = (id, r) => {
    for (const [name, mode] of r.held) held.push({ name, mode, clientId: `${id}` });
    for (const [name, mode] of r.pending) pending.push({ name, mode, clientId: `${id}` });
  };
  add(agentId, ownRequests());
  const silent = others.filter((id) => !answers.has(id));
  for (const id of others) if (answers.has(id)) add(id, answers.get(id));
  if (silent.length > 0) heldInMemory(silent, held);
  return { held, pending };
}

// The other agents' answers, id -> { held, pending }: those that came in
// QUERY_MS.
function askOthers(others) {
  if (agentsChannel === null || others.length === 0) return Promise.resolve(new Map());
  const token = Math.random();
  return new Promise((resolve) => {
    const answers = new Map();
    const done = () => {
      clearTimeout(timer);
      asked.delete(token);
      resolve(answers);
    };
    const timer = setTimeout(done, QUERY_MS);
    asked.set(token, { answers, done, expected: new Set(others) });
    /** @type {BroadcastChannel} */ (agentsChannel).postMessage({ ask: token, from: agentId });
  });
}

// What shared memory says of agents that did not answer (ids): the write
// locks they hold on names' RWMutexes, as held exclusive locks.
function heldInMemory(ids, held) {
  const [mem, table] = namesTable();
  if (mem < 0 || table === 0) return;
  const i32 = arrays[mem];
  const entries = Atomics.load(i32, table + P.NAMES_ENTRIES);
  for (let e = table + P.NAMES_HEADER, end = e + entries * P.NAME_SLOTS; e < end; e += P.NAME_SLOTS) {
    if (Atomics.load(i32, e + P.NAME_STATE) !== P.NAME_READY || Atomics.load(i32, e + P.NAME_KIND) !== P.NAME_KIND_RWMUTEX) continue;
    const writer = Atomics.load(i32, Atomics.load(i32, e + P.NAME_PRIM) + P.RWMUTEX_WRITER_AT);
    if (ids.includes(writer)) held.push({ name: nameAt(Atomics.load(i32, e + P.NAME_PRIM)), mode: "exclusive", clientId: `${writer}` });
  }
}

// The object sabmutex.locks.
export const locks = Object.freeze({ request, requestSync, query });
