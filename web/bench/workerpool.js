// The pool section's row with a real pool (issue 61): small jobs through
// workerpool's own exec (a message to a worker and one back per job)
// against the same jobs fed through a sabmutex Channel by name to the same
// pool's workers (one task a worker, which receives jobs until the Channel
// is closed and returns the sum of its results). Both ways sum every
// result and must reach the same total. workerpool 10's browser build
// (pools/package-lock.json), served at /node_modules/workerpool/; its
// workers are workerpool-worker.js. Node.js's row: pool-node.mjs.
import * as sabmutex from "/dist/sabmutex.mjs";

const f = (i) => ((i * 2654435761) >>> 16) % 1000;

export async function runWorkerpool({ compare, quick, add }) {
  await import("/node_modules/workerpool/dist/workerpool.js"); // a UMD script: sets globalThis.workerpool
  const workerpool = /** @type {any} */ (globalThis).workerpool;
  const WORKERS = 4, JOBS = quick ? 2000 : 100000;
  const pool = workerpool.pool("/bench/workerpool-worker.js", { maxWorkers: WORKERS, minWorkers: WORKERS });
  const init = sabmutex.forWorker();
  await Promise.all(Array.from({ length: WORKERS }, (_, i) => pool.exec("join", [init]))); // (each worker once: the pool hands a free worker each)
  let expected = 0;
  for (let i = 0; i < JOBS; i++) expected += f(i);
  let round = 0;
  const ways = {
    async exec() {
      const results = await Promise.all(Array.from({ length: JOBS }, (_, i) => pool.exec("job", [i])));
      return results.reduce((a, b) => a + b, 0);
    },
    async channel() {
      const name = `bench workerpool jobs ${round++}`;
      const jobs = sabmutex.Channel.named(name, { capacity: 1024, maxMessageBytes: 16 });
      const served = Array.from({ length: WORKERS }, () => pool.exec("serve", [init, name]));
      for (let i = 0; i < JOBS; i++) if (!jobs.trySend(String(i))) await jobs.sendAsync(String(i));
      jobs.close();
      return (await Promise.all(served)).reduce((a, b) => a + b, 0);
    },
  };
  const r = await compare(["sabmutex", "exec"], quick ? 1 : 3, async (impl) => {
    const t = performance.now();
    const sum = await (impl === "sabmutex" ? ways.channel() : ways.exec());
    if (sum !== expected) throw new Error(`bench: workerpool ${impl}: the results sum to ${sum}, want ${expected}`);
    return JOBS / (performance.now() - t); // k jobs/s
  }, 0);
  await pool.terminate();
  add({ section: "pool", vs: "workerpool's exec, a job a message", id: "workerpool-jobs", name: `${JOBS} small jobs on workerpool's ${WORKERS} workers: one task a worker, the jobs over a Channel by name`, unit: "k/s", better: "higher", sabmutex: r.sabmutex, baseline: r.exec });
}
