// Page side of the browser tests. Tests call these through chromedp.
"use strict";

// The ES module page sets window.sabmutex a little later than the classic one.
function sabmutexReady() {
  return window.sabmutex ? Promise.resolve() : new Promise((r) => addEventListener("sabmutex-module", r, { once: true }));
}

// A worker ("classic" or "module") that runs functions the tests send it.
// Anything that goes wrong in it reaches the page's console, which fails the test.
function startWorker(kind) {
  const w = kind === "module" ? new Worker("worker.mjs", { type: "module" }) : new Worker("worker.js");
  w.onerror = (e) => console.error(`${kind} worker: uncaught ${e.message} (${e.filename}:${e.lineno})`);
  w.onmessageerror = () => console.error(`${kind} worker: message could not be read`);
  const pending = new Map();
  let next = 0;
  w.onmessage = ({ data }) => {
    if (data.consoleError) return console.error(`${kind} worker: ${data.consoleError}`);
    const p = pending.get(data.id);
    pending.delete(data.id);
    if ("err" in data) p.reject(new Error(data.err));
    else p.resolve(data.ok);
  };
  // run(fn, data): fn is async (sabmutex, data) => value, run in the worker.
  w.run = (fn, data) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      w.postMessage({ id, src: String(fn), data });
    });
  return w;
}

// What an error looks like to a test.
function errorInfo(e) {
  return { name: e.name, message: e.message };
}

// The error fn throws or rejects with, or null.
async function errorOf(fn) {
  try {
    await fn();
    return null;
  } catch (e) {
    return errorInfo(e);
  }
}

// Workers of the given kinds, each started with the page's compiled module.
async function startWorkers(kinds, sab) {
  const ws = kinds.map(startWorker);
  await Promise.all(
    ws.map((w) =>
      w.run(
        async (sabmutex, { module, sab }) => {
          await sabmutex.init({ wasm: module });
          self.m = new sabmutex.Mutex(sab, 0);
        },
        { module: sabmutex.module, sab },
      ),
    ),
  );
  return ws;
}

// The hammer: workers of the given kinds (m.lock) and the main thread
// (await m.lockAsync) add 1 to a shared counter, as a separate load and store,
// until each worker has done n. Slots: 0 and 1 the mutex (Mutex.SLOTS), 2 the
// counter, 3 the start flag, 4 the workers still running.
async function hammer({ kinds, n, useLock }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(32);
  const words = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  const ws = await startWorkers(kinds, sab);
  words[4] = ws.length;
  const done = ws.map((w) =>
    w.run(
      async (sabmutex, { sab, n, useLock }) => {
        const words = new Int32Array(sab);
        if (Atomics.wait(words, 3, 0, 10000) === "timed-out") throw new Error("no start signal within 10 s");
        for (let i = 0; i < n; i++) {
          if (useLock) self.m.lock();
          const v = Atomics.load(words, 2);
          Atomics.store(words, 2, v + 1);
          if (useLock) self.m.unlock();
        }
        Atomics.sub(words, 4, 1);
      },
      { sab, n, useLock },
    ),
  );
  Atomics.store(words, 3, 1); // start together, so that they overlap
  Atomics.notify(words, 3);
  let mine = 0;
  while (Atomics.load(words, 4) > 0) {
    if (useLock) await m.lockAsync();
    else await null;
    const v = Atomics.load(words, 2);
    Atomics.store(words, 2, v + 1);
    mine++;
    if (useLock) m.unlock();
    if (mine % 64 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.all(done);
  ws.forEach((w) => w.terminate());
  return { counter: words[2], expected: kinds.length * n + mine, mine, word: words[0] };
}

// The soak: workers and the main thread take one mutex every way there is
// (lock, lock with a timeout, tryLock, lockAsync with timeouts and aborts,
// withLock) for ms milliseconds. Inside, two counters must differ by exactly
// one; each critical section moves both. Slots: 0 and 1 the mutex, 2 and 3
// the counters, 4 violations, 5 running, 8 + agent: acquisitions per agent.
async function soak({ workers, ms, seed }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(4 * (8 + workers + 1));
  const w = new Int32Array(sab);
  w[3] = 1; // counter b starts one ahead of a
  w[5] = 1;
  const ws = await startWorkers(Array.from({ length: workers }, (_, i) => (i % 2 ? "module" : "classic")), sab);
  const body = async (sabmutex, { sab, agent, seed }) => {
    const w = new Int32Array(sab);
    const m = self.m || new sabmutex.Mutex(sab, 0);
    let x = seed >>> 0 || 1;
    const rnd = (n) => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) % n);
    const inside = () => {
      const a = Atomics.load(w, 2), b = Atomics.load(w, 3);
      if (b - a !== 1) Atomics.add(w, 4, 1);
      Atomics.store(w, 2, a + 1);
      for (let i = rnd(200); i > 0; i--) Atomics.load(w, 5); // a little work, with the counters equal
      Atomics.store(w, 3, b + 1);
      Atomics.add(w, 8 + agent, 1);
    };
    const blocking = typeof document === "undefined";
    let n = 0;
    while (Atomics.load(w, 5) === 1) {
      let got = false;
      switch (rnd(blocking ? 7 : 4)) {
        case 0: got = m.tryLock(); break;
        case 1: got = await m.lockAsync(rnd(3)); break;
        case 2: {
          const ac = new AbortController();
          setTimeout(() => ac.abort(new Error("abort")), rnd(2));
          got = await m.lockAsync({ timeoutMs: 50, signal: ac.signal }).catch((e) => { if (e.message !== "abort") throw e; return false; });
          break;
        }
        case 3: got = await m.lockAsync(); break;
        case 4: got = m.lock(); break;
        case 5: got = m.lock(rnd(2)); break;
        case 6: m.withLock(inside); n++; continue;
      }
      if (got) {
        inside();
        m.unlock();
        n++;
      }
      if (!blocking || n % 64 === 0) await null;
      if (n % 256 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    return n;
  };
  const runs = ws.map((wk, i) => wk.run(body, { sab, agent: i + 1, seed: seed * 31 + i }));
  const mine = body(sabmutex, { sab, agent: 0, seed: seed * 31 + 99 });
  await new Promise((r) => setTimeout(r, ms));
  Atomics.store(w, 5, 0);
  const deadline = new Promise((_, reject) => setTimeout(() => reject(new Error("something was still waiting 10 s after the stop")), 10000));
  const counts = await Promise.race([Promise.all([mine, ...runs]), deadline]);
  ws.forEach((x) => x.terminate());
  const total = counts.reduce((a, b) => a + b, 0);
  return { total, perAgent: counts, a: w[2], b: w[3], violations: w[4], recorded: Array.from(w.subarray(8)).reduce((a, b) => a + b, 0), word: w[0] };
}
