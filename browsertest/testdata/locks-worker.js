// locks.html's worker: with navigator.locks (impl "native") or
// sabmutex.locks after joining the page's registry (impl "sab"), holds a
// lock by name until it ends, or runs requestSync.
import * as sabmutex from "/dist/sabmutex.mjs";

let locks = null;
onmessage = async ({ data }) => {
  if (data.impl !== undefined) {
    if (data.impl === "sab") await sabmutex.init(data.init);
    locks = data.impl === "sab" ? sabmutex.locks : navigator.locks;
    postMessage("ready");
  } else if (data.hold !== undefined) {
    locks.request(data.hold, () => (postMessage("held"), new Promise(() => {})));
  } else if (data.sync !== undefined) {
    // requestSync data.n times, adding 1 to slot 0 of data.sab as a separate load and store.
    const i32 = new Int32Array(data.sab);
    for (let k = 0; k < data.n; k++) {
      sabmutex.locks.requestSync(data.sync, () => Atomics.store(i32, 0, Atomics.load(i32, 0) + 1));
    }
    postMessage("done");
  }
};
