// A producer of the pipeline scene (a module worker): makes numbered items
// and sends them on the Channel, blocking in send while it is full, until
// the page closes it.
import * as sabmutex from "/dist/sabmutex.mjs";
import * as L from "./demo-pipeline-layout.js";

onmessage = async ({ data: { init, ints: intsBuf, floats: floatsBuf, chan, p, workUs } }) => {
  await sabmutex.init(init); // the page's forWorker(), and a name
  const c = new Int32Array(intsBuf);
  const waitedMs = new Float64Array(floatsBuf);
  const ch = new sabmutex.Channel(chan, 0, L.CAP, L.ITEM_BYTES);
  const item = new Int32Array(2);
  postMessage("started");
  for (let seq = 0; ; seq++) {
    L.work(workUs); // making the item
    item[0] = p;
    item[1] = seq;
    // Counted before it is sent, so that the page never shows more consumed
    // than produced; taken back if the channel closed instead.
    Atomics.store(c, L.producerSlot(p, L.PRODUCED), seq + 1);
    try {
      if (!ch.trySend(item)) {
        Atomics.store(c, L.producerSlot(p, L.WAITING), 1);
        const t = performance.now();
        ch.send(item); // full: wait for space
        waitedMs[p] += performance.now() - t;
        Atomics.store(c, L.producerSlot(p, L.WAITING), 0);
      }
    } catch (e) {
      if (!ch.closed) throw e;
      Atomics.store(c, L.producerSlot(p, L.PRODUCED), seq); // the page closed it: stop
      Atomics.store(c, L.producerSlot(p, L.WAITING), 0);
      break;
    }
  }
  postMessage("stopped");
};
