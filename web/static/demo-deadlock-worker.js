// A worker of the deadlock scene (a module worker): takes its own mutex,
// waits until the other worker holds the other one, then takes that one
// with a blocking lock() and no timeout. One of the two is told of the
// deadlock (an Error that names the cycle); it keeps its mutex a while, so
// that the page's panel shows the other one waiting for it, then releases,
// and the other goes on.
import * as sabmutex from "/dist/sabmutex.mjs";
import * as L from "./demo-deadlock-layout.js";

onmessage = async ({ data: { init, sab, i, holdMs } }) => {
  await sabmutex.init({ ...init, name: L.NAMES[i] });
  const words = new Int32Array(sab);
  const mine = new sabmutex.Mutex(sab, L.MUTEX[i]);
  const other = new sabmutex.Mutex(sab, L.MUTEX[1 - i]);
  mine.lock();
  Atomics.add(words, L.READY, 1);
  Atomics.notify(words, L.READY);
  for (let c; (c = Atomics.load(words, L.READY)) < 2; ) Atomics.wait(words, L.READY, c, 100);
  const startMs = performance.timeOrigin + performance.now();
  let error = null;
  try {
    other.lock(); // the other worker holds it, and waits for ours
    other.unlock();
  } catch (e) {
    error = e.message;
    postMessage({ i, error, atMs: performance.timeOrigin + performance.now() - startMs });
    const until = performance.now() + holdMs; // the panel shows the other one waiting for this mutex
    while (performance.now() < until) Atomics.wait(words, L.READY, 2, until - performance.now());
  }
  mine.unlock();
  postMessage({ i, error, finished: true });
};
