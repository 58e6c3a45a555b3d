// Debug mode (README, "Debugging"): where each lock was taken and each wait
// waits, lock-order inversions found before they deadlock, locks held too
// long, and the reports a test can fail on (onReport).
//
// Off, it costs nothing: no fast path looks at it. On (init({ debug }) on
// the registry's maker, which every agent that joins follows, or on one
// agent alone), it wraps the public methods of the classes that hold
// something (installWrappers): each acquisition records its site (the
// caller's stack, trimmed to the user's frames), a mark of what this agent
// holds or waits for, and the orders "B taken while A was held" new to this
// agent, in this agent's region of the debug area (debugarea.js; the layout
// is Go's, internal/core/debugarea.go). One agent, the area's collector (the
// registry's maker), reads every region four times a second: an order that
// closes a cycle of orders, or a hold older than heldMs, is a report.
//
// Which acquisitions record an order. A blocking one (lock, readLock,
// acquire, withLock, do) blocks the whole agent, so every lock the agent
// holds, in any of its tasks, is held across it: each gives an order. An
// asynchronous one (lockAsync and the like) blocks one task, and JavaScript
// cannot tell which task holds what: it records orders from the locks of
// the with*Async or doAsync whose fn it was called from (before fn's first
// await), and from the locks that blocking calls took and still hold (the
// worker holds those whichever task runs, as lockdep orders a thread's
// acquisitions after what the thread holds), and from nothing else. A try
// (tryLock) never waits, so it records no order to the lock it takes (it is
// held, and gives orders to later ones).
import * as P from "./protocol.js";
import { SERVER_RUNTIME, agentId, canBlock, unrefTimer } from "./runtime.js";
import { Area, makeArea } from "./debugarea.js";
import { describe } from "./errors.js";
import { agentLabel } from "./registry.js";
import { debugHooks } from "./watch.js";
import { lockNames } from "./primitive.js";
import { Mutex } from "./mutex.js";
import { RWMutex } from "./rwmutex.js";
import { Once } from "./once.js";
import { Cond } from "./cond.js";

const HOLD = P.MARK_HOLD, READ = P.MARK_READ, WAIT = P.MARK_WAIT;
const COLLECT_MS = 250;

let area = null; // the debug area this agent writes to (null: debug mode off)
let region = -1; // this agent's region in it (-1: none, past DEBUG_REGIONS)
/** @type {Int32Array} */
let registryI32 = /** @type {any} */ (null); // the registry, for the agents' ids and states
let privateArea = false; // the area is this agent's own (its registry has none)
const texts = new Map(); // text -> its ref in this agent's region
const held = []; // what this agent holds now: { key, mode, blocking (taken by a blocking call) }
const ordered = new Set(); // "from,to": the orders this agent has published
let siteNow = null; // the site of the outermost public call running (see capture)
let scope = null; // the holds of the with*Async fn running now (see the header)
const relockSites = new WeakMap(); // mutex -> the site of the Cond.waitAsync that relocks it
let warnedFull = false;

// Starts debug mode, after init joined registry i32 as agent id (made: it
// made it), if this agent asked for it (debug) or its registry is in debug
// mode. Its collector, if this agent is the area's maker.
/** @param {{ heldMs: number } | null} debug @param {Int32Array} i32 @param {number} id @param {boolean} made */
export function startDebug(debug, i32, id, made) {
  const shared = Atomics.load(i32, P.REGISTRY_NAMES) === P.REGISTRY_SLOTS + P.DEBUG_SLOTS && Atomics.load(i32, P.REGISTRY_SLOTS) === P.DEBUG_MAGIC; // (the name table after the debug area)
  if (!shared && debug === null) return;
  registryI32 = i32;
  const epochMs = new Float64Array(i32.buffer.slice(P.REGISTRY_EPOCH * 4, P.REGISTRY_EPOCH * 4 + 8))[0];
  if (shared) {
    area = new Area(i32, P.REGISTRY_SLOTS, epochMs);
    region = area.region(id - Atomics.load(i32, P.REGISTRY_BASE));
  } else {
    // An agent in debug mode whose registry is not: an area of its own.
    const own = new Int32Array(new SharedArrayBuffer(P.DEBUG_SLOTS * 4));
    makeArea(own, 0, /** @type {{ heldMs: number }} */ (debug).heldMs);
    area = new Area(own, 0, epochMs);
    region = area.region(1);
    privateArea = true;
  }
  installWrappers();
  openChannel(); // every report from now on, for an onReport to come
  debugHooks.whereText = whereText;
  debugHooks.whereOf = whereOf;
  if (made || privateArea) startCollector();
}

