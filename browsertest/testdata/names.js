// Page side of browsertest's names tests (names_test.go): primitives by
// name across the page and workers that joined its registry.
"use strict";

// Workers (classic and module) that joined the page's registry.
async function namedWorkers(kinds) {
  await sabmutex.init();
  const ws = kinds.map(startWorker);
  await Promise.all(ws.map((w, i) => w.run(async (sabmutex, init) => sabmutex.init(init), { ...sabmutex.forWorker(), name: `named ${i}` })));
  return ws;
}

// Each worker and the page take Mutex.named(name) n times and add 1 to a
// counter (a separate load and store in a SharedArrayBuffer that the page
// posts: what the lock guards) while they hold it; with useLock false, the
// same without the lock (the twin that must come up short). Also returns
// where each agent found the Mutex: one slot for all.
async function namedHammer({ kinds, n, useLock }) {
  const ws = await namedWorkers(kinds);
  const sab = new SharedArrayBuffer(16);
  const i32 = new Int32Array(sab);
  const work = async (sabmutex, { sab, n, useLock }) => {
    const i32 = new Int32Array(sab);
    const m = sabmutex.Mutex.named("counter's lock");
    // All in before anyone starts, and out together: the last in wakes the
    // others (a sleep of 1 ms a look let one worker finish before the next
    // woke, and the twin lost nothing in Chromium, 1 run in 6).
    if (Atomics.add(i32, 1, 1) + 1 < Atomics.load(i32, 2)) {
      while (Atomics.load(i32, 1) < Atomics.load(i32, 2)) Atomics.wait(i32, 1, Atomics.load(i32, 1), 1000);
    } else {
      Atomics.notify(i32, 1);
    }
    for (let k = 0; k < n; k++) {
      if (useLock) m.lock();
      const v = Atomics.load(i32, 0);
      for (let s = 0; s < 20; s++) Atomics.load(i32, 3); // a window for a race, should there be no lock
      Atomics.store(i32, 0, v + 1);
      if (useLock) m.unlock();
    }
    return m._at;
  };
  i32[2] = ws.length;
  const slots = await Promise.all(ws.map((w) => w.run(work, { sab, n, useLock })));
  const m = sabmutex.Mutex.named("counter's lock");
  slots.push(m._at);
  for (let k = 0; k < n / 10; k++) {
    if (useLock) await m.lockAsync();
    Atomics.store(i32, 0, Atomics.load(i32, 0) + 1);
    if (useLock) m.unlock();
  }
  ws.forEach((w) => w.terminate());
  return { counter: i32[0], expected: ws.length * n + n / 10, slots, same: m === sabmutex.Mutex.named("counter's lock") };
}

// The family by name across agents: a Semaphore of 2 permits that three
// workers share (never more than 2 inside), a Channel that two workers send
// into and the page drains, a WaitGroup the page waits on, a Barrier, a
// Once that runs once, a Cond, an RWMutex; then every mistake: another kind,
// other parameters, no parameters for a new name, bad parameters, a Symbol.
async function namedFamily() {
  const ws = await namedWorkers(["classic", "module", "module"]);
  const sab = new SharedArrayBuffer(16);
  const i32 = new Int32Array(sab);
  const wg = sabmutex.WaitGroup.named("wg");
  wg.add(3);
  const ch = sabmutex.Channel.named("ch", { capacity: 4, maxMessageBytes: 32 });
  sabmutex.Semaphore.named("sem", 2);
  const results = ws.map((w, i) =>
    w.run(
      async (sabmutex, { sab, i }) => {
        const i32 = new Int32Array(sab);
        const sem = sabmutex.Semaphore.named("sem"); // (the page made it)
        let most = 0;
        for (let k = 0; k < 200; k++) {
          sem.acquire();
          most = Math.max(most, Atomics.add(i32, 0, 1) + 1);
          Atomics.sub(i32, 0, 1);
          sem.release();
        }
        const once = sabmutex.Once.named("once");
        once.do(() => Atomics.add(i32, 1, 1));
        const b = sabmutex.Barrier.named("barrier", 3);
        b.wait(10000);
        const rw = sabmutex.RWMutex.named("rw");
        rw.readLock();
        rw.readUnlock();
        if (i < 2) {
          const ch = sabmutex.Channel.named("ch");
          for (let k = 0; k < 50; k++) ch.send(`${i}:${k}`);
        }
        sabmutex.WaitGroup.named("wg").done();
        return most;
      },
      { sab, i },
    ),
  );
  const got = [];
  while (got.length < 100) got.push(await ch.recvAsync({ timeoutMs: 10000 }));
  const mosts = await Promise.all(results);
  const waited = await wg.waitAsync({ timeoutMs: 10000 });
  const errors = {};
  const cases = {
    otherKind: () => sabmutex.Mutex.named("sem"),
    otherPermits: () => sabmutex.Semaphore.named("sem", 3),
    otherChannel: () => sabmutex.Channel.named("ch", { capacity: 8, maxMessageBytes: 32 }),
    noPermits: () => sabmutex.Semaphore.named("new semaphore"),
    noParties: () => sabmutex.Barrier.named("new barrier"),
    noChannel: () => sabmutex.Channel.named("new channel"),
    badPermits: () => sabmutex.Semaphore.named("bad", 0),
    badChannel: () => sabmutex.Channel.named("bad", { capacity: 1.5, maxMessageBytes: 8 }),
    symbol: () => sabmutex.Mutex.named(Symbol("x")),
  };
  for (const [k, f] of Object.entries(cases)) errors[k] = await errorOf(f);
  // Nothing was taken by the mistakes: "bad" can still be a Mutex.
  const badIsFree = sabmutex.Mutex.named("bad").tryLock();
  // Names compared code unit by code unit: lone surrogates apart, and a
  // number named as its string.
  const distinct = new Set([sabmutex.Mutex.named("\ud800"), sabmutex.Mutex.named("\udc00"), sabmutex.Mutex.named("\ud800\udc00"), sabmutex.Mutex.named(""), sabmutex.Mutex.named(1)]).size;
  const numberIsString = sabmutex.Mutex.named(1) === sabmutex.Mutex.named("1");
  ws.forEach((w) => w.terminate());
  return { mosts, onceRuns: i32[1], received: got.length, distinctMessages: new Set(got).size, waited, errors, badIsFree, distinct, numberIsString };
}

