// The tasks every browser recipe's workers run (docs/pools.md), a classic
// script over the global sabmutex (importScripts("/dist/sabmutex.js")),
// the same as pools/node/tasks.mjs in Node.js.

// Adds 1 to counter[0] n times, each a read, a little work and a write:
// under locks.requestSync("counter") (lock) nothing is lost; without it,
// tasks on other workers overwrite each other's increments. The first 3
// tasks start together (counter[1] counts them), so that they do overlap.
function add({ counter, n, lock }) {
  const c = new Int32Array(counter);
  Atomics.add(c, 1, 1);
  for (const until = Date.now() + 10000; Atomics.load(c, 1) < 3; ) if (Date.now() > until) throw new Error("the other tasks did not start");
  const step = () => {
    const v = c[0];
    for (let k = 0; k < 30; k++);
    c[0] = v + 1;
  };
  for (let i = 0; i < n; i++) lock ? sabmutex.locks.requestSync("counter", step) : step();
  return sabmutex.agentId;
}

// Takes jobs from the Channel "jobs" until it is closed: how many, and
// the sum of their numbers.
function drain() {
  const jobs = sabmutex.Channel.named("jobs");
  let n = 0, sum = 0;
  for (let job; (job = jobs.recv()) !== undefined; n++) sum += Number(job.slice(4));
  return { n, sum };
}

// Takes Mutex.named("db") and a lock of locks, "db", and keeps them: the
// pool ends this worker.
function hold() {
  sabmutex.Mutex.named("db").lock();
  sabmutex.locks.requestSync("db", () => {
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  });
}
