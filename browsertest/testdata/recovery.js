// Page side of browsertest's recovery_test.go: dead holders freed (the
// registry's life locks and the watch: jsglue/registry.js, jsglue/watch.js),
// deadlocks named, and snapshot(). Workers come from harness.js; those
// that join get sabmutex.forWorker() and a name.
"use strict";

// The registry's clock, for times compared across agents.
const clockMs = () => performance.timeOrigin + performance.now();

// The page's init, once: { name: "page" }, and what the page's pageOptions
// add, if it sets them before (debuggo.html: { debug }).
let started = null;
function initPage() {
  return (started ??= sabmutex.init({ name: "page", ...globalThis.pageOptions }));
}

// n workers, joined (init with forWorker() and the names given) or not.
async function workers(names, { join = true } = {}) {
  await initPage();
  const ws = names.map(() => startWorker("classic"));
  await Promise.all(
    ws.map((w, i) =>
      w.run(
        async (sabmutex, { init, name }) => {
          await sabmutex.init(init.registry ? { ...init, name } : init);
          return sabmutex.agentId;
        },
        { init: join ? sabmutex.forWorker() : { wasm: sabmutex.module }, name: names[i] },
      ).then((id) => (w.id = id)),
    ),
  );
  return ws;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A worker that takes the mutex at slot 0 and is then terminated while a
// waiter of mode waits for it: "lock" (the glue's blocking loop), "lock
// with timeout" (Go's), "lockAsync in a worker", or "lockAsync on the
// page". With joined false the holder did not join the registry: nobody
// learns of its end, and the waiter times out (the can-fail twin).
// Returns { took, died, recoveryMs, ticker }: ticker, the waiter's
// tickerStats() (jsglue/ticker.js), if a worker waited.
async function deadHolder(mode, joined) {
  const sab = new SharedArrayBuffer(64), LOCKING = 8; // (slot 8: 1 once the waiter calls lock())
  const [holder] = await workers(["holder"], { join: joined });
  const [waiter] = mode === "lockAsync on the page" ? [null] : await workers(["waiter"]);
  await holder.run((sabmutex, { sab }) => {
    new sabmutex.Mutex(sab, 0).lock();
  }, { sab });
  const timeoutMs = joined ? 5000 : 1500;
  let waiting;
  if (waiter === null) {
    const m = new sabmutex.Mutex(sab, 0);
    waiting = m.lockAsync(timeoutMs).then((took) => ({ took, died: m.previousHolderDied, atMs: clockMs() }));
  } else {
    waiting = waiter.run(
      async (sabmutex, { sab, mode, timeoutMs, LOCKING }) => {
        const now = () => performance.timeOrigin + performance.now();
        let took;
        // The ticker (jsglue/ticker.js) starts while this worker's event
        // loop runs, and takes a buffer sent to it a message later: "lock"
        // waits for both (2 s at most), so that its first sleep is untimed
        // and the ticker ends it (a first sleep the ticker cannot end is
        // timed, and the wait goes on in the core's timed loop).
        const ticker = () => sabmutex[Symbol.for("sabmutex.internals")]().tickerStats();
        for (let i = 0; mode === "lock" && !ticker().running && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
        const m = new sabmutex.Mutex(sab, 0); // (its buffer sent to a running ticker)
        for (let i = 0; mode === "lock" && ticker().behind > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
        if (mode === "lock") {
          Atomics.store(new Int32Array(sab), LOCKING, 1);
          took = m.lock();
        } else if (mode === "lock with timeout") took = m.lock(timeoutMs);
        else took = await m.lockAsync(timeoutMs);
        const atMs = now(), died = m.previousHolderDied; // (read while held: unlock clears it)
        if (took) m.unlock();
        return { took, died, atMs, ticker: ticker() };
      },
      { sab, mode: mode === "lock" && !joined ? "lock with timeout" : mode, timeoutMs, LOCKING },
    );
  }
  // The waiter waits past its first watch. A watched lock() waits 300 ms
  // from its call, not from the page's asking (which comes before the
  // waiter's waits for its ticker): the ticker ends its first sleep after 1
  // to 2 ticks.
  const watchedLock = mode === "lock" && joined;
  if (watchedLock) {
    const locking = new Int32Array(sab);
    for (const until = performance.now() + 5000; Atomics.load(locking, LOCKING) === 0 && performance.now() < until; ) await sleep(5);
  }
  await sleep(watchedLock ? 300 : 150);
  const endedMs = clockMs();
  holder.terminate();
  const r = await waiting;
  if (waiter) waiter.terminate();
  return { took: r.took, died: r.died, recoveryMs: r.atMs - endedMs, ticker: r.ticker ?? null };
}

// A mutex handed off (starvation mode) to a waiter that never comes: the
// word at slot 0 is 4, unlocked|starving (internal/core/protocol.go), as an
// unlock leaves it when its notify woke a wait that nobody acts on (a
// worker that ended, its Atomics.waitAsync still queued). A waiter of mode
// ("lock", "lockAsync in a worker", "lockAsync on the page") may not take
// it, as it was not woken for it; its watch voids the hand-off
// (voidHandOff). With joined false the waiter's agent is alone in its
// registry, sleeps untimed, and is never watched: it times out (the
// can-fail twin). Returns { took, waitedMs }.
async function lostHandOff(mode, joined) {
  const sab = new SharedArrayBuffer(64);
  Atomics.store(new Int32Array(sab), 0, 4);
  const timeoutMs = joined ? 5000 : 1000;
  if (mode === "lockAsync on the page") {
    const [other] = await workers(["bystander"]); // with an agent joined, the page's waits are watched
    const m = new sabmutex.Mutex(sab, 0), t0 = performance.now();
    const took = await m.lockAsync(timeoutMs);
    if (took) m.unlock();
    other.terminate();
    return { took, waitedMs: performance.now() - t0 };
  }
  const [waiter] = await workers(["waiter"], { join: joined });
  const r = await waiter.run(
    async (sabmutex, { sab, mode, timeoutMs }) => {
      const m = new sabmutex.Mutex(sab, 0), t0 = performance.now();
      const took = mode === "lock" ? m.lock(timeoutMs) : await m.lockAsync(timeoutMs);
      if (took) m.unlock();
      return { took, waitedMs: performance.now() - t0 };
    },
    { sab, mode, timeoutMs },
  );
  waiter.terminate();
  return r;
}

// Resolves with what p resolves to, or rejects after ms.
function within(p, ms, what) {
  return Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what}: no result after ${ms} ms`)))]);
}

// n workers in a cycle: worker i holds lock i (a Mutex, an RWMutex's write
// lock, or with type "RWMutex read" a read lock) and then, once all hold
// theirs, takes lock i+1 (mod n) with a blocking call (the write lock) and
// no timeout. The one told of the deadlock releases its
// own; the others then go on. Returns each worker's { id, name, error,
// waitedMs } and how long after the cycle closed the error came.
async function deadlock(n, type) {
  const names = Array.from({ length: n }, (_, i) => `cycle ${i}`);
  const ws = await workers(names);
  const sab = new SharedArrayBuffer(8 * 4 * (n + 1));
  const results = ws.map((w, i) =>
    w.run(
      async (sabmutex, { sab, i, n, type }) => {
        const words = new Int32Array(sab);
        const lockAt = (k) => (type === "Mutex" ? new sabmutex.Mutex(sab, 8 * (k + 1)) : new sabmutex.RWMutex(sab, 8 * (k + 1)));
        const mine = lockAt(i), next = lockAt((i + 1) % n);
        const now = () => performance.timeOrigin + performance.now();
        const reads = type === "RWMutex read";
        if (reads) mine.readLock();
        else mine.lock();
        Atomics.add(words, 0, 1);
        Atomics.notify(words, 0);
        for (let c; (c = Atomics.load(words, 0)) < n; ) Atomics.wait(words, 0, c, 100);
        const startMs = now();
        try {
          next.lock();
          next.unlock();
          reads ? mine.readUnlock() : mine.unlock();
          return { error: null, startMs, endMs: now() };
        } catch (e) {
          const endMs = now();
          reads ? mine.readUnlock() : mine.unlock();
          return { error: `${e.name}: ${e.message}`, startMs, endMs };
        }
      },
      { sab, i, n, type },
    ),
  );
  const rs = await within(Promise.all(results), 10000, `a cycle of ${n}`);
  ws.forEach((w) => w.terminate());
  const closedMs = Math.max(...rs.map((r) => r.startMs));
  const told = rs.filter((r) => r.error !== null);
  return {
    agents: ws.map((w, i) => ({ id: w.id, name: names[i], error: rs[i].error })),
    detectMs: told.length ? Math.min(...told.map((r) => r.endMs)) - closedMs : -1,
  };
}

// No false report: worker 0 holds lock 0 and computes for 3 s; worker 1
// holds lock 1 and waits (blocking) for lock 0; worker 2 waits for lock 1;
// the page waits for lock 1 with lockAsync. Everyone finishes, no error.
async function longChain() {
  const ws = await workers(["busy", "middle", "end"]);
  const sab = new SharedArrayBuffer(64);
  const step = (w, fn) => w.run(fn, { sab });
  await step(ws[0], (sabmutex, { sab }) => new sabmutex.Mutex(sab, 0).lock());
  await step(ws[1], (sabmutex, { sab }) => new sabmutex.Mutex(sab, 4).lock());
  const busy = step(ws[0], (sabmutex, { sab }) => {
    const until = performance.now() + 3000;
    let x = 0;
    while (performance.now() < until) x++;
    new sabmutex.Mutex(sab, 0).unlock();
    return x > 0;
  });
  const middle = step(ws[1], (sabmutex, { sab }) => {
    const m0 = new sabmutex.Mutex(sab, 0), m1 = new sabmutex.Mutex(sab, 4);
    m0.lock();
    m0.unlock();
    m1.unlock();
    return true;
  });
  await sleep(100);
  const end = step(ws[2], (sabmutex, { sab }) => {
    const m1 = new sabmutex.Mutex(sab, 4);
    m1.lock();
    m1.unlock();
    return true;
  });
  const m1 = new sabmutex.Mutex(sab, 4);
  const page = m1.lockAsync().then(() => (m1.unlock(), true));
  const all = await within(Promise.all([busy, middle, end, page]), 10000, "the chain");
  ws.forEach((w) => w.terminate());
  return all;
}

// snapshot() while worker "waiter" waits (blocking) for the mutex that
// worker "holder" holds and the page waits for it with lockAsync; then
// again after the holder was terminated and the waiters went on. A wait is
// in snapshot() once it has slept a watch period (50-100 ms): the page
// waits until both are, then 300 ms more. times (on clockMs): when each
// wait began, when the page first saw both in snapshot(), and the
// snapshot's bounds (snapAt before it, snapEnd after).
async function snapshots() {
  const [holder, waiter] = await workers(["holder", "waiter"]);
  const sab = new SharedArrayBuffer(64);
  const waiterStarted = new Float64Array(sab, 32, 1);
  await holder.run((sabmutex, { sab }) => new sabmutex.Mutex(sab, 0).lock(), { sab });
  const waiting = waiter.run(
    (sabmutex, { sab }) => {
      const m = new sabmutex.Mutex(sab, 0);
      new Float64Array(sab, 32, 1)[0] = performance.timeOrigin + performance.now();
      m.lock();
      const died = m.previousHolderDied;
      m.unlock();
      return died;
    },
    { sab },
  );
  const m = new sabmutex.Mutex(sab, 0);
  let pageSawDeath = false;
  const pageStartedAt = clockMs();
  const pageWaits = m.lockAsync(5000).then((took) => {
    pageSawDeath = m.previousHolderDied;
    if (took) m.unlock();
    return took;
  });
  const waitsShown = () => [waiter.id, sabmutex.agentId].every((id) => sabmutex.snapshot().agents.find((a) => a.agentId === id)?.waitingFor);
  for (const until = performance.now() + 5000; !waitsShown() && performance.now() < until; ) await sleep(10);
  const seenAt = clockMs();
  await sleep(300);
  const snapAt = clockMs();
  const during = sabmutex.snapshot();
  const snapEnd = clockMs();
  holder.terminate();
  const [waiterSawDeath, pageTook] = await within(Promise.all([waiting, pageWaits]), 5000, "the waiter and the page");
  const after = sabmutex.snapshot();
  waiter.terminate();
  const times = { waiterStartedAt: waiterStarted[0], pageStartedAt, seenAt, snapAt, snapEnd };
  return { ids: { page: sabmutex.agentId, holder: holder.id, waiter: waiter.id }, during, after, waiterSawDeath, pageSawDeath, pageTook, times };
}

// The family's holders terminated (type: "RWMutex", "RWMutex reader",
// "Once" or "Cond"): a worker waits with a blocking call and the page with
// an async one.
//   RWMutex  the holder has the write lock; the worker waits in readLock(),
//            the page in lockAsync(): both get theirs, and whichever goes
//            in first is told (previousHolderDied)
//   RWMutex reader  the holder has a read lock; the worker waits in lock(),
//            the page in lockAsync(): both get the write lock (nobody is
//            told: a reader wrote nothing)
//   Once     the holder runs fn (doAsync, never settling); the worker calls
//            do(fn), the page doAsync(fn): exactly one fn runs, both return
//   Cond     the holder locks the mutex and notifies the Cond that the
//            worker waits on (wait(m)); the worker's relock gets the mutex,
//            told that its holder died (the page does not wait)
// Returns { worker, page, runs, told, recoveryMs } (worker and page: what
// each got; told: the Once's fn that ran, or the RWMutex's first holder,
// saw previousHolderDied). With joined false the holder did not join the
// registry (the can-fail twin): nobody learns of its end, and the waits
// end at their timeouts of 1.5 s (a Cond's relock has none: its waiter is
// found still waiting 2 s after the end).
async function deadHolderFamily(type, joined = true) {
  const sab = new SharedArrayBuffer(64);
  const [holder] = await workers(["holder"], { join: joined });
  const [waiter] = await workers(["waiter"]);
  const timeoutMs = joined ? 5000 : 1500;
  const prim = (s, sab, type) => (type.startsWith("RWMutex") ? new s.RWMutex(sab, 0) : type === "Once" ? new s.Once(sab, 0) : new s.Cond(sab, 0));
  const src = `(${prim})`;
  const runs = new Int32Array(sab, 32, 1); // how many fns ran
  if (type === "Cond") {
    const waiting = waiter.run(
      (sabmutex, { sab }) => {
        const m = new sabmutex.Mutex(sab, 4), c = new sabmutex.Cond(sab, 0);
        m.lock();
        Atomics.store(new Int32Array(sab), 9, 1);
        c.wait(m, 5000);
        const died = m.previousHolderDied;
        m.unlock();
        return { died, atMs: performance.timeOrigin + performance.now() };
      },
      { sab },
    );
    // The waiter holds the mutex (its flag at 9) before the holder asks for
    // it: the holder's lock() then waits for the Cond's wait to let it go.
    const flag = new Int32Array(sab);
    for (const until = performance.now() + 5000; Atomics.load(flag, 9) !== 1; await sleep(5)) {
      if (performance.now() > until) throw new Error("the Cond's waiter did not lock its mutex within 5 s");
    }
    await holder.run(
      (sabmutex, { sab }) => {
        const m = new sabmutex.Mutex(sab, 4);
        m.lock(); // the waiter unlocked it in wait
        new sabmutex.Cond(sab, 0).notifyAll();
      },
      { sab },
    );
    await sleep(150);
    const endedMs = clockMs();
    holder.terminate();
    // The twin's waiter relocks without a deadline: it is still waiting 2 s on.
    const w = await within(waiting, joined ? 5000 : 2000, "the Cond waiter").catch((e) => (joined ? Promise.reject(e) : null));
    waiter.terminate();
    if (w === null) return { worker: false, page: false, runs: 0, recoveryMs: -1 };
    return { worker: w.died, page: true, runs: 0, recoveryMs: w.atMs - endedMs };
  }
  await holder.run(
    (sabmutex, { sab, src, type }) => {
      const p = (0, eval)(src)(sabmutex, sab, type);
      if (type === "RWMutex reader") p.readLock();
      else if (p instanceof sabmutex.RWMutex) p.lock();
      else p.doAsync(() => new Promise(() => {})); // runs fn, which never settles
    },
    { sab, src, type },
  );
  const waiting = waiter.run(
    (sabmutex, { sab, src, type, timeoutMs }) => {
      const p = (0, eval)(src)(sabmutex, sab, type);
      let got, told = false;
      if (type === "RWMutex reader") {
        got = p.lock(timeoutMs);
        told = p.previousHolderDied;
        if (got) p.unlock();
      } else if (p instanceof sabmutex.RWMutex) {
        got = p.readLock(timeoutMs);
        told = p.previousHolderDied;
        if (got) p.readUnlock();
      } else {
        try {
          p.do(() => {
            Atomics.add(new Int32Array(sab, 32, 1), 0, 1);
            told = p.previousHolderDied;
          }, timeoutMs);
          got = true;
        } catch (e) {
          if (e.name !== "TimeoutError") throw e;
          got = false;
        }
      }
      return { got, told, atMs: performance.timeOrigin + performance.now() };
    },
    { sab, src, type, timeoutMs },
  );
  const p = prim(sabmutex, sab, type);
  let pageTold = false;
  const pageRuns = () => {
    Atomics.add(runs, 0, 1);
    pageTold = p.previousHolderDied;
  };
  const pageGot = (p instanceof sabmutex.RWMutex ? p.lockAsync(timeoutMs) : p.doAsync(pageRuns, timeoutMs).then(() => true, (e) => (e.name === "TimeoutError" ? false : Promise.reject(e)))).then((got) => {
    if (got && p instanceof sabmutex.RWMutex) {
      pageTold = p.previousHolderDied;
      p.unlock();
    }
    return { got, atMs: clockMs() };
  });
  await sleep(150);
  const endedMs = clockMs();
  holder.terminate();
  const [w, pg] = await within(Promise.all([waiting, pageGot]), 5000, `the ${type} waiters`);
  waiter.terminate();
  return { worker: w.got, page: pg.got, runs: Atomics.load(runs, 0), told: w.told || pageTold, recoveryMs: Math.max(w.atMs, pg.atMs) - endedMs };
}

// What an agent of a counted kind leaves when it ends (README, "When a
// worker ends, or deadlocks"): nobody knows whose its permits, counts and
// arrivals are, so the watch frees nothing; the waiter's timeout ends its
// wait, and the code that terminated the worker gives back what it knows
// the worker held, after which the primitive works on.
//   Semaphore  of 1 permit, which the worker holds
//   WaitGroup  the page counts the worker's job (add(1)); it never calls done()
//   Barrier    of 2 parties, the worker never arrives
// Returns { timedOut, waitingFor (the waiter in snapshot(), during its
// wait), after (what the waiter got once the page gave back) }.
async function deadCounted(type) {
  const sab = new SharedArrayBuffer(64);
  const [holder, waiter] = await workers(["holder", "waiter"]);
  const make = (s, sab, type) => (type === "Semaphore" ? new s.Semaphore(sab, 0, 1) : type === "WaitGroup" ? new s.WaitGroup(sab, 0) : new s.Barrier(sab, 0, 2));
  const src = `(${make})`;
  const p = make(sabmutex, sab, type);
  if (type === "WaitGroup") p.add(1);
  await holder.run(
    (sabmutex, { sab, src, type }) => {
      const p = (0, eval)(src)(sabmutex, sab, type);
      if (type === "Semaphore") p.acquire();
    },
    { sab, src, type },
  );
  holder.terminate();
  await sleep(100); // its end is known (registry.js)
  const wait = (timeoutMs) =>
    waiter.run(
      (sabmutex, { sab, src, type, timeoutMs }) => {
        const p = (0, eval)(src)(sabmutex, sab, type);
        const got = type === "Semaphore" ? p.acquire(1, timeoutMs) : p.wait(timeoutMs);
        if (type === "Semaphore" && got) p.release();
        return got;
      },
      { sab, src, type, timeoutMs },
    );
  const waiting = wait(600);
  await sleep(300);
  const me = sabmutex.snapshot().agents.find((a) => a.agentId === waiter.id);
  const timedOut = await within(waiting, 5000, `the ${type} waiter`);
  // Give back what the dead worker held, or arrive in its place.
  let after;
  if (type === "Semaphore") {
    p.release();
    after = await wait(1000);
  } else if (type === "WaitGroup") {
    p.done();
    after = await wait(1000);
  } else {
    [after] = await Promise.all([wait(1000), p.waitAsync(1000)]);
  }
  waiter.terminate();
  return { timedOut, waitingFor: me.waitingFor, after };
}