// A worker ends while it holds Mutex.named("held"): the page's lockAsync
// gets it (the dead holder's release), told that the holder died.
async function namedDeadHolder() {
  const [w] = await namedWorkers(["module"]);
  await w.run(async (sabmutex) => sabmutex.Mutex.named("held").lock());
  const m = sabmutex.Mutex.named("held");
  const busy = !m.tryLock();
  w.terminate();
  const t0 = performance.now();
  const got = await m.lockAsync({ timeoutMs: 10000 });
  return { busy, got, ms: performance.now() - t0 };
}

// Names where users read them (#44, point 6).

const namedSleep = (ms) => new Promise((r) => setTimeout(r, ms));

// snapshot() while agents wait: a worker blocked on Mutex.named("snap db"),
// the page's wait for the RWMutex named "snap lock", and a
// worker blocked on a Mutex of a buffer of its own at the very index of
// "snap db" in the registry's (the index alone cannot tell them apart);
// one worker holds all three. Returns each agent's waitingFor, by the
// name it joined under ("page" for the page).
async function namedSnapshot() {
  await sabmutex.init({ name: "page" });
  const ws = await namedWorkers(["module", "module", "classic"]);
  const [holder, waiter, other] = ws;
  const at = sabmutex.Mutex.named("snap db")._at;
  const sab = new SharedArrayBuffer((at + 8) * 4);
  await holder.run(
    async (sabmutex, { sab, at }) => {
      sabmutex.Mutex.named("snap db").lock();
      sabmutex.RWMutex.named("snap lock").lock();
      new sabmutex.Mutex(sab, at).lock();
    },
    { sab, at },
  );
  const waits = [
    waiter.run(async (sabmutex) => {
      const m = sabmutex.Mutex.named("snap db");
      m.lock();
      m.unlock();
    }),
    other.run(
      async (sabmutex, { sab, at }) => {
        const m = new sabmutex.Mutex(sab, at);
        m.lock();
        m.unlock();
      },
      { sab, at },
    ),
    sabmutex.RWMutex.named("snap lock").withLockAsync(() => true),
  ];
  await namedSleep(400); // past the watch period, which records the waits
  const snap = sabmutex.snapshot();
  await holder.run(
    async (sabmutex, { sab, at }) => {
      sabmutex.Mutex.named("snap db").unlock();
      sabmutex.RWMutex.named("snap lock").unlock();
      new sabmutex.Mutex(sab, at).unlock();
    },
    { sab, at },
  );
  await Promise.all(waits);
  ws.forEach((w) => w.terminate());
  return { at, agents: Object.fromEntries(snap.agents.map((a) => [a.agentId === snap.agentId ? "page" : a.name, a.waitingFor])) };
}

// A deadlock of three workers over primitives by name: worker i holds its
// own and then takes the next's with a blocking call ("dl a", a Mutex;
// "dl b", an RWMutex's write lock; "dl c", a Mutex); each looks up only
// its two names, so the one told (the lowest id) has not looked up the
// third. Returns what each was told (null: none).
async function namedDeadlock() {
  await sabmutex.init({ name: "page" });
  const ws = await namedWorkers(["module", "module", "classic"]);
  const sab = new SharedArrayBuffer(16);
  const told = await Promise.all(
    ws.map((w, i) =>
      w.run(
        async (sabmutex, { sab, i }) => {
          const words = new Int32Array(sab);
          const lockOf = (k) => (k === 1 ? sabmutex.RWMutex.named("dl b") : sabmutex.Mutex.named(k === 0 ? "dl a" : "dl c"));
          const mine = lockOf(i), next = lockOf((i + 1) % 3);
          mine.lock();
          Atomics.add(words, 0, 1);
          Atomics.notify(words, 0);
          for (let c; (c = Atomics.load(words, 0)) < 3; ) Atomics.wait(words, 0, c, 100);
          try {
            next.lock();
            next.unlock();
            return null;
          } catch (e) {
            return `${e.name}: ${e.message}`;
          } finally {
            mine.unlock();
          }
        },
        { sab, i },
      ),
    ),
  );
  ws.forEach((w) => w.terminate());
  return told;
}

