// make bench's lock-by-name rows in Node.js 24 (pools/package.json's node24):
// sabmutex.locks.request beside Node.js's own navigator.locks (24.5+,
// in-process, shared by its threads), the same shape of call:
//   - uncontended: the main thread's await locks.request(name, () => {}),
//     one after another, ns a request;
//   - queued: the main thread and 2 worker_threads each make R awaited
//     requests of one name at once, so that each waits behind the others'
//     (every agent of one registry; Node.js's lock manager for its own),
//     k grants/s over all three.
// The two alternated round by round, medians of ROUNDS rounds.
//
//	node24 web/bench/locks-node.mjs [-dist dist]
import { Worker } from "node:worker_threads";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const arg = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const dist = resolve(arg("-dist", join(root, "dist")));
const ROUNDS = Number(arg("-rounds", 5));
const UNCONTENDED = 20000, NATIVE_UNCONTENDED = 2000, R = 2000;
if (!globalThis.navigator?.locks) {
  console.log(`locks-node: Node.js ${process.version} has no navigator.locks (24.5+ has): run it with pools/node_modules/node24/bin/node`);
  process.exit(2);
}
const sabmutex = await import(pathToFileURL(join(dist, "sabmutex.mjs")).href);
await sabmutex.init({ name: "main" });

// A worker: for each message (the implementation), makes r awaited
// requests of "queued", and posts "done".
const worker = `
const { parentPort, workerData: w } = require("node:worker_threads");
(async () => {
  const sabmutex = await import(w.mjs);
  await sabmutex.init({ ...w.init, name: "bench" });
  const locks = { sabmutex: sabmutex.locks, native: navigator.locks };
  parentPort.on("message", async (impl) => {
    for (let i = 0; i < w.r; i++) await locks[impl].request("queued", () => {});
    parentPort.postMessage("done");
  });
  parentPort.postMessage("ready");
})().catch((e) => parentPort.postMessage({ error: String(e) }));
`;

const uncontended = async (locks, n) => {
  const t = performance.now();
  for (let i = 0; i < n; i++) await locks.request("uncontended", () => {});
  return ((performance.now() - t) * 1e6) / n;
};

const init = sabmutex.forWorker();
const ws = [0, 1].map(() => new Worker(worker, { eval: true, workerData: { r: R, init, mjs: pathToFileURL(join(dist, "sabmutex.mjs")).href } }));
const next = (w) => new Promise((res, rej) => { w.once("message", (m) => (m.error ? rej(new Error(m.error)) : res(m))); w.once("error", rej); });
await Promise.all(ws.map(next));
const queued = async (impl) => {
  const locks = impl === "sabmutex" ? sabmutex.locks : navigator.locks;
  const done = ws.map(next);
  const t = performance.now();
  for (const w of ws) w.postMessage(impl);
  for (let i = 0; i < R; i++) await locks.request("queued", () => {});
  await Promise.all(done);
  return (3 * R) / (performance.now() - t); // k grants/s
};

const got = { uncontended: { sabmutex: [], native: [] }, queued: { sabmutex: [], native: [] } };
for (let r = 0; r < ROUNDS; r++) {
  for (const impl of r % 2 ? ["native", "sabmutex"] : ["sabmutex", "native"]) {
    got.uncontended[impl].push(await uncontended(impl === "sabmutex" ? sabmutex.locks : navigator.locks, impl === "sabmutex" ? UNCONTENDED : NATIVE_UNCONTENDED));
    got.queued[impl].push(await queued(impl));
  }
}
await Promise.all(ws.map((w) => w.terminate()));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const u = { s: median(got.uncontended.sabmutex), n: median(got.uncontended.native) };
const q = { s: median(got.queued.sabmutex), n: median(got.queued.native) };
console.log(`sabmutex.locks beside Node.js's navigator.locks, Node ${process.version}, medians of ${ROUNDS} alternated rounds`);
console.log(`await locks.request(name, () => {}), uncontended, main thread  |  sabmutex ${u.s.toFixed(0)} ns  |  navigator.locks ${u.n.toFixed(0)} ns  |  navigator.locks/sabmutex ${(u.n / u.s).toFixed(1)}×`);
console.log(`await locks.request(name, () => {}), queued: main thread + 2 worker_threads, ${R} each  |  sabmutex ${q.s.toFixed(0)} k/s  |  navigator.locks ${q.n.toFixed(0)} k/s  |  sabmutex/navigator.locks ${(q.s / q.n).toFixed(1)}×`);
