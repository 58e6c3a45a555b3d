// A demo worker (a module worker): takes part until the page says stop.
import * as sabmutex from "/dist/sabmutex.mjs";
import { JsMutex } from "/bench/jsmutex.js";
import { SAB_MUTEX, JS_MUTEX, RUNNING, criticalSection } from "./demo-layout.js";

onmessage = async ({ data: { init, ints: intsBuf, floats: floatsBuf, agent, mode, work } }) => {
  await sabmutex.init(init); // the page's forWorker(), and a name
  const ints = new Int32Array(intsBuf);
  const floats = new Float64Array(floatsBuf);
  const m = mode === "sabmutex" ? new sabmutex.Mutex(intsBuf, SAB_MUTEX) : mode === "js" ? new JsMutex(intsBuf, JS_MUTEX) : null;
  postMessage("started");
  while (Atomics.load(ints, RUNNING) === 1) {
    const t = performance.now();
    if (m) m.lock();
    criticalSection(ints, floats, agent, performance.now() - t, work);
    if (m) m.unlock();
  }
  postMessage("stopped");
};
