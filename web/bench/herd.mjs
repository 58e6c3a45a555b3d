// Cond.notifyAll and the thundering herd, measured in Node.js worker_threads
// (the same V8 as Chromium): N workers wait on one Cond; the main thread
// notifies all (or one, and each waiter passes the notify on once it holds
// the mutex: the relay that a requeue-less condition variable could use
// instead); each waiter then holds the mutex for about workUs. Reported:
// the time from the notify until the last waiter has been through, median
// of the rounds, for each way, alternated three times.
//
//	node web/bench/herd.mjs [-dist dist] [-waiters 8] [-rounds 200] [-workUs 2]
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import path from "node:path";

const arg = (name, def) => {
  const i = process.argv.indexOf(`-${name}`);
  return i < 0 ? def : process.argv[i + 1];
};
const dist = path.resolve(arg("dist", "dist"));
const waiters = Number(arg("waiters", 8)), rounds = Number(arg("rounds", 200)), workUs = Number(arg("workUs", 2));

// Slots: 0-1 mutex, 2 cond, 3 round, 4 through (this round), 6 stop, 7 relay mode.
const sab = new SharedArrayBuffer(64);
const w = new Int32Array(sab);
const sabmutex = await import(path.join(dist, "sabmutex.mjs"));
await sabmutex.init({ wasm: path.join(dist, "sabmutex.wasm") });
const m = new sabmutex.Mutex(sab, 0), c = new sabmutex.Cond(sab, 2);

const workerSrc = `
const { workerData: { sab, dist, workUs } } = require("node:worker_threads");
const { parentPort } = require("node:worker_threads");
(async () => {
  const sabmutex = require(dist + "/sabmutex.js");
  await sabmutex.init({ wasm: dist + "/sabmutex.wasm" });
  const w = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0), c = new sabmutex.Cond(sab, 2);
  parentPort.postMessage("ready");
  for (let round = 1; ; round++) {
    m.lock();
    while (Atomics.load(w, 3) < round && !Atomics.load(w, 6)) c.wait(m, 1000);
    if (Atomics.load(w, 6)) { m.unlock(); return; }
    if (Atomics.load(w, 7) === 1) c.notifyOne();            // relay: pass the notify on
    const t = performance.now() + workUs / 1000;
    while (performance.now() < t);
    Atomics.add(w, 4, 1);
    m.unlock();
  }
})();`;

const ws = Array.from({ length: waiters }, () => new Worker(workerSrc, { eval: true, workerData: { sab, dist, workUs } }));
await Promise.all(ws.map((x) => new Promise((r) => x.once("message", r))));

async function run(relay) {
  Atomics.store(w, 7, relay ? 1 : 0);
  const times = [];
  for (let r = 0; r < rounds; r++) {
    // Wait until every worker sleeps on the cond (it has taken round r's turn).
    while (Atomics.load(w, 4) < waiters && r > 0) await new Promise((res) => setImmediate(res));
    await new Promise((res) => setTimeout(res, 1));
    Atomics.store(w, 4, 0);
    m.lock();
    Atomics.add(w, 3, 1);
    const t0 = performance.now();
    if (relay) c.notifyOne();
    else c.notifyAll();
    m.unlock();
    while (Atomics.load(w, 4) < waiters) await null;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

const out = { herd: [], relay: [] };
for (let k = 0; k < 3; k++) for (const mode of ["herd", "relay"]) out[mode].push(await run(mode === "relay"));
Atomics.store(w, 6, 1);
c.notifyAll();
await Promise.all(ws.map((x) => new Promise((r) => x.once("exit", r))));
const med = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
console.log(`${waiters} waiters, ${workUs} µs each under the mutex, ${rounds} rounds x 3, alternated`);
console.log(`notifyAll (herd):      last waiter through after ${med(out.herd).toFixed(3)} ms (medians ${out.herd.map((x) => x.toFixed(3)).join(", ")})`);
console.log(`notifyOne relay:       last waiter through after ${med(out.relay).toFixed(3)} ms (medians ${out.relay.map((x) => x.toFixed(3)).join(", ")})`);
