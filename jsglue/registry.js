// The registry's browser side. The registry itself (its header and records,
// joining, an agent's states, what the watch reads) is Go's:
// internal/core/registry.go. Here is only what only a browser can do: make its
// SharedArrayBuffer, draw its base at random, hold this agent's life lock (a
// Web Lock held for the agent's life, which the browser releases when the
// agent ends) and, in the registry's maker, ask for the others' life locks,
// whose grant says that agent has ended. In a server runtime (Node.js,
// Deno, Bun) the thread that starts a worker_thread sees it end instead
// (watchThreads).
//
// An agent that does not join (init() without forWorker()'s object, as
// before the registry) makes a registry of its own: its id is as random as
// ids were then, and unique among the workers it hands forWorker() to.
import * as P from "./protocol.js";
import { SERVER_RUNTIME, arrays } from "./runtime.js";
import { handleOf } from "./slots.js";
import { describe, fill } from "./errors.js";
import { MsgRegistryExpected, MsgTooManyJoins } from "./messages.js";
import { makeDebugArea, registryBytes } from "./debugarea.js";

let wasmExports = null; // the module's exports, from joinRegistry on (runtime.js has them only once init is done)
let mem = -1; // the registry's memory handle (-1: none yet)
let shared = false; // whether another agent may join, or has joined, it: see watchSleepMs
let agent = 0; // this agent's id in it

// This agent's life lock, requested before it joins: its name, drawn at
// random, and a promise of whether it is held (false where there are no
// Web Locks). joinRegistry records the name, and says LIVE once it is held,
// so the maker's request, made only then, waits for this agent's end. A
// grant is delivered only when the agent's event loop turns, and init's
// work is one synchronous run after another: requested as init begins, the
// grant waited for the end of init (docs/decisions/start-up.md). So a
// worker requests it as soon as this script runs (earlyLifeLock, below),
// and its init finds it granted; the page (and Node.js, which has no Web
// Locks) asks when init begins.
export function requestLifeLock() {
  const lock = earlyLifeLock || newLifeLock();
  earlyLifeLock = null;
  return lock;
}

function newLifeLock() {
  if (threads !== null && !threads.isMainThread) {
    // A worker_thread: its parent's "exit" says when it ends (watchThreads),
    // which finds it by the thread id in this name (room for 8 digits).
    const name = `sabmutex life t${threads.threadId} ${randomHex(12)}`;
    if (name.length <= 48) return { name, held: Promise.resolve(true) };
  }
  const name = "sabmutex life " + randomHex(16);
  return { name, held: holdLifeLock(name) };
}

