// CommonJS consumers (node16/nodenext without "type": "module"): require()
// gives the API (sabmutex.js), so both import forms work.
import sabmutex = require("sabmutex");
import sabmutexDefault from "sabmutex";
import * as sub from "sabmutex/sabmutex.mjs";

export async function f(sab: SharedArrayBuffer): Promise<boolean> {
  await sabmutex.init({ wasm: "node_modules/sabmutex/sabmutex.wasm" });
  await sabmutexDefault.init();
  await sub.init();
  return new sabmutex.Mutex(sab).tryLock();
}
