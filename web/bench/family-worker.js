// The family section's worker (a module worker): one measurement per
// message, as worker.js does for the mutex. The page side is family.js.
import * as sabmutex from "/dist/sabmutex.mjs";
import { JsMutex } from "./jsmutex.js";
import { JsBarrier, JsCond, JsCondNonNegative, JsRWMutex, JsSemaphore } from "./jsfamily.js";
import { F, MULTITHREADING } from "./family.js";

const now = () => performance.now();
const epochMs = () => performance.timeOrigin + now();

function spinWork(iters) {
  let x = 0;
  for (let i = 0; i < iters; i++) x = (Math.imul(x, 31) + i) | 0; // (as worker.js's spinWork)
  return x;
}

// The npm package multithreading, loaded as a page would load it without a
// bundler: its browser entry, whose imports are all relative.
let mt = null;
const multithreading = async () => (mt ??= await import(MULTITHREADING + "src/browser/lib.js"));

let implOfWorker = null;

// The primitive `what` of implementation impl over sab at F.LOCK (and the
// Conds of the queue at F.NOT_EMPTY, F.NOT_FULL). multithreading's Mutex
// keeps its lock word at index 0 of a buffer of its own (lockSab), which is
// how its own deserializer shares it with a worker. A worker runs one
// implementation (see worker.js's mutexOf).
async function make(impl, what, sab, lockSab) {
  if ((implOfWorker ??= impl) !== impl) throw new Error(`bench: this worker runs ${implOfWorker}, not ${impl}: give each implementation workers of its own`);
  const ours = impl === "sabmutex";
  switch (what) {
    case "rw":
      return ours ? new sabmutex.RWMutex(sab, F.LOCK) : new JsRWMutex(sab, F.LOCK);
    case "sem":
      return ours ? new sabmutex.Semaphore(sab, F.LOCK, F.PERMITS) : new JsSemaphore(sab, F.LOCK);
    case "cond":
      if (impl === "floor") return new JsCondNonNegative(sab, F.LOCK);
      return ours ? new sabmutex.Cond(sab, F.LOCK) : new JsCond(sab, F.LOCK);
    case "barrier":
      return ours ? new sabmutex.Barrier(sab, F.LOCK, 2) : new JsBarrier(sab, F.LOCK, 2);
    case "mutex":
      return ours ? new sabmutex.Mutex(sab, F.LOCK) : new (await multithreading()).Mutex(undefined, lockSab);
    case "queue":
      return ours
        ? { m: new sabmutex.Mutex(sab, F.LOCK), notEmpty: new sabmutex.Cond(sab, F.NOT_EMPTY), notFull: new sabmutex.Cond(sab, F.NOT_FULL) }
        : { m: new JsMutex(sab, F.LOCK), notEmpty: new JsCond(sab, F.NOT_EMPTY), notFull: new JsCond(sab, F.NOT_FULL) };
  }
  throw new Error(`no ${what} for ${impl}`);
}

// Locks multithreading's way (blockingLock returns a guard; disposing it
// unlocks) or sabmutex's.
const lockOf = (impl, m) => (impl === "multithreading" ? () => m.blockingLock() : () => (m.lock(), m));
const unlockOf = (impl, m) => (impl === "multithreading" ? (g) => g.dispose() : () => m.unlock());

// The uncontended loops, a function each, as a user's loop is its own:
// in one function, the engines' feedback for each row's branch went stale
// while the others ran, and some repetitions ran at half speed.
const uncontendedLoops = {
  rw(x, n) { for (let i = 0; i < n; i++) { x.lock(); x.unlock(); } },
  rwRead(x, n) { for (let i = 0; i < n; i++) { x.readLock(); x.readUnlock(); } },
  sem(x, n) { for (let i = 0; i < n; i++) { x.acquire(); x.release(); } },
  notify(x, n) { for (let i = 0; i < n; i++) x.notifyOne(); },
  // Tries that fail (see uncontended: the lock held, the permits taken), as
  // a worker that tries, then does something else, makes them.
  rwTry(x, n) { for (let i = 0; i < n; i++) if (x.tryReadLock() || x.tryLock()) throw new Error("bench: a try took a write-locked RWMutex"); },
  semTry(x, n) { for (let i = 0; i < n; i++) if (x.tryAcquire()) throw new Error("bench: tryAcquire took a permit none had"); },
  mutex(x, n, impl) {
    const lock = lockOf(impl, x), unlock = unlockOf(impl, x);
    for (let i = 0; i < n; i++) unlock(lock());
  },
};

