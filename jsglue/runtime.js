// What init sets up for this agent, read by every primitive. No object of a
// primitive can be made before init has resolved, so their methods rely on it.

export let core = null; // the Go module's exports (internal/abi/exports.go)
export let canBlock = false; // whether Atomics.wait may run here (false on a page's main thread)
export let agentId = 0; // this agent's id: what holder slots record
/** @type {Int32Array[]} */
export const arrays = []; // memory handle -> Int32Array over a whole SharedArrayBuffer
export const handles = new Map(); // SharedArrayBuffer -> memory handle

// Whether this is a server runtime (Node.js, Deno, Bun), where a process
// or a worker ends once nothing keeps its event loop alive, as a browser's
// workers do not: what sabmutex starts there must not keep it alive
// (docs/decisions/deno-and-bun.md).
export const SERVER_RUNTIME =
  typeof (/** @type {any} */ (globalThis).Deno) === "object" || typeof globalThis.process?.versions?.node === "string";

// Lets a timer (setTimeout's or setInterval's) not keep a server runtime's
// process or worker alive: Node.js and Bun's unref(), Deno.unrefTimer.
export function unrefTimer(t) {
  if (typeof t === "object" && t !== null && typeof t.unref === "function") t.unref();
  else if (typeof (/** @type {any} */ (globalThis).Deno)?.unrefTimer === "function") /** @type {any} */ (globalThis).Deno.unrefTimer(t);
}

// Called once, by init, when the module runs.
export function started(exports, blocking, id) {
  core = exports;
  canBlock = blocking;
  agentId = id;
}

// A sabmutex error for what needs init first.
export function mustBeStarted(what) {
  if (core === null) throw new Error(`sabmutex: call \`await sabmutex.init()\` before ${what}`);
}
