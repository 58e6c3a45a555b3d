// Worker side of the browser tests: runs the functions the page sends, with
// the sabmutex global that worker.js or worker.mjs set up.
"use strict";

const report = (what) => postMessage({ consoleError: String(what) });
self.addEventListener("error", (e) => report(`uncaught ${e.message}`));
self.addEventListener("unhandledrejection", (e) => report(`unhandled rejection ${e.reason}`));

self.onmessage = async ({ data: { id, src, data } }) => {
  try {
    const fn = (0, eval)(`(${src})`);
    postMessage({ id, ok: await fn(self.sabmutex, data) });
  } catch (e) {
    postMessage({ id, err: `${e.name}: ${e.message}` });
  }
};