const ops = {
  async init(received) {
    await sabmutex.init(received); // forWorker()'s, and a name
    return {};
  },

  // One agent alone, n pairs in a tight loop: ns per pair.
  async uncontended({ impl, what, n, warm }) {
    const sab = new SharedArrayBuffer(F.INTS * 4);
    if (what.startsWith("sem") && impl === "js") JsSemaphore.setUp(sab, F.LOCK, F.PERMITS);
    const kind = { rwRead: "rw", rwTry: "rw", semTry: "sem", notify: "cond" }[what] ?? what;
    const x = await make(impl, kind, sab, new SharedArrayBuffer(4));
    if (what === "rwTry") x.lock();
    if (what === "semTry") x.acquire(F.PERMITS);
    const loop = uncontendedLoops[what];
    if (warm) loop(x, n, impl); // a new worker's first run compiles the loop
    const t = now();
    loop(x, n, impl);
    return { nsPerOp: ((now() - t) * 1e6) / n };
  },

  // From START until STOP, turns of `what`, counted; every turn checks what
  // the primitive promises, so that a broken one cannot post a figure.
  //   rw: every 10th turn (offset by worker w) writes F.DATA..+3 to one new
  //       value; the others read them, and must never see them differ.
  //   sem: F.DATA counts the holders of permits, at most F.PERMITS.
  //   mutex: a plain counter++ at F.DATA.
  async contend({ impl, what, sab, lockSab, w, holdIters }) {
    const c = new Int32Array(sab);
    const x = await make(impl, what, sab, lockSab);
    if (Atomics.wait(c, F.START, 0, 10000) === "timed-out") throw new Error("no start signal");
    let count = 0, writes = 0, bad = 0, sink = 0; // sink: spinWork's results, used (see worker.js)
    if (what === "rw") {
      for (let k = w; Atomics.load(c, F.STOP) === 0; k++, count++) {
        if (k % 10 === 0) {
          x.lock();
          sink = (sink + spinWork(holdIters)) | 0;
          const v = c[F.DATA] + 1;
          for (let j = 0; j < 4; j++) c[F.DATA + j] = v;
          x.unlock();
          writes++;
        } else {
          x.readLock();
          sink = (sink + spinWork(holdIters)) | 0;
          const v = c[F.DATA];
          for (let j = 1; j < 4; j++) if (c[F.DATA + j] !== v) bad++;
          x.readUnlock();
        }
      }
    } else if (what === "sem") {
      for (; Atomics.load(c, F.STOP) === 0; count++) {
        x.acquire();
        if (Atomics.add(c, F.DATA, 1) >= F.PERMITS) bad++;
        sink = (sink + spinWork(holdIters)) | 0;
        Atomics.sub(c, F.DATA, 1);
        x.release();
      }
    } else if (what === "mutex") {
      const lock = lockOf(impl, x), unlock = unlockOf(impl, x);
      for (; Atomics.load(c, F.STOP) === 0; count++) {
        const g = lock();
        sink = (sink + spinWork(holdIters)) | 0;
        c[F.DATA] = c[F.DATA] + 1;
        unlock(g);
      }
    }
    return { count, writes, bad, sink };
  },

  // Two workers cross a barrier `rounds` times; the time the last round ended.
  async barrier({ impl, sab, rounds }) {
    const c = new Int32Array(sab);
    const b = await make(impl, "barrier", sab);
    if (Atomics.wait(c, F.START, 0, 10000) === "timed-out") throw new Error("no start signal");
    let last = 0;
    for (let r = 0; r < rounds; r++) if (b.wait() === "last") last++;
    return { last, endMs: epochMs() };
  },

  // The bounded queue (F.CAP items at F.ITEMS, under one mutex, with the
  // Conds notEmpty and notFull), written the textbook way. A producer puts
  // n items, id*n .. id*n+n-1, then -1 for "this producer is done".
  async produce({ impl, sab, id, n }) {
    const c = new Int32Array(sab);
    const { m, notEmpty, notFull } = await make(impl, "queue", sab);
    if (Atomics.wait(c, F.START, 0, 10000) === "timed-out") throw new Error("no start signal");
    for (let k = 0; k <= n; k++) {
      m.lock();
      while (c[F.COUNT] === F.CAP) notFull.wait(m);
      c[F.ITEMS + c[F.TAIL]] = k < n ? id * n + k : -1;
      c[F.TAIL] = (c[F.TAIL] + 1) % F.CAP;
      c[F.COUNT]++;
      notEmpty.notifyOne();
      m.unlock();
    }
    return { endMs: epochMs() };
  },

  // A consumer takes items until it takes a -1 (each takes one: there are as
  // many producers as consumers), and marks each item in seen.
  async consume({ impl, sab, seen }) {
    const c = new Int32Array(sab);
    const s = new Int32Array(seen);
    const { m, notEmpty, notFull } = await make(impl, "queue", sab);
    if (Atomics.wait(c, F.START, 0, 10000) === "timed-out") throw new Error("no start signal");
    let got = 0;
    for (;;) {
      m.lock();
      while (c[F.COUNT] === 0) notEmpty.wait(m);
      const v = c[F.ITEMS + c[F.HEAD]];
      c[F.HEAD] = (c[F.HEAD] + 1) % F.CAP;
      c[F.COUNT]--;
      notFull.notifyOne();
      m.unlock();
      if (v < 0) break;
      Atomics.add(s, v, 1);
      got++;
    }
    return { got, endMs: epochMs() };
  },
};

onmessage = async ({ data: { id, op, args } }) => {
  try {
    postMessage({ id, ok: await ops[op](args) });
  } catch (e) {
    postMessage({ id, err: `${e.name}: ${e.message}` });
  }
};
