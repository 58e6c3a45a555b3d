// `make nodetest`: the built package (dist/) installed into a scratch project
// and used from Node.js (20+) as a user would, each program a child process
// bounded by a timeout:
//
//   - esm: import "sabmutex", init() reading sabmutex.wasm from disk; the
//     main thread (lockAsync, and blocking lock(), which Node allows there)
//     and 2 worker_threads (one given the module, one calling init() with a
//     file: URL) add to one counter: the count must be exact. Its twin
//     without the lock must lose updates, or the test could not fail.
//   - cjs: require("sabmutex") with init({ wasm: path }), and the default
//     export from ESM.
//   - go: Go programs (examples/gocounter, over sabsync) in 2
//     worker_threads, each run by Go's own wasm_exec.js, a JavaScript worker
//     (blocking lock) and the main thread (lockAsync) on one Mutex: the count
//     must be exact; without the lock, updates are lost.
//   - starve: a Semaphore's waiter (the main thread's acquireAsync, a
//     worker's acquire) behind a worker that releases and takes again is
//     served within 10 of its cycles.
//   - memory: a growable SharedArrayBuffer, before and after grow(), and a
//     shared WebAssembly.Memory's buffer, before and after memory.grow(),
//     with a worker_thread on its Mutexes and a Channel; a memory too small
//     for a primitive says what it needs (issue 45, points 1 and 2).
//   - ends: a worker_thread terminated while it holds a Mutex by name and
//     a lock of locks: the main thread gets both, told, within the watch's
//     bound (the thread that started it saw it exit); one whose starter is
//     no agent, freed only by agentEnded (docs/decisions/worker-ends.md).
//   - errors: a missing file, an HTML page served in place of the wasm
//     (also under Vite's node_modules/.vite/deps/), bytes that are not wasm,
//     a script of another build than the wasm (its protocol text changed);
//     then compileStreaming from a server that sends application/wasm.
//
//	node nodetest/run.mjs [-dist dist]         (also Node.js 22 and 24: make nodetest-node22, nodetest-node24)
//	deno run -A nodetest/run.mjs [-dist dist]   (make nodetest-deno)
//	bun nodetest/run.mjs [-dist dist]           (make nodetest-bun)
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const dist = resolve(args.includes("-dist") ? args[args.indexOf("-dist") + 1] : join(root, "dist"));
const TIMEOUT_MS = 60_000; // per program
// The whole run, whatever the runtime does with a child that hangs.
const RUN_TIMEOUT_MS = 600_000;
const watchdog = setTimeout(() => {
  console.log(`\nnodetest: the run took over ${RUN_TIMEOUT_MS / 1000} s; stopped`);
  process.exit(1);
}, RUN_TIMEOUT_MS);

const goDir = join(dist, "examples"); // gocounter.wasm and Go's wasm_exec.js (make nodetest)
if (!existsSync(join(dist, "sabmutex.wasm")) || !existsSync(join(goDir, "gocounter.wasm")) || !existsSync(join(goDir, "goagent.wasm"))) {
  console.error(`nodetest: ${dist}/sabmutex.wasm is missing: run \`make dist\` first (make nodetest does)`);
  process.exit(2);
}

const app = mkdtempSync(join(tmpdir(), "sabmutex-node-"));
mkdirSync(join(app, "node_modules"));
// The files of dist/ (not dist/bundlers/), as npm installs them.
for (const f of readdirSync(dist, { withFileTypes: true })) if (f.isFile()) cpSync(join(dist, f.name), join(app, "node_modules", "sabmutex", f.name));
writeFileSync(join(app, "package.json"), JSON.stringify({ name: "node-app", private: true }));

