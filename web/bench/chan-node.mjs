// make bench's Channel rows in Node.js: sabmutex's Channel beside the
// plain-JS lock-free SPSC ring (jsring.js), in worker_threads. Without a
// browser's own threads and the page's harness beside the queue (a message
// made and checked per send), this is the quietest measure of what the
// queue itself costs: one producer to one consumer, 16-byte messages (one
// Uint8Array sent again and again) and 16-character strings, capacity 64,
// the implementations alternated round by round; and 4 producers to 2
// consumers, the Channel alone (the ring has one of each). Medians of
// ROUNDS rounds, k messages/s. (web/bench/package.json makes the
// bench's .js files ES modules for Node, as they are for the page.)
//
//	node web/bench/chan-node.mjs [-dist dist] [-n messages]
import { Worker } from "node:worker_threads";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const arg = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const dist = resolve(arg("-dist", join(root, "dist")));
const N = Number(arg("-n", 300000));
const ROUNDS = 7;
const CAP = 64, BYTES = 16, AT = 64; // slots 0-1: the start flag, the agents ready

// A producer or consumer: counts itself ready, waits for the start, runs,
// posts its ms. A consumer checks that each producer's messages come in
// order, whole.
const worker = `
const { parentPort, workerData: w } = require("node:worker_threads");
(async () => {
  const c = new Int32Array(w.sab);
  let q;
  if (w.impl === "ring") {
    const { JsRing } = await import(w.ring);
    const r = new JsRing(w.sab, ${AT}, ${CAP}, ${BYTES});
    q = { send: (m) => r.send(m), recv: () => r.recv() };
  } else {
    const sabmutex = await import(w.mjs);
    await sabmutex.init();
    q = new sabmutex.Channel(w.sab, ${AT}, ${CAP}, ${BYTES});
  }
  Atomics.add(c, 1, 1);
  Atomics.wait(c, 0, 0, 30000);
  const start = performance.now();
  if (w.producer) {
    const m = new Uint8Array(${BYTES}), v = new DataView(m.buffer);
    for (let k = 0; k < w.n; k++) {
      if (w.text) q.send(String(w.id * 1e9 + k).padStart(16, "0"));
      else v.setInt32(0, w.id), v.setInt32(4, k), v.setInt32(12, k), q.send(m);
    }
  } else {
    const last = new Int32Array(8).fill(-1);
    for (let k = 0; k < w.n; k++) {
      const m = q.recv();
      let id, i;
      if (w.text) (id = Math.floor(Number(m) / 1e9)), (i = Number(m) % 1e9);
      else {
        const v = new DataView(m.buffer, m.byteOffset);
        (id = v.getInt32(0)), (i = v.getInt32(4));
        if (v.getInt32(12) !== i) throw new Error("a torn message");
      }
      if (!(i > last[id])) throw new Error("message " + id + ":" + i + " after " + last[id]);
      last[id] = i;
    }
  }
  parentPort.postMessage(performance.now() - start);
})().catch((e) => parentPort.postMessage({ error: String(e) }));
`;

// One run: producers send N messages in all to consumers; k messages/s.
async function run(impl, producers, consumers, text) {
  const sab = new SharedArrayBuffer(4 * (AT + 4096));
  const c = new Int32Array(sab);
  const common = { sab, impl, text, mjs: pathToFileURL(join(dist, "sabmutex.mjs")).href, ring: pathToFileURL(join(root, "web/bench/jsring.js")).href };
  const ws = [
    ...Array.from({ length: producers }, (_, id) => new Worker(worker, { eval: true, workerData: { ...common, producer: true, id, n: N / producers } })),
    ...Array.from({ length: consumers }, () => new Worker(worker, { eval: true, workerData: { ...common, producer: false, n: N / consumers } })),
  ];
  const done = ws.map((w) => new Promise((res, rej) => { w.once("message", (m) => (m.error ? rej(new Error(`${impl}: ${m.error}`)) : res(m))); w.once("error", rej); }));
  for (const until = Date.now() + 30000; Atomics.load(c, 1) < ws.length; ) {
    if (Date.now() > until) throw new Error(`${impl}: workers not ready in 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const t0 = performance.now();
  Atomics.store(c, 0, 1);
  Atomics.notify(c, 0);
  await Promise.all(done);
  const ms = performance.now() - t0;
  await Promise.all(ws.map((w) => w.terminate()));
  return N / ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const rows = [
  ["16-byte messages, 1 → 1", ["sabmutex", "ring"], 1, 1, false],
  ["16-char strings, 1 → 1", ["sabmutex", "ring"], 1, 1, true],
  ["16-byte messages, 4 → 2", ["sabmutex"], 4, 2, false],
];
const got = rows.map(([, impls]) => Object.fromEntries(impls.map((i) => [i, []])));
for (let r = 0; r < ROUNDS; r++) for (const [k, [, impls, p, c, text]] of rows.entries()) for (const impl of impls) got[k][impl].push(await run(impl, p, c, text));
console.log(`The Channel beside the plain-JS SPSC ring (web/bench/jsring.js), Node ${process.version}, ${N} messages, capacity ${CAP}, medians of ${ROUNDS} alternated rounds (k messages/s)`);
for (const [k, [name, impls]] of rows.entries()) {
  const m = Object.fromEntries(impls.map((i) => [i, median(got[k][i])]));
  console.log([name, ...impls.map((i) => `${i} ${m[i].toFixed(0)}`), ...(m.ring ? [`sabmutex/ring ${(m.sabmutex / m.ring).toFixed(2)}×`] : [])].join("  |  "));
}
