// What each Node.js recipe is checked for (pools/node.mjs runs them): run(task,
// args, signal) runs a task of tasks.mjs on the pool; endHold(run, held)
// runs the task "hold" and, once held resolves (it holds the Mutex and the
// lock "db"), ends it as the pool ends a worker, resolving once it has.
// Prints one line of JSON.
import * as sabmutex from "sabmutex";

export async function exercise(run, endHold) {
  const out = {};
  const count = async (lock, n) => {
    const counter = new SharedArrayBuffer(8);
    const agents = await Promise.all([0, 1, 2, 3, 4, 5].map(() => run("add", { counter, n, lock })));
    return { count: new Int32Array(counter)[0], expected: 6 * n, agents: new Set(agents).size };
  };
  out.locked = await count(true, 2000);
  out.unlocked = await count(false, 2000000);

  const jobs = sabmutex.Channel.named("jobs", { capacity: 64, maxMessageBytes: 32 });
  const drained = [0, 1, 2].map(() => run("drain", {}));
  for (let i = 0; i < 3000; i++) await jobs.sendAsync(`job ${i}`);
  jobs.close();
  const got = await Promise.all(drained);
  out.jobs = { n: got.reduce((a, g) => a + g.n, 0), sum: got.reduce((a, g) => a + g.sum, 0), expected: [3000, (2999 * 3000) / 2] };

  const db = sabmutex.Mutex.named("db");
  const t0 = performance.now();
  const held = (async () => { while (!db.isLocked()) await new Promise((r) => setTimeout(r, 5)); })();
  out.ended = await endHold(run, held);
  const t1 = performance.now();
  out.mutex = await db.lockAsync(3000);
  out.told = db.previousHolderDied;
  out.lock = await sabmutex.locks.request("db", { signal: AbortSignal.timeout(3000) }, () => true).catch((e) => e.name);
  out.freedMs = Math.round(performance.now() - t1);
  out.endMs = Math.round(t1 - t0);
  if (out.mutex) db.unlock();
  out.after = await count(true, 500); // the pool goes on
  console.log(JSON.stringify(out));
}
