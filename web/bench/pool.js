// The pool section of the bench: a worker pool's shape, as issue 53 asks.
// Producer workers (1, or 4) hand 64-byte jobs to 4 consumer workers; each
// consumer hashes its job's 64 bytes and sends a 16-byte result to one
// collector worker. Over sabmutex's Channel by name (two of them: the jobs
// and the results), over postMessage (each producer to the consumers in
// turn, each consumer to the collector, through MessagePorts), and over
// the textbook queue with a lock (jsfamily.js's JsQueue, two of them),
// alternated in one page load, each in workers of its own. Then a run of
// the Channel's pool that counts, per job, what the Channel did beyond its
// fast paths: its claims through Go, its calls into Go to wake, the
// agents' sleeps and the wake-ups. The workers' side is pool-worker.js.
import * as sabmutex from "/dist/sabmutex.mjs";
import { median } from "./matrix.js";
import { JsQueue } from "./jsfamily.js";

// The pool: its consumers, the channels' or queues' capacity, a job's and a
// result's bytes, the Channels' names, and the slots of the textbook
// queues' buffer (the start flag, the jobs' queue, the results' queue).
export const POOL = {
  CONSUMERS: 4,
  CAP: 64,
  JOB_BYTES: 64,
  RESULT_BYTES: 16,
  JOBS: "bench pool jobs",
  RESULTS: "bench pool results",
  // The batch's: BATCH jobs a message (and BATCH results), what a batch
  // call could save at most (issue 53's third part): one claim, one copy
  // call and one commit for BATCH jobs.
  BATCH: 8,
  JOBS_BATCHED: "bench pool jobs, 8 a message",
  RESULTS_BATCHED: "bench pool results, 8 a message",
  START: 0,
  Q_JOBS: 16,
  Q_RESULTS: 0, // after the jobs' queue, and INTS after the results': set below
  INTS: 0,
};
POOL.Q_RESULTS = POOL.Q_JOBS + JsQueue.slotsFor(POOL.CAP, POOL.JOB_BYTES);
POOL.INTS = POOL.Q_RESULTS + JsQueue.slotsFor(POOL.CAP, POOL.RESULT_BYTES);

// A job's k of STOP ends a consumer: the collector sends one to each
// consumer once every result is in.
export const STOP = -1;

// Job k of producer id: 64 bytes, id and k in the first two words and in
// the last (k), the rest filled from them, in a new buffer (as a user's
// producer makes each job).
export function job(id, k) {
  const m = new Uint8Array(POOL.JOB_BYTES), w = new Int32Array(m.buffer);
  w[0] = id;
  w[1] = k;
  for (let i = 2; i < 15; i++) w[i] = Math.imul(k + i, 0x9e3779b1) ^ id;
  w[15] = k;
  return m;
}

// The consumer's work on a job: FNV-1a over its 64 bytes (the small computation).
export function hash(m) {
  let h = 0x811c9dc5;
  for (let i = 0; i < POOL.JOB_BYTES; i++) h = Math.imul(h ^ m[i], 0x01000193);
  return h;
}

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const epochMs = () => performance.timeOrigin + now();

// The hash of every job of a run (producers * n of them), for the
// collector to check each result against.
function expected(producers, n) {
  const e = new SharedArrayBuffer(producers * n * 4), h = new Int32Array(e);
  for (let id = 0; id < producers; id++) for (let k = 0; k < n; k++) h[id * n + k] = hash(job(id, k));
  return e;
}

// The MessagePorts of a postMessage run: each producer a port to each
// consumer (round-robin over them), each consumer a port to the collector.
function wire(producers, consumers, collector) {
  const outs = producers.map(() => []), ins = consumers.map(() => []);
  producers.forEach((_, i) =>
    consumers.forEach((_, j) => {
      const { port1, port2 } = new MessageChannel();
      outs[i].push(port1);
      ins[j].push(port2);
    }),
  );
  const toCollector = consumers.map(() => new MessageChannel());
  producers.forEach((w, i) => w.postMessage({ op: "ports", args: { outs: outs[i] } }, outs[i]));
  consumers.forEach((w, j) => w.postMessage({ op: "ports", args: { ins: ins[j], outs: [toCollector[j].port1] } }, [...ins[j], toCollector[j].port1]));
  const collected = toCollector.map((c) => c.port2);
  collector.postMessage({ op: "ports", args: { ins: collected } }, collected);
}

