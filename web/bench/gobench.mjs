// make bench's Go rows (issue: Go programs in workers use the same locks):
// sabmutex's Mutex from Go (sabsync, examples/gocounter run by Go's own
// wasm_exec.js) beside the JavaScript API and beside Go's own sync.Mutex,
// in Node.js worker_threads. Each worker runs n increments of a counter in
// the SharedArrayBuffer (a read, a little work, a write) under the mutex and
// times its own loop; the implementations alternate, 5 rounds, medians.
//
//   uncontended: one worker alone, ns per lock+increment+unlock
//   contended:   two workers of one implementation, increments per µs
//
//	node web/bench/gobench.mjs [-dist dist]
import { Worker } from "node:worker_threads";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const dist = resolve(args.includes("-dist") ? args[args.indexOf("-dist") + 1] : join(root, "dist"));
const ROUNDS = 5;

// The Go worker is examples/gocounter/node-worker.cjs; the JavaScript one
// does the same (CommonJS, eval): it counts itself ready in slot 4, waits
// for slot 3, runs its loop and posts { ms }.
const goWorker = join(root, "examples", "gocounter", "node-worker.cjs");
const jsWorker = `
const { parentPort, workerData } = require("node:worker_threads");
import(workerData.mjs).then(async (sabmutex) => {
  await sabmutex.init();
  const { sab, n } = workerData;
  const c = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  Atomics.add(c, 4, 1);
  Atomics.wait(c, 3, 0, 30000);
  const start = performance.now();
  let work = 0;
  for (let i = 0; i < n; i++) {
    m.lock();
    const v = c[2];
    for (let k = 0; k < 30; k++) work += k;
    c[2] = v + 1;
    m.unlock();
  }
  parentPort.postMessage({ ms: performance.now() - start, work });
});
`;

// Runs k workers of impl, n increments each; returns the slowest worker's ms.
async function run(impl, k, n) {
  const sab = new SharedArrayBuffer(32);
  const c = new Int32Array(sab);
  const data = { sab, n, lock: true, syncMutex: impl === "go-sync", wasm: join(dist, "examples", "gocounter.wasm"), wasmExec: join(dist, "examples", "wasm_exec.js"), mjs: pathToFileURL(join(dist, "sabmutex.mjs")).href };
  const ws = Array.from({ length: k }, () => (impl === "js" ? new Worker(jsWorker, { eval: true, workerData: data }) : new Worker(goWorker, { workerData: data })));
  const done = ws.map((w) => new Promise((res, rej) => { w.on("message", (m) => m !== "ready" && res(m)); w.once("error", rej); }));
  for (const until = Date.now() + 30000; Atomics.load(c, 4) < k; ) {
    if (Date.now() > until) throw new Error(`${impl}: workers not ready in 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  Atomics.store(c, 3, 1);
  Atomics.notify(c, 3);
  const ms = Math.max(...(await Promise.all(done)).map((r) => r.ms));
  await Promise.all(ws.map((w) => w.terminate()));
  if (c[2] !== k * n) throw new Error(`${impl}: counter ${c[2]} after ${k * n} locked increments`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const rows = [];
async function compare(title, unit, impls, k, n, figure) {
  const got = Object.fromEntries(impls.map((i) => [i, []]));
  for (let r = 0; r < ROUNDS; r++) for (const impl of impls) got[impl].push(figure(await run(impl, k, n)));
  rows.push([title, unit, ...impls.map((i) => `${i} ${median(got[i]).toFixed(unit === "ns" ? 0 : 3)}`), `go/js ${(median(got.go) / median(got.js)).toFixed(2)}×`]);
}

const N1 = 20000, N2 = 5000;
await compare("lock+increment+unlock, uncontended, 1 worker", "ns", ["go", "js", "go-sync"], 1, N1, (ms) => (ms * 1e6) / N1);
await compare("increments under contention, 2 workers", "per µs", ["go", "js"], 2, N2, (ms) => (2 * N2) / (ms * 1e3));
console.log(`Go (sabsync) beside the JavaScript API and Go's sync.Mutex, Node ${process.version}, medians of ${ROUNDS} alternated rounds`);
for (const r of rows) console.log(r.join("  |  "));
