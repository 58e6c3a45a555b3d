// The same app bundled as a classic script (--format=iife): there is no
// import.meta.url, so importing must not throw, and init() without a URL
// must say to pass one.
import * as sabmutex from "sabmutex";
import wasmURL from "sabmutex/sabmutex.wasm";
import { selftest, report } from "./selftest.js";

report(
  (async () => {
    let said = "init() resolved";
    try {
      await sabmutex.init();
    } catch (e) {
      said = e.message;
    }
    if (!said.startsWith("sabmutex: cannot tell where sabmutex.wasm is")) throw new Error(`init() without a URL in an IIFE bundle: ${said}`);
    return selftest(sabmutex, () => new Worker("./worker.js", { type: "module" }), { wasm: wasmURL });
  })(),
);
