// ES module entry: import * as sabmutex from "./sabmutex.mjs".
const api = createSabmutex(makeGoRuntime(), new URL("sabmutex.wasm", import.meta.url).href);

export const Mutex = api.Mutex;

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
