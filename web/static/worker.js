// The demo: worker side (a classic worker).
"use strict";
importScripts("/dist/sabmutex.js");

onmessage = async ({ data: { sab, module, n, useLock } }) => {
  await sabmutex.init({ wasm: module }); // the page's compiled module: no fetch, no compile
  const m = new sabmutex.Mutex(sab, 0);
  const words = new Int32Array(sab);
  for (let i = 0; i < n; i++) {
    if (useLock) m.lock();
    const v = Atomics.load(words, 1);
    Atomics.store(words, 1, v + 1);
    if (useLock) m.unlock();
  }
  Atomics.sub(words, 2, 1);
  postMessage("done");
};
