// make bench's pool row in Node.js: 100,000 small jobs through workerpool's
// own exec (one message there and one back per job) against the same jobs
// fed through a sabmutex Channel to the same pool's workers (one task a
// worker, which receives jobs until the Channel is closed and returns the
// sum of its results). A job: f(i), a few arithmetic steps; both ways sum
// every result and must reach the same total. Jobs/s, medians of ROUNDS
// alternated rounds, on WORKERS worker_threads (workerpool 10,
// pools/package-lock.json).
//
//	node web/bench/pool-node.mjs [-dist dist] [-jobs 100000] [-rounds 3] [-workers 2]
import { createRequire } from "node:module";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const arg = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const dist = resolve(arg("-dist", join(root, "dist")));
const JOBS = Number(arg("-jobs", 100000)), ROUNDS = Number(arg("-rounds", 3)), WORKERS = Number(arg("-workers", 2));
const workerpool = createRequire(join(root, "pools", "package.json"))("workerpool");
const mjs = pathToFileURL(join(dist, "sabmutex.mjs")).href;
const sabmutex = await import(mjs);
await sabmutex.init({ name: "main" });

const f = (i) => ((i * 2654435761) >>> 16) % 1000;
const dir = mkdtempSync(join(tmpdir(), "sabmutex-poolbench-"));
const script = join(dir, "worker.mjs");
writeFileSync(
  script,
  `
import * as sabmutex from ${JSON.stringify(mjs)};
import { createRequire } from "node:module";
import { workerData } from "node:worker_threads";
const workerpool = createRequire(${JSON.stringify(join(root, "pools", "package.json"))})("workerpool");
await sabmutex.init({ ...workerData, name: "bench" });
const f = ${f.toString()};
workerpool.worker({
  job: (i) => f(i),
  serve: (name) => {
    const jobs = sabmutex.Channel.named(name);
    let sum = 0;
    for (let m; (m = jobs.recv()) !== undefined; ) sum += f(Number(m));
    return sum;
  },
});
`,
);
const pool = workerpool.pool(script, { workerType: "thread", maxWorkers: WORKERS, minWorkers: WORKERS, workerThreadOpts: { workerData: sabmutex.forWorker() } });
let expected = 0;
for (let i = 0; i < JOBS; i++) expected += f(i);
await Promise.all(Array.from({ length: WORKERS }, (_, i) => pool.exec("job", [i]))); // the workers started

const ways = {
  async exec() {
    const results = await Promise.all(Array.from({ length: JOBS }, (_, i) => pool.exec("job", [i])));
    return results.reduce((a, b) => a + b, 0);
  },
  async channel(round) {
    const jobs = sabmutex.Channel.named(`jobs ${round}`, { capacity: 1024, maxMessageBytes: 16 });
    const served = Array.from({ length: WORKERS }, () => pool.exec("serve", [`jobs ${round}`]));
    for (let i = 0; i < JOBS; i++) if (!jobs.trySend(String(i))) await jobs.sendAsync(String(i));
    jobs.close();
    return (await Promise.all(served)).reduce((a, b) => a + b, 0);
  },
};
const got = { exec: [], channel: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const way of r % 2 ? ["channel", "exec"] : ["exec", "channel"]) {
    const t = performance.now();
    const sum = await ways[way](r);
    const ms = performance.now() - t;
    if (sum !== expected) throw new Error(`pool-node: ${way}: the results sum to ${sum}, want ${expected}`);
    got[way].push((JOBS / ms) * 1000);
  }
}
await pool.terminate();
rmSync(dir, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const e = median(got.exec), c = median(got.channel);
console.log(`${JOBS} small jobs on workerpool's ${WORKERS} worker_threads, Node ${process.version}, medians of ${ROUNDS} alternated rounds (jobs/s)`);
console.log(`pool.exec(job) per job  |  ${e.toFixed(0)}  ||  one task a worker, jobs over a sabmutex Channel  |  ${c.toFixed(0)}  ||  Channel/exec ${(c / e).toFixed(1)}×`);
