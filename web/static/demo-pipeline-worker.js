// A producer of the pipeline scene (a module worker): makes numbered items
// and pushes them into the bounded queue, blocking in notFull.wait while it
// is full, until the page says stop.
import * as sabmutex from "/dist/sabmutex.mjs";
import * as L from "./demo-pipeline-layout.js";

onmessage = async ({ data: { init, ints: intsBuf, floats: floatsBuf, p, workUs } }) => {
  await sabmutex.init(init); // the page's forWorker(), and a name
  const c = new Int32Array(intsBuf);
  const waitedMs = new Float64Array(floatsBuf);
  const m = new sabmutex.Mutex(intsBuf, L.MUTEX);
  const notEmpty = new sabmutex.Cond(intsBuf, L.NOT_EMPTY);
  const notFull = new sabmutex.Cond(intsBuf, L.NOT_FULL);
  postMessage("started");
  for (let seq = 0; ; ) {
    L.work(workUs); // making the item
    m.lock();
    // RUNNING is read holding the mutex: the page clears it holding the
    // mutex and then notifies, so a producer cannot sleep through the stop.
    while (Atomics.load(c, L.COUNT) === L.CAP && Atomics.load(c, L.RUNNING) === 1) {
      Atomics.store(c, L.producerSlot(p, L.WAITING), 1);
      const t = performance.now();
      notFull.wait(m);
      waitedMs[p] += performance.now() - t;
      Atomics.store(c, L.producerSlot(p, L.WAITING), 0);
    }
    if (Atomics.load(c, L.RUNNING) === 0) {
      m.unlock();
      break;
    }
    const tail = c[L.TAIL];
    c[L.ITEMS + 2 * tail] = p;
    c[L.ITEMS + 2 * tail + 1] = seq++;
    c[L.TAIL] = (tail + 1) % L.CAP;
    Atomics.add(c, L.COUNT, 1);
    Atomics.store(c, L.producerSlot(p, L.PRODUCED), seq);
    notEmpty.notifyOne();
    m.unlock();
  }
  postMessage("stopped");
};
