// The contention matrix: sabmutex beside the plain-JS futex mutex, as users
// write contended loops (`m.lock(); counter++; m.unlock();`), with the
// critical section, the number of workers and the page's part varied. Each
// cell alternates the implementations, repetition by repetition, in one page
// load. See README.md here for why the layout matters. A third, "owned"
// (jsmutex.js: the plain-JS mutex plus sabmutex's holder slot), gives each
// cell's floor for a mutex that keeps owner checks (throughput only).
//
// A cell measures twice: untimed, for throughput (nothing in the loop but
// the lock and the work), and timed, for the waits (performance.now() around
// each lock, which slows the loop a little for both alike).

// Slots of the matrix's buffer, each group on a cache line of its own.
export const M = {
  START: 0, // the workers start when it turns 1
  STOP: 1, // and stop when it turns 1
  MUTEX: 16, // the mutex under test (sabmutex uses 16 and 17)
  COUNTER: 32, // the counter, on its own line: plain (non-atomic) increments
  INTS: 48,
};

// The critical sections: holdUs of busy work around one increment.
export const CRITICAL = [
  { id: "inc", name: "counter++", holdUs: 0 },
  { id: "0.2us", name: "≈0.2 µs", holdUs: 0.2 },
  { id: "2us", name: "≈2 µs", holdUs: 2 },
];

import { pageLoops } from "./pageloops.js";

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The p-th percentile and the median of xs (any order), for every table.
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// One run: workers (and the page, with pageMutex) contend for durationMs.
// Returns throughput (M/s), acquisitions per agent, and with timeWaits every
// wait in µs.
async function runOnce({ workers, impl, holdIters, durationMs, timeWaits, pageMutex }) {
  const sab = new SharedArrayBuffer(M.INTS * 4);
  const c = new Int32Array(sab);
  const loops = pageMutex ? await pageLoops(impl) : null;
  const runs = workers.map((w) => w.call("matrix", { impl, sab, holdIters, timeWaits }));
  await sleep(5);
  const t0 = now();
  Atomics.store(c, M.START, 1);
  Atomics.notify(c, M.START);
  const page = pageMutex ? loops.contendLoop(pageMutex(sab), c, { stop: M.STOP, counter: M.COUNTER }, holdIters, timeWaits) : null;
  await sleep(durationMs);
  Atomics.store(c, M.STOP, 1);
  const rs = await Promise.all(runs);
  const elapsedMs = now() - t0;
  if (page) rs.push(await page);
  const counts = rs.map((r) => r.count);
  const total = counts.reduce((a, b) => a + b, 0);
  if (c[M.COUNTER] !== total) throw new Error(`${impl}: counter ${c[M.COUNTER]} after ${total} locked increments`);
  const workUs = median(rs.filter((r) => r.workUs >= 0).map((r) => r.workUs)); // the workers' (NaN without timeWaits)
  return { mPerSec: total / elapsedMs / 1e3, counts, waitsUs: timeWaits ? rs.flatMap((r) => Array.from(r.waitsUs)) : [], workUs };
}

// Every cell of the matrix (or of the rows whose ids critical lists), each
// implementation reps times, alternated. calibrate(us) gives the loop turns
// of busy work that take about us µs.
export async function runMatrix({ startWorkers, mutexOf, calibrate, reps, durationMs, workerCounts, critical = null, log }) {
  const impls = ["sabmutex", "js", "owned", "closure"]; // "closure": the seed article's mutex (jsmutex.js), throughput only, as "owned"
  const pools = {}; // workers of one implementation each (see bench.js's workerPools)
  for (const impl of impls) pools[impl] = await startWorkers(Math.max(...workerCounts));
  const cells = [];
  for (const cs of CRITICAL.filter((c) => !critical || critical.includes(c.id))) {
    const holdIters = cs.holdUs ? calibrate(cs.holdUs) : 0;
    for (const k of workerCounts) {
      for (const withPage of k === 2 ? [false, true] : [false]) {
        const cell = { cs: cs.id, csName: cs.name, workers: k, page: withPage };
        const raw = Object.fromEntries(impls.map((i) => [i, { mPerSec: [], spread: [], waits: [], workUs: [] }]));
        for (let r = -1; r < reps; r++) {
          for (const impl of impls) {
            const args = { workers: pools[impl].slice(0, k), impl, holdIters, durationMs, pageMutex: withPage ? (sab) => mutexOf(impl, sab, M.MUTEX) : null };
            const fast = await runOnce({ ...args, timeWaits: false });
            const timed = impl === "owned" || impl === "closure" ? { waitsUs: [NaN] } : await runOnce({ ...args, timeWaits: true });
            if (r < 0) continue; // warm-up
            raw[impl].mPerSec.push(fast.mPerSec);
            raw[impl].spread.push(Math.min(...fast.counts) / Math.max(...fast.counts));
            raw[impl].waits.push(timed.waitsUs.sort((a, b) => a - b));
            raw[impl].workUs.push(timed.workUs);
          }
        }
        for (const impl of impls) {
          const x = raw[impl];
          cell[impl] = {
            mPerSec: median(x.mPerSec),
            mPerSecAll: x.mPerSec,
            minMaxAcq: median(x.spread),
            p50Us: median(x.waits.map((w) => percentile(w, 50))),
            p99Us: median(x.waits.map((w) => percentile(w, 99))),
            p999Us: median(x.waits.map((w) => percentile(w, 99.9))),
            maxUs: median(x.waits.map((w) => w[w.length - 1])),
            workUs: holdIters ? median(x.workUs) : NaN, // a critical section's busy work as timed, µs: both must do the same
          };
        }
        cells.push(cell);
        log?.({ name: `matrix: ${cs.name}, ${k} workers${withPage ? " + page" : ""}` });
      }
    }
  }
  Object.values(pools).forEach((ws) => ws.forEach((w) => w.terminate()));
  return cells;
}

// The floor under every wait that includes a sleep: how long this machine
// takes to wake a worker asleep in Atomics.wait, from the notify to the
// sleeper running, in µs (rounds wake-ups, at random gaps).
export async function wakeFloor(startWorkers, rounds) {
  const [sleeper, waker] = await startWorkers(2);
  const sab = new SharedArrayBuffer(64);
  const times = new SharedArrayBuffer(16 * (rounds + 1));
  const sleeping = sleeper.call("wakeSleeper", { sab, times, rounds });
  await waker.call("wakeWaker", { sab, times, rounds });
  await sleeping;
  [sleeper, waker].forEach((w) => w.terminate());
  const t = new Float64Array(times);
  const lat = [];
  for (let r = 1; r <= rounds; r++) if (Number.isFinite(t[2 * r + 1])) lat.push((t[2 * r + 1] - t[2 * r]) * 1000); // not "not-equal"
  lat.sort((a, b) => a - b);
  return { wakeUps: lat.length, p50Us: percentile(lat, 50), p99Us: percentile(lat, 99), p999Us: percentile(lat, 99.9), maxUs: lat[lat.length - 1] };
}
