// The names scene: locks by name, Web Locks' API (sabmutex.locks) over the
// page's registry. The page (locks.request) and two workers
// (locks.requestSync) take the lock named "tally" in turn and add 1 to a
// tally, a plain read and write, while they hold it; then the page times
// its requests through sabmutex.locks and through navigator.locks.
import * as sabmutex from "/dist/sabmutex.mjs";

const $ = (id) => document.getElementById(id);
const WORKERS = 2;

let running = null;

// Runs the scene once: n requests by each worker and by the page, then
// timed ones, k through each API. Resolves with what the page shows.
function run(n = 5000, k = 300) {
  if (running) return running;
  running = (async () => {
    $("nStatus").textContent = `the page and ${WORKERS} workers take "tally" ${n} times each…`;
    const tally = new Int32Array(new SharedArrayBuffer(4)); // what the lock guards
    const workers = Array.from({ length: WORKERS }, (_, i) => new Worker("demo-names-worker.js", { type: "module" }));
    const done = workers.map(
      (w, i) =>
        new Promise((resolve, reject) => {
          w.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data));
          w.onerror = (e) => reject(new Error(`names worker: ${e.message}`));
          w.postMessage({ init: { ...sabmutex.forWorker(), name: `tally ${i + 1}` }, tally, n });
        }),
    );
    let page = 0;
    for (let i = 0; i < n; i++) {
      await sabmutex.locks.request("tally", () => {
        tally[0] = tally[0] + 1; // a plain read and write: only the lock keeps them whole
        page++;
      });
    }
    await Promise.all(done);
    workers.forEach((w) => w.terminate());
    const out = { tally: tally[0], expected: (WORKERS + 1) * n, page };
    $("nTally").textContent = out.tally;
    $("nExpected").textContent = out.expected;
    $("nPage").textContent = out.page;
    $("nStatus").textContent = "timing requests, one at a time…";
    const time = async (locks, k) => {
      const t = performance.now();
      for (let i = 0; i < k; i++) await locks.request("timed", () => {});
      return ((performance.now() - t) * 1000) / k;
    };
    out.sabUs = await time(sabmutex.locks, 20 * k);
    out.webUs = await time(navigator.locks, k);
    $("nSab").textContent = out.sabUs.toFixed(2);
    $("nWeb").textContent = out.webUs.toFixed(1);
    $("nRatio").textContent = `${Math.round(out.webUs / out.sabUs)}×`;
    $("nStatus").textContent = `done: ${out.tally === out.expected ? "no update lost" : `${out.expected - out.tally} updates lost`}; sabmutex.locks.request took ${out.sabUs.toFixed(2)} µs, navigator.locks.request ${out.webUs.toFixed(1)} µs.`;
    running = null;
    return out;
  })();
  return running;
}

await sabmutex.init({ name: "page" });
$("nStart").onclick = () => run();
$("nStatus").textContent = "ready: press Start";
window.demoNames = { run };
