// The module worker of the bundler apps: lock() blocks here.
import * as sabmutex from "sabmutex";

onmessage = async ({ data: { sab, module, N } }) => {
  try {
    await sabmutex.init({ wasm: module }); // no fetch, no compile
    const c = new Int32Array(sab);
    const m = new sabmutex.Mutex(sab, 0);
    for (let i = 0; i < N; i++) {
      if (!m.lock(10000)) throw new Error("lock timed out");
      c[2] = c[2] + 1;
      m.unlock();
    }
    postMessage("ok");
  } catch (e) {
    postMessage(String((e && e.message) || e));
  }
};
