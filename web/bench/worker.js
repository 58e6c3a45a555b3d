// Benchmark worker (a module worker): runs one measurement per message and
// posts back its figures. The page (bench.js) orchestrates.
import * as sabmutex from "/dist/sabmutex.mjs";
import { JsMutex, JsOwnedMutex, makeClosureMutex } from "./jsmutex.js";
import { M } from "./matrix.js";

const now = () => performance.now();

// A worker runs one implementation, as a user's workers use one mutex class:
// its call sites then see one class (bench.js's workerPools says why).
let implOfWorker = null;

function mutexOf(impl, sab, index) {
  if ((implOfWorker ??= impl) !== impl) throw new Error(`bench: this worker runs ${implOfWorker}, not ${impl}: give each implementation workers of its own`);
  if (impl === "owned") return new JsOwnedMutex(sab, index, sabmutex.agentId);
  if (impl === "closure") return makeClosureMutex(sab, index);
  return impl === "sabmutex" || impl === "unwatched" || impl === "debug" ? new sabmutex.Mutex(sab, index) : new JsMutex(sab, index); // unwatched, debug: bench.js's startWorkers
}

// Busy work of about `iters` loop turns, the same for every implementation.
// Its result must be used (callers add it to a sink they return): V8 drops
// the arithmetic of a result nobody reads, and the loop then runs several
// times faster than calibrated. The multiply is Math.imul: with `x * 31`
// V8 ran the loop several times faster in some workers than in others (a
// float multiply in one tier, an integer one in the next), and the workers
// of one implementation could do a fraction of the other's work per turn
// (the figures: docs/decisions/workers-of-one-implementation.md).
function spinWork(iters) {
  let x = 0;
  for (let i = 0; i < iters; i++) x = (Math.imul(x, 31) + i) | 0;
  return x;
}

// Slots of the control buffer the page shares (see bench.js).
const START = 0, STOP = 1, COUNTER = 2, MUTEX = 3, ROUND = 5; // MUTEX takes 3 and 4 (Mutex.SLOTS)
// locksContend's: START, STOP and COUNTER as above, the last worker to hold
// the lock, and the RWMutex (RWMutex.SLOTS, 4).
const LAST = 3, LOCKS_RW = 8;

// The registry's buffer this worker was given (forWorker()), for lockqParts.
let registryOfWorker = null;

// The uncontended loops, a function each, as a user's loop is its own.
function lockLoop(m, n) {
  for (let i = 0; i < n; i++) { m.lock(); m.unlock(); }
}

function tryLockLoop(m, n) {
  for (let i = 0; i < n; i++) { m.tryLock(); m.unlock(); }
}

// tryLock of a mutex this worker holds: every call fails (the loop of a
// worker that tries, then does something else).
function tryLockHeldLoop(m, n) {
  let taken = 0;
  for (let i = 0; i < n; i++) if (m.tryLock()) taken++;
  if (taken !== 0) throw new Error(`bench: tryLock took a held mutex ${taken} times`);
}

