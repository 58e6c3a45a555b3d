// Classic-script and CommonJS entry. In a browser, <script src="sabmutex.js">
// on a page or importScripts("sabmutex.js") in a worker defines the global
// sabmutex; under CommonJS (require("sabmutex") in Node.js or a bundler) the
// API is module.exports. Either way, where sabmutex.wasm is gets worked out
// inside init, so loading this never throws.
import { agentEnded, apiObject, forWorker, initAgent, wasmModule, memoryBytes, snapshotAfterInit, onReportAfterInit, internals } from "./api.js";
import { agentId } from "./runtime.js";
import { inNode } from "./load.js";
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

if (typeof module === "object" && module !== null && typeof exports === "object" && exports !== null && module.exports === exports) {
  // Node.js reads sabmutex.wasm from beside this file (jsglue/load.js); a
  // bundler's CommonJS has no such file, and the page's script URL stands in.
  const here = typeof __dirname === "string" && inNode() ? __dirname : null;
  const script = here === null ? scriptURL() : null;
  const wasmBeside = () => (here !== null ? here + "/sabmutex.wasm" : new URL("sabmutex.wasm", script));
  // Plain assignments and getters of this form, so that Node's ESM import of
  // this file (cjs-module-lexer) sees the same named exports.
  exports.init = (options) => initAgent(options, wasmBeside);
  exports.Mutex = Mutex;
  exports.RWMutex = RWMutex;
  exports.Semaphore = Semaphore;
  exports.WaitGroup = WaitGroup;
  exports.Barrier = Barrier;
  exports.Once = Once;
  exports.Cond = Cond;
  exports.Channel = Channel;
  exports.select = select;
  exports.selectAsync = selectAsync;
  exports.locks = locks;
  exports.memoryBytes = memoryBytes;
  exports.forWorker = forWorker;
  exports.agentEnded = agentEnded;
  exports.snapshot = snapshotAfterInit;
  exports.onReport = onReportAfterInit;
  Object.defineProperty(exports, "module", { enumerable: true, get: function () { return wasmModule; } });
  Object.defineProperty(exports, "agentId", { enumerable: true, get: function () { return agentId; } });
  // For sabmutex's own tests (nodetest/agree.mjs); not part of the API.
  Object.defineProperty(exports, Symbol.for("sabmutex.internals"), { value: internals });
} else {
  const script = scriptURL(); // only now: document.currentScript is null later
  const wasmBeside = () => new URL("sabmutex.wasm", script);
  globalThis.sabmutex = apiObject((options) => initAgent(options, wasmBeside), () => wasmModule, () => agentId);
}

// This script's own URL, so that sabmutex.wasm is found beside it; null if
// there is none to be had.
function scriptURL() {
  try {
    const current = typeof document !== "undefined" ? /** @type {HTMLScriptElement | null} */ (document.currentScript) : null;
    if (current && current.src) return current.src;
    // A worker's importScripts gives no currentScript; the stack names the file.
    const m = /((?:https?|file|blob):[^\s)]+?):\d+:\d+/.exec(new Error().stack || "");
    if (m) return m[1];
    return globalThis.location ? globalThis.location.href : null;
  } catch {
    return null;
  }
}
