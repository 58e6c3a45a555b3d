// Page side of browsertest's goagent_test.go: Go programs as agents
// (sabsync.Join): a joined Go worker terminated while it holds, a Go waiter
// of a JavaScript holder that ends, a deadlock through a Go agent and a
// JavaScript one, and snapshots on both sides. The Go program is
// testdata/goagent (its roles are in its package doc), run by
// go-agent-worker.js; JavaScript workers and the helpers (initPage,
// workers, sleep, within, clockMs) come from harness.js and recovery.js.
"use strict";

let goModule = null;

// A worker running testdata/goagent with task (its globalThis.goagent:
// role, name, join, memory, ...), given the page's forWorker() whether it
// joins or not. w.next(ms) resolves with its next report (rejects after
// ms); a report { error } goes to the console, which fails the test.
async function goAgent(task) {
  await initPage();
  const module = await (goModule ??= WebAssembly.compileStreaming(fetch("/dist/examples/goagent.wasm")));
  const w = new Worker("go-agent-worker.js");
  const reports = [], waiting = [];
  w.onmessage = ({ data }) => {
    if (data.error) console.error(`Go agent ${task.name}: ${data.error}`);
    else if (waiting.length > 0) waiting.shift()(data);
    else reports.push(data);
  };
  w.onerror = (e) => console.error(`Go agent ${task.name}: uncaught ${e.message}`);
  w.next = (ms = 10000) =>
    within(new Promise((resolve) => (reports.length > 0 ? resolve(reports.shift()) : waiting.push(resolve))), ms, `Go agent ${task.name}'s next report`);
  // In the pass without Atomics.waitAsync (browser_test.go), the Go program lacks it too.
  w.postMessage({ module, noWaitAsync: typeof Atomics.waitAsync !== "function", registry: sabmutex.forWorker(), ...task });
  return w;
}

// Resolves with the time (clockMs) at which the registry knows agent id
// has ended (its life lock released: snapshot() shows it not alive), or -1
// if it does not within ms.
async function endLearnt(id, ms = 5000) {
  for (const t0 = performance.now(); performance.now() - t0 < ms; await sleep(2)) {
    if (sabmutex.snapshot().agents.some((a) => a.agentId === id && !a.alive)) return clockMs();
  }
  return -1;
}

// Waits in a worker, by kind of what the Go holder holds (see goHolderDies).
// Returns { got, told, atMs }.
function jsWaiter(sabmutex, { sab, kind, timeoutMs, untimed }) {
  const now = () => performance.timeOrigin + performance.now();
  let got, told = false;
  if (kind === "Mutex" || kind === "Cond") {
    const m = new sabmutex.Mutex(sab, kind === "Cond" ? 4 : 0);
    if (kind === "Cond") {
      // Already waiting on the Cond (see goHolderDies): the relock waits.
      got = true;
      self.cond.wait(m, timeoutMs);
    } else got = untimed ? m.lock() : m.lock(timeoutMs);
    told = m.previousHolderDied;
    if (got) m.unlock();
  } else if (kind === "RWMutex") {
    const rw = new sabmutex.RWMutex(sab, 0);
    got = rw.readLock(timeoutMs);
    told = rw.previousHolderDied;
    if (got) rw.readUnlock();
  } else if (kind === "RWMutex read") {
    const rw = new sabmutex.RWMutex(sab, 0);
    got = rw.lock(timeoutMs);
    told = rw.previousHolderDied;
    if (got) rw.unlock();
  } else if (kind === "Once") {
    const o = new sabmutex.Once(sab, 0);
    try {
      o.do(() => {
        Atomics.add(new Int32Array(sab, 200, 1), 0, 1);
        told = o.previousHolderDied;
      }, timeoutMs);
      got = true;
    } catch (e) {
      if (e.name !== "TimeoutError") throw e;
      got = false;
    }
  } else if (kind === "Channel") {
    const m = new sabmutex.Channel(sab, 0, 3, 16).recv(timeoutMs);
    got = m !== undefined;
  }
  return { got, told, atMs: now() };
}

