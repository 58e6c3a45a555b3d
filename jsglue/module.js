// ES module entry: import * as sabmutex from "sabmutex" (or "./sabmutex.mjs").
// The wasm's URL is computed inside init (jsglue/load.js), never on import: an
// IIFE bundle has no import.meta.url, and then only init({ wasm }) can say
// where it is. Bundlers (webpack, Vite) see this new URL(..., import.meta.url)
// and emit sabmutex.wasm as an asset.
import { agentEnded, apiObject, forWorker, initAgent, wasmModule, memoryBytes, snapshotAfterInit, onReportAfterInit } from "./api.js";
import { agentId } from "./runtime.js";
import { Mutex } from "./mutex.js";
import { RWMutex } from "./rwmutex.js";
import { Semaphore } from "./semaphore.js";
import { WaitGroup } from "./waitgroup.js";
import { Barrier } from "./barrier.js";
import { Once } from "./once.js";
import { Cond } from "./cond.js";
import { Channel } from "./channel.js";
import { select, selectAsync } from "./select.js";
import { locks } from "./locks.js";

// module and agentId: live bindings, set once init has resolved.
let moduleAfterInit = null;
let agentIdAfterInit = 0;

// main thread too. See the README for options.
async function init(options) {
  await initAgent(options, () => new URL("sabmutex.wasm", import.meta.url));
  moduleAfterInit = wasmModule;
  agentIdAfterInit = agentId;
}

export { init, forWorker, agentEnded, Mutex, RWMutex, Semaphore, WaitGroup, Barrier, Once, Cond, Channel, select, selectAsync, locks, memoryBytes };
export { moduleAfterInit as module, agentIdAfterInit as agentId, snapshotAfterInit as snapshot, onReportAfterInit as onReport };

// The same API as one object, for `import sabmutex from "sabmutex"`.
export default Object.freeze(apiObject(init, () => moduleAfterInit, () => agentIdAfterInit));
