// What each browser recipe is checked for (browsertest's TestPools), as
// pools/node/check.mjs in Node.js: run(task, args) runs a task of tasks.js
// on the pool; endHold(run, held) runs the task "hold" and, once held
// resolves (it holds the Mutex and the lock "db"), ends it as the pool ends
// a worker, resolving once it has; after() is the pool to count with then.
import * as sabmutex from "/dist/sabmutex.mjs";

export async function exercise(run, endHold, after = run) {
  const out = {};
  const count = async (run, lock, n) => {
    const counter = new SharedArrayBuffer(8);
    const agents = await Promise.all([0, 1, 2, 3, 4, 5].map(() => run("add", { counter, n, lock })));
    return { count: new Int32Array(counter)[0], expected: 6 * n, agents: new Set(agents).size };
  };
  out.locked = await count(run, true, 2000);
  out.unlocked = await count(run, false, 2000000);

  const jobs = sabmutex.Channel.named("jobs", { capacity: 64, maxMessageBytes: 32 });
  const drained = [0, 1, 2].map(() => run("drain", {}));
  for (let i = 0; i < 3000; i++) await jobs.sendAsync(`job ${i}`);
  jobs.close();
  const got = await Promise.all(drained);
  out.jobs = { n: got.reduce((a, g) => a + g.n, 0), sum: got.reduce((a, g) => a + g.sum, 0), expected: [3000, (2999 * 3000) / 2] };

  const db = sabmutex.Mutex.named("db");
  const held = (async () => { while (!db.isLocked()) await new Promise((r) => setTimeout(r, 5)); })();
  out.ended = await endHold(run, held);
  const t1 = performance.now();
  out.mutex = await db.lockAsync(3000);
  out.told = db.previousHolderDied;
  out.mutexMs = Math.round(performance.now() - t1);
  out.lock = await sabmutex.locks.request("db", { signal: AbortSignal.timeout(3000) }, () => true).catch((e) => e.name);
  out.freedMs = Math.round(performance.now() - t1);
  if (out.mutex) db.unlock();
  out.after = await count(after, true, 500); // the pool goes on
  return out;
}