function randomHex(n) {
  return Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The Web Locks that watch agents, or null: none used in server runtimes.
// In Deno a lock held for an agent's life, or a request for another's,
// keeps the process (or the worker) from ever ending by itself
// (docs/decisions/deno-and-bun.md); Node.js 24's, shared by its threads,
// grants nothing when a thread ends until the waiting thread calls them
// again (docs/decisions/worker-ends.md). Their worker_threads are watched
// through their Worker's "exit" (watchThreads).
export const webLocks = globalThis.navigator && globalThis.navigator.locks && !SERVER_RUNTIME ? globalThis.navigator.locks : null;

// node:worker_threads where this is a server runtime that has it (Node.js
// 20.16+, Deno, Bun), else null: there, a worker's end is what the thread
// that started it sees (its Worker's "exit"), and no Web Lock is used.
/** @type {any} */
const threads = SERVER_RUNTIME ? (/** @type {any} */ (globalThis).process?.getBuiltinModule?.("node:worker_threads") ?? null) : null;

let earlyLifeLock = "WorkerGlobalScope" in globalThis && webLocks ? newLifeLock() : null;

// Joins the registry buffer (forWorker()'s), or a new one when buffer is
// undefined (with a debug area when debug, init's debug option, is not
// null), under name, with the life lock that requestLifeLock asked for; resolves with this agent's id once it is LIVE (or UNWATCHED), and
// whether it made the registry (then it watches the others: watchAgents).
// The agent takes nothing before it resolves, so an agent that ends while
// it joins holds nothing.
export async function joinRegistry(moduleExports, buffer, name, lifeLock, debug, names) {
  wasmExports = moduleExports;
  const made = buffer === undefined;
  if (made) {
    // The name table (internal/core/names.go) after the registry and its debug area.
    const at = registryBytes(debug !== null) / 4;
    mem = handleOf(growableBuffer((at + call(P.OP_NAMES_SLOTS, names, 0)) * 4));
    if (call(P.OP_NAMES_MAKE, names, at) !== P.RESULT_OK || call(P.OP_REGISTRY_MAKE, crypto.getRandomValues(new Int32Array(1))[0], 0) !== P.RESULT_OK) {
      throw new Error("sabmutex: internal error: the module could not make a registry");
    }
  } else {
    mem = handleOf(buffer);
  }
  if (made && debug !== null) makeDebugArea(arrays[mem], debug);
  const [nameBytes, lockBytes] = textIn(name, lifeLock.name);
  const id = call(P.OP_REGISTRY_JOIN, nameBytes, lockBytes);
  if (id === P.RESULT_TOO_MANY) {
    throw new RangeError(MsgTooManyJoins);
  }
  if (id <= 0) throw new Error(`sabmutex: internal error: joining the registry failed (${id})`);
  agent = id;
  shared = !made;
  call(P.OP_REGISTRY_ANNOUNCE, (await lifeLock.held) ? 1 : 0, 0);
  if (threads !== null) watchThreads();
  return { id, made };
}

// The registry's buffer, of bytes: growable, so that the lock request
// queues at its end grow in it (internal/core/lockq.go; every agent it is
// posted to sees the growth), as far as this engine lets a page reserve:
// 1 GiB, else 256 or 64 MiB (reserved, not taken: it takes what it
// holds); a fixed one where growable buffers are refused (the queues then
// say they are full: MsgLocksFull).
/** @param {number} bytes */
function growableBuffer(bytes) {
  for (const most of [2 ** 30, 2 ** 28, 2 ** 26]) {
    try {
      return new SharedArrayBuffer(bytes, { maxByteLength: Math.max(most, bytes) });
    } catch {
      // (RangeError: more than this engine reserves; TypeError: no growable buffers)
    }
  }
  return new SharedArrayBuffer(bytes);
}

// A server runtime's watch (docs/decisions/worker-ends.md): every agent
// watches the worker_threads its own thread starts from now on (a pool's
// too: the runtime tells it of each, process's "worker" event), and when
// one has ended (its Worker's "exit"), marks each agent of this registry
// in that thread DEAD, as the maker's watch does in a browser when it is
// granted a life lock. The waits that wait for them then free what they
// held (internal/core/watch.go). Neither listener keeps anything alive.
function watchThreads() {
  /** @type {any} */ (globalThis).process.on("worker", (/** @type {any} */ worker) => {
    if (typeof worker.once !== "function") return; // Bun tells of its Web Workers too (a helper of ours: no agent)
    const token = `sabmutex life t${worker.threadId} `; // threadId is -1 once the thread has ended
    worker.once("exit", () => {
      for (let n = 1, id; (id = call(P.OP_REGISTRY_LIVE_AT, n, 0)) !== P.RESULT_NONE; n++) {
        if (id > 0 && textOf(P.TEXT_LIFE_LOCK_NAME, id).startsWith(token)) call(P.OP_REGISTRY_ENDED, id, 0);
      }
    });
  });
}

// An agent of this registry has ended (agentEnded): true if it was LIVE,
// now DEAD; false if it is not, or no longer, a live agent of it.
export function markEnded(id) {
  return call(P.OP_REGISTRY_ENDED, id, 0) === P.RESULT_OK;
}

// A registry op (internal/core/ops.go's registryOps) on this agent's registry.
function call(op, a, b) {
  return wasmExports.call(op, mem, 0, a, b);
}

// Puts each of strings in the core's text (UTF-8), one after the other,
// and returns their lengths in bytes.
function textIn(...strings) {
  const bytes = strings.map((s) => new TextEncoder().encode(s));
  const total = bytes.reduce((n, b) => n + b.length, 0);
  const text = new Uint8Array(wasmExports.mem.buffer, call(P.OP_TEXT, total, 0), total);
  bytes.reduce((at, b) => (text.set(b, at), at + b.length), 0);
  return bytes.map((b) => b.length);
}

// A text of the core (which: a TEXT_ constant, such as the snapshot), of agent id.
export function textOf(which, id = 0) {
  const n = call(P.OP_TEXT_OF, which, id);
  return new TextDecoder().decode(new Uint8Array(wasmExports.mem.buffer, call(P.OP_TEXT, n, 0), n));
}

// A key of this agent's registry, the same in every agent that joined it
// and unlike other registries' (its base, drawn at random by its maker).
export function registryKey() {
  return `${Atomics.load(arrays[mem], P.REGISTRY_BASE)}`;
}

// The registry in buffer (forWorker()'s), checked; init calls it before
// loading anything, so that a wrong one is told at once.
export function registryOf(buffer) {
  const bytes = buffer instanceof SharedArrayBuffer ? buffer.byteLength : -1;
  if (bytes < registryBytes(false) || !namesAfter(new Int32Array(buffer)) || Atomics.load(new Int32Array(buffer), 0) !== P.REGISTRY_MAGIC) {
    throw new TypeError(fill(MsgRegistryExpected, { call: "init({ registry })", got: describe(buffer) }));
  }
}

// Whether registry i32's header puts its name table where a maker puts
// it: after the registry, or after its debug area.
/** @param {Int32Array} i32 */
function namesAfter(i32) {
  const at = Atomics.load(i32, P.REGISTRY_NAMES);
  return (at === registryBytes(false) / 4 || at === registryBytes(true) / 4) && i32.length > at;
}

// This agent's registry's name table: [its memory handle, its first slot].
export function namesTable() {
  return [mem, Atomics.load(arrays[mem], P.REGISTRY_NAMES)];
}

// Where this agent counts its read locks of the RWMutex at p (its registry
// record: internal/core/registry.go's readCounter): [the Int32Array, the index
// of the count in it], or a slot nobody reads.
export function readCounter(p) {
  const at = wasmExports.call(P.OP_READ_COUNTER, p._mem, p._at, 0, 0);
  return at < 0 ? [new Int32Array(1), 0] : [arrays[mem], at];
}

// "agent 7" or `agent 7 ("decoder 2")`: how messages name an agent.
export function agentLabel(id) {
  return textOf(P.TEXT_AGENT_LABEL, id);
}

// What forWorker() adds to the module: this agent's registry.
export function registryBuffer() {
  return mem < 0 ? undefined : arrays[mem].buffer;
}

// How long a wait of this agent may sleep before it asks the watch about
// the agent it waits for: P.WATCH_MS once its registry is shared, else
// Infinity. An agent alone in its registry (it made it, and has not yet
// called forWorker()) waits only for agents the registry does not know,
// whose end it cannot learn: a timed Atomics.wait would cost it throughput
// for nothing (docs/decisions/watch-ticker.md). No one can join while it
// sleeps: only its own forWorker() lets anyone in.
export function watchSleepMs() {
  return shared ? P.WATCH_MS : Infinity;
}

// forWorker() calls it before it hands the registry on: from then on this
// agent's waits are watched. Returns whether that is new.
export function shareRegistry() {
  if (shared) return false;
  shared = true;
  return true;
}

// Requests the Web Lock `name` and holds it until this agent ends;
// resolves true once held, false where there are no Web Locks (Node, a
// page that is not a secure context).
function holdLifeLock(name) {
  const locks = webLocks;
  if (!locks) return Promise.resolve(false);
  return new Promise((resolve) => {
    locks.request(name, () => {
      resolve(true);
      return new Promise(() => {}); // held for this agent's life
    }).catch(() => resolve(false));
  });
}

// The maker's watch over the others, for the life of the registry: for
// each agent that becomes LIVE, a request for its life lock, which the
// browser grants when that agent ends; the agent is then DEAD, and the
// waits that wait for it free what it held (internal/core/watch.go).
// sleep(i32, index, value) resolves once the slot may no longer hold value
// (Atomics.waitAsync or a helper worker: wait.js). The maker is normally
// the page, whose event loop never blocks; a worker that made a registry
// learns of its workers' ends only while it is not blocked in a wait of its
// own.
export async function watchAgents(sleep) {
  const asked = new Set([agent]);
  for (;;) {
    const seen = Atomics.load(arrays[mem], P.REGISTRY_ANNOUNCED);
    for (let n = 1, id; (id = call(P.OP_REGISTRY_LIVE_AT, n, 0)) !== P.RESULT_NONE; n++) {
      if (id <= 0 || asked.has(id)) continue;
      asked.add(id);
      /** @type {LockManager} */ (webLocks).request(textOf(P.TEXT_LIFE_LOCK_NAME, id), () => {
        call(P.OP_REGISTRY_ENDED, id, 0);
      });
    }
    await sleep(arrays[mem], P.REGISTRY_ANNOUNCED, seen);
  }
}