// The counter test. Slot 0-1: the mutex; 2: the counter; 3: the start flag;
// 4: how many agents have started. An increment is a read, a little work, a
// write: without the lock, agents that run at once overwrite each other's
// increments. Each agent waits until all three have started (startTogether),
// so that they do run at once: a worker woken late could otherwise run its
// increments alone, and the lock-free twin lose none.
writeFileSync(
  join(app, "start-together.mjs"),
  `
export function startTogether(c) {
  Atomics.add(c, 4, 1);
  const until = Date.now() + 10000;
  while (Atomics.load(c, 4) < 3) if (Date.now() > until) throw new Error("the other agents did not start");
}
`,
);
writeFileSync(
  join(app, "counter.mjs"),
  `
import * as sabmutex from "sabmutex";
import { Worker } from "node:worker_threads";
import { startTogether } from "./start-together.mjs";
const useLock = process.argv[2] === "lock";
// Increments per agent: without the lock, enough to outlast a time slice
// (a 2-core VM sometimes runs the agents one after another).
const N = useLock ? 20000 : 400000;
await sabmutex.init(); // sabmutex.wasm from beside sabmutex.mjs, read from disk
const sab = new SharedArrayBuffer(32);
const c = new Int32Array(sab);
const m = new sabmutex.Mutex(sab, 0);
const wasmURL = new URL(import.meta.resolve("sabmutex/sabmutex.wasm"));
const ready = [];
const workers = [{ module: sabmutex.module }, { url: wasmURL.href }].map((how) => {
  const w = new Worker(new URL("./counter-worker.mjs", import.meta.url), { workerData: { sab, N, useLock, ...how } });
  ready.push(new Promise((res, rej) => { w.once("message", res); w.once("error", rej); }));
  return w;
});
const ids = await Promise.all(ready);
const done = workers.map((w) => new Promise((res, rej) => { w.on("message", res); w.once("error", rej); }));
Atomics.store(c, 3, 1);
Atomics.notify(c, 3);
startTogether(c);
let work = 0;
for (let i = 0; i < N; i++) {
  if (useLock) {
    if (i % 2 === 0) {
      if (!(await m.lockAsync(10000))) throw new Error("lockAsync timed out");
    } else if (!m.lock(10000)) throw new Error("lock timed out");
  } else if (i % 64 === 0) await null; // the same turns of the event loop as lockAsync takes
  const v = c[2];
  for (let k = 0; k < 30; k++) work += k;
  c[2] = v + 1;
  if (useLock) m.unlock();
}
await Promise.all(done);
console.log(JSON.stringify({ count: c[2], expected: 3 * N, agents: [sabmutex.agentId, ...ids], held: m.isLocked(), work: work > 0 }));
`,
);
writeFileSync(
  join(app, "counter-worker.mjs"),
  `
import * as sabmutex from "sabmutex";
import { parentPort, workerData } from "node:worker_threads";
import { startTogether } from "./start-together.mjs";
const { sab, N, useLock, module, url } = workerData;
// One worker reuses the main thread's module; the other reads a file: URL.
await sabmutex.init({ wasm: module ?? new URL(url) });
const c = new Int32Array(sab);
const m = new sabmutex.Mutex(sab, 0);
parentPort.postMessage(sabmutex.agentId);
Atomics.wait(c, 3, 0, 10000);
startTogether(c);
let work = 0;
for (let i = 0; i < N; i++) {
  if (useLock && !m.lock(10000)) throw new Error("worker lock timed out");
  const v = c[2];
  for (let k = 0; k < 30; k++) work += k;
  c[2] = v + 1;
  if (useLock) m.unlock();
}
parentPort.postMessage(work > 0);
`,
);

// Go workers: examples/gocounter/node-worker.cjs, given the paths as argv.
writeFileSync(
  join(app, "go-counter.mjs"),
  `
import * as sabmutex from "sabmutex";
import { Worker } from "node:worker_threads";
const useLock = process.argv[2] === "lock";
const N = useLock ? 3000 : 100000;
await sabmutex.init();
const sab = new SharedArrayBuffer(32);
const c = new Int32Array(sab);
const m = new sabmutex.Mutex(sab, 0);
const started = (w) => new Promise((res, rej) => { w.once("message", res); w.once("error", rej); });
const finished = (w) => new Promise((res, rej) => { w.on("message", (v) => v !== "ready" && res(v)); w.once("error", rej); w.once("exit", (code) => code && rej(new Error("a worker exited with " + code))); });
const go = [0, 1].map((i) => new Worker(process.argv[5], { workerData: { sab, n: N, lock: useLock, wasm: process.argv[3], wasmExec: process.argv[4], registry: sabmutex.forWorker(), name: "go " + i } }));
const js = new Worker(new URL("./counter-worker.mjs", import.meta.url), { workerData: { sab, N, useLock, module: sabmutex.module } });
await Promise.all([...go, js].map(started));
const done = [...go, js].map(finished);
// The Go workers have counted themselves ready in slot 4; counter-worker.mjs's
// startTogether waits there for 3 agents, with itself and this thread.
Atomics.store(c, 3, 1);
Atomics.notify(c, 3);
Atomics.add(c, 4, 1);
for (let i = 0; i < N; i++) {
  if (useLock && !(await m.lockAsync(10000))) throw new Error("lockAsync timed out");
  else if (!useLock && i % 64 === 0) await null;
  const v = c[2];
  for (let k = 0; k < 30; k++);
  c[2] = v + 1;
  if (useLock) m.unlock();
}
const results = await Promise.all(done);
const ids = [sabmutex.agentId, ...results.slice(0, 2).map((r) => r.id)];
// The Go programs joined this registry (unwatched: Node.js has no Web Locks):
// the snapshot names them, with the ids they report.
const named = sabmutex.snapshot().agents.filter((a) => a.name.startsWith("go ")).map((a) => [a.name, a.agentId]).sort();
console.log(JSON.stringify({ count: c[2], expected: 4 * N, ids, held: m.isLocked(), named }));
`,
);