const ops = {
  // Loop turns of spinWork per µs in a worker, where the critical sections
  // run, timed as they call it (short calls, in a loop, the result used) and
  // at its fastest of 30 rounds: the engine moves the loop up its tiers as
  // it runs. (Timing one long call instead read the loop far slower than
  // the short calls run in Chromium, and the page's own loop, timed once
  // and cold, made its sections far shorter than said: the figures in
  // docs/decisions/workers-of-one-implementation.md.)
  calibrate() {
    const calls = 5000, iters = 200;
    let sink = 0, bestMs = Infinity;
    for (let r = 0; r < 30; r++) {
      const t = now();
      for (let i = 0; i < calls; i++) sink = (sink + spinWork(iters)) | 0;
      bestMs = Math.min(bestMs, now() - t);
    }
    return { itersPerUs: (calls * iters) / (bestMs * 1000), sink };
  },

  async init(received) {
    registryOfWorker = received.registry ?? null;
    const t = now();
    await sabmutex.init(received); // forWorker()'s, and a name
    return { initMs: now() - t, memoryBytes: sabmutex.memoryBytes() };
  },

  // Uncontended pairs, lock+unlock or tryLock+unlock, or a tryLock of a
  // held mutex (tryLockHeld): ns per pair or call.
  // warmRuns: untimed runs of the loop first (a new worker's loops settle).
  uncontended({ impl, what, n, warmRuns = 0 }) {
    const m = mutexOf(impl, new SharedArrayBuffer(64), 3);
    const loop = what === "lock" ? lockLoop : what === "tryLock" ? tryLockLoop : tryLockHeldLoop;
    if (what === "tryLockHeld") m.lock();
    for (let r = 0; r < warmRuns; r++) loop(m, n);
    const t = now();
    loop(m, n);
    return { nsPerOp: ((now() - t) * 1e6) / n };
  },

  // The floor under the fairness rows' longest waits: contend's timed loop
  // with no lock at all. The longest gap between the starts of two turns is
  // the longest time the machine kept this worker from running (ms): no
  // lock can give a waiter a shorter worst case than that.
  deschedule({ sab, holdIters }) {
    const c = new Int32Array(sab);
    if (Atomics.wait(c, START, 0, 10000) === "timed-out") throw new Error("no start signal");
    let prev = now(), maxGapMs = 0, count = 0, sink = 0;
    while (Atomics.load(c, STOP) === 0) {
      const t = now();
      if (t - prev > maxGapMs) maxGapMs = t - prev;
      prev = t;
      sink = (sink + spinWork(holdIters)) | 0;
      count++;
    }
    return { count, maxGapMs, sink };
  },

  // locks.requestSync(name, fn) (through the name's lock request queue) against
  // withLock(fn) of an RWMutex at an index, n of each, fn empty (the
  // issue's yardstick, #44).
  async locksSync({ impl, n, sab }) {
    const t = now();
    if (impl === "requestSync") {
      for (let i = 0; i < n; i++) sabmutex.locks.requestSync("bench-sync", () => {});
    } else {
      const rw = new sabmutex.RWMutex(sab, 0);
      for (let i = 0; i < n; i++) rw.withLock(() => {});
    }
    return { nsPerOp: ((now() - t) * 1e6) / n };
  },

  // Workers contending on one lock (#52), from START until STOP: each turn
  // takes it, notes a hand-off if the last turn was another worker's,
  // increments the counter, and lets it go. locks.requestSync(name, fn)
  // grants in its name's queue in shared memory (first come, first served:
  // a waiter is served before the releaser asks again); withLock(fn) of an
  // RWMutex at an index lets the releaser take it again at once. fn is new
  // each turn in both, as in locksSync. me: this worker's number, from 1.
  locksContend({ impl, sab, me, name }) {
    const c = new Int32Array(sab);
    const rw = impl === "index" ? new sabmutex.RWMutex(sab, LOCKS_RW) : null;
    if (Atomics.wait(c, START, 0, 10000) === "timed-out") throw new Error("no start signal");
    let count = 0, handoffs = 0;
    if (impl === "requestSync") {
      while (Atomics.load(c, STOP) === 0) {
        sabmutex.locks.requestSync(name, () => {
          if (Atomics.exchange(c, LAST, me) !== me) handoffs++;
          Atomics.store(c, COUNTER, Atomics.load(c, COUNTER) + 1);
        });
        count++;
      }
    } else {
      while (Atomics.load(c, STOP) === 0) {
        rw.withLock(() => {
          if (Atomics.exchange(c, LAST, me) !== me) handoffs++;
          Atomics.store(c, COUNTER, Atomics.load(c, COUNTER) + 1);
        });
        count++;
      }
    }
    return { count, handoffs };
  },

  // What an uncontended requestSync's calls into Go cost (the opt-in
  // section "lockq", bench.js): n turns of one of
  //   pair: the core's OP_TEXT (the request's text written), OP_LOCK_REQUEST
  //     and OP_LOCK_RELEASE, as locks.js calls them, without the rest of
  //     requestSync (parsing, the Lock, the callback);
  //   go: OP_TRY_LOCK and OP_UNLOCK of a Mutex, straight to Go: two calls
  //     into the module that each do one compare-and-swap;
  //   glue: tryLock()+unlock() of an RWMutex in the glue (no Go call);
  //   requestSync: locks.requestSync(name, () => {}).
  // ns per turn, after warmRuns untimed runs.
  lockqParts({ impl, n, warmRuns = 0 }) {
    const { core, P, handleOf } = sabmutex.default[Symbol.for("sabmutex.internals")](); // (the glue's own, as browsertest's harness.js reaches them)
    const mem = handleOf(registryOfWorker);
    const reg = new Int32Array(registryOfWorker);
    const table = Atomics.load(reg, P.REGISTRY_NAMES);
    const name = "bench-lockq";
    const own = new SharedArrayBuffer(64);
    const h = handleOf(own);
    const rw = new sabmutex.RWMutex(own, 8);
    const loop = {
      pair(n) {
        for (let i = 0; i < n; i++) {
          const bytes = 8 + 2 * name.length;
          const text = new DataView(core.mem.buffer, core.call(P.OP_TEXT, mem, 0, bytes, 0), bytes);
          text.setInt32(0, P.LOCK_EXCLUSIVE, true);
          text.setInt32(4, 0, true);
          for (let u = 0; u < name.length; u++) text.setUint16(8 + 2 * u, name.charCodeAt(u), true);
          const r = core.call(P.OP_LOCK_REQUEST, mem, table, bytes, 0);
          if (r < 0 || Atomics.load(reg, r) !== P.LOCK_GRANTED) throw new Error(`bench: OP_LOCK_REQUEST answered ${r}, not a granted record`);
          if (core.call(P.OP_LOCK_RELEASE, mem, r, 0, 0) !== P.RESULT_OK) throw new Error("bench: OP_LOCK_RELEASE failed");
        }
      },
      go(n) {
        for (let i = 0; i < n; i++) {
          if (core.call(P.OP_TRY_LOCK, h, 0, 0, 0) !== P.RESULT_OK) throw new Error("bench: OP_TRY_LOCK failed");
          core.call(P.OP_UNLOCK, h, 0, 0, 0);
        }
      },
      glue(n) {
        for (let i = 0; i < n; i++) { rw.tryLock(); rw.unlock(); }
      },
      requestSync(n) {
        for (let i = 0; i < n; i++) sabmutex.locks.requestSync(name, () => {});
      },
    }[impl];
    for (let r = 0; r < warmRuns; r++) loop(n);
    const t = now();
    loop(n);
    return { nsPerOp: ((now() - t) * 1e6) / n };
  },

  // lock()+unlock() pairs, uncontended, of Mutex.named("bench-named")
  // (looked up before the loop) or of a Mutex at an index of a buffer of
  // this worker's own: the same loop (lockLoop), n of each. ns per pair.
  namedPairs({ impl, n, warmRuns = 0 }) {
    const m = impl === "named" ? sabmutex.Mutex.named("bench-named") : new sabmutex.Mutex(new SharedArrayBuffer(64), 3);
    for (let r = 0; r < warmRuns; r++) lockLoop(m, n);
    const t = now();
    lockLoop(m, n);
    return { nsPerOp: ((now() - t) * 1e6) / n };
  },

  // The first lookups of names in this worker (new, joined): of "bench-lookup
  // 0" (this agent's first, µs), then of the next `lookups` names (µs each).
  // The page made them all.
  namedLookups({ lookups }) {
    let t = now();
    sabmutex.Mutex.named("bench-lookup 0");
    const first = (now() - t) * 1000;
    t = now();
    for (let i = 1; i <= lookups; i++) sabmutex.Mutex.named(`bench-lookup ${i}`);
    return { first, next: ((now() - t) * 1000) / lookups };
  },

  async weblocksUncontended({ n }) {
    const t = now();
    for (let i = 0; i < n; i++) await navigator.locks.request("bench-uncontended", () => {});
    return { nsPerOp: ((now() - t) * 1e6) / n };
  },

  // Contention: locked non-atomic increments from START until STOP. With
  // holdIters, busy work inside the lock, and the waits are timed.
  async contend({ impl, sab, holdIters, timeWaits }) {
    const c = new Int32Array(sab);
    if (Atomics.wait(c, START, 0, 10000) === "timed-out") throw new Error("no start signal");
    let count = 0, maxWaitMs = 0, sink = 0;
    const waits = [];
    if (impl === "weblocks") {
      while (Atomics.load(c, STOP) === 0) {
        await navigator.locks.request("bench-contended", () => {
          Atomics.store(c, COUNTER, Atomics.load(c, COUNTER) + 1);
        });
        count++;
      }
      return { count };
    }
    const m = mutexOf(impl, sab, MUTEX);
    if (!timeWaits) {
      while (Atomics.load(c, STOP) === 0) {
        m.lock();
        Atomics.store(c, COUNTER, Atomics.load(c, COUNTER) + 1);
        m.unlock();
        count++;
      }
      return { count };
    }
    while (Atomics.load(c, STOP) === 0) {
      const t = now();
      m.lock();
      const w = now() - t;
      if (w > maxWaitMs) maxWaitMs = w;
      if (waits.length < 20000) waits.push(w);
      Atomics.store(c, COUNTER, Atomics.load(c, COUNTER) + 1);
      sink = (sink + spinWork(holdIters)) | 0;
      m.unlock();
      count++;
    }
    return { count, maxWaitMs, waits, sink };
  },

  // The contention matrix (matrix.js): from START until STOP, lock, busy
  // work, a plain increment of the counter, unlock, as users write it. With
  // timeWaits, each wait is timed (µs).
  matrix({ impl, sab, holdIters, timeWaits }) {
    const c = new Int32Array(sab);
    const m = mutexOf(impl, sab, M.MUTEX);
    if (Atomics.wait(c, M.START, 0, 10000) === "timed-out") throw new Error("no start signal");
    let count = 0, sink = 0;
    if (!timeWaits) {
      while (Atomics.load(c, M.STOP) === 0) {
        m.lock();
        sink = (sink + spinWork(holdIters)) | 0;
        c[M.COUNTER] = c[M.COUNTER] + 1;
        m.unlock();
        count++;
      }
      return { count, sink };
    }
    const waitsUs = new Float64Array(50000);
    let workMs = 0, worked = 0; // every 64th critical section's busy work, timed: is it what was asked for?
    while (Atomics.load(c, M.STOP) === 0) {
      const t = now();
      m.lock();
      if (count < waitsUs.length) waitsUs[count] = (now() - t) * 1000;
      if ((count & 63) === 0) {
        const w = now();
        sink = (sink + spinWork(holdIters)) | 0;
        workMs += now() - w;
        worked++;
      } else sink = (sink + spinWork(holdIters)) | 0;
      c[M.COUNTER] = c[M.COUNTER] + 1;
      m.unlock();
      count++;
    }
    return { count, waitsUs: waitsUs.subarray(0, Math.min(count, waitsUs.length)), workUs: (workMs * 1000) / worked, sink };
  },

  // The wake-up floor (matrix.js): the sleeper sleeps in Atomics.wait for
  // round r; the waker, at a random gap once it sleeps, notes the time and
  // notifies; the sleeper notes when it runs. times[2r], times[2r+1]: epoch ms.
  // A round whose notify came before the sleeper was asleep ("not-equal")
  // has no time; the sleeper says so in c[2], and the waker then leaves it
  // longer (Firefox's sleepers are often not back asleep at the shortest
  // gaps: with a fixed gap, few rounds slept at all; the figures in
  // docs/decisions/workers-of-one-implementation.md).
  wakeSleeper({ sab, times, rounds }) {
    const c = new Int32Array(sab);
    const t = new Float64Array(times);
    for (let r = 1; r <= rounds; r++) {
      let res;
      do res = Atomics.wait(c, 0, r - 1, 5000);
      while (res === "ok" && Atomics.load(c, 0) === r - 1); // "ok" before the notify (as bench.js's pageWakeDelays saw once): not a wake-up
      t[2 * r + 1] = res === "ok" ? performance.timeOrigin + now() : NaN;
      Atomics.store(c, 2, res === "ok" ? 1 : 0);
      Atomics.store(c, 1, r);
      Atomics.notify(c, 1);
    }
    return {};
  },
  wakeWaker({ sab, times, rounds }) {
    const c = new Int32Array(sab);
    const t = new Float64Array(times);
    let gapMs = 0.1; // the shortest gap; doubled (to 2 ms at most) after a round the sleeper missed
    for (let r = 1; r <= rounds; r++) {
      const until = now() + gapMs * (1 + 3 * Math.random()); // the sleeper is asleep by then
      while (now() < until);
      t[2 * r] = performance.timeOrigin + now();
      Atomics.store(c, 0, r);
      Atomics.notify(c, 0, 1);
      if (Atomics.wait(c, 1, r - 1, 5000) === "timed-out") throw new Error("the sleeper did not answer");
      if (Atomics.load(c, 2) === 0) gapMs = Math.min(2, gapMs * 2);
    }
    return {};
  },

  // Hand-off: hold the lock until the page waits for it, then release and
  // say when (in ms since the epoch, the page's clock too).
  handoff({ impl, sab, times, rounds }) {
    const c = new Int32Array(sab);
    const at = new Float64Array(times);
    const m = mutexOf(impl, sab, MUTEX);
    for (let r = 1; r <= rounds; r++) {
      m.lock();
      Atomics.store(c, ROUND, r);
      Atomics.notify(c, ROUND);
      const deadline = now() + 5000;
      while ((Atomics.load(c, MUTEX) & 3) !== 2) { // contended (2) in both protocols
        if (now() > deadline) throw new Error("the page never waited for the lock");
      }
      if (spinWork(20000) === 0.5) throw new Error("unreachable"); // about 20 µs, the result used (see spinWork): let the page settle into its wait
      at[r] = performance.timeOrigin + now();
      m.unlock();
      // Wait until the page has taken and released the lock.
      if (Atomics.wait(c, START, r - 1, 5000) === "timed-out" && Atomics.load(c, START) < r) {
        throw new Error("the page did not finish round " + r);
      }
    }
    return {};
  },
};

onmessage = async ({ data: { id, op, args } }) => {
  try {
    postMessage({ id, ok: await ops[op](args) });
  } catch (e) {
    postMessage({ id, err: `${e.name}: ${e.message}` });
  }
};