// Debug mode's lock-order report over Mutexes by name: one worker takes
// "order x" then "order y", another (after it) "order y" then "order x".
// Returns the reports of the page's onReport.
async function namedDebugOrder() {
  await sabmutex.init({ name: "page", debug: true });
  const reports = [];
  sabmutex.onReport((r) => reports.push(r));
  const ws = await namedWorkers(["module", "classic"]);
  for (const [w, first, second] of [[ws[0], "order x", "order y"], [ws[1], "order y", "order x"]]) {
    await w.run(
      async (sabmutex, { first, second }) => {
        const a = sabmutex.Mutex.named(first), b = sabmutex.Mutex.named(second);
        a.lock();
        b.lock();
        b.unlock();
        a.unlock();
      },
      { first, second },
    );
  }
  sabmutex[Symbol.for("sabmutex.internals")]().collectNow();
  for (const until = performance.now() + 5000; reports.length === 0 && performance.now() < until; ) await namedSleep(20);
  ws.forEach((w) => w.terminate());
  return reports.map((r) => ({ kind: r.kind, message: r.message }));
}

// Errors say the name (#51): every message of a primitive by name that
// names the primitive says `the Mutex "msg mutex"`, not an index. A worker
// holds the Mutex and the RWMutex "msg ..." (and tries the Mutex's lock()
// again, and Once's do() inside its own do()) while the page times out on
// them and unlocks what it does not hold; then the page's own misuses; and each kind's internal error
// (_failure of a result no call returns), the one message every kind
// has. Returns each case's { name, message } (null: it did not throw).
async function namedMessages() {
  const [w] = await namedWorkers(["module"]);
  const cases = {};
  Object.assign(
    cases,
    await w.run(async (sabmutex) => {
      const errorOf = (f) => {
        try {
          f();
          return null;
        } catch (e) {
          return { name: e.name, message: e.message };
        }
      };
      const m = sabmutex.Mutex.named("msg mutex");
      m.lock();
      sabmutex.RWMutex.named("msg rwmutex").lock();
      const once = sabmutex.Once.named("msg once");
      return {
        "Mutex lock() held by this agent": errorOf(() => m.lock()),
        "Once do() in its own do()": errorOf(() => once.do(() => once.do(() => {}))),
      };
    }),
  );
  const m = sabmutex.Mutex.named("msg mutex");
  const rw = sabmutex.RWMutex.named("msg rwmutex");
  const held = {
    "Mutex acquireAsync() timed out": () => m.acquireAsync({ timeoutMs: 5 }),
    "Mutex withLockAsync() timed out": () => m.withLockAsync(() => {}, { timeoutMs: 5 }),
    "Mutex unlock() by another agent": () => m.unlock(),
    "RWMutex withLockAsync() timed out": () => rw.withLockAsync(() => {}, { timeoutMs: 5 }),
    "RWMutex withReadLockAsync() timed out": () => rw.withReadLockAsync(() => {}, { timeoutMs: 5 }),
    "RWMutex unlock() by another agent": () => rw.unlock(),
  };
  for (const [k, f] of Object.entries(held)) cases[k] = await errorOf(f);
  await w.run(async (sabmutex) => {
    sabmutex.Mutex.named("msg mutex").unlock();
    sabmutex.RWMutex.named("msg rwmutex").unlock();
  });
  w.terminate();
  const sem = sabmutex.Semaphore.named("msg semaphore", 2);
  const wg = sabmutex.WaitGroup.named("msg waitgroup");
  const ch = sabmutex.Channel.named("msg channel", { capacity: 2, maxMessageBytes: 8 });
  const own = {
    "Mutex unlock() unlocked": () => m.unlock(),
    "Mutex corrupted": () => {
      m._i32[m._at] = 7;
      try {
        m.tryLock();
      } finally {
        m._i32[m._at] = 0;
      }
    },
    "RWMutex unlock() unlocked": () => rw.unlock(),
    "RWMutex readUnlock() unlocked": () => rw.readUnlock(),
    "Semaphore release() of none taken": () => sem.release(1),
    "WaitGroup add(-1)": () => wg.add(-1),
    "Channel message too long": () => ch.trySend("too long for eight bytes"),
    "Channel closed twice": () => {
      ch.close();
      ch.close();
    },
    "Channel send on closed": () => ch.trySend("x"),
  };
  for (const [k, f] of Object.entries(own)) cases[k] = await errorOf(f);
  const all = {
    Mutex: m,
    RWMutex: rw,
    Semaphore: sem,
    Cond: sabmutex.Cond.named("msg cond"),
    WaitGroup: wg,
    Barrier: sabmutex.Barrier.named("msg barrier", 2),
    Once: sabmutex.Once.named("msg once"),
    Channel: ch,
  };
  for (const [type, p] of Object.entries(all)) cases[`${type} internal error`] = errorInfo(p._failure(-12345, "x"));
  return cases;
}
