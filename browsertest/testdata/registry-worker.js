// registry.html's worker: inits with what it is given (and its name), starts
// a nested worker with its own forWorker() if asked, holds the mutex at
// slot 0 if asked, and answers with its id (or the error init threw).
import * as sabmutex from "/dist/sabmutex.mjs";

onmessage = async ({ data }) => {
  try {
    await sabmutex.init(data.name === undefined ? data.init : { ...data.init, name: data.name });
  } catch (e) {
    postMessage({ error: `${e.name}: ${e.message}` });
    return;
  }
  const out = { id: sabmutex.agentId, nested: null };
  if (data.nested) {
    out.nested = await new Promise((resolve) => {
      const w = new Worker("registry-worker.js", { type: "module" });
      w.onmessage = (e) => resolve(e.data);
      w.postMessage({ init: sabmutex.forWorker(), name: "nested", sab: data.sab });
    });
  }
  if (data.hold) new sabmutex.Mutex(data.sab, 0).lock();
  postMessage(out);
};
