// examples/gocounter in a Node.js worker_thread, run by Go's own
// wasm_exec.js as its wasm_exec_node.js runs programs (nodetest/run.mjs and
// web/bench/gobench.mjs start it). workerData: { sab, n, lock, syncMutex,
// wasm, wasmExec, registry, name }: the program's memory and settings (registry: forWorker()'s object, to join), the paths of
// gocounter.wasm and of wasm_exec.js. The counter is slot 2, the mutex
// slots 0-1. Once compiled it counts itself ready in slot 4, posts "ready"
// and waits for slot 3 to become 1, so that all agents start at once; when
// done it posts { id, worked, ms } (its agent id, the loop's milliseconds).
const { parentPort, workerData } = require("node:worker_threads");
globalThis.require = require;
globalThis.fs = require("node:fs");
globalThis.path = require("node:path");
globalThis.crypto ??= require("node:crypto");
require(workerData.wasmExec);

const { sab, n, lock, syncMutex, registry, name } = workerData;
const c = new Int32Array(sab);
globalThis.gocounter = { memory: sab, mutex: 0, counter: 2, n, lock, syncMutex, registry, name, done: (id, worked, ms) => parentPort.postMessage({ id, worked, ms }) };
const go = new Go();
WebAssembly.instantiate(fs.readFileSync(workerData.wasm), go.importObject).then((r) => {
  Atomics.add(c, 4, 1);
  parentPort.postMessage("ready");
  Atomics.wait(c, 3, 0, 30000);
  return go.run(r.instance);
});