// ---- Sites ----

// The site of the public call that called the function that calls it:
// the user's frames of the stack there (at most three), as
// "fn (file:line:col) < file:line:col". Called directly by the wrappers
// below, so the two frames to skip are its own and the wrapper's; past
// those, frames in sabmutex's own file (withLock's, say) are left out,
// unless the user's code is in that file too (a bundle).
function capture() {
  const stack = String(new Error().stack);
  let site = sites.get(stack);
  if (site === undefined) {
    const frames = framesOf(stack).slice(2);
    const user = frames.length > 0 && frames[0].file !== GLUE_FILE ? frames.filter((f) => f.file !== GLUE_FILE) : frames;
    const shown = user.slice(0, 3).map((f) => (f.fn ? `${f.fn} (${f.file}:${f.line}:${f.col})` : `${f.file}:${f.line}:${f.col}`));
    site = shown.length === 0 ? "(unknown)" : shown.join(" < ");
    if (sites.size >= 4096) sites.clear();
    sites.set(stack, site);
  }
  return site;
}

// Sites by the stacks they were read from: a loop's acquisitions have one
// stack, read once. (Taking the stack is most of what debug mode costs.)
const sites = new Map();

// The frames of a stack, as V8 ("    at fn (url:1:2)"), SpiderMonkey and
// JavaScriptCore ("fn@url:1:2") write them; file is the URL's last part.
function framesOf(stack) {
  const frames = [];
  for (const line of String(stack || "").split("\n")) {
    const m = /^\s*(?:at\s+)?(?:(.*?)\s*[@(]\s*)?((?:[a-z][\w+.-]*:)?[^\s()]*?):(\d+):(\d+)\)?\s*$/.exec(line);
    if (!m) continue;
    const file = m[2].replace(/[?#].*$/, "").replace(/^.*\//, "") || m[2];
    const fn = (m[1] || "").replace(/^async\s+/, "").replace(/^.*[.\s]/, "");
    frames.push({ fn, file, line: m[3], col: m[4] });
  }
  return frames;
}

// The file sabmutex's glue runs from (sabmutex.js, sabmutex.mjs, or a
// bundle that holds it).
const GLUE_FILE = (framesOf(new Error().stack)[0] || { file: "" }).file;

// The ref of text s in this agent's region (0: no room left).
function ref(s) {
  let r = texts.get(s);
  if (r === undefined) {
    r = area.text(region, s);
    if (r === 0) full("text");
    else texts.set(s, r);
  }
  return r;
}

function full(what) {
  if (warnedFull) return;
  warnedFull = true;
  console.warn(`sabmutex: debug mode: this agent's ${what} in the debug area is full; from here on, some of its locks go unrecorded (see the README's "Debugging" for the limits)`);
}

// ---- Locks ----

const lockInfo = new WeakMap(); // primitive -> { key, label, labelRef }

// What identifies p across agents (internal/core/debugarea.go: its name, or its
// first slot and its buffer's length) and how messages name it.
function lockOf(p) {
  let l = lockInfo.get(p);
  if (l === undefined) {
    const type = p._what.split(" ", 2)[1]; // ("the Mutex at index 4", or a primitive by name's "the Mutex \"db\"")
    const name = lockNames.get(p);
    const b = p._i32.buffer; // (a growable buffer's length changes; its maximum does not)
    const id = name === undefined ? `${type} @${p._at}/${b.growable ? b.maxByteLength : b.byteLength}` : `${type} ${JSON.stringify(name)}`;
    const label = name === undefined ? p._what : `the ${type} ${JSON.stringify(name)}`;
    l = { key: keyOf(id), label, labelRef: 0 };
    lockInfo.set(p, l);
  }
  if (l.labelRef === 0 && region >= 0) l.labelRef = ref(l.label);
  return l;
}

// DebugKey (FNV-1a over the id's UTF-8; never 0).
function keyOf(id) {
  let h = 2166136261;
  for (const b of new TextEncoder().encode(id)) h = Math.imul(h ^ b, 16777619) >>> 0;
  return h === 0 ? 1 : h | 0;
}

// p taken in mode at site s: a mark, and the orders from `from` (the holds
// it was taken under: all of this agent's for a blocking call, the scope's
// and the blocking calls' for an asynchronous one (asyncFrom), none for a
// try); byBlocking: taken by a blocking call.
function acquired(p, mode, s, from, byBlocking = false) {
  const l = lockOf(p);
  if (region >= 0) {
    if (!area.mark(region, l.key, mode, l.labelRef, ref(s))) full("marks");
    if (from !== null) {
      for (const h of from) {
        const k = h.key + "," + l.key;
        if (h.key === l.key || ordered.has(k)) continue;
        ordered.add(k);
        if (!area.edge(region, h.key, l.key)) full(area.edgesFull(region) ? "orders" : "marks");
      }
    }
  }
  held.push({ key: l.key, mode, blocking: byBlocking });
  if (p._holderDied) deadHolderReport(p, l);
}

// The holds an asynchronous acquisition is taken under: its scope's (the
// with*Async fn it was called from), and what blocking calls took before
// the call (pinned, held.filter(h => h.blocking) then) and hold still.
function asyncFrom(scope, pinned) {
  const still = pinned.filter((h) => held.includes(h));
  return scope ? scope.concat(still) : still;
}

function released(p, mode) {
  const l = lockOf(p);
  for (let i = held.length - 1; i >= 0; i--) {
    if (held[i].key === l.key && held[i].mode === mode) {
      held.splice(i, 1);
      if (region >= 0) area.unmark(region, l.key, mode);
      return;
    }
  }
}

function waiting(p, s) {
  if (region >= 0) {
    const l = lockOf(p);
    area.mark(region, l.key, WAIT, l.labelRef, ref(s));
  }
}

function waited(p) {
  if (region >= 0) area.unmark(region, lockOf(p).key, WAIT);
}

// fn, run with the hold of p in mode as the scope of the asynchronous
// acquisitions it makes before its first await, and as the user's code
// that it is: its calls have sites of their own.
function scoped(fn, p, mode) {
  if (typeof fn !== "function") return fn; // the method's own check tells
  return function () {
    const outer = scope, site = siteNow;
    scope = (outer || []).concat({ key: lockOf(p).key, mode });
    siteNow = null;
    try {
      return fn.apply(this, arguments);
    } finally {
      scope = outer;
      siteNow = site;
    }
  };
}

// ---- The wrappers ----

// A blocking acquisition (lock, readLock, acquire): a truthy result is had.
// tryMethod, where given, is its try (tryLock for lock): taken at once, it
// never waited, so it is not marked as a wait.
function blocking(method, mode, tryMethod) {
  return function () {
    const outer = siteNow === null;
    const s = outer ? capture() : siteNow;
    if (tryMethod !== undefined && tryMethod.call(this)) {
      acquired(this, mode, s, held, true);
      return true;
    }
    if (outer) siteNow = s;
    waiting(this, s);
    try {
      const r = method.apply(this, arguments);
      if (r) acquired(this, mode, s, held, true);
      return r;
    } finally {
      waited(this);
      if (outer) siteNow = null;
    }
  };
}

// An asynchronous acquisition (lockAsync, readLockAsync): resolves truthy when had.
function asynchronous(method, mode) {
  return function () {
    const outer = siteNow === null;
    const s = outer ? relockSites.get(this) || capture() : siteNow;
    relockSites.delete(this);
    const from = scope, pinned = held.filter((h) => h.blocking);
    waiting(this, s);
    let promise;
    try {
      promise = method.apply(this, arguments);
    } catch (e) {
      waited(this);
      throw e;
    }
    return promise.then(
      (r) => {
        waited(this);
        if (r) acquired(this, mode, s, asyncFrom(from, pinned));
        return r;
      },
      (e) => {
        waited(this);
        throw e;
      },
    );
  };
}

// A try (tryLock, tryReadLock): never waits, so no order to it.
function trying(method, mode) {
  return function () {
    const r = method.apply(this, arguments);
    if (r) acquired(this, mode, siteNow === null ? capture() : siteNow, null);
    return r;
  };
}

function release(method, mode) {
  return function () {
    const r = method.apply(this, arguments);
    released(this, mode);
    return r;
  };
}

// A call made of the calls above (withLock, acquireAsync, ...): its site is
// theirs, and its fn runs scoped.
function composite(method, mode) {
  return function (fn) {
    const outer = siteNow === null;
    if (outer) siteNow = capture();
    const args = Array.from(arguments);
    args[0] = scoped(fn, this, mode);
    try {
      return method.apply(this, args);
    } finally {
      if (outer) siteNow = null;
    }
  };
}

// Once.do and doAsync: the Once is held while fn runs here.
function onceRun(method, isAsync) {
  return function (fn) {
    const outer = siteNow === null;
    const s = outer ? capture() : siteNow;
    if (outer) siteNow = s;
    const once = this, from = isAsync ? asyncFrom(scope, held.filter((h) => h.blocking)) : held;
    const inner = scoped(fn, once, HOLD);
    const args = Array.from(arguments);
    if (typeof fn === "function" && !once.isDone()) {
      // It will run fn or wait for another agent's run: either way it waits
      // for the Once while it holds what it holds (its orders to the Once).
      acquired(once, HOLD, s, from);
      released(once, HOLD);
      args[0] = isAsync
        ? async function () {
            acquired(once, HOLD, s, from);
            try {
              return await inner.apply(this, arguments);
            } finally {
              released(once, HOLD);
            }
          }
        : function () {
            acquired(once, HOLD, s, from, true);
            try {
              return inner.apply(this, arguments);
            } finally {
              released(once, HOLD);
            }
          };
    }
    try {
      return method.apply(this, args);
    } finally {
      if (outer) siteNow = null;
    }
  };
}

// Cond.wait and waitAsync: the mutex is released while it waits, and
// taken again (by the method's own lock or lockAsync) at its site.
function condWait(method, isAsync) {
  return function (mutex) {
    const outer = siteNow === null;
    const s = outer ? capture() : siteNow;
    if (outer) siteNow = s;
    // Released by the method, if this agent holds it and may wait here
    // (else the method throws).
    const isMutex = mutex instanceof Mutex && (isAsync || canBlock) && mutex.holder() === agentId;
    if (isMutex) {
      released(mutex, HOLD);
      if (isAsync) relockSites.set(mutex, s);
    }
    try {
      return method.apply(this, arguments);
    } finally {
      if (outer) siteNow = null;
    }
  };
}

let installed = false;

function installWrappers() {
  if (installed) return;
  installed = true;
  const wrap = (cls, name, make, ...rest) => {
    cls.prototype[name] = make(cls.prototype[name], ...rest);
  };
  // (Before the tries are wrapped: the blocking calls try with the method itself.)
  wrap(Mutex, "lock", blocking, HOLD, Mutex.prototype.tryLock);
  wrap(Mutex, "acquire", blocking, HOLD);
  wrap(RWMutex, "lock", blocking, HOLD, RWMutex.prototype.tryLock);
  wrap(RWMutex, "readLock", blocking, READ, RWMutex.prototype.tryReadLock);
  wrap(Mutex, "lockAsync", asynchronous, HOLD);
  wrap(RWMutex, "lockAsync", asynchronous, HOLD);
  wrap(RWMutex, "readLockAsync", asynchronous, READ);
  wrap(Mutex, "tryLock", trying, HOLD);
  wrap(RWMutex, "tryLock", trying, HOLD);
  wrap(RWMutex, "tryReadLock", trying, READ);
  wrap(Mutex, "unlock", release, HOLD);
  wrap(RWMutex, "unlock", release, HOLD);
  wrap(RWMutex, "readUnlock", release, READ);
  for (const name of ["withLock", "withLockAsync", "acquireAsync"]) wrap(Mutex, name, composite, HOLD);
  for (const name of ["withLock", "withLockAsync"]) wrap(RWMutex, name, composite, HOLD);
  for (const name of ["withReadLock", "withReadLockAsync"]) wrap(RWMutex, name, composite, READ);
  wrap(Once, "do", onceRun, false);
  wrap(Once, "doAsync", onceRun, true);
  wrap(Cond, "wait", condWait, false);
  wrap(Cond, "waitAsync", condWait, true);
}

// ---- Where: the snapshot, the deadlock message, a dead holder ----

// The n-th region's agent id and whether it has ended.
function regionAgent(n) {
  if (privateArea) return { id: n === 1 ? agentId : 0, dead: false };
  const at = P.REGISTRY_HEADER_LEN + (n - 1) * P.RECORD_SLOTS;
  return { id: Atomics.load(registryI32, at + P.RECORD_ID), dead: Atomics.load(registryI32, at + P.RECORD_STATE) === P.AGENT_DEAD };
}

// The region of agent id, or -1.
function regionOf(id) {
  if (area === null) return -1;
  if (privateArea) return id === agentId ? region : -1;
  return area.region(id - Atomics.load(registryI32, P.REGISTRY_BASE));
}

// Main thread too. What agent id holds and waits for, as its region says,
// in debug mode: { holding: [{ lock, read, at, sinceMs }], waitingAt }, or
// null when its region is not known.
export function whereOf(id) {
  const r = regionOf(id);
  if (r < 0) return null;
  const out = { holding: [], waitingAt: null };
  for (const m of area.marks(r)) {
    if (m.mode === WAIT) out.waitingAt = m.site;
    else out.holding.push({ lock: m.label, read: m.mode === READ, at: m.site, sinceMs: m.sinceMs });
  }
  return out;
}

// What the deadlock message says of where, for its members (their ids).
function whereText(ids) {
  const parts = [];
  for (const id of new Set(ids)) {
    const w = whereOf(id);
    if (w === null) continue;
    const holds = w.holding.map((h) => `${h.lock}${h.read ? " (a read lock)" : ""} taken at ${h.at}`);
    parts.push(`${agentLabel(id)} ${w.waitingAt ? `waits at ${w.waitingAt}` : "waits"}${holds.length ? `, holding ${holds.join(", ")}` : ""}`);
  }
  return parts.length === 0 ? "" : `. Where: ${parts.join("; ")}`;
}

// This agent took p (l) from a holder that ended: a warning that says where
// that holder had taken it.
function deadHolderReport(p, l) {
  let where = "";
  for (let n = 1; n <= P.DEBUG_REGIONS && where === ""; n++) {
    const r = area.region(n), a = privateArea ? { dead: false } : regionAgent(n);
    if (!a.dead || (!privateArea && n > Atomics.load(registryI32, P.REGISTRY_JOINED))) continue;
    for (const m of area.marks(r)) {
      if (m.key === l.key && m.mode !== WAIT) where = ` ${agentLabel(a.id)} ended holding it; it took it at ${m.site}.`;
    }
  }
  console.warn(`sabmutex: ${l.label} was freed from an agent that ended holding it, and this agent has it now (previousHolderDied).${where}`);
}

// ---- The collector and the reports ----

const graph = new Map(); // from key -> Map(to key -> the order, as read, with its agent)
const cursors = []; // per region: how many of its orders were read
const reportedKeys = new Set();

let collecting = false; // this agent runs the collector

function startCollector() {
  collecting = true;
  unrefTimer(setInterval(collect, COLLECT_MS)); // Node.js, Deno, Bun: not what keeps it alive
}

// The collector's look, now, where this agent runs it (for sabmutex's own
// tests, through internals(): every order written so far is reported
// without waiting out COLLECT_MS).
export function collectNow() {
  if (collecting) collect();
}

// A look at the holds when the first of them seen held passes heldMs, not
// at the next of COLLECT_MS's looks: a hold that lasts less than heldMs +
// COLLECT_MS was otherwise reported only when a look fell in the stretch
// between heldMs and its release (a hold of 400 ms against heldMs 200 was
// missed about one time in four: browsertest's TestDebugHeldTooLongEveryTime).
let lookTimer = 0, lookAtMs = Infinity;

/** @param {number} inMs */
function lookAt(inMs) {
  const at = performance.now() + inMs;
  if (at >= lookAtMs) return;
  clearTimeout(lookTimer);
  lookAtMs = at;
  lookTimer = setTimeout(() => {
    lookAtMs = Infinity;
    collect();
  }, inMs);
  unrefTimer(lookTimer);
}

// One look at every region: new orders, and holds older than heldMs.
export function collect() {
  const regions = privateArea ? 1 : Math.min(Atomics.load(registryI32, P.REGISTRY_JOINED), P.DEBUG_REGIONS);
  const heldMs = area.heldMs, nowMs = area.nowMs();
  for (let n = 1; n <= regions; n++) {
    const r = area.region(n), agent = regionAgent(n);
    if (agent.id === 0) continue; // still joining
    const fresh = area.edgesFrom(r, cursors[n] || 0);
    cursors[n] = (cursors[n] || 0) + fresh.length;
    for (const e of fresh) addOrder({ ...e, agent: agent.id });
    if (heldMs > 0 && !agent.dead) {
      for (const m of area.marks(r)) {
        const key = `held ${n} ${m.key} ${m.mode} ${m.sinceMs}`;
        if (m.mode === WAIT || reportedKeys.has(key)) continue;
        if (nowMs - m.sinceMs <= heldMs) {
          lookAt(m.sinceMs + heldMs + 1 - nowMs);
          continue;
        }
        reportedKeys.add(key);
        report(
          "held-too-long",
          `sabmutex: held too long: ${agentLabel(agent.id)} has held ${m.mode === READ ? "a read lock of " : ""}${m.label} for ${nowMs - m.sinceMs} ms, ` +
            `more than heldMs (${heldMs} ms); it took it at ${m.site}. Hold locks for short stretches: do the slow work before taking the lock or after releasing it`,
          [agent.id],
        );
      }
    }
  }
}

// A new order e: a report if it closes a cycle of orders that are not all
// between read locks.
function addOrder(e) {
  const out = graph.get(e.from) || new Map();
  if (out.has(e.to)) return;
  const path = pathOf(e.to, e.from);
  out.set(e.to, e);
  graph.set(e.from, out);
  if (path === null) return;
  const cycle = [...path, e];
  if (cycle.every((o) => o.fromMode === READ && o.toMode === READ)) return;
  const key = "order " + cycle.map((o) => o.from).sort().join(",");
  if (reportedKeys.has(key)) return;
  reportedKeys.add(key);
  const lines = cycle.map(
    (o) => `${agentLabel(o.agent)} took ${lockText(o.toLabel, o.toMode)} at ${o.toSite} while it held ${lockText(o.fromLabel, o.fromMode)}, taken at ${o.fromSite}`,
  );
  report(
    "lock-order",
    `sabmutex: lock-order inversion (a potential deadlock, though none happened in this run): ${lines.join("; ")}. ` +
      "Run at the same time, each would wait for the next for ever; take these locks in one order everywhere",
    Array.from(new Set(cycle.map((o) => o.agent))),
  );
}

function lockText(label, mode) {
  return mode === READ ? `a read lock of ${label}` : label;
}

// The orders of a path from key a to key b in the graph, or null.
function pathOf(a, b) {
  const via = new Map([[a, null]]);
  const queue = [a];
  while (queue.length > 0) {
    const k = queue.shift();
    if (k === b) {
      const path = [];
      for (let o = via.get(k); o !== null; o = via.get(o.from)) path.unshift(o);
      return path;
    }
    for (const [to, o] of graph.get(k) || []) {
      if (!via.has(to)) {
        via.set(to, o);
        queue.push(to);
      }
    }
  }
  return null;
}

const reports = []; // every report this agent has seen, for listeners to come
const seen = new Set(); // their kinds and messages
const listeners = new Set();
let channel = null;

// A report found here: a console.error, this agent's listeners, and the
// other agents' (through a BroadcastChannel named by the registry).
function report(kind, message, agents) {
  const r = Object.freeze({ kind, message, agents: Object.freeze(agents) });
  console.error(message);
  deliver(r);
  const c = openChannel();
  if (c !== null) c.postMessage({ kind, message, agents });
}

function deliver(r) {
  const k = r.kind + "\n" + r.message;
  if (seen.has(k)) return;
  seen.add(k);
  reports.push(r);
  for (const fn of listeners) callListener(fn, r);
}

function callListener(fn, r) {
  try {
    fn(r);
  } catch (e) {
    setTimeout(() => {
      throw e;
    }, 0);
  }
}

// (Not in a server runtime whose BroadcastChannel cannot be unref()'d,
// Deno's: it would keep the process alive for ever. There the maker's
// onReport gets what its collector finds, which is every agent's orders.)
function openChannel() {
  if (channel !== null || typeof BroadcastChannel !== "function" || registryI32 === null) return channel;
  if (SERVER_RUNTIME && typeof (/** @type {any} */ (BroadcastChannel.prototype).unref) !== "function") return null;
  const base = Atomics.load(registryI32, P.REGISTRY_BASE), epoch = Atomics.load(registryI32, P.REGISTRY_EPOCH);
  channel = new BroadcastChannel(`sabmutex reports ${base} ${epoch}`);
  channel.onmessage = (ev) => {
    const d = ev.data;
    if (d && typeof d.kind === "string" && typeof d.message === "string" && Array.isArray(d.agents)) {
      deliver(Object.freeze({ kind: d.kind, message: d.message, agents: Object.freeze(d.agents.slice()) }));
    }
  };
  if (typeof channel.unref === "function") channel.unref(); // Node.js: not what keeps it alive
  return channel;
}

// Main thread too, after init. Calls fn(report) for every report that any
// agent of this agent's registry finds in debug mode (those found before
// too, since this agent's init in debug mode, or since the call in an agent
// that is not); returns a function that stops it.
export function onReport(fn, registry) {
  if (typeof fn !== "function") {
    throw new TypeError(`sabmutex: onReport(fn) takes a function, called with each report ({ kind, message, agents }); got ${describe(fn)}`);
  }
  if (registryI32 === null) registryI32 = registry;
  openChannel();
  listeners.add(fn);
  for (const r of reports) queueMicrotask(() => listeners.has(fn) && callListener(fn, r));
  return () => {
    listeners.delete(fn);
  };
}
