// make bench's queued rows in Node.js (#60): k tasks of one agent (the main
// thread) queued at once on one lock, each granted in turn, by
// sabmutex.locks.request(name, cb), by Mutex.lockAsync() then unlock(), by
// async-mutex's runExclusive (the npm mutex: the yardstick) and by Node's
// own navigator.locks.request where Node has it (Node 24: in-process);
// alternated round by round, medians of ROUNDS rounds, k tasks a second.
// With -before DIR, the same rows of a second build (DIR/sabmutex.mjs) are
// alternated with them: the before/after ratios of a change.
//
//	node web/bench/queued-node.mjs [-dist dist] [-before DIR] [-k tasks]
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const arg = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const dist = resolve(arg("-dist", join(root, "dist")));
const before = arg("-before", null);
const K = Number(arg("-k", 2000));
const ROUNDS = 9;

const { Mutex: AsyncMutex } = await import("async-mutex");
const builds = { "": await import(pathToFileURL(join(dist, "sabmutex.mjs")).href) };
if (before !== null) builds[" (before)"] = await import(pathToFileURL(join(resolve(before), "sabmutex.mjs")).href);
for (const s of Object.values(builds)) await s.init();

// f(impl): k tasks queued at once, each a counter's increment; ms.
const impls = {};
for (const [tag, s] of Object.entries(builds)) {
  const m = new s.Mutex(new SharedArrayBuffer(16), 0);
  impls[`locks.request${tag}`] = (k, inc) => Array.from({ length: k }, () => s.locks.request("queued", inc));
  impls[`Mutex.lockAsync${tag}`] = (k, inc) => Array.from({ length: k }, () => m.lockAsync().then(() => (inc(), m.unlock())));
}
const am = new AsyncMutex();
impls["async-mutex runExclusive"] = (k, inc) => Array.from({ length: k }, () => am.runExclusive(inc));
if (globalThis.navigator?.locks) impls["navigator.locks.request"] = (k, inc) => Array.from({ length: k }, () => navigator.locks.request("queued", inc));

async function run(impl, k) {
  let count = 0;
  const inc = () => void count++;
  const t = performance.now();
  await Promise.all(impls[impl](k, inc));
  const ms = performance.now() - t;
  if (count !== k) throw new Error(`${impl}: ${count} of ${k} tasks ran`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const got = Object.fromEntries(Object.keys(impls).map((i) => [i, []]));
for (const impl of Object.keys(impls)) await run(impl, K); // (warm-up)
for (let r = 0; r < ROUNDS; r++) for (const impl of Object.keys(impls)) got[impl].push((K / (await run(impl, K))) * 1e3);
const am0 = median(got["async-mutex runExclusive"]);
console.log(`${K} tasks of one agent queued on one lock, Node ${process.version}, k tasks/s, medians of ${ROUNDS} alternated rounds (range), ÷ async-mutex${globalThis.navigator?.locks ? "" : "; this Node has no navigator.locks"}`);
for (const [impl, xs] of Object.entries(got)) {
  const s = [...xs].sort((a, b) => a - b);
  console.log(`${impl.padEnd(34)} ${(median(xs) / 1e3).toFixed(1).padStart(8)} k/s (${(s[0] / 1e3).toFixed(1)}–${(s[s.length - 1] / 1e3).toFixed(1)})  ${(median(xs) / am0).toFixed(2)}×`);
}
