// Classic-script entry: <script src="sabmutex.js"> on a page, importScripts("sabmutex.js") in a worker.
globalThis.sabmutex = createSabmutex(makeGoRuntime(), new URL("sabmutex.wasm", scriptURL()).href);

// This script's own URL, so that sabmutex.wasm is found beside it.
function scriptURL() {
  if (typeof document !== "undefined" && document.currentScript) return document.currentScript.src;
  // A worker's importScripts gives no currentScript; the stack names the file.
  const m = /((?:https?|file|blob):[^\s)]+?):\d+:\d+/.exec(new Error().stack || "");
  return m ? m[1] : globalThis.location.href;
}
