// The benchmark suite: sabmutex beside the plain-JS futex mutex (jsmutex.js)
// and Web Locks, in one page load. runBench() returns every figure; bench.html
// draws them, and `make bench` (cmd/benchrun) prints them.
import * as sabmutex from "/dist/sabmutex.mjs";
import { JsMutex, JsOwnedMutex, makeClosureMutex } from "./jsmutex.js";
import { median, percentile, runMatrix, wakeFloor } from "./matrix.js";
import { runFamily } from "./family.js";
import { runChannel } from "./chan.js";
import { runPool } from "./pool.js";
import { runWorkerpool } from "./workerpool.js";
import { pageLoops } from "./pageloops.js";

const now = () => performance.now();

// How many tasks the queued rows queue on one lock (#60).
const QUEUED = 2000;

// f(impl) for the queued rows: k tasks queued at once on one lock, each
// granted in turn, its callback a counter's increment; µs a task (from the
// first call to the last grant).
function queuedTasks(k) {
  const sab = new SharedArrayBuffer(16);
  const m = new sabmutex.Mutex(sab, 0);
  let am = null, count = 0;
  const inc = () => void count++;
  return async (impl) => {
    am ??= new (await import("/node_modules/async-mutex/index.mjs")).Mutex();
    const tasks = new Array(k);
    count = 0;
    const t = now();
    if (impl === "request") for (let i = 0; i < k; i++) tasks[i] = sabmutex.locks.request("bench-queued", inc);
    else if (impl === "lockAsync") for (let i = 0; i < k; i++) tasks[i] = m.lockAsync().then(() => (inc(), m.unlock()));
    else if (impl === "asyncMutex") for (let i = 0; i < k; i++) tasks[i] = am.runExclusive(inc);
    else for (let i = 0; i < k; i++) tasks[i] = navigator.locks.request("bench-queued", inc);
    await Promise.all(tasks);
    const us = ((now() - t) * 1e3) / k;
    if (count !== k) throw new Error(`bench: ${impl}: ${count} of ${k} queued tasks ran`);
    return us;
  };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Slots of a control buffer, as worker.js reads them.
const START = 0, STOP = 1, COUNTER = 2, MUTEX = 3, ROUND = 5; // MUTEX takes 3 and 4 (Mutex.SLOTS)

function startWorker(script = "./worker.js") {
  const w = new Worker(new URL(script, import.meta.url), { type: "module" });
  const pending = new Map();
  let next = 0;
  w.onerror = (e) => console.error(`bench worker: ${e.message}`);
  w.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    pending.delete(data.id);
    "err" in data ? p.reject(new Error(data.err)) : p.resolve(data.ok);
  };
  w.call = (op, args = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      w.postMessage({ id, op, args });
    });
  return w;
}

async function startWorkers(n, script, watched = true, debug = false) {
  const ws = Array.from({ length: n }, () => startWorker(script));
  // As users start theirs: joined to the page's registry (forWorker()), so
  // that their waits are watched (a dead holder is found) and cost what that
  // costs. Unwatched (the "unwatched" pool): given the module only, each
  // worker is alone in a registry of its own, and its waits sleep untimed
  // (registry.js, watchSleepMs): the floor under the contended rows for a
  // sabmutex without the watch.
  // Debug mode (the "debug" pool): joined, and in debug mode (README,
  // "Debugging"), which a worker may set for itself: what it costs.
  const args = (i) => (watched ? { ...sabmutex.forWorker(), name: `bench ${i}`, ...(debug ? { debug: true } : {}) } : { wasm: sabmutex.forWorker().wasm });
  await Promise.all(ws.map((w, i) => w.call("init", args(i))));
  return ws;
}

// Workers by implementation: pool(impl, k) gives k workers that run impl and
// nothing else (worker.js checks), started on first use. Like a user's
// pool, each worker then sees one mutex class at its call sites; workers
// shared by the implementations see all of them there, and the engines
// inline them less, or differently (web/bench/README.md).
function workerPools(script) {
  const pools = new Map();
  return {
    async pool(impl, k) {
      const ws = pools.get(impl) ?? [];
      if (ws.length < k) ws.push(...(await startWorkers(k - ws.length, script, impl !== "unwatched", impl === "debug")));
      pools.set(impl, ws);
      return ws.slice(0, k);
    },
    // A worker of its own for one measurement, terminated after it: see
    // family.js's uncontended rows. debug: the worker is in debug mode.
    async once(f, debug = false) {
      const [w] = await startWorkers(1, script, true, debug);
      try {
        return await f(w);
      } finally {
        w.terminate();
      }
    },
    terminate: () => pools.forEach((ws) => ws.forEach((w) => w.terminate())),
  };
}

