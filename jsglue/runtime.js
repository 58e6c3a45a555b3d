// What init sets up for this agent, read by every primitive. No object of a
// primitive can be made before init has resolved, so their methods rely on it.

export let core = null; // the Go module's exports (wasm/abi/exports.go)
export let canBlock = false; // whether Atomics.wait may run here (false on a page's main thread)
export let agentId = 0; // this agent's id: what holder slots record
/** @type {Int32Array[]} */
export const arrays = []; // memory handle -> Int32Array over a whole SharedArrayBuffer
export const handles = new Map(); // SharedArrayBuffer -> memory handle

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
