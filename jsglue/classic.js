// Classic-script and CommonJS entry. In a browser, <script src="sabmutex.js">
// on a page or importScripts("sabmutex.js") in a worker defines the global
// sabmutex; under CommonJS (require("sabmutex") in Node.js or a bundler) the
// API is module.exports. Either way, where sabmutex.wasm is gets worked out
// inside init, so loading this never throws.
if (typeof module === "object" && module !== null && typeof exports === "object" && exports !== null && module.exports === exports) {
  // Node.js reads sabmutex.wasm from beside this file (jsglue/load.js); a
  // bundler's CommonJS has no such file, and the page's script URL stands in.
  const here = typeof __dirname === "string" && inNode() ? __dirname : null;
  const script = here === null ? scriptURL() : null;
  const api = createSabmutex(makeGoRuntime(), () => (here !== null ? here + "/sabmutex.wasm" : new URL("sabmutex.wasm", script)));
  // Plain assignments and getters of this form, so that Node's ESM import of
  // this file (cjs-module-lexer) sees the same named exports.
  exports.init = api.init;
  exports.Mutex = api.Mutex;
  exports.RWMutex = api.RWMutex;
  exports.Semaphore = api.Semaphore;
  exports.WaitGroup = api.WaitGroup;
  exports.Barrier = api.Barrier;
  exports.Once = api.Once;
  exports.Cond = api.Cond;
  exports.memoryBytes = api.memoryBytes;
  Object.defineProperty(exports, "module", { enumerable: true, get: function () { return api.module; } });
  Object.defineProperty(exports, "agentId", { enumerable: true, get: function () { return api.agentId; } });
} else {
  const script = scriptURL(); // only now: document.currentScript is null later
  globalThis.sabmutex = createSabmutex(makeGoRuntime(), () => new URL("sabmutex.wasm", script));
}

// This script's own URL, so that sabmutex.wasm is found beside it; null if
// there is none to be had.
function scriptURL() {
  try {
    if (typeof document !== "undefined" && document.currentScript && document.currentScript.src) return document.currentScript.src;
    // A worker's importScripts gives no currentScript; the stack names the file.
    const m = /((?:https?|file|blob):[^\s)]+?):\d+:\d+/.exec(new Error().stack || "");
    if (m) return m[1];
    return globalThis.location ? globalThis.location.href : null;
  } catch {
    return null;
  }
}
