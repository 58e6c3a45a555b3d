// The family section of the bench: RWMutex, Semaphore, Cond and Barrier
// beside the textbook plain-JS versions of jsfamily.js, and the Mutex beside
// the npm package multithreading's, each pair alternated in one page load.
// The workers' side is family-worker.js.
import { JsSemaphore } from "./jsfamily.js";

// Slots of the section's buffer: the flags, each primitive and the data on
// cache lines of their own.
export const F = {
  START: 0,
  STOP: 1,
  LOCK: 16, // the primitive under test (or the queue's mutex)
  NOT_EMPTY: 32, // the queue's Conds
  NOT_FULL: 48,
  DATA: 64, // what the primitive guards
  HEAD: 64, // the queue: HEAD, TAIL, COUNT, then CAP items
  TAIL: 65,
  COUNT: 66,
  ITEMS: 80,
  CAP: 16,
  INTS: 96,
  PERMITS: 2, // the Semaphore's
};

// Where the server mounts the package (internal/testing/serve), and where its version is.
export const MULTITHREADING = "/node_modules/multithreading/";

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const epochMs = () => performance.timeOrigin + now();

// The package's version, or null if it is not installed (npm ci).
export async function multithreadingVersion() {
  try {
    const r = await fetch(MULTITHREADING + "package.json");
    return r.ok ? (await r.json()).version : null;
  } catch {
    return null;
  }
}

// Workers run op from START for durationMs; the page checks what they
// report and returns turns per second (M/s).
async function contend(ws, impl, what, durationMs, holdIters) {
  const sab = new SharedArrayBuffer(F.INTS * 4);
  const c = new Int32Array(sab);
  if (what === "sem" && impl === "js") JsSemaphore.setUp(sab, F.LOCK, F.PERMITS);
  const lockSab = new SharedArrayBuffer(4);
  const runs = ws.map((w, i) => w.call("contend", { impl, what, sab, lockSab, w: i, holdIters }));
  await sleep(5);
  const t0 = now();
  Atomics.store(c, F.START, 1);
  Atomics.notify(c, F.START);
  await sleep(durationMs);
  Atomics.store(c, F.STOP, 1);
  const elapsedMs = now() - t0;
  const rs = await Promise.all(runs);
  const sum = (k) => rs.reduce((a, r) => a + r[k], 0);
  if (sum("bad")) throw new Error(`${impl} ${what}: ${sum("bad")} turns saw the guarded data broken`);
  if (what === "rw" && c[F.DATA] !== sum("writes")) throw new Error(`${impl} rw: ${c[F.DATA]} after ${sum("writes")} writes`);
  if (what === "mutex" && c[F.DATA] !== sum("count")) throw new Error(`${impl} mutex: counter ${c[F.DATA]} after ${sum("count")} locked increments`);
  return (sum("count") / elapsedMs) * 1000 / 1e6;
}

// Two workers cross a barrier rounds times: generations per second (k/s).
async function barrier(ws, impl, rounds) {
  const sab = new SharedArrayBuffer(F.INTS * 4);
  const c = new Int32Array(sab);
  const runs = ws.map((w) => w.call("barrier", { impl, sab, rounds }));
  await sleep(5);
  const t0 = epochMs();
  Atomics.store(c, F.START, 1);
  Atomics.notify(c, F.START);
  const rs = await Promise.all(runs);
  if (rs[0].last + rs[1].last !== rounds) throw new Error(`${impl} barrier: ${rs[0].last + rs[1].last} "last" arrivals in ${rounds} generations`);
  return (rounds / (Math.max(...rs.map((r) => r.endMs)) - t0)) * 1000 / 1e3;
}

// Two producers put n items each through the bounded queue; two consumers
// take them. Every item must arrive exactly once. Items per second (M/s).
async function pipeline(ws, impl, n) {
  const sab = new SharedArrayBuffer(F.INTS * 4);
  const c = new Int32Array(sab);
  const seen = new SharedArrayBuffer(2 * n * 4);
  const runs = [
    ws[0].call("produce", { impl, sab, id: 0, n }),
    ws[1].call("produce", { impl, sab, id: 1, n }),
    ws[2].call("consume", { impl, sab, seen }),
    ws[3].call("consume", { impl, sab, seen }),
  ];
  await sleep(5);
  const t0 = epochMs();
  Atomics.store(c, F.START, 1);
  Atomics.notify(c, F.START);
  const rs = await Promise.all(runs);
  const s = new Int32Array(seen);
  let missing = 0, dup = 0;
  for (let i = 0; i < s.length; i++) s[i] === 0 ? missing++ : s[i] > 1 && dup++;
  if (missing || dup || rs[2].got + rs[3].got !== 2 * n) {
    throw new Error(`${impl} queue: ${rs[2].got + rs[3].got} of ${2 * n} items taken, ${missing} missing, ${dup} more than once`);
  }
  return ((2 * n) / (Math.max(...rs.map((r) => r.endMs)) - t0)) * 1000 / 1e6;
}