function mutexOf(impl, sab, index) {
  if (impl === "owned") return new JsOwnedMutex(sab, index, sabmutex.agentId);
  if (impl === "closure") return makeClosureMutex(sab, index);
  return impl === "sabmutex" ? new sabmutex.Mutex(sab, index) : new JsMutex(sab, index);
}

function stats(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), reps: xs };
}

// Runs f(impl) reps times for each implementation, interleaved so that drift
// in the machine's speed hits them alike, and returns their stats; the first
// warmUps rounds are not counted.
async function compare(impls, reps, f, warmUps = 1) {
  const out = Object.fromEntries(impls.map((i) => [i, []]));
  for (let r = 0; r < warmUps; r++) for (const impl of impls) await f(impl);
  for (let r = 0; r < reps; r++) for (const impl of impls) out[impl].push(await f(impl));
  return Object.fromEntries(impls.map((i) => [i, stats(out[i])]));
}

// Workers contend for one mutex for durationMs; returns acquisitions per
// second, after checking that the counter saw every one of them. With
// mainThread, the page takes part too, through lockAsync, and its longest
// wait is main.maxWaitMs.
async function contend(workers, impl, durationMs, extra = {}, mainThread = false) {
  const sab = new SharedArrayBuffer(64);
  const c = new Int32Array(sab);
  const loops = mainThread ? await pageLoops(impl) : null;
  const runs = workers.map((w) => w.call("contend", { impl, sab, ...extra }));
  await sleep(5);
  const t0 = now();
  Atomics.store(c, START, 1);
  Atomics.notify(c, START);
  const main = mainThread ? loops.contendLoop(mutexOf(impl, sab, MUTEX), c, { stop: STOP, counter: COUNTER }, extra.holdIters, true) : { count: 0 };
  await sleep(durationMs);
  Atomics.store(c, STOP, 1);
  const elapsedMs = now() - t0;
  const rs = await Promise.all(runs);
  rs.main = await main;
  const total = rs.reduce((a, r) => a + r.count, 0) + rs.main.count;
  if (c[COUNTER] !== total) throw new Error(`${impl}: counter ${c[COUNTER]} after ${total} locked increments`);
  return { perSec: (total / elapsedMs) * 1000, rs };
}

// Workers contend for one lock for durationMs (worker.js, locksContend):
// by name through locks.requestSync (impl "requestSync") or an RWMutex at an
// index (impl "index"). Returns grants per second, after checking that the
// counter saw every one of them, and the hand-offs among all grants.
async function locksContend(workers, impl, name, durationMs) {
  const sab = new SharedArrayBuffer(64);
  const c = new Int32Array(sab);
  const runs = workers.map((w, i) => w.call("locksContend", { impl, sab, me: i + 1, name }));
  await sleep(5);
  const t0 = now();
  Atomics.store(c, START, 1);
  Atomics.notify(c, START);
  await sleep(durationMs);
  Atomics.store(c, STOP, 1);
  const elapsedMs = now() - t0;
  const rs = await Promise.all(runs);
  const total = rs.reduce((a, r) => a + r.count, 0);
  if (c[COUNTER] !== total) throw new Error(`${impl}: counter ${c[COUNTER]} after ${total} locked increments`);
  return { perSec: (total / elapsedMs) * 1000, total, handoffs: rs.reduce((a, r) => a + r.handoffs, 0) };
}

