import * as sabmutex from "sabmutex";
import { selftest, report } from "./selftest.js";

// Vite bundles the worker and emits sabmutex.wasm (new URL(..., import.meta.url)).
report(selftest(sabmutex, () => new Worker(new URL("./worker.js", import.meta.url), { type: "module" })));