writeFileSync(
  join(app, "cjs.cjs"),
  `
const sabmutex = require("sabmutex");
const path = require("node:path");
(async () => {
  const keys = Object.keys(sabmutex).sort().join(",");
  await sabmutex.init({ wasm: path.join(__dirname, "node_modules", "sabmutex", "sabmutex.wasm") });
  const m = new sabmutex.Mutex(new SharedArrayBuffer(8));
  const ok = m.tryLock() && !m.tryLock() && m.holder() === sabmutex.agentId;
  m.unlock();
  const esm = (await import("sabmutex")).default;
  await esm.init();
  const m2 = new esm.Mutex(new SharedArrayBuffer(8));
  console.log(JSON.stringify({ keys, ok, module: sabmutex.module instanceof WebAssembly.Module, esmDefault: m2.tryLock() && esm.agentId > 0 }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
);

// A script of another build: sabmutex.mjs built with one constant otherwise.
const mjs = readFileSync(join(app, "node_modules", "sabmutex", "sabmutex.mjs"), "utf8");
const otherBuild = mjs.replace(/(const BUILT_PROTOCOL = ")2\\n/, "$13\\n"); // MUTEX_SLOTS, the first value, 2 -> 3
if (otherBuild === mjs) throw new Error("nodetest: sabmutex.mjs has no BUILT_PROTOCOL beginning with MUTEX_SLOTS's 2 to change");
writeFileSync(join(app, "other-build.mjs"), otherBuild);

writeFileSync(
  join(app, "errors.mjs"),
  `
import * as sabmutex from "sabmutex";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
const wasm = readFileSync(new URL(import.meta.resolve("sabmutex/sabmutex.wasm")));
const html = "<!doctype html><html><body>app</body></html>";
// A server with a fallback to index.html for every path but /ok.wasm.
const server = createServer((req, res) => {
  if (req.url === "/ok.wasm") { res.writeHead(200, { "Content-Type": "application/wasm" }); res.end(wasm); return; }
  res.writeHead(200, { "Content-Type": "text/html" }); res.end(html);
}).listen(0, "127.0.0.1");
await new Promise((r) => server.once("listening", r));
const base = "http://127.0.0.1:" + server.address().port;
async function rejection(wasmOption) {
  try { await sabmutex.init({ wasm: wasmOption }); return "resolved"; } catch (e) { return e.message; }
}
const out = {
  missing: await rejection("/nonexistent/dir/sabmutex.wasm"),
  html: await rejection(base + "/assets/sabmutex.wasm"),
  vite: await rejection(base + "/node_modules/.vite/deps/sabmutex.wasm"),
  htmlBytes: await rejection(new TextEncoder().encode(html)),
  notWasm: await rejection(new Uint8Array([1, 2, 3, 4])),
  otherBuild: await import("./other-build.mjs").then((other) => other.init({ wasm }).then(() => "resolved", (e) => e.message)),
  streaming: await rejection(base + "/ok.wasm"),
};
// (Deno's server.close() waits for the connections that fetch keeps open.)
server.closeAllConnections?.();
server.close();
console.log(JSON.stringify(out));
`,
);

// Growable and WebAssembly memories (docs/decisions/growable-memory.md):
// the main thread (lockAsync and lock) and a worker_thread add to counters
// under Mutexes made before the buffer grew and after, at slots past its
// first length; a Channel made after a second growth carries 100 messages;
// then a WebAssembly.Memory's buffer, before and after memory.grow().
writeFileSync(
  join(app, "memory.mjs"),
  `
import * as sabmutex from "sabmutex";
import { Worker, isMainThread, workerData, parentPort } from "node:worker_threads";
const N = 2000;
const add = (m, c, ctr) => { const v = c[ctr]; for (let k = 0; k < 30; k++); c[ctr] = v + 1; m.unlock(); };
if (isMainThread) {
  await sabmutex.init();
  const errorOf = (f) => { try { f(); return null; } catch (e) { return e.name + ": " + e.message; } };
  const out = {
    tooSmall: errorOf(() => new sabmutex.Channel(new SharedArrayBuffer(64), 0, 4, 16)),
    growFirst: errorOf(() => new sabmutex.Mutex(new SharedArrayBuffer(4, { maxByteLength: 64 }))),
  };
  const sab = new SharedArrayBuffer(64, { maxByteLength: 8192 });
  const first = new sabmutex.Mutex(sab, 0); // registers the buffer at 64 bytes
  out.pastLength = errorOf(() => new sabmutex.Mutex(sab, 200));
  const w = new Worker(new URL(import.meta.url), { workerData: { module: sabmutex.module } });
  const replies = [];
  w.on("message", (v) => replies.shift()(v));
  w.on("error", (e) => { console.error(e); process.exit(1); });
  const ask = (msg) => new Promise((res) => { replies.push(res); w.postMessage(msg); });
  await ask({ sab }); // the worker registers it too, at 64 bytes
  const contend = async (m, c, ctr, msg) => {
    const worker = ask({ ...msg, ctr });
    for (let i = 0; i < N; i++) {
      if (i % 2 === 0) { if (!(await m.lockAsync(10000))) throw new Error("lockAsync timed out"); }
      else if (!m.lock(10000)) throw new Error("lock timed out");
      add(m, c, ctr);
    }
    await worker;
    return c[ctr];
  };
  sab.grow(1024);
  const c = new Int32Array(sab);
  out.grown = await contend(new sabmutex.Mutex(sab, 200), c, 210, { at: 200, buf: sab });
  out.first = await contend(first, c, 2, { at: 0, buf: sab });
  sab.grow(8192);
  const ch = new sabmutex.Channel(sab, 1024, 4, 16);
  const sent = ask({ channel: 1024, buf: sab });
  const got = [];
  for (let i = 0; i < 100; i++) got.push(i % 2 ? ch.recv(10000) : await ch.recvAsync(10000));
  await sent;
  out.channel = got.every((m, i) => m === "m" + i);
  const mem = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
  const old = mem.buffer, a = new sabmutex.Mutex(old, 0);
  out.wasmBefore = await contend(a, new Int32Array(old), 4, { at: 0, mem });
  mem.grow(1);
  out.oldPastEnd = errorOf(() => new sabmutex.Mutex(old, 16392));
  out.wasmAfter = await contend(new sabmutex.Mutex(mem.buffer, 16392), new Int32Array(mem.buffer), 16396, { at: 16392, mem });
  out.wasmOld = await contend(a, new Int32Array(mem.buffer), 5, { at: 0, mem });
  await w.terminate();
  out.expected = 2 * N;
  console.log(JSON.stringify(out));
} else {
  await sabmutex.init({ wasm: workerData.module });
  parentPort.on("message", ({ sab, buf, mem, at, ctr, channel }) => {
    if (sab) return parentPort.postMessage(new sabmutex.Mutex(sab, 0) && true);
    const b = mem ? mem.buffer : buf; // a WebAssembly.Memory's buffer: read again after it grows
    if (channel !== undefined) {
      const ch = new sabmutex.Channel(b, channel, 4, 16);
      for (let i = 0; i < 100; i++) ch.send("m" + i);
      return parentPort.postMessage(true);
    }
    const m = new sabmutex.Mutex(b, at), c = new Int32Array(b);
    for (let i = 0; i < N; i++) { if (!m.lock(10000)) throw new Error("worker lock timed out"); add(m, c, ctr); }
    parentPort.postMessage(true);
  });
}
`,
);

function node(file, ...argv) {
  return new Promise((done, fail) => {
    execFile(process.execPath, [file, ...argv], { cwd: app, timeout: TIMEOUT_MS }, (err, stdout, stderr) => {
      if (err) return fail(new Error(`node ${file} ${argv.join(" ")}: ${err.killed ? `timed out after ${TIMEOUT_MS} ms` : err.message}\n${stderr}`));
      try {
        done(JSON.parse(stdout.trim().split("\n").pop()));
      } catch {
        fail(new Error(`node ${file}: unexpected output:\n${stdout}\n${stderr}`));
      }
    });
  });
}

// Debug mode in Node.js (README, "Debugging"): two worker_threads take A
// and B in both orders, one after the other; the main thread's onReport
// gets one lock-order report naming both, and the process still ends by
// itself (the collector's timer, the reports' BroadcastChannel and the
// workers' tickers do not keep it alive). With debug off (argv "off"), no
// report. Each worker says it is done with a message, not its exit: under
// Deno a worker_thread has no parentPort.close(), and one that ends by
// itself emits no "exit".
writeFileSync(
  join(app, "debug.mjs"),
  `
import * as sabmutex from "sabmutex";
import { Worker, isMainThread, workerData, parentPort } from "node:worker_threads";
if (isMainThread) {
  await sabmutex.init({ name: "main", debug: process.argv[2] !== "off" });
  const reports = [];
  sabmutex.onReport((r) => reports.push(r));
  const sab = new SharedArrayBuffer(64);
  for (const [name, order] of [["w1", "ab"], ["w2", "ba"]]) {
    const w = new Worker(new URL(import.meta.url), { workerData: { registry: sabmutex.forWorker().registry, sab, order, name } });
    await new Promise((done) => w.once("message", done));
  }
  await new Promise((r) => setTimeout(r, 800));
  console.log(JSON.stringify({ reports: reports.map((r) => r.kind), names: reports.every((r) => r.message.includes('("w1")') && r.message.includes('("w2")')) }));
} else {
  await sabmutex.init({ registry: workerData.registry, name: workerData.name });
  const a = new sabmutex.Mutex(workerData.sab, 0, { name: "A" }), b = new sabmutex.Mutex(workerData.sab, 2, { name: "B" });
  const [x, y] = workerData.order === "ab" ? [a, b] : [b, a];
  x.lock();
  y.lock();
  y.unlock();
  x.unlock();
  parentPort.postMessage("done");
}
`,
);

// No starving waiter (issue 32's measurement): a worker_thread holds a
// Semaphore's only permit and loops (1 ms held, release(1), acquire(1)),
// counting its cycles in slot 4; the main thread's acquireAsync(1) and a
// second worker's blocking acquire(1) each ask 5 times and report the
// looper's cycles until served (before the fix: 6-422 ms, 33-521 ms).
writeFileSync(
  join(app, "starve.mjs"),
  `
import * as sabmutex from "sabmutex";
import { Worker } from "node:worker_threads";
await sabmutex.init();
const sab = new SharedArrayBuffer(32);
const c = new Int32Array(sab); // 0-2: the Semaphore; 4: cycles; 5: stop; 6: asks done by the worker
const sem = new sabmutex.Semaphore(sab, 0, 1);
const start = (role) => {
  const w = new Worker(new URL("./starve-worker.mjs", import.meta.url), { workerData: { sab, role, module: sabmutex.module } });
  return new Promise((res, rej) => { w.on("message", res); w.once("error", rej); });
};
const looper = start("looper");
while (Atomics.load(c, 4) < 3) await new Promise((r) => setTimeout(r, 1));
const asks = async (ask) => {
  const out = [];
  for (let i = 0; i < 5; i++) {
    const from = Atomics.load(c, 4);
    while (Atomics.load(c, 4) < from + 3) await new Promise((r) => setTimeout(r, 1));
    const c0 = Atomics.load(c, 4), t0 = performance.now();
    const ok = await ask();
    out.push(ok ? [Atomics.load(c, 4) - c0, Math.round(performance.now() - t0)] : [-1, Math.round(performance.now() - t0)]);
    if (ok) sem.release();
  }
  return out;
};
const page = await asks(() => sem.acquireAsync(1, 3000));
const blocking = await start("waiter");
Atomics.store(c, 5, 1);
await looper;
console.log(JSON.stringify({ page, blocking, available: sem.available() }));
`,
);
writeFileSync(
  join(app, "starve-worker.mjs"),
  `
import * as sabmutex from "sabmutex";
import { parentPort, workerData } from "node:worker_threads";
await sabmutex.init({ module: workerData.module });
const c = new Int32Array(workerData.sab);
const sem = new sabmutex.Semaphore(workerData.sab, 0, 1);
const sleep = (ms) => Atomics.wait(c, 7, 0, ms);
if (workerData.role === "looper") {
  sem.acquire();
  while (Atomics.load(c, 5) === 0) {
    sleep(1);
    sem.release();
    sem.acquire(1, 10000);
    Atomics.add(c, 4, 1);
  }
  sem.release();
  parentPort.postMessage(null);
} else {
  const out = [];
  for (let i = 0; i < 5; i++) {
    const from = Atomics.load(c, 4);
    while (Atomics.load(c, 4) < from + 3) sleep(1);
    const c0 = Atomics.load(c, 4), t0 = performance.now();
    const ok = sem.acquire(1, 3000);
    out.push(ok ? [Atomics.load(c, 4) - c0, Math.round(performance.now() - t0)] : [-1, Math.round(performance.now() - t0)]);
    if (ok) sem.release();
  }
  parentPort.postMessage(out);
}
`,
);

// A worker that ends holding locks (docs/decisions/worker-ends.md): a
// worker_thread holds Mutex.named("db") and locks.requestSync("jobs") and
// is terminated; the main thread then gets both, told of the Mutex's dead
// holder (previousHolderDied), within the watch's bound. A worker started by
// a thread that is no agent (a plain worker between) is not seen ending:
// lockAsync(300) times out (so the check can fail) until agentEnded(its id)
// says it ended. The process still ends by itself (nothing is left ref'd).
writeFileSync(
  join(app, "ends.mjs"),
  `
import * as sabmutex from "sabmutex";
import { Worker, isMainThread, workerData, parentPort } from "node:worker_threads";
const file = new URL(import.meta.url);
if (isMainThread) {
  await sabmutex.init({ name: "main" });
  const init = sabmutex.forWorker();
  const out = {};
  const holder = new Worker(file, { workerData: { ...init, role: "holder" } });
  const id = await new Promise((res, rej) => { holder.once("message", res); holder.once("error", rej); });
  const m = sabmutex.Mutex.named("db");
  out.heldBefore = m.holder() === id;
  await holder.terminate();
  let t0 = performance.now();
  out.mutex = await m.lockAsync(3000);
  out.told = m.previousHolderDied;
  out.mutexMs = Math.round(performance.now() - t0);
  if (out.mutex) m.unlock();
  t0 = performance.now();
  out.lock = await sabmutex.locks.request("jobs", { signal: AbortSignal.timeout(3000) }, () => true).catch((e) => e.name);
  out.lockMs = Math.round(performance.now() - t0);
  // Through a thread that is no agent: its worker's end is not seen.
  const between = new Worker(file, { workerData: { ...init, role: "between" } });
  const hid = await new Promise((res, rej) => { between.once("message", res); between.once("error", rej); });
  const m2 = sabmutex.Mutex.named("unseen");
  out.unseenTimedOut = !(await m2.lockAsync(300));
  out.ended = sabmutex.agentEnded(hid);
  out.endedAgain = sabmutex.agentEnded(hid);
  out.unseen = await m2.lockAsync(3000);
  out.unseenTold = m2.previousHolderDied;
  if (out.unseen) m2.unlock();
  out.alive = sabmutex.snapshot().agents.filter((a) => a.alive).map((a) => a.name).sort();
  const errorOf = (f) => { try { f(); return null; } catch (e) { return e.name + ": " + e.message; } };
  out.badId = errorOf(() => sabmutex.agentEnded(0));
  out.self = errorOf(() => sabmutex.agentEnded(sabmutex.agentId));
  await between.terminate();
  console.log(JSON.stringify(out));
} else if (workerData.role === "between") {
  // No sabmutex here: it starts the holder, waits for its id, ends it.
  const w = new Worker(file, { workerData: { ...workerData, role: "holder", name: "unseen", mutex: "unseen" } });
  const id = await new Promise((res) => w.once("message", res));
  await w.terminate();
  parentPort.postMessage(id);
} else {
  await sabmutex.init({ ...workerData, name: workerData.name ?? "holder" });
  sabmutex.Mutex.named(workerData.mutex ?? "db").lock();
  sabmutex.locks.requestSync(workerData.mutex ?? "jobs", () => {
    parentPort.postMessage(sabmutex.agentId);
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // held until terminated
  });
}
`,
);

// A Go program (browsertest's goagent, over sabsync) in a worker_thread
// joins the main thread's registry, takes the Mutex at slot 0 and is
// terminated holding it: the main thread takes it, told, as for a
// JavaScript worker (sabsync names its life lock by its thread id too).
writeFileSync(
  join(app, "go-ends.mjs"),
  `
import * as sabmutex from "sabmutex";
import { Worker } from "node:worker_threads";
const [wasm, wasmExec] = process.argv.slice(2);
await sabmutex.init({ name: "main" });
const sab = new SharedArrayBuffer(64);
const runner = \`
const { parentPort, workerData: w } = require("node:worker_threads");
globalThis.require = require;
globalThis.fs = require("node:fs");
globalThis.path = require("node:path");
globalThis.crypto ??= require("node:crypto");
require(w.wasmExec);
globalThis.goagent = { registry: w.registry, join: true, name: "go holder", memory: w.sab, role: "hold", kind: "Mutex", report: (m) => parentPort.postMessage(JSON.parse(JSON.stringify(m))) };
const go = new Go();
WebAssembly.instantiate(fs.readFileSync(w.wasm), go.importObject).then((r) => go.run(r.instance));
\`;
const w = new Worker(runner, { eval: true, workerData: { registry: sabmutex.forWorker(), sab, wasm, wasmExec } });
const held = await new Promise((res, rej) => { w.once("message", res); w.once("error", rej); });
const m = new sabmutex.Mutex(sab, 0);
const out = { held: held.held === true && m.holder() === held.id };
await w.terminate();
const t0 = performance.now();
out.took = await m.lockAsync(3000);
out.told = m.previousHolderDied;
out.ms = Math.round(performance.now() - t0);
if (out.took) m.unlock();
console.log(JSON.stringify(out));
`,
);