// Runs during(c) while workers run worker.js's deschedule loop (the same
// busy work, no lock) on control slots c; returns what during resolved to
// and the longest gap in any of the workers' loops (ms).
async function whileBusy(workers, holdIters, during) {
  const sab = new SharedArrayBuffer(64);
  const c = new Int32Array(sab);
  const runs = workers.map((w) => w.call("deschedule", { sab, holdIters }));
  await sleep(5);
  Atomics.store(c, START, 1);
  Atomics.notify(c, START);
  let result;
  try {
    result = await during(c);
  } finally {
    Atomics.store(c, STOP, 1); // also when during throws: the workers stop
  }
  return { result, maxGapMs: Math.max(...(await Promise.all(runs)).map((r) => r.maxGapMs)) };
}

// The longest gap (ms) in any of the workers' loops of busy work, with no
// lock, over durationMs; with withPage, the page runs pageContends' loop
// with no lock too, and page is its longest gap.
async function descheduled(workers, holdIters, durationMs, withPage = false) {
  const { result, maxGapMs } = await whileBusy(workers, holdIters, async (c) => {
    const page = withPage ? pageDescheduled(c, holdIters) : null; // runs until STOP
    await sleep(durationMs);
    return { page };
  });
  return { workers: maxGapMs, page: withPage ? await result.page : NaN };
}

// The floor under the page's lockAsync waits, with busy beside it (see
// whileBusy): how late the page runs after a worker's notify ends its
// Atomics.waitAsync (waker runs wakeWaker, as in matrix.js's wakeFloor),
// the longest of rounds wake-ups, in ms. A lockAsync that sleeps takes the
// mutex no sooner than its own wake-up.
async function pageWakeDelays(busy, waker, holdIters, rounds) {
  const { result } = await whileBusy(busy, holdIters, async () => {
    const ping = new SharedArrayBuffer(64);
    const p = new Int32Array(ping);
    const times = new SharedArrayBuffer(16 * (rounds + 1));
    const t = new Float64Array(times);
    const waking = waker.call("wakeWaker", { sab: ping, times, rounds });
    const delays = [];
    for (let r = 1; r <= rounds; r++) {
      let res;
      do {
        const w = Atomics.waitAsync(p, 0, r - 1, 5000);
        res = w.async ? await w.value : w.value;
        if (res === "timed-out") throw new Error("pageWakeDelays: the waker did not notify");
      } while (res === "ok" && Atomics.load(p, 0) === r - 1); // "ok" before the notify (once in Firefox): not a wake-up
      if (res === "ok") delays.push(performance.timeOrigin + now() - t[2 * r]); // not "not-equal"
      Atomics.store(p, 2, res === "ok" ? 1 : 0); // (see worker.js's wakeSleeper)
      Atomics.store(p, 1, r);
      Atomics.notify(p, 1);
    }
    await waking;
    return Math.max(...delays);
  });
  return { maxMs: result };
}

// pageContends' loop without the lock: the longest gap between the starts of
// two turns (ms), not counting its own sleep(0)s. No lockAsync wait on the
// page can be shorter than the longest time the page goes unscheduled.
async function pageDescheduled(c, holdIters) {
  let prev = now(), maxGapMs = 0, count = 0, sink = 0;
  while (Atomics.load(c, STOP) === 0) {
    const t = now();
    if (t - prev > maxGapMs) maxGapMs = t - prev;
    prev = t;
    let x = 0;
    for (let i = 0; i < holdIters; i++) x = (Math.imul(x, 31) + i) | 0; // (as worker.js's spinWork)
    sink = (sink + x) | 0;
    count++;
    if (count % 16 === 0) {
      await sleep(0);
      prev = now();
    }
  }
  return maxGapMs + (sink & 0);
}

async function gzipBytes(buf, format) {
  try {
    const stream = new Blob([buf]).stream().pipeThrough(new CompressionStream(format));
    return (await new Response(stream).arrayBuffer()).byteLength;
  } catch {
    return null; // this browser lacks the format
  }
}