// One run of the pool over impl: producers workers send n jobs each; ws:
// the consumers, then the collector, then the producers. Jobs per second
// (k/s), from the start signal to the collector's last result; with count
// (impl "sabmutex" only), also what the agents counted, summed.
async function poolRun(ws, impl, producers, n, expect, count = false) {
  const consumers = ws.slice(0, POOL.CONSUMERS), collector = ws[POOL.CONSUMERS], senders = ws.slice(POOL.CONSUMERS + 1, POOL.CONSUMERS + 1 + producers);
  if (senders.length !== producers) throw new Error(`bench: ${ws.length} workers for a pool of ${producers} producers`);
  const total = producers * n;
  const sab = new SharedArrayBuffer(POOL.INTS * 4); // the start flag, and the textbook queues
  const seen = new SharedArrayBuffer(total * 4);
  if (impl === "postMessage") wire(senders, consumers, collector);
  const collecting = collector.call("collect", { impl, sab, total, per: n, seen, expect, producers, count });
  const consuming = consumers.map((w, me) => w.call("consume", { impl, sab, me, producers, count }));
  const producing = senders.map((w, id) => w.call("produce", { impl, sab, id, n, count }));
  await sleep(5);
  const t0 = epochMs();
  Atomics.store(new Int32Array(sab), POOL.START, 1);
  Atomics.notify(new Int32Array(sab), POOL.START);
  const collected = await collecting;
  const done = await Promise.all(consuming);
  const sent = await Promise.all(producing);
  const s = new Int32Array(seen);
  let missing = 0, dup = 0;
  for (let i = 0; i < s.length; i++) s[i] === 0 ? missing++ : s[i] > 1 && dup++;
  if (missing || dup) throw new Error(`${impl} pool, ${producers} producers: ${missing} of ${total} jobs missing, ${dup} more than once`);
  const jobs = done.reduce((a, d) => a + d.jobs, 0);
  if (jobs !== total) throw new Error(`${impl} pool, ${producers} producers: the consumers did ${jobs} jobs of ${total}`);
  const perSec = total / (collected.endMs - t0); // jobs per ms: k jobs/s
  if (!count) return perSec;
  const counts = {};
  for (const r of [collected, ...done, ...sent]) for (const [k, v] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + v;
  return { perSec, counts };
}

function stats(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), reps: xs };
}

// What the counted runs report per job, each a row: [key, what].
const COUNTED = [
  ["claims", "claims through Go"],
  ["wakeCalls", "calls into Go to wake"],
  ["sleeps", "sleeps"],
  ["woken", "wake-ups"],
];

// The section: its rows through add (marked section "pool", with the
// baseline named in vs).
export async function runPool({ workerPools, compare, quick, add }) {
  const reps = quick ? 2 : 5;
  const jobs = quick ? 2000 : 50000; // a run's jobs, whatever its producers
  const pools = workerPools("./pool-worker.js"); // workers of one implementation each
  // The two Channels, as a user's page makes them (README: any primitive
  // by name); the workers look them up by name. Every run leaves them
  // empty, and the next uses them again.
  sabmutex.Channel.named(POOL.JOBS, { capacity: POOL.CAP, maxMessageBytes: POOL.JOB_BYTES });
  sabmutex.Channel.named(POOL.RESULTS, { capacity: POOL.CAP, maxMessageBytes: POOL.RESULT_BYTES });
  sabmutex.Channel.named(POOL.JOBS_BATCHED, { capacity: POOL.CAP, maxMessageBytes: POOL.BATCH * POOL.JOB_BYTES });
  sabmutex.Channel.named(POOL.RESULTS_BATCHED, { capacity: POOL.CAP, maxMessageBytes: POOL.BATCH * POOL.RESULT_BYTES });
  const row = (m, r, impl, vs) => add({ section: "pool", vs, ...m, sabmutex: r.sabmutex, baseline: r[impl] });
  const shape = (p) => `64-byte jobs, ${p} prod. + 4 workers`; // (and the collector)
  const workers = (p) => POOL.CONSUMERS + 1 + p;
  const expects = new Map();
  for (const p of [1, 4]) {
    const n = jobs / p;
    expects.set(p, expected(p, n));
    // Issue 53's target: at least twice postMessage's jobs per second,
    // with one producer and with four. The textbook queue is a reference.
    const r = await compare(["sabmutex", "postMessage", "js", "batched"], reps, async (impl) => poolRun(await pools.pool(impl, workers(p)), impl, p, n, expects.get(p)));
    row({ id: `pool-${p}p`, name: `Channel by name, ${shape(p)}`, unit: "k/s", better: "higher", target: { ratioMin: 2 } }, r, "postMessage", "postMessage, in turn");
    row({ id: `pool-${p}p-js`, name: `Channel (${POOL.CAP}) by name, ${shape(p)}`, unit: "k/s", better: "higher" }, r, "js", "textbook JS queue");
    // What batching could give: the same jobs, 8 a message each way (the
    // row's sabmutex is the batch, its baseline the Channel a job a message).
    add({ section: "pool", vs: "the Channel, a job a message", id: `pool-${p}p-batched`, name: `Channel by name, 8 jobs a message, ${p} prod. + 4 workers`, unit: "k/s", better: "higher", sabmutex: r.batched, baseline: r.sabmutex });
  }
  // Where the time goes: the Channel's pool again, in workers of their own
  // that count (pool-worker.js, counting), untimed; per job, summed over
  // both Channels and every agent.
  for (const p of [1, 4]) {
    const runs = [];
    for (let i = 0; i < (quick ? 1 : 3); i++) runs.push((await poolRun(await pools.pool("sabmutex counted", workers(p)), "sabmutex", p, jobs / p, expects.get(p), true)).counts);
    for (const [key, what] of COUNTED) {
      add({ section: "pool", id: `pool-${p}p-${key}`, name: `Channel pool, ${p} prod.: ${what}, per job`, unit: "/job", better: "lower", vs: "counted, untimed", sabmutex: stats(runs.map((c) => c[key] / jobs)) });
    }
  }
  pools.terminate();
}
