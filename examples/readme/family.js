// The README's family examples (README.md, "The family"), as they run: the
// page (family.html) and two workers (family-worker.js) import this module,
// call attach(sab) on one SharedArrayBuffer and then the functions below;
// browsertest's TestReadmeExamples checks what they report.
import * as sabmutex from "./sabmutex.mjs";

let m, notEmpty, notFull, q, rw, config, sem, wg, barrier, once, stats, ch;

// #region attach
// One SharedArrayBuffer holds them all, each in its own X.SLOTS int32 slots
// (zeroed: ready to use). Every agent attaches the same layout.
export function attach(sab) {
  m = new sabmutex.Mutex(sab, 0);                       // slots 0-1
  notEmpty = new sabmutex.Cond(sab, 2);                 // slot 2
  notFull = new sabmutex.Cond(sab, 3);                  // slot 3
  rw = new sabmutex.RWMutex(sab, 4);                    // slots 4-7
  sem = new sabmutex.Semaphore(sab, 8, 2);              // slots 8-10: 2 permits, in every agent
  wg = new sabmutex.WaitGroup(sab, 11);                 // slot 11
  barrier = new sabmutex.Barrier(sab, 12, 3);           // slots 12-13: the page and 2 workers
  once = new sabmutex.Once(sab, 14);                    // slots 14-15
  q = new Int32Array(sab, 64, 2 + CAP);                 // the queue: head, tail, items
  config = new Int32Array(sab, 128, 2);                 // what the RWMutex guards
  stats = new Int32Array(sab, 192, 8);                  // what the test checks
  ch = new sabmutex.Channel(sab, 64, 8, 64);            // slots 64 on: Channel.slotsFor(8, 64) of them
}
// #endregion
const CAP = 4;

// #region cond
// A bounded queue: workers produce, the page consumes; m guards q.
export function produce(item) {                         // workers
  m.lock();
  while (q[1] - q[0] === CAP) notFull.wait(m);          // unlocks m while it sleeps, relocks before it returns
  q[2 + (q[1] % CAP)] = item; q[1]++;
  notEmpty.notifyOne();
  m.unlock();
}

export async function consume() {                       // the page (or anywhere)
  await m.lockAsync();
  while (q[1] === q[0]) await notEmpty.waitAsync(m);
  const item = q[2 + (q[0] % CAP)]; q[0]++;
  notFull.notifyOne();
  m.unlock();
  return item;
}
// #endregion

// #region rwmutex
// Many readers at once, or one writer: a reader never sees half a write.
export function readConfig() {                          // workers
  rw.readLock();
  try { return config[0] + config[1]; } finally { rw.readUnlock(); }
}

export async function writeConfig(x) {                  // the page
  await rw.withLockAsync(() => { config[0] = x; config[1] = -x; });
}
// #endregion

// #region semaphore
// At most 2 agents inside at once.
export function limited(work) {                         // workers (the page: await sem.acquireAsync())
  sem.acquire();
  try { return work(); } finally { sem.release(); }
}
// #endregion

// #region waitgroup
// The page waits until every worker is done.
export async function startWorkers(n, start) {          // the page
  wg.add(n);
  for (let i = 0; i < n; i++) start(i);                 // each worker calls finished() at its end
  await wg.waitAsync();
}

export function finished() {                            // workers
  wg.done();
}
// #endregion

// #region barrier
// Rounds in lockstep: nobody starts round r+1 before all finished round r.
export function nextRound() {                           // workers (the page: await barrier.waitAsync())
  return barrier.wait() === "last";                     // exactly one arrival per round is "last"
}
// #endregion

// #region channel
// Messages, copied in and out: workers report, the page collects.
export function report(i, text) {                       // workers (the page: await ch.sendAsync(msg))
  ch.send(`worker ${i}: ${text}`);                      // a string, or bytes (any ArrayBufferView)
}

export async function collect(n) {                      // the page (workers: ch.recv(), or for...of)
  const got = [];
  for await (const msg of ch) if (got.push(msg) === n) break;
  return got;
}
// #endregion

// #region once
// Set up once, across all agents; the others wait until it is done.
export async function setUpOnce(setUp) {                // anywhere; a worker may also once.do(fn)
  return once.doAsync(setUp);                           // true where setUp ran
}
// #endregion

// For the test: counters in the buffer, and the page's side of the barrier.
export const count = (i, n = 1) => Atomics.add(stats, i, n);
export const counts = () => Array.from(stats);
export const pageRound = async () => (await barrier.waitAsync()) === "last";
