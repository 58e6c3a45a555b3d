// The page's loops, for the rows where the page takes the mutex. bench.js
// and matrix.js import this file once per implementation (pageLoops), so
// that each implementation runs in functions of its own, as in a user's
// page, which uses one mutex class. In one loop shared by the
// implementations, each call site sees several classes, and the engines
// then inline them less, or differently (web/bench/README.md).

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// This file's copy for impl (a module of its own: its own functions).
export function pageLoops(impl) {
  return import(`./pageloops.js?impl=${impl}`);
}

// await lockAsync()+unlock(), k times, uncontended: ns per pair.
export async function lockAsyncPairs(m, k) {
  const t = now();
  for (let i = 0; i < k; i++) {
    await m.lockAsync();
    m.unlock();
  }
  return ((now() - t) * 1e6) / k;
}

// The page's part in a contended run: await lockAsync(), holdIters turns of
// busy work, a plain increment of c[counter], unlock, until c[stop] is set;
// it lets the event loop run every 16 acquisitions, as a page must. With
// timeWaits, each wait is timed: waitsUs keeps the first 50000 (µs),
// maxWaitMs the longest.
export async function contendLoop(m, c, { stop, counter }, holdIters, timeWaits) {
  let count = 0, sink = 0, maxWaitMs = 0; // sink: the work's results, used (see worker.js's spinWork)
  const waitsUs = [];
  while (Atomics.load(c, stop) === 0) {
    const t = timeWaits ? now() : 0;
    await m.lockAsync();
    if (timeWaits) {
      const w = now() - t;
      if (w > maxWaitMs) maxWaitMs = w;
      if (waitsUs.length < 50000) waitsUs.push(w * 1000);
    }
    let x = 0;
    for (let i = 0; i < holdIters; i++) x = (Math.imul(x, 31) + i) | 0; // (as worker.js's spinWork)
    sink = (sink + x) | 0;
    c[counter] = c[counter] + 1;
    m.unlock();
    count++;
    if (count % 16 === 0) await sleep(0);
  }
  return { count, waitsUs, maxWaitMs, sink };
}

// The page's side of bench.js's handoff: each round, once the worker holds
// the mutex (c[round] turns r), await lockAsync(); the latency from the
// worker's release (at[r], epoch ms) to here, in µs; unlock, and tell the
// worker (c[done] = r).
export async function handoffLoop(m, c, at, { round, done }, rounds) {
  const lat = [];
  for (let r = 1; r <= rounds; r++) {
    const wait = Atomics.waitAsync(c, round, r - 1, 5000);
    if (wait.async && (await wait.value) === "timed-out") throw new Error("the worker did not take the lock");
    await m.lockAsync();
    lat.push((performance.timeOrigin + now() - at[r]) * 1000);
    m.unlock();
    Atomics.store(c, done, r);
    Atomics.notify(c, done);
  }
  return lat;
}