// The whole suite. quick: fewer and shorter repetitions, for the browser test
// that checks the suite still runs.
// only: a list of sections to run (uncontended, contended, fairness,
// handoff, family, channel, pool, matrix, footprint, names, queued); all by default; and
// the opt-in ones, counter and lockq.
export async function runBench({ quick = false, only = null, log = () => {} } = {}) {
  const want = (section) => !only || only.includes(section);
  await sabmutex.init();
  const reps = quick ? 2 : 7;
  const ms = quick ? 50 : 300;
  const res = {
    date: new Date().toISOString(),
    browser: navigator.userAgent,
    cores: navigator.hardwareConcurrency,
    metrics: [],
    histograms: {},
    notes: [],
  };
  const add = (m) => {
    res.metrics.push(m);
    log(m);
  };
  const ws = await startWorkers(4); // for what takes no mutex: calibration, Web Locks, the floors
  const pools = workerPools(); // for the mutexes: workers of one implementation each
  // Loop turns of spinWork (worker.js) that take about us µs in a worker.
  const { itersPerUs } = await ws[0].call("calibrate", {});
  const calibrate = (us) => Math.max(1, Math.round(itersPerUs * us));
  const both = ["sabmutex", "baseline"];
  const implName = (i) => (i === "baseline" ? "js" : i);

  // 1. Uncontended pairs in a worker. "owned" is the baseline plus sabmutex's
  // holder slot (jsmutex.js): the floor under these rows for a mutex that
  // keeps owner checks.
  const n = quick ? 1e5 : 1e6;
  // "closure": the seed article's closure-shaped mutex (jsmutex.js), the
  // second yardstick, beside the class-shaped baseline in the same rows.
  const withOwned = [...both, "owned", "closure"];
  // "debug": sabmutex in workers in debug mode (README, "Debugging"), in the
  // worker rows: what debug mode costs where it is on.
  const withDebug = [...withOwned, "debug"];
  const uncontendedNames = { lock: "lock()+unlock(), uncontended, worker", tryLock: "tryLock()+unlock(), uncontended, worker", tryLockHeld: "tryLock() of a held mutex (fails), worker" };
  if (want("uncontended")) for (const what of ["lock", "tryLock", "tryLockHeld"]) {
    // Each repetition in a new worker (a worker keeps its speed for its
    // life: see family.js), its loop run 5 times untimed first: WebKit moves
    // these loops between its tiers over their first few calls, fast at
    // first, and the rows measure the settled loops (how many calls, and
    // how much faster: docs/decisions/workers-of-one-implementation.md).
    const warmRuns = quick ? 1 : 5;
    const r = await compare(withDebug, reps, (impl) => pools.once(async (w) => (await w.call("uncontended", { impl: implName(impl), what, n: impl === "debug" ? n / 10 : n, warmRuns })).nsPerOp, impl === "debug"), 0);
    if (what === "lock") {
      r.weblocks = (await compare(["weblocks"], quick ? 2 : 5, async () => (await ws[0].call("weblocksUncontended", { n: quick ? 50 : 300 })).nsPerOp)).weblocks;
    }
    add({ id: `uncontended-${what}`, name: uncontendedNames[what], unit: "ns", better: "lower", ...r, target: { ratioMax: 1.15 } });
  }

  // 2. Uncontended await lockAsync()+unlock() on the main thread.
  if (want("uncontended")) {
    const sab = new SharedArrayBuffer(64);
    const mutexes = { sabmutex: mutexOf("sabmutex", sab, 1), baseline: mutexOf("js", sab, 4), owned: mutexOf("owned", sab, 7), closure: mutexOf("closure", sab, 10) };
    const k = quick ? 2e4 : 2e5;
    const r = await compare(withOwned, reps, async (impl) => (await pageLoops(impl)).lockAsyncPairs(mutexes[impl], k));
    r.weblocks = (
      await compare(["weblocks"], quick ? 2 : 5, async () => {
        const k = quick ? 50 : 300;
        const t = now();
        for (let i = 0; i < k; i++) await navigator.locks.request("bench-main", () => {});
        return ((now() - t) * 1e6) / k;
      })
    ).weblocks;
    add({ id: "main-lockAsync", name: "await lockAsync()+unlock(), uncontended, main thread", unit: "ns", better: "lower", ...r, target: { ratioMax: 1.1 } });
  }

  // Names (#44): await sabmutex.locks.request(name, () => {}) on the page,
  // alternated with navigator.locks.request of the same shape; and a
  // worker's locks.requestSync(name, fn) against withLock(fn) of an RWMutex
  // at an index (the lock requestSync takes by name), each with a new fn.
  if (want("names")) {
    const k = quick ? 200 : 20000; // (a run of 2000 was too short to see the JIT's last tier in Firefox)
    const request = async (locks, n) => {
      const t = now();
      for (let i = 0; i < n; i++) await locks.request("bench-names", () => {});
      return ((now() - t) * 1e6) / n;
    };
    const r = await compare(["sabmutex", "weblocks"], quick ? 2 : 5, (impl) => (impl === "sabmutex" ? request(sabmutex.locks, k) : request(navigator.locks, quick ? 50 : 300)));
    add({ id: "names-request", name: "await locks.request(name, () => {}), uncontended, main thread", unit: "ns", better: "lower", ...r, target: { weblocksTimesMin: 100 } }); // (#44, #52: ≥ 100× navigator.locks)
    const n = quick ? 1e4 : 2e5;
    const sab = new SharedArrayBuffer(64);
    const s = await compare(["requestSync", "index"], reps, async (impl) => (await ws[1].call("locksSync", { impl, n, sab })).nsPerOp);
    add({ id: "names-requestSync", name: "locks.requestSync(name, fn) (sabmutex) vs RWMutex withLock(fn) at an index (JS baseline), worker", unit: "ns", better: "lower", sabmutex: s.requestSync, baseline: s.index, target: { ratioMax: 1.5 } });

    // Workers contending on one name (#52): 2 and 4 workers, each turn a
    // requestSync of the name (granted in the name's queue, first come first
    // served) or withLock of an RWMutex at an index (the same loop), in
    // workers of one implementation each, alternated. The queue hands the
    // lock to the waiter at the head at every release, which then has to
    // wake up; the RWMutex lets the releaser take it again. The hand-off
    // rows say how often a grant went to another worker than the last.
    for (const k of [2, 4]) {
      const shares = { requestSync: [], index: [] };
      const rate = await compare(["requestSync", "index"], reps, async (impl) => {
        const r = await locksContend(await pools.pool(`locks-${impl}`, k), impl, `bench-contend ${k}`, ms);
        shares[impl].push(r.handoffs / r.total);
        return r.perSec / 1e3;
      });
      const counted = (xs) => stats(xs.slice(1)); // (the first is compare's warm-up round)
      add({ id: `names-contended-${k}`, name: `locks.requestSync(name, fn) (sabmutex) vs RWMutex withLock(fn) at an index (JS baseline), ${k} workers on one lock`, unit: "k/s", better: "higher", sabmutex: rate.requestSync, baseline: rate.index });
      add({ id: `names-handoffs-${k}`, name: `the same, ${k} workers: grants to another worker than the last, of all grants`, unit: "share", better: "neither", sabmutex: counted(shares.requestSync), baseline: counted(shares.index) });
    }

    // A primitive by name, once looked up, is the primitive at an index:
    // the same loops over Mutex.named(name) and over a Mutex at an index of
    // a buffer of the worker's own, alternated, each repetition in a new
    // worker (as the uncontended rows) and on the page.
    const warmRuns = quick ? 1 : 5;
    const pairs = quick ? 1e5 : 1e6, asyncPairs = quick ? 2e4 : 2e5;
    const named = await compare(["named", "index"], reps, (impl) => pools.once(async (w) => (await w.call("namedPairs", { impl, n: pairs, warmRuns })).nsPerOp));
    add({ id: "names-lock", name: "Mutex.named(name) lock()+unlock() (sabmutex) vs the Mutex at an index (JS baseline), uncontended, worker", unit: "ns", better: "lower", sabmutex: named.named, baseline: named.index, target: { ratioMax: 1.05 } });
    const byName = sabmutex.Mutex.named("bench-named"), atIndex = new sabmutex.Mutex(new SharedArrayBuffer(64), 3);
    const loops = await pageLoops("named"); // (one copy of the loop for both: the same class)
    const page = await compare(["named", "index"], reps, (impl) => loops.lockAsyncPairs(impl === "named" ? byName : atIndex, asyncPairs));
    add({ id: "names-lockAsync", name: "Mutex.named(name) await lockAsync()+unlock() (sabmutex) vs the Mutex at an index (JS baseline), uncontended, main thread", unit: "ns", better: "lower", sabmutex: page.named, baseline: page.index, target: { ratioMax: 1.05 } });

    // The first lookup of a name in a new agent (a worker that joined; the
    // page made the names): the agent's first call of Mutex.named (its code
    // cold too), and each of the next names new to it (its code warm).
    const lookups = quick ? 20 : 100;
    for (let i = 0; i < lookups + 1; i++) sabmutex.Mutex.named(`bench-lookup ${i}`);
    const first = await compare(["first", "next"], quick ? 2 : 5, (impl) => pools.once(async (w) => (await w.call("namedLookups", { lookups }))[impl]), 0);
    add({ id: "names-first-lookup", name: "first Mutex.named(name) in a new worker, a name the page made", unit: "µs", better: "lower", sabmutex: first.first });
    add({ id: "names-new-lookup", name: "Mutex.named(name) of a name new to a worker, after its first", unit: "µs", better: "lower", sabmutex: first.next });
  }

  // Tasks queued on one lock in one agent (#60): QUEUED tasks of the page
  // made at once, each granted in turn (a hand-off between tasks of the
  // page), by locks.request(name, cb), by Mutex.lockAsync() then unlock(),
  // by async-mutex's runExclusive (the npm mutex, in-page: the yardstick),
  // and by navigator.locks.request; alternated, µs a task.
  if (want("queued")) {
    const r = await compare(["request", "lockAsync", "asyncMutex", "weblocks"], quick ? 2 : 5, queuedTasks(quick ? 200 : QUEUED));
    const row = (what, name, sab) => add({ id: `queued-${what}`, name: `${QUEUED} tasks of the page queued on one lock, each granted in turn: ${name} (sabmutex) vs async-mutex runExclusive (baseline)`, unit: "µs", better: "lower", sabmutex: sab, baseline: r.asyncMutex, weblocks: r.weblocks, target: { ratioMax: 1.0 } });
    row("request", "locks.request(name, cb)", r.request);
    row("lockAsync", "Mutex.lockAsync() then unlock()", r.lockAsync);
  }

  // What an uncontended requestSync's calls into Go cost (#52), only when
  // asked for (-only lockq): the core's OP_LOCK_REQUEST and OP_LOCK_RELEASE
  // (with the request's text) beside two calls into Go that each do a
  // compare-and-swap (OP_TRY_LOCK, OP_UNLOCK), an RWMutex's tryLock()+unlock()
  // in the glue, and requestSync itself; each repetition in a new worker
  // (worker.js, lockqParts).
  if (only && only.includes("lockq")) {
    const parts = ["pair", "go", "glue", "requestSync"];
    const r = await compare(parts, reps, (impl) => pools.once(async (w) => (await w.call("lockqParts", { impl, n: quick ? 1e4 : 2e5, warmRuns: quick ? 1 : 3 })).nsPerOp), 0);
    add({ id: "lockq-pair", name: "OP_LOCK_REQUEST+OP_LOCK_RELEASE (sabmutex) vs RWMutex tryLock()+unlock() in the glue (JS baseline), uncontended, worker", unit: "ns", better: "lower", sabmutex: r.pair, baseline: r.glue });
    add({ id: "lockq-go", name: "OP_TRY_LOCK+OP_UNLOCK of a Mutex through Go (sabmutex) vs RWMutex tryLock()+unlock() in the glue (JS baseline), uncontended, worker", unit: "ns", better: "lower", sabmutex: r.go, baseline: r.glue });
    add({ id: "lockq-requestSync", name: "locks.requestSync(name, () => {}) (sabmutex) vs OP_LOCK_REQUEST+OP_LOCK_RELEASE (JS baseline), uncontended, worker", unit: "ns", better: "lower", sabmutex: r.requestSync, baseline: r.pair });
  }

  // 3. Contended throughput (and 6: Web Locks at 2 workers).
  if (want("contended")) for (const k of [2, 4]) {
    // "owned": the floor, as in the uncontended rows; "unwatched": sabmutex
    // in workers whose waits are not watched (startWorkers), the floor the
    // watch's timed sleeps stand on (docs/decisions/watch-ticker.md).
    const impls = [...withDebug, "unwatched", ...(k === 2 ? ["weblocks"] : [])];
    const r = await compare(impls, reps, async (impl) => (await contend(await pools.pool(implName(impl), k), implName(impl), ms)).perSec / 1e6);
    add({ id: `contended-${k}`, name: `contended throughput, ${k} workers`, unit: "M/s", better: "higher", ...r, target: { ratioMin: 1 } });
  }

  // 4. Fairness: 3 workers holding the lock ~2 µs each time, for 1 s.
  if (want("fairness")) {
    const holdIters = calibrate(2);
    const ratio = { sabmutex: [], baseline: [] };
    const longest = { sabmutex: [], baseline: [] };
    for (let r = 0; r < (quick ? 1 : 5); r++) {
      for (const impl of both) {
        const { rs } = await contend(await pools.pool(implName(impl), 3), implName(impl), quick ? 100 : 1000, { holdIters, timeWaits: true });
        const counts = rs.map((x) => x.count);
        ratio[impl].push(Math.min(...counts) / Math.max(...counts));
        longest[impl].push(Math.max(...rs.map((x) => x.maxWaitMs)));
        if (r === 0) res.histograms[impl] = histogram(rs.flatMap((x) => x.waits));
      }
    }
    add({ id: "fairness-ratio", name: "fairness: acquisitions min/max, 3 workers", unit: "ratio", better: "higher", sabmutex: stats(ratio.sabmutex), baseline: stats(ratio.baseline) });
    add({ id: "fairness-longest-wait", name: "fairness: longest single wait, 3 workers", unit: "ms", better: "lower", sabmutex: stats(longest.sabmutex), baseline: stats(longest.baseline), target: { ratioMax: 0.5 } });
    // The floor under those waits: the same 3 workers and work, no lock; the
    // longest time the machine left one of them unscheduled.
    const gaps = [];
    for (let r = 0; r < (quick ? 1 : 5); r++) gaps.push((await descheduled(ws.slice(0, 3), holdIters, quick ? 100 : 1000)).workers);
    res.deschedFloor = { workers: 3, maxGapMs: stats(gaps) };
    // And the page's: the same 3 workers, and the page's loop, no lock.
    const pageGaps = [];
    for (let r = 0; r < (quick ? 1 : 3); r++) pageGaps.push((await descheduled(ws.slice(0, 3), holdIters, quick ? 100 : 1000, true)).page);
    res.deschedFloor.pageMaxGapMs = stats(pageGaps);
    if (typeof Atomics.waitAsync === "function") {
      const wake = [];
      for (let r = 0; r < (quick ? 1 : 3); r++) wake.push((await pageWakeDelays(ws.slice(0, 3), ws[3], holdIters, quick ? 50 : 1000)).maxMs);
      res.deschedFloor.pageWakeMaxMs = stats(wake);
    }
    // The same with the page taking part through lockAsync: its longest wait.
    const page = { sabmutex: [], baseline: [] };
    for (let r = 0; r < (quick ? 1 : 3); r++) {
      for (const impl of both) {
        const { rs } = await contend(await pools.pool(implName(impl), 3), implName(impl), quick ? 100 : 1000, { holdIters }, true);
        page[impl].push(rs.main.maxWaitMs);
      }
    }
    add({ id: "fairness-page-wait", name: "fairness: page's longest lockAsync wait, vs 3 workers", unit: "ms", better: "lower", sabmutex: stats(page.sabmutex), baseline: stats(page.baseline), target: { ratioMax: 1 } });
  }

  // 5. Hand-off from a worker to the main thread's lockAsync.
  if (want("handoff")) {
    const rounds = quick ? 20 : 200;
    const p50 = { sabmutex: [], baseline: [] };
    const p99 = { sabmutex: [], baseline: [] };
    const max = { sabmutex: [], baseline: [] };
    for (let r = 0; r < reps; r++) {
      for (const impl of both) {
        const lat = await handoff((await pools.pool(implName(impl), 1))[0], implName(impl), rounds);
        p50[impl].push(percentile(lat, 50));
        p99[impl].push(percentile(lat, 99));
        max[impl].push(Math.max(...lat));
      }
    }
    add({ id: "handoff-p50", name: "hand-off worker → main thread, p50", unit: "µs", better: "lower", sabmutex: stats(p50.sabmutex), baseline: stats(p50.baseline), target: { ratioMax: 1.2 } });
    add({ id: "handoff-p99", name: "hand-off worker → main thread, p99", unit: "µs", better: "lower", sabmutex: stats(p99.sabmutex), baseline: stats(p99.baseline) });
    add({ id: "handoff-max", name: "hand-off worker → main thread, max", unit: "µs", better: "lower", sabmutex: stats(max.sabmutex), baseline: stats(max.baseline) });
  }
  ws.forEach((w) => w.terminate());
  pools.terminate();

  // The rest of the family beside plain-JS versions (family.js).
  if (want("family")) await runFamily({ workerPools, compare, calibrate, quick, add, note: (s) => res.notes.push(s) });
  // The Channel beside postMessage, the textbook queue and multithreading's
  // channel (chan.js).
  if (want("channel")) await runChannel({ workerPools, compare, quick, add, note: (s) => res.notes.push(s) });
  // A worker pool's shape over the Channel, postMessage and the textbook
  // queue (pool.js).
  if (want("pool")) await runPool({ workerPools, compare, quick, add });
  // The same shape with a real pool: workerpool's exec beside the Channel
  // (workerpool.js).
  if (want("pool")) await runWorkerpool({ compare, quick, add });

  // 6. The contention matrix, and the floor under its waits.
  if (want("matrix")) res.wakeFloor = await wakeFloor(startWorkers, quick ? 200 : 3000);
  // Only the counter++ row, 2, 4 and 8 workers, 7 repetitions (-only counter):
  // 30 s to try a change to the contended path.
  if (only && only.includes("counter")) res.matrix = await runMatrix({ startWorkers, mutexOf, calibrate, reps: 7, durationMs: 200, workerCounts: [2, 4, 8], critical: ["inc"], log });
  if (want("matrix")) res.matrix = await runMatrix({
    startWorkers,
    mutexOf,
    calibrate,
    reps: quick ? 1 : 3,
    durationMs: quick ? 40 : 250,
    workerCounts: quick ? [2] : [2, 4, 8],
    log,
  });

  // 7. Footprint.
  if (want("footprint")) {
    const init = [], mem = [];
    for (let r = 0; r < (quick ? 2 : 5); r++) {
      const w = startWorker();
      const x = await w.call("init", sabmutex.forWorker());
      init.push(x.initMs);
      mem.push(x.memoryBytes);
      w.terminate();
    }
    add({ id: "init-worker", name: "init() in a worker, given forWorker()", unit: "ms", better: "lower", sabmutex: stats(init), target: { max: 5 } });
    add({ id: "memory-agent", name: "Go linear memory per agent after init", unit: "MiB", better: "lower", sabmutex: stats(mem.map((b) => b / 2 ** 20)), target: { max: 4 } });
    const wasm = await (await fetch("/dist/sabmutex.wasm")).arrayBuffer();
    const one = (v) => (v === null ? null : stats([v / 1e6]));
    add({ id: "wasm-raw", name: "sabmutex.wasm, raw", unit: "MB", better: "lower", sabmutex: one(wasm.byteLength), target: { max: 2.0 } });
    add({ id: "wasm-gzip", name: "sabmutex.wasm, gzip", unit: "MB", better: "lower", sabmutex: one(await gzipBytes(wasm, "gzip")) });
    add({ id: "wasm-brotli", name: "sabmutex.wasm, brotli", unit: "MB", better: "lower", sabmutex: one(await gzipBytes(wasm, "brotli")) });
  }
  return res;
}

// One worker holds the lock until the page waits for it, releases it, and
// the page measures how long its lockAsync took to resolve after that, in µs.
async function handoff(w, impl, rounds) {
  const sab = new SharedArrayBuffer(64);
  const times = new SharedArrayBuffer(8 * (rounds + 1));
  const loops = await pageLoops(impl);
  const done = w.call("handoff", { impl, sab, times, rounds });
  const lat = await loops.handoffLoop(mutexOf(impl, sab, MUTEX), new Int32Array(sab), new Float64Array(times), { round: ROUND, done: START }, rounds);
  await done;
  return lat;
}

// Wait times in buckets of powers of two microseconds.
function histogram(waitsMs) {
  const buckets = new Array(16).fill(0);
  for (const w of waitsMs) buckets[Math.min(15, Math.max(0, Math.ceil(Math.log2(Math.max(1, w * 1000)))))]++;
  return buckets;
}
