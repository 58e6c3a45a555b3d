// The check every bundler app runs (bundlers/apps/*/main.js): init, then the
// page (lockAsync) and a module worker (blocking lock, given the page's
// compiled module) each add N to one counter under the mutex. The result goes
// to window.sabmutexResult ("ok: ..." or "error: ..."), which
// browsertest/bundlers_test.go reads.
export async function selftest(sabmutex, makeWorker, initOptions) {
  const t0 = performance.now();
  await sabmutex.init(initOptions);
  const initMs = performance.now() - t0;
  const N = 500;
  const sab = new SharedArrayBuffer(16);
  const c = new Int32Array(sab); // slots 0-1: the mutex, 2: the counter
  const m = new sabmutex.Mutex(sab, 0);
  const w = makeWorker();
  const fromWorker = new Promise((resolve, reject) => {
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => reject(new Error(`the worker failed: ${e.message}`));
  });
  w.postMessage({ sab, module: sabmutex.module, N });
  for (let i = 0; i < N; i++) {
    if (!(await m.lockAsync(10000))) throw new Error("lockAsync timed out");
    const v = c[2];
    await null; // let the worker run while the page holds the lock
    c[2] = v + 1;
    m.unlock();
  }
  const said = await fromWorker;
  w.terminate();
  if (said !== "ok") throw new Error(`the worker said: ${said}`);
  if (c[2] !== 2 * N) throw new Error(`the counter is ${c[2]}, expected ${2 * N}`);
  return `ok: ${c[2]} increments by the page and a worker; init() took ${initMs.toFixed(1)} ms`;
}

export function report(promise) {
  promise.then(
    (r) => (window.sabmutexResult = r),
    (e) => {
      console.error(e);
      window.sabmutexResult = `error: ${e && e.message}`;
    },
  );
}
