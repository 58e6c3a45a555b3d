// webpack 5 with require("sabmutex"): the "require" condition gives the
// CommonJS build (sabmutex.js), the same API. It looks for sabmutex.wasm
// beside the page's script, so the build copies the wasm there (the README's
// copy step) and the app names it.
import { selftest, report } from "./selftest.js";

const sabmutex = require("sabmutex");

report(selftest(sabmutex, () => new Worker(new URL("./worker.js", import.meta.url), { type: "module" }), { wasm: "./sabmutex.wasm" }));
