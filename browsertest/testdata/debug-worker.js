// debug.html's worker: inits with the page's forWorker() (and its name),
// runs the steps it is given on the locks of the page's buffer (a step
// ["signal", "", slot] sets that slot of the buffer to 1), and
// answers "done" (or the error a step threw). The lines of its lock calls
// are what the reports must name (browsertest/debug_test.go reads them
// from the comments "site: NAME").
import * as sabmutex from "/dist/sabmutex.mjs";

let reports = [];

onmessage = async ({ data }) => {
  if (data.ask) {
    data.port.postMessage(reports.map((r) => ({ kind: r.kind, message: r.message, agents: r.agents.slice() })));
    return;
  }
  try {
    await sabmutex.init({ ...data.init, name: data.name, ...(data.debug ? { debug: true } : {}) });
    if (data.listen) sabmutex.onReport((r) => reports.push(r));
    const locks = makeLocks(data.buf, data.suffix ?? "");
    try {
      for (const [op, name, arg, ms] of data.steps) {
        if (op === "signal") Atomics.store(new Int32Array(data.buf), arg, 1); // tells the page the steps before are done
        else await run(locks, op, name, arg, ms);
      }
    } catch (e) {
      // Told of a deadlock, say: give back what it holds, so the others go on.
      for (const l of Object.values(locks)) {
        try {
          l.unlock();
        } catch {}
      }
      postMessage({ id: sabmutex.agentId, failed: `${e.name}: ${e.message}` });
      return;
    }
    postMessage({ done: true, id: sabmutex.agentId });
  } catch (e) {
    postMessage({ error: `${e.name}: ${e.message}` });
  }
};

// The locks of the buffer, by name: mutexes A, B, C and RWMutexes R, S,
// named or not as the page's ones (debug.html's makeLocks: the same slots).
// Debug mode knows a named lock by its name: a test that runs several cases
// on one page gives each its suffix (A becomes A3), so that no order of one
// case meets another's locks.
function makeLocks(buf, suffix) {
  return {
    A: new sabmutex.Mutex(buf, 0, { name: "A" + suffix }),
    B: new sabmutex.Mutex(buf, 8, { name: "B" + suffix }),
    C: new sabmutex.Mutex(buf, 16, { name: "C" + suffix }),
    U: new sabmutex.Mutex(buf, 24), // unnamed: known by its slot
    R: new sabmutex.RWMutex(buf, 32, { name: "R" + suffix }),
    S: new sabmutex.RWMutex(buf, 48, { name: "S" + suffix }),
    O: new sabmutex.Once(buf, 64, { name: "O" + suffix }),
  };
}

function run(locks, op, name, arg, ms) {
  const l = locks[name];
  switch (op) {
    case "lock":
      l.lock(); // site: lock
      break;
    case "lockAsync": // a task's wait: the worker may hold what its blocking calls took
      return l.lockAsync().then(() => {}); // site: lockAsync
    case "unlock":
      l.unlock();
      break;
    case "readLock":
      l.readLock(); // site: readLock
      break;
    case "readUnlock":
      l.readUnlock();
      break;
    case "withLock": // arg: the name of a lock to take inside
      l.withLock(() => { // site: withLock
        locks[arg].lock(); // site: inner lock
        locks[arg].unlock();
      });
      break;
    case "once": // arg: the name of a lock to take inside the Once's fn (if any), after ms
      l.do(() => { // site: once
        if (ms) sleep(ms);
        if (!arg) return;
        locks[arg].lock(); // site: in once
        locks[arg].unlock();
      });
      break;
    case "sleep":
      sleep(arg);
      break;
    default:
      throw new Error(`debug-worker.js: no step ${op}`);
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