// The page's wait, as jsWaiter's. Resolves with { got, told, atMs }.
async function pageWaiter(sab, kind, timeoutMs) {
  let got, told = false;
  if (kind === "Mutex" || kind === "Cond" || kind === "RWMutex" || kind === "RWMutex read") {
    const m = kind.startsWith("RWMutex") ? new sabmutex.RWMutex(sab, 0) : new sabmutex.Mutex(sab, kind === "Cond" ? 4 : 0);
    got = await m.lockAsync(timeoutMs);
    told = m.previousHolderDied;
    if (got) m.unlock();
  } else if (kind === "Once") {
    const o = new sabmutex.Once(sab, 0);
    got = await o
      .doAsync(() => {
        Atomics.add(new Int32Array(sab, 200, 1), 0, 1);
        told = o.previousHolderDied;
      }, timeoutMs)
      .then(() => true, (e) => (e.name === "TimeoutError" ? false : Promise.reject(e)));
  } else if (kind === "Channel") {
    got = (await new sabmutex.Channel(sab, 0, 3, 16).recvAsync(timeoutMs)) !== undefined;
  }
  return { got, told, atMs: clockMs() };
}

// A Go worker (testdata/goagent, role "hold") holds kind at slot 0 and is
// terminated while a JavaScript worker waits for it with a blocking call
// and the page with an async one (jsWaiter, pageWaiter):
//   Mutex         the worker in lock() (joined: without a timeout, its
//                 sleeps untimed, ended by the ticker), the page in lockAsync
//   RWMutex       the Go agent has the write lock; the worker waits in
//                 readLock(), the page in lockAsync()
//   RWMutex read  the Go agent has two read locks; the worker waits in
//                 lock(), the page in lockAsync(): both get the write lock
//   Once          the Go agent runs Do's f; the worker calls do(fn), the
//                 page doAsync(fn): one fn runs, told
//   Channel       the Go agent holds the cell at position 0 (as a sender
//                 mid-copy), two messages behind it; the worker recv()s,
//                 the page recvAsync()s: they wait for the cell
//   Cond          the worker waits on the Cond (wait(m)); the Go agent locks
//                 m and notifies it; the worker's relock and the page's
//                 lockAsync of m wait for the Go agent
// With joined false (the can-fail twin) the same Go agent does not join:
// nobody learns of its end, and the waits end at their timeouts of 600 ms
// (a Cond's relock has none: the worker is found still waiting 2 s after
// the end). Returns { worker, page, runs, endedToLastMs, learntToLastMs }:
// runs, the Once fns run; the times from terminate() and from when the page
// learnt the end (-1 in the twin) to the last waiter's end.
async function goHolderDies(kind, joined) {
  const sab = new SharedArrayBuffer(4 * 128); // a Channel(3, 16) and a Mutex at 120 (goagent/main.go)
  const timeoutMs = joined ? 5000 : 600;
  const [waiter] = await workers(["js waiter"]);
  let waiting = null;
  if (kind === "Cond") {
    // The worker waits on the Cond first; the Go agent then notifies it.
    await waiter.run((sabmutex, { sab }) => {
      self.cond = new sabmutex.Cond(sab, 0);
      new sabmutex.Mutex(sab, 4).lock();
    }, { sab });
    // Its wait on the Cond has 5 s (the twin's too): a Go agent slow to
    // start (six at once) notifies it late, never after its timeout.
    waiting = waiter.run(jsWaiter, { sab, kind, timeoutMs: 5000 });
    await sleep(100);
  }
  const go = await goAgent({ role: "hold", kind, join: joined, name: "go holder", memory: sab });
  const { id } = await go.next();
  if (kind === "Channel") {
    const ch = new sabmutex.Channel(sab, 0, 3, 16);
    ch.trySend("a");
    ch.trySend("b");
  }
  const untimed = joined && kind === "Mutex";
  if (untimed) {
    // lock() without a timeout sleeps untimed: the ticker (jsglue/ticker.js)
    // ends its sleeps, once this worker's event loop has started it.
    await waiter.run(async (sabmutex) => {
      const ticker = () => sabmutex[Symbol.for("sabmutex.internals")]().tickerStats();
      for (let i = 0; !ticker().running && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    });
  }
  waiting ??= waiter.run(jsWaiter, { sab, kind, timeoutMs, untimed });
  const pageWaits = pageWaiter(sab, kind, timeoutMs);
  await sleep(150); // the waits last past their first watch
  const endedMs = clockMs();
  go.terminate();
  const learnt = joined ? endLearnt(id) : Promise.resolve(-1);
  // The twin's Cond waiter relocks without a deadline: it is still waiting 2 s on.
  const w = await within(waiting, joined || kind !== "Cond" ? 8000 : 2000, "the worker's wait").catch((e) => (joined ? Promise.reject(e) : { got: false, told: false, atMs: -1 }));
  const [pg, learntMs] = await within(Promise.all([pageWaits, learnt]), 8000, "the page's wait");
  waiter.terminate();
  const lastMs = Math.max(w.atMs, pg.atMs);
  return {
    worker: w,
    page: pg,
    runs: Atomics.load(new Int32Array(sab, 200, 1), 0),
    endedToLastMs: lastMs - endedMs,
    learntToLastMs: learntMs < 0 ? null : lastMs - learntMs,
  };
}

// The other way: a JavaScript worker (joined) holds the Mutex at slot 0 and
// is terminated while a Go worker (role "wait") waits in Lock(). With
// joined false (the twin) the Go agent does not join: its wait is not
// watched, and ends at its timeout of 600 ms. Returns { took, died,
// endedToTookMs, learntToTookMs } (times as goHolderDies's).
async function jsHolderDies(joined) {
  const sab = new SharedArrayBuffer(256);
  const [holder] = await workers(["js holder"]);
  await holder.run((sabmutex, { sab }) => new sabmutex.Mutex(sab, 0).lock(), { sab });
  const go = await goAgent({ role: "wait", join: joined, name: "go waiter", memory: sab, timeoutMs: 600 });
  await go.next(); // { waiting }
  await sleep(150); // its wait lasts past its first watch
  const endedMs = clockMs();
  holder.terminate();
  const [r, learntMs] = await Promise.all([go.next(), endLearnt(holder.id)]);
  go.terminate();
  return { took: r.took, died: r.died, endedToTookMs: r.atMs - endedMs, learntToTookMs: learntMs < 0 ? null : r.atMs - learntMs };
}

// A deadlock through a Go agent and a JavaScript one: the Go program
// (role "deadlock", name "go agent") holds the Mutex A (slot 0), the
// JavaScript worker ("js agent") holds B (slot 2); then the Go program's
// goroutine locks B (LockContext, no deadline) while the worker locks A
// (lock() without a timeout, a blocking call): no wait with a deadline,
// which is never told. The one told (a deadlock error) releases what it
// holds, and the other then takes its lock. goFirst: the Go agent joins
// before the worker (so has the lower id). The twins, nothing told: extra
// (a second goroutine in the Go program, so its wait does not block it
// whole) and join false (the Go agent does not join); the Go program
// cancels its wait after 1.5 s and lets go of A, which the worker then
// takes. names ([A, B]): A and B are the Mutexes of those names instead.
// Returns { go, js } (each { id, took, error, startMs, endMs }).
async function goDeadlock({ goFirst = true, extra = false, join = true, names } = {}) {
  const sab = new SharedArrayBuffer(256);
  const timeoutMs = join && !extra ? 0 : 1500;
  const startGo = () => goAgent({ role: "deadlock", join, extra, name: "go agent", memory: sab, timeoutMs, names });
  let go, js, held;
  if (goFirst) (go = await startGo()), (held = await go.next()); // it has joined, and holds A
  [js] = await workers(["js agent"]);
  if (!goFirst) (go = await startGo()), (held = await go.next());
  const goId = held.id;
  await js.run((sabmutex, { sab, names }) => (names ? sabmutex.Mutex.named(names[1]) : new sabmutex.Mutex(sab, 2)).lock(), { sab, names });
  const jsWaits = js.run(
    (sabmutex, { sab, names }) => {
      const [a, b] = names ? names.map((n) => sabmutex.Mutex.named(n)) : [new sabmutex.Mutex(sab, 0), new sabmutex.Mutex(sab, 2)];
      const now = () => performance.timeOrigin + performance.now();
      const i32 = new Int32Array(sab), startMs = now();
      let took = false, error = null;
      try {
        took = a.lock();
      } catch (e) {
        error = `${e.name}: ${e.message}`;
      }
      const endMs = now();
      Atomics.add(i32, 9, 1);
      if (took) a.unlock();
      b.unlock();
      return { took, error, startMs, endMs };
    },
    { sab, names },
  );
  const i32 = new Int32Array(sab);
  Atomics.store(i32, 8, 1); // the Go program may lock B
  const [g, j] = await within(Promise.all([go.next(15000), jsWaits]), 15000, "the two waits");
  go.terminate();
  js.terminate();
  return { go: { ...g, id: goId, error: g.err ?? null }, js: { ...j, id: js.id } };
}

// snapshot() with a Go agent: a JavaScript worker ("js holder") holds the
// Mutex at slot 0; the page waits for it with lockAsync; the Go program
// ("go waiter", role "snapshot") takes sabsync.Snapshot() once it shows a
// wait, then waits in Lock(). The page takes snapshot() once it shows the
// Go agent's wait (joined; the twin, not joined: 300 ms after its
// report), then the holder unlocks, both waits end, and the Go worker is
// terminated: after, the page's snapshot() once the registry knows it
// ended. names ([A]): the Mutex named A instead of slot 0's. Returns { ids: { page, holder, go }, fromGo (Snapshot() as
// JSON), during, after (snapshot()s), goTook, pageTook }.
async function goSnapshot(joined, names) {
  const sab = new SharedArrayBuffer(256);
  const [holder] = await workers(["js holder"]);
  const at = (sabmutex, { sab, names }) => (names ? sabmutex.Mutex.named(names[0]) : new sabmutex.Mutex(sab, 0));
  await holder.run((sabmutex, { sab, names }) => (names ? sabmutex.Mutex.named(names[0]) : new sabmutex.Mutex(sab, 0)).lock(), { sab, names });
  const m = at(sabmutex, { sab, names });
  const pageWaits = m.lockAsync(10000).then((took) => (took && m.unlock(), took));
  const go = await goAgent({ role: "snapshot", join: joined, name: "go waiter", memory: sab, names });
  const { id, snapshot } = await go.next();
  const goWaits = () => sabmutex.snapshot().agents.find((a) => a.agentId === id)?.waitingFor;
  if (joined) for (const until = performance.now() + 5000; !goWaits() && performance.now() < until; ) await sleep(10);
  else await sleep(300);
  const during = sabmutex.snapshot();
  await holder.run((sabmutex, { sab, names }) => (names ? sabmutex.Mutex.named(names[0]) : new sabmutex.Mutex(sab, 0)).unlock(), { sab, names });
  const [r, pageTook] = await within(Promise.all([go.next(), pageWaits]), 10000, "the waits");
  go.terminate();
  if (joined) await endLearnt(id);
  const after = sabmutex.snapshot();
  holder.terminate();
  return { ids: { page: sabmutex.agentId, holder: holder.id, go: id }, fromGo: JSON.parse(snapshot), during, after, goTook: r.took, pageTook };
}

// A joined Go agent (role request: sabsync.Request), a JavaScript worker
// (locks.requestSync) and the page (locks.request) add to one counter under
// the lock named "shared counter", n times each (the page n/10); the Go
// agent also finds the page's Mutex.named("named by js") held. Returns {
// counter, expected, namedHeld }.
async function goAndJSNames(n) {
  await initPage();
  const sab = new SharedArrayBuffer(16);
  const i32 = new Int32Array(sab);
  const named = sabmutex.Mutex.named("named by js");
  await named.lockAsync();
  const [js] = await workers(["js requester"]);
  const go = await goAgent({ role: "request", join: true, name: "go requester", memory: sab, n });
  const jsDone = js.run(
    (sabmutex, { sab, n }) => {
      const i32 = new Int32Array(sab);
      for (let k = 0; k < n; k++) sabmutex.locks.requestSync("shared counter", () => Atomics.store(i32, 0, Atomics.load(i32, 0) + 1));
    },
    { sab, n },
  );
  for (let k = 0; k < n / 10; k++) await sabmutex.locks.request("shared counter", () => Atomics.store(i32, 0, Atomics.load(i32, 0) + 1));
  const r = await go.next(60000);
  await jsDone;
  named.unlock();
  go.terminate();
  js.terminate();
  return { counter: Atomics.load(i32, 0), expected: 2 * n + n / 10, namedHeld: r.namedHeld };
}

// Web Locks without limits (#59), at the sizes of the issue: the page
// holds n names at once, and a worker's query() lists them all (its view
// of the registry, made before they grew it, reaches them); then the page
// queues n requests on one name behind one it holds, a worker's
// requestSync queues behind them, and a joined Go agent's sabsync.Request
// (role request, n 1) behind that: every one is granted in its order (the
// page's k-th sees the counter at k, the worker's at n, and the Go
// agent's brings it to n + 2). Returns { listed, order, worker, counter,
// ms }: ms, when each phase ended (held, listed, released, queued, seen
// pending, the Go agent's queued, all granted), from the start; grown, the
// bytes the registry's buffer grew by while the page held the n names
// after the worker joined (0: the worker's view was never short, and the
// run did not reach what it is for).
async function locksAtSize(n) {
  await initPage();
  const sab = new SharedArrayBuffer(16);
  const i32 = new Int32Array(sab);
  const [js] = await workers(["js at size"]);
  const registry = sabmutex.forWorker().registry;
  const bytesBefore = registry.byteLength;
  const ms = [performance.now()];
  const mark = () => ms.push(Math.round(performance.now() - ms[0]));
  let open;
  const gate = new Promise((r) => (open = r));
  const holds = [];
  for (let k = 0; k < n; k++) holds.push(sabmutex.locks.request(`held ${k}`, () => gate));
  mark();
  const grown = registry.byteLength - bytesBefore;
  const listed = await js.run(async (sabmutex) => (await sabmutex.locks.query()).held.filter((l) => l.name.startsWith("held ")).length, {});
  mark();
  open();
  await Promise.all(holds);
  mark();

  let openDeep;
  const deepGate = new Promise((r) => (openDeep = r));
  const first = sabmutex.locks.request("shared counter", () => deepGate);
  let order = 0;
  const queued = [];
  for (let k = 0; k < n; k++) {
    queued.push(
      sabmutex.locks.request("shared counter", () => {
        if (Atomics.load(i32, 0) === k) order++;
        Atomics.store(i32, 0, k + 1);
      }),
    );
  }
  const pending = async (count) => {
    for (const t0 = performance.now(); performance.now() - t0 < 20000; await sleep(50)) {
      if ((await sabmutex.locks.query()).pending.filter((l) => l.name === "shared counter").length >= count) return;
    }
    throw new Error(`query() did not show ${count} requests pending on "shared counter" within 20 s`);
  };
  const worker = js.run(
    (sabmutex, { sab }) => {
      const i32 = new Int32Array(sab);
      return sabmutex.locks.requestSync("shared counter", () => {
        const v = Atomics.load(i32, 0);
        Atomics.store(i32, 0, v + 1);
        return v;
      });
    },
    { sab },
  );
  mark();
  await pending(n + 1);
  mark();
  const go = await goAgent({ role: "request", join: true, name: "go at size", memory: sab, n: 1 });
  await pending(n + 2);
  mark();
  openDeep();
  await first;
  await Promise.all(queued);
  mark();
  const seen = await worker;
  await go.next(60000);
  go.terminate();
  js.terminate();
  return { listed, order, worker: seen, counter: Atomics.load(i32, 0), ms: ms.slice(1), grown };
}
