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
    // requestSync data.n times, adding 1 to slot 0 of data.sab as a separate load and store, some work apart.
    const i32 = new Int32Array(data.sab);
    let x = 0;
    for (let k = 0; k < data.n; k++) {
      sabmutex.locks.requestSync(data.sync, () => {
        const v = Atomics.load(i32, 0);
        for (let s = 0; s < 20; s++) x += Math.sqrt(s + k); // (a wider window between the load and the store)
        Atomics.store(i32, 0, v + 1);
      });
    }
    if (x < 0) console.log(x);
    postMessage("done");
  }
};