// The section: adds its metrics (marked section "family", with the name of
// the baseline in vs) through add, and notes what it skipped.
export async function runFamily({ workerPools, compare, calibrate, quick, add, note }) {
  const reps = quick ? 2 : 7;
  const ms = quick ? 50 : 300;
  const n = quick ? 1e5 : 1e6;
  const both = ["sabmutex", "js"];
  const holdIters = calibrate(0.2);
  const pools = workerPools("./family-worker.js"); // workers of one implementation each
  const ws = (impl, k = 4) => pools.pool(impl, k);
  const row = (m, r, vs = "textbook JS") => add({ section: "family", vs, ...m, sabmutex: r.sabmutex, baseline: r[vs === "textbook JS" ? "js" : "multithreading"] });

  // 1. Uncontended pairs in one worker.
  for (const [what, name] of [
    ["rw", "RWMutex lock()+unlock()"],
    ["rwRead", "RWMutex readLock()+readUnlock()"],
    ["sem", "Semaphore acquire()+release()"],
    ["notify", "Cond notifyOne(), nobody waiting"],
    ["rwTry", "RWMutex tryReadLock()+tryLock(), write-locked (both fail)"],
    ["semTry", "Semaphore tryAcquire(), no permit left (fails)"],
  ]) {
    // Each repetition in a new worker, its loop run once untimed first: a
    // worker kept its speed for its whole life, fast or slow (in Firefox the
    // same textbook loop ran at twice the speed in one run's worker as in
    // another's, and the ratio of a run came from where its two workers
    // fell: docs/decisions/workers-of-one-implementation.md), so one worker
    // per implementation made the row a coin toss.
    // 15 repetitions of new workers spread that over both.
    // The notify row also runs its floor (jsfamily.js, JsCondNonNegative).
    const impls = what === "notify" ? [...both, "floor"] : both;
    const r = await compare(impls, quick ? 2 : 15, (impl) => pools.once(async (w) => (await w.call("uncontended", { impl, what, n, warm: true })).nsPerOp), 0);
    const floor = r.floor && { floor: r.floor, floorWhat: "the textbook Cond with its sequence kept non-negative (a compare-and-swap instead of an add)" };
    row({ id: `family-${what}`, name: `${name}${what.endsWith("Try") ? "" : ", uncontended"}, worker`, unit: "ns", better: "lower", target: { ratioMax: 1.5 }, ...floor }, r);
  }

  // 2. Contended throughput, 4 workers (≈0.2 µs of work inside each turn).
  let r = await compare(both, reps, async (impl) => contend(await ws(impl), impl, "rw", ms, holdIters));
  row({ id: "family-rw-contended", name: "RWMutex 90% reads, 4 workers", unit: "M/s", better: "higher", target: { ratioMin: 0.8 } }, r);
  r = await compare(both, reps, async (impl) => contend(await ws(impl), impl, "sem", ms, holdIters));
  row({ id: "family-sem-contended", name: `Semaphore(${F.PERMITS}), 4 workers`, unit: "M/s", better: "higher", target: { ratioMin: 0.8 } }, r);
  r = await compare(both, reps, async (impl) => barrier(await ws(impl, 2), impl, quick ? 2000 : 20000));
  row({ id: "family-barrier", name: "Barrier, 2 workers, generations", unit: "k/s", better: "higher", target: { ratioMin: 0.9 } }, r);

  // 3. Producers and consumers through the bounded queue.
  r = await compare(both, reps, async (impl) => pipeline(await ws(impl), impl, quick ? 1e4 : 1e5));
  row({ id: "family-queue", name: `queue (Mutex + 2 Conds, ${F.CAP} items), 2 prod. + 2 cons.`, unit: "M/s", better: "higher", target: { ratioMin: 0.8 } }, r);

  // 4. The Mutex beside the npm package multithreading's.
  const version = await multithreadingVersion();
  if (!version) note("family: the npm package multithreading is not installed (npm ci): its rows are skipped");
  else {
    const vs = `multithreading ${version}`;
    const pair = ["sabmutex", "multithreading"];
    r = await compare(pair, reps, async (impl) => (await (await ws(impl, 1))[0].call("uncontended", { impl, what: "mutex", n })).nsPerOp);
    row({ id: "family-mt-uncontended", name: "Mutex lock()+unlock(), uncontended, worker", unit: "ns", better: "lower", target: { ratioMax: 1.5 } }, r, vs);
    r = await compare(pair, reps, async (impl) => contend(await ws(impl), impl, "mutex", ms, 0));
    row({ id: "family-mt-contended", name: "Mutex counter++, 4 workers", unit: "M/s", better: "higher", target: { ratioMin: 0.8 } }, r, vs);
  }
  pools.terminate();
}
