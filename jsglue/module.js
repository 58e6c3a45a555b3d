// ES module entry: import * as sabmutex from "sabmutex" (or "./sabmutex.mjs").
// The wasm's URL is computed inside init (jsglue/load.js), never on import: an
// IIFE bundle has no import.meta.url, and then only init({ wasm }) can say
// where it is. Bundlers (webpack, Vite) see this new URL(..., import.meta.url)
// and emit sabmutex.wasm as an asset.
const api = createSabmutex(makeGoRuntime(), () => new URL("sabmutex.wasm", import.meta.url));

export const { Mutex, RWMutex, Semaphore, WaitGroup, Barrier, Once, Cond } = api;

// The compiled WebAssembly.Module, after init (a live binding).
export let module = null;

// This agent's id after init (a live binding): see the README's "Dead holders".
export let agentId = 0;

// Bytes of linear memory that this agent's Go instance holds (0 before init).
export function memoryBytes() {
  return api.memoryBytes();
}

// main thread too. See the README for options.
export async function init(options) {
  await api.init(options);
  module = api.module;
  agentId = api.agentId;
}

// The same API as one object, for `import sabmutex from "sabmutex"` (module
// and agentId read the live bindings).
export default Object.freeze({
  init,
  Mutex,
  RWMutex,
  Semaphore,
  WaitGroup,
  Barrier,
  Once,
  Cond,
  memoryBytes,
  get module() {
    return module;
  },
  get agentId() {
    return agentId;
  },
});
