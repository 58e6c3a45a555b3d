// A worker of the deadlock scene (a module worker): takes its own mutex,
// waits until the other worker holds the other one, then takes that one
// with a blocking lock() and no timeout. One of the two is told of the
// deadlock (an Error that names the cycle, and the mutexes by their
// names); it keeps its mutex a while, so that the page's panel shows the
// other one waiting for it, then releases, and the other goes on. Every
// primitive is one by name (Mutex.named): nothing is passed but the
// registry (forWorker()).
import * as sabmutex from "/dist/sabmutex.mjs";
import * as L from "./demo-deadlock-layout.js";

onmessage = async ({ data: { init, i, holdMs } }) => {
  await sabmutex.init({ ...init, name: L.NAMES[i] });
  const mine = sabmutex.Mutex.named(L.FORKS[i]);
  const other = sabmutex.Mutex.named(L.FORKS[1 - i]);
  mine.lock();
  sabmutex.Barrier.named(L.READY, 2).wait(); // both hold their own
  const startMs = performance.timeOrigin + performance.now();
  let error = null;
  try {
    other.lock(); // the other worker holds it, and waits for ours
    other.unlock();
  } catch (e) {
    error = e.message;
    postMessage({ i, error, atMs: performance.timeOrigin + performance.now() - startMs });
    await new Promise((r) => setTimeout(r, holdMs)); // the panel shows the other one waiting for this mutex
  }
  mine.unlock();
  postMessage({ i, error, finished: true });
};
