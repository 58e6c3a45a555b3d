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
// until each worker has done n. Slots: 0 the mutex, 1 the counter, 2 the start
// flag, 3 the workers still running.
async function hammer({ kinds, n, useLock }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(16);
  const words = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  const ws = await startWorkers(kinds, sab);
  words[3] = ws.length;
  const done = ws.map((w) =>
    w.run(
      async (sabmutex, { sab, n, useLock }) => {
        const words = new Int32Array(sab);
        if (Atomics.wait(words, 2, 0, 10000) === "timed-out") throw new Error("no start signal within 10 s");
        for (let i = 0; i < n; i++) {
          if (useLock) self.m.lock();
          const v = Atomics.load(words, 1);
          Atomics.store(words, 1, v + 1);
          if (useLock) self.m.unlock();
        }
        Atomics.sub(words, 3, 1);
      },
      { sab, n, useLock },
    ),
  );
  Atomics.store(words, 2, 1); // start together, so that they overlap
  Atomics.notify(words, 2);
  let mine = 0;
  while (Atomics.load(words, 3) > 0) {
    if (useLock) await m.lockAsync();
    else await null;
    const v = Atomics.load(words, 1);
    Atomics.store(words, 1, v + 1);
    mine++;
    if (useLock) m.unlock();
    if (mine % 64 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.all(done);
  ws.forEach((w) => w.terminate());
  return { counter: words[1], expected: kinds.length * n + mine, mine, word: words[0] };
}
