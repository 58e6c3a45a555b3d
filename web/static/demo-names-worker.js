// A worker of the names scene (a module worker): joins the page's registry
// and takes the lock named "tally" n times with the blocking
// locks.requestSync, adding 1 to the tally while it holds it.
import * as sabmutex from "/dist/sabmutex.mjs";

onmessage = async ({ data: { init, tally, n } }) => {
  try {
    await sabmutex.init(init);
    for (let i = 0; i < n; i++) {
      sabmutex.locks.requestSync("tally", () => {
        tally[0] = tally[0] + 1;
      });
    }
    postMessage({ done: true });
  } catch (e) {
    postMessage({ error: `${e.name}: ${e.message}` });
  }
};
