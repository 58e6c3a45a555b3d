// The demo: page (main thread) side. Slot 0 of the buffer is the mutex, slot 1
// the counter, slot 2 the number of workers still running.
"use strict";

const $ = (id) => document.getElementById(id);

async function run() {
  const workers = Math.min(8, Math.max(1, Number($("workers").value) | 0));
  const n = Math.max(1000, Number($("n").value) | 0);
  const useLock = $("useLock").checked;
  const sab = new SharedArrayBuffer(16);
  const words = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  words[2] = workers;
  $("run").disabled = true;
  $("status").textContent = "running…";
  const t0 = performance.now();

  const done = [];
  for (let i = 0; i < workers; i++) {
    const w = new Worker("worker.js");
    done.push(new Promise((resolve, reject) => {
      w.onmessage = () => { w.terminate(); resolve(); };
      w.onerror = (e) => reject(new Error(e.message));
    }));
    w.postMessage({ sab, module: sabmutex.module, n, useLock });
  }

  // The main thread joins in until the workers are done, yielding to the
  // event loop on every turn.
  let mine = 0;
  while (Atomics.load(words, 2) > 0) {
    if (useLock) await m.lockAsync(); else await null;
    const v = Atomics.load(words, 1);
    Atomics.store(words, 1, v + 1);
    mine++;
    if (useLock) m.unlock();
    if (mine % 256 === 0) {
      $("actual").textContent = Atomics.load(words, 1);
      await new Promise((r) => setTimeout(r, 0)); // let the page paint
    }
  }
  await Promise.all(done);

  const expected = workers * n + mine;
  const actual = Atomics.load(words, 1);
  $("expected").textContent = expected;
  $("actual").textContent = actual;
  $("lost").textContent = expected - actual;
  $("lost").className = expected === actual ? "ok" : "bad";
  $("mainCount").textContent = mine;
  $("ms").textContent = `${(performance.now() - t0).toFixed(0)} ms`;
  $("status").textContent = useLock ? "done: with the mutex, nothing is lost." : "done: without the mutex, updates are lost.";
  $("run").disabled = false;
  return { expected, actual, mine };
}

(async () => {
  try {
    await sabmutex.init();
    $("status").textContent = "ready";
    $("run").onclick = () => run().catch((e) => { $("status").textContent = e.message; console.error(e); });
    window.demoRun = run; // for the browser tests
  } catch (e) {
    $("status").textContent = e.message;
    throw e;
  }
})();
