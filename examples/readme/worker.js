// The worker of the README's first example (index.html).
// #region worker
import * as sabmutex from "./sabmutex.mjs";

onmessage = async ({ data: { sab, init } }) => {
  await sabmutex.init({ ...init, name: "counter" }); // the page's module: no fetch, no compile
  const m = new sabmutex.Mutex(sab, 0);
  const counter = new Int32Array(sab, 8, 1);
  for (let i = 0; i < 1_000_000; i++) {
    m.lock();                                       // blocks this worker until it holds the lock
    try { counter[0]++; } finally { m.unlock(); }
  }
  if (m.lock(10)) m.unlock();                       // gives up after 10 ms
  if (m.tryLock()) m.unlock();                      // never waits
  postMessage("done");
};
// #endregion