const failures = [];
function check(name, ok, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? `: ${detail}` : ""}`);
  if (!ok) failures.push(name);
}

// The runtime: Node.js, or Deno or Bun running this file (make nodetest-deno,
// nodetest-bun), whose children are the same runtime (process.execPath;
// Deno runs a child given node's arguments as \`deno run -A\`).
const runtime = globalThis.Deno ? `deno ${globalThis.Deno.version.deno}` : globalThis.Bun ? `bun ${globalThis.Bun.version}` : `node ${process.version}`;
console.log(`${runtime}, package from ${dist}`);
try {
  const locked = await node("counter.mjs", "lock");
  check("counter with the lock, main thread (lockAsync + lock) and 2 worker_threads", locked.count === locked.expected && !locked.held, `${locked.count} of ${locked.expected}`);
  check("three agents, three ids", new Set(locked.agents).size === 3 && locked.agents.every((id) => id > 0), locked.agents.join(", "));
  const unlocked = await node("counter.mjs", "nolock");
  check("the same without the lock loses updates (so the test can fail)", unlocked.count < unlocked.expected, `${unlocked.count} of ${unlocked.expected}, ${unlocked.expected - unlocked.count} lost`);

  const goArgs = [join(goDir, "gocounter.wasm"), join(goDir, "wasm_exec.js"), join(root, "examples", "gocounter", "node-worker.cjs")];
  const goLocked = await node("go-counter.mjs", "lock", ...goArgs);
  check("2 Go programs (sabsync), a JS worker and the main thread on one Mutex", goLocked.count === goLocked.expected && !goLocked.held, `${goLocked.count} of ${goLocked.expected}, agents ${goLocked.ids.join(", ")}`);
  const joined = JSON.stringify(goLocked.named) === JSON.stringify([["go 0", goLocked.ids[1]], ["go 1", goLocked.ids[2]]].sort());
  check("the Go programs joined the registry (sabsync.Join): the snapshot names them, with the ids they report", joined, JSON.stringify(goLocked.named));
  const goUnlocked = await node("go-counter.mjs", "nolock", ...goArgs);
  check("the same without the lock loses updates", goUnlocked.count < goUnlocked.expected, `${goUnlocked.count} of ${goUnlocked.expected}`);

  const starve = await node("starve.mjs");
  // As browsertest's TestStarvation: served within 10 cycles, but for one
  // round at most (a thread off the CPU on a busy machine before it even
  // asks), and never past 50.
  const fair = (asks) => asks.every(([cycles]) => cycles >= 0 && cycles <= 50) && asks.filter(([cycles]) => cycles > 10).length <= 1;
  const shown = (asks) => asks.map(([cycles, ms]) => (cycles < 0 ? `never (${ms} ms)` : `${cycles} (${ms} ms)`)).join(", ");
  check("a Semaphore waiter is not starved: the main thread's acquireAsync, within 10 of the looper's cycles (one round in 50)", fair(starve.page), shown(starve.page));
  check("the same, a worker's blocking acquire", fair(starve.blocking), shown(starve.blocking));
  check("every permit back", starve.available === 1, `${starve.available}`);

  const debugOn = await node("debug.mjs"), debugOff = await node("debug.mjs", "off");
  check("debug mode: an inversion of two worker_threads is one lock-order report naming both; the process ends by itself", debugOn.reports.join() === "lock-order" && debugOn.names, JSON.stringify(debugOn));
  check("the same with debug mode off: no report (so the check can fail)", debugOff.reports.length === 0, JSON.stringify(debugOff));

  const ends = await node("ends.mjs");
  check("a worker_thread terminated holding Mutex.named and a lock of locks: the next holder gets each within the watch's bound, told", ends.heldBefore && ends.mutex && ends.told && ends.lock === true && ends.mutexMs < 1000 && ends.lockMs < 1000, JSON.stringify(ends));
  check("a worker whose starter is no agent: its end unseen (lockAsync(300) times out), until agentEnded(id) frees all it held, told", ends.unseenTimedOut && ends.ended && !ends.endedAgain && ends.unseen && ends.unseenTold && JSON.stringify(ends.alive) === '["main"]', JSON.stringify(ends));
  check("agentEnded refuses an id that is none, and this agent's own", ends.badId?.startsWith("RangeError: sabmutex: agentEnded takes an agent id") && ends.self?.startsWith("Error: sabmutex: agentEnded(agentId) names this agent"), `${ends.badId}; ${ends.self}`);

  const goEnds = await node("go-ends.mjs", join(goDir, "goagent.wasm"), join(goDir, "wasm_exec.js"));
  check("a Go program (sabsync) in a worker_thread terminated holding a Mutex: the main thread takes it within the watch's bound, told", goEnds.held && goEnds.took && goEnds.told && goEnds.ms < 1000, JSON.stringify(goEnds));

  const cjs = await node("cjs.cjs");
  check('require("sabmutex") gives the API; init({ wasm: path })', cjs.keys === "Barrier,Channel,Cond,Mutex,Once,RWMutex,Semaphore,WaitGroup,agentEnded,agentId,forWorker,init,locks,memoryBytes,module,onReport,select,selectAsync,snapshot" && cjs.ok && cjs.module, cjs.keys);
  check('import sabmutex from "sabmutex" (the default export)', cjs.esmDefault);

  const mem = await node("memory.mjs");
  const counts = ["grown", "first", "wasmBefore", "wasmAfter", "wasmOld"].map((k) => `${k} ${mem[k]}`).join(", ");
  check("a growable SharedArrayBuffer and a WebAssembly.Memory, before and after they grow: the main thread and a worker_thread count exactly", ["grown", "first", "wasmBefore", "wasmAfter", "wasmOld"].every((k) => mem[k] === mem.expected), `${counts} of ${mem.expected}`);
  check("a Channel made after a second growth carries every message in order", mem.channel);
  check("an index past a buffer's length now says so", mem.pastLength?.startsWith("RangeError: sabmutex: index must be a whole number from 0 to 14") && mem.oldPastEnd?.startsWith("RangeError: sabmutex: index must be a whole number from 0 to 16382"), `${mem.pastLength}; ${mem.oldPastEnd}`);
  check("a memory too small at any index says what it needs", mem.tooSmall === "RangeError: sabmutex: a Channel of capacity 4 and 16-byte messages needs 480 bytes (120 int32 slots: Channel.slotsFor(4, 16)); this SharedArrayBuffer has 64 bytes, too few at any index: give it a larger SharedArrayBuffer" && mem.growFirst.includes("grow it first (it may grow to 64 bytes)"), `${mem.tooSmall}; ${mem.growFirst}`);

  const e = await node("errors.mjs");
  const has = (msg, ...parts) => msg.startsWith("sabmutex: ") && parts.every((p) => msg.includes(p));
  check("a missing file is named, with what to pass", has(e.missing, "could not read", "/nonexistent/dir/sabmutex.wasm", "init({ wasm })"), e.missing);
  check("an HTML page instead of the wasm says so", has(e.html, "HTML page", "3c 21 64 6f", "the server returned a page instead of the wasm", "optimizeDeps"), e.html);
  check("under Vite's .vite/deps it says what to add", has(e.vite, "HTML page", "Vite", 'optimizeDeps: { exclude: ["sabmutex"] }'), e.vite);
  check("HTML bytes too", has(e.htmlBytes, "HTML page"), e.htmlBytes);
  check("bytes that are not wasm", has(e.notWasm, "could not load", "not a WebAssembly module", "01 02 03 04"), e.notWasm);
  check("a script of another build than the wasm is refused", has(e.otherBuild, "another build", "same sabmutex version"), e.otherBuild);
  check("application/wasm over HTTP compiles (compileStreaming)", e.streaming === "resolved", e.streaming);
} catch (err) {
  check("programs ran", false, err.message);
}
rmSync(app, { recursive: true, force: true });
clearTimeout(watchdog);
if (failures.length) {
  console.log(`\nnodetest: ${failures.length} failed`);
  process.exit(1);
}
console.log("\nnodetest: all passed");
