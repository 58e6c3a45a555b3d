import * as sabmutex from "sabmutex";
import wasmURL from "sabmutex/sabmutex.wasm"; // --loader:.wasm=file: its URL
import { selftest, report } from "./selftest.js";

report(selftest(sabmutex, () => new Worker("./worker.js", { type: "module" }), { wasm: wasmURL }));
