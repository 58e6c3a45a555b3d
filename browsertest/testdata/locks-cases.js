// locks.html's cases, adapted from web-platform-tests' web-locks suite
// (acquire, modes, ifAvailable, steal, signal, query, resource names,
// errors, release when a worker ends), for runCases: each run against
// navigator.locks (the reference: a case that fails there is a wrong case)
// and against sabmutex.locks, on the page (locks.html) or in a worker of
// its registry (locks-cases-worker.js).

import * as sabmutex from "/dist/sabmutex.mjs";
let unique = 0;
const impls = { native: () => navigator.locks, sab: () => sabmutex.locks };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Long enough for a request that can be granted to be (navigator.locks
// grants through the browser's process: WebKitGTK took more than 5 tasks).
const ticks = () => sleep(50);
// Resolves once cond() holds (2 s at most: then the check after it fails).
async function until(cond) {
  for (const t0 = performance.now(); !cond() && performance.now() - t0 < 2000; ) await sleep(1);
}
function check(cond, what) {
  if (!cond) throw new Error(what);
}
// The error a promise rejects with, as "Name" (null: it resolved).
async function rejection(p) {
  try {
    await p;
    return null;
  } catch (e) {
    return e && e.name;
  }
}
async function mustReject(p, name, what) {
  const got = await rejection(p);
  check(got === name, `${what}: rejected with ${got}, want ${name}`);
}
function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}
// Resolves once query() shows count pending requests of name (2 s at
// most: then the check after it fails).
async function untilQueued(locks, n, count) {
  let q;
  for (const t0 = performance.now(); performance.now() - t0 < 2000; await sleep(1)) {
    q = await locks.query();
    if (q.pending.filter((l) => l.name === n).length === count) return;
  }
  throw new Error(`query() did not show ${count} pending requests of ${n}: ${JSON.stringify(q)}`);
}
const never = () => () => {
  throw new Error("the callback ran");
};

// A worker of implementation impl that runs locks-worker.js's actions.
export async function worker(impl) {
  const w = new Worker("locks-worker.js", { type: "module" });
  w.onerror = (e) => console.error(`locks-worker.js: ${e.message}`);
  const pending = [];
  w.onmessage = ({ data }) => pending.shift()(data);
  w.ask = (msg) => new Promise((r) => (pending.push(r), w.postMessage(msg)));
  w.next = () => new Promise((r) => pending.push(r)); // (the second answer to one message)
  await w.ask({ impl, init: impl === "sab" ? sabmutex.forWorker() : null });
  return w;
}

const cases = {
  async "request resolves with the callback's value, after it settles"(locks, name) {
    let inside = false;
    const p = locks.request(name(), async (lock) => {
      inside = true;
      check(lock.name.includes("case") && lock.mode === "exclusive", `lock ${lock.name} ${lock.mode}`);
      await sleep(5);
      return 42;
    });
    check(!inside, "the callback ran inside request()");
    check((await p) === 42, "value");
  },
  async "the callback's rejection rejects the request and releases the lock"(locks, name) {
    const n = name();
    const e = new Error("mine");
    const got = await locks.request(n, () => Promise.reject(e)).catch((x) => x);
    check(got === e, "the callback's error");
    check((await locks.request(n, { ifAvailable: true }, (l) => l !== null)) === true, "released");
  },
  async "exclusive requests are granted one at a time, in order"(locks, name) {
    const n = name();
    const order = [];
    const ps = [1, 2, 3].map((i) => locks.request(n, async () => (order.push(`in ${i}`), await sleep(2), order.push(`out ${i}`))));
    await Promise.all(ps);
    check(order.join() === "in 1,out 1,in 2,out 2,in 3,out 3", order.join());
  },
  async "shared requests are held together"(locks, name) {
    const n = name();
    const gate = deferred();
    let inside = 0;
    const ps = [1, 2].map(() => locks.request(n, { mode: "shared" }, async (l) => (check(l.mode === "shared", l.mode), inside++, await gate.promise)));
    await until(() => inside === 2);
    check(inside === 2, `${inside} inside`);
    gate.resolve();
    await Promise.all(ps);
  },
  async "a shared request behind a waiting exclusive one waits"(locks, name) {
    const n = name();
    const order = [];
    const gate = deferred();
    const a = locks.request(n, { mode: "shared" }, async () => (order.push("s1"), await gate.promise));
    const b = locks.request(n, async () => order.push("x"));
    const c = locks.request(n, { mode: "shared" }, async () => order.push("s2"));
    await until(() => order.length > 0);
    await ticks();
    check(order.join() === "s1", order.join());
    gate.resolve();
    await Promise.all([a, b, c]);
    check(order.join() === "s1,x,s2", order.join());
  },
  async "ifAvailable: null when held, the lock when free"(locks, name) {
    const n = name();
    const gate = deferred();
    const held = locks.request(n, () => gate.promise);
    await ticks();
    check((await locks.request(n, { ifAvailable: true }, (l) => l)) === null, "not null while held");
    check((await locks.request(name(), { ifAvailable: true }, (l) => l && l.mode)) === "exclusive", "another name");
    gate.resolve();
    await held;
    check((await locks.request(n, { ifAvailable: true }, (l) => l && l.name)) === n, "after release");
  },
  async "ifAvailable: a shared request while shared ones hold it"(locks, name) {
    const n = name();
    const gate = deferred();
    const held = locks.request(n, { mode: "shared" }, () => gate.promise);
    await ticks();
    check((await locks.request(n, { mode: "shared", ifAvailable: true }, (l) => l && l.mode)) === "shared", "not granted");
    check((await locks.request(n, { ifAvailable: true }, (l) => l)) === null, "exclusive granted over a shared one");
    gate.resolve();
    await held;
  },
  async "ifAvailable: not granted while another request waits"(locks, name) {
    const n = name();
    const gate = deferred();
    const a = locks.request(n, () => gate.promise);
    const b = locks.request(n, () => {});
    await ticks();
    check((await locks.request(n, { mode: "shared", ifAvailable: true }, (l) => l)) === null, "granted ahead of a waiter");
    gate.resolve();
    await Promise.all([a, b]);
  },
  async "steal: the holder's request rejects with AbortError, the stealer runs"(locks, name) {
    const n = name();
    const held = locks.request(n, () => new Promise(() => {}));
    await ticks();
    const order = [];
    const stolen = held.catch((e) => (order.push("stolen"), e.name));
    const s = await locks.request(n, { steal: true }, (l) => (order.push("stealer"), l.mode));
    check(s === "exclusive", s);
    check((await stolen) === "AbortError", "held rejected with something else");
    check((await locks.request(n, () => "after")) === "after", "released after the steal");
  },
  async "steal: a waiting request stays queued behind the stealer"(locks, name) {
    const n = name();
    const held = locks.request(n, () => new Promise(() => {}));
    held.catch(() => {});
    const waiter = locks.request(n, () => "waiter");
    await ticks();
    check((await locks.request(n, { steal: true }, () => "stole")) === "stole", "steal");
    check((await waiter) === "waiter", "waiter");
  },
  async "steal with ifAvailable, steal shared, signal with steal or ifAvailable: NotSupportedError"(locks, name) {
    const n = name();
    await mustReject(locks.request(n, { steal: true, ifAvailable: true }, never()), "NotSupportedError", "steal+ifAvailable");
    await mustReject(locks.request(n, { steal: true, mode: "shared" }, never()), "NotSupportedError", "steal shared");
    const signal = new AbortController().signal;
    await mustReject(locks.request(n, { steal: true, signal }, never()), "NotSupportedError", "signal+steal");
    await mustReject(locks.request(n, { ifAvailable: true, signal }, never()), "NotSupportedError", "signal+ifAvailable");
  },
  async "signal: not an AbortSignal is a TypeError"(locks, name) {
    for (const signal of ["s", 1.5, false, {}, () => {}, self]) {
      await mustReject(locks.request(name(), { signal }, never()), "TypeError", `signal ${String(signal)}`);
    }
  },
  async "signal: aborted before, while waiting, right after request(); not after the grant"(locks, name, impl) {
    const before = new AbortController();
    before.abort();
    await mustReject(locks.request(name(), { signal: before.signal }, never()), "AbortError", "aborted before");
    const reason = new Error("why");
    const withReason = new AbortController();
    withReason.abort(reason);
    // (The spec rejects with the signal's reason; WebKitGTK 2.50's navigator.locks with an AbortError.)
    const why = await locks.request(name(), { signal: withReason.signal }, never()).catch((e) => e);
    check(why === reason || (impl === "native" && why && why.name === "AbortError"), "the signal's reason");
    const n = name();
    const gate = deferred();
    const held = locks.request(n, () => gate.promise);
    const waiting = new AbortController();
    const w = locks.request(n, { signal: waiting.signal }, never());
    const next = locks.request(n, () => "next");
    await ticks();
    const q = await locks.query();
    check(q.held.filter((l) => l.name === n).length === 1 && q.pending.filter((l) => l.name === n).length === 2, `query ${JSON.stringify(q)}`);
    waiting.abort();
    await mustReject(w, "AbortError", "aborted while waiting");
    gate.resolve();
    await held;
    check((await next) === "next", "the next request after the aborted one");
    const sync = new AbortController();
    let ran = false;
    const p = locks.request(name(), { signal: sync.signal }, () => (ran = true));
    sync.abort();
    await mustReject(p, "AbortError", "aborted right after request()");
    check(!ran, "the callback ran");
    const after = new AbortController();
    const granted = deferred();
    const release = deferred();
    const q2 = locks.request(name(), { signal: after.signal }, () => (granted.resolve(), release.promise));
    await granted.promise;
    after.abort();
    release.resolve("kept");
    check((await q2) === "kept", "aborted after the grant");
  },
  async "names: as WebIDL strings, compared code unit by code unit"(locks, name) {
    const base = name();
    for (const [given, want] of [[1, "1"], [null, "null"], [undefined, "undefined"], [{ toString: () => base }, base], ["\ud800", "\ud800"], ["", ""]]) {
      const got = await locks.request(given, (l) => l.name);
      check(got === want, `name ${String(given)} -> ${JSON.stringify(got)}`);
    }
    // Lone surrogates and their pair are three names: held at once.
    const gate = deferred();
    let inside = 0;
    const all = ["\ud800", "\udc00", "\ud800\udc00", "\ufffd"].map((n) => locks.request(base + n, () => (inside++, gate.promise)));
    await until(() => inside === 4);
    check(inside === 4, `${inside} of the 4 names held at once`);
    gate.resolve();
    await Promise.all(all);
    await mustReject(locks.request(Symbol(), never()), "TypeError", "a Symbol");
    await mustReject(locks.request("-" + base, never()), "NotSupportedError", "a name that starts with -");
  },
  async "errors: a bad mode, a callback that is not a function, options that are not an object"(locks, name) {
    await mustReject(locks.request(name(), { mode: "bogus" }, never()), "TypeError", "mode");
    await mustReject(locks.request(name(), {}), "TypeError", "no callback");
    await mustReject(locks.request(name(), {}, 7), "TypeError", "a number as callback");
    await mustReject(locks.request(name(), 7, never()), "TypeError", "options 7");
    await mustReject(locks.request(name()), "TypeError", "one argument");
  },
  async "query: entries of exactly name, mode and clientId"(locks, name) {
    const n = name();
    const gate = deferred();
    const a = locks.request(n, { mode: "shared" }, () => gate.promise);
    const b = locks.request(n, () => {});
    await ticks();
    const q = await locks.query();
    const held = q.held.filter((l) => l.name === n);
    const pending = q.pending.filter((l) => l.name === n);
    check(held.length === 1 && held[0].mode === "shared" && pending.length === 1 && pending[0].mode === "exclusive", JSON.stringify(q));
    for (const e of [...held, ...pending]) check(Object.keys(e).sort().join() === "clientId,mode,name" && typeof e.clientId === "string", JSON.stringify(e));
    gate.resolve();
    await Promise.all([a, b]);
  },
  async "query: another agent's held and pending requests, each with its agent's clientId"(locks, name, impl) {
    const n = name(), mine = name();
    const [a, b] = await Promise.all([worker(impl), worker(impl)]);
    try {
      check((await a.ask({ hold: n })) === "held", "worker a's hold");
      check((await b.ask({ pend: n, mode: "shared" })) === "queued", "worker b's request");
      const gate = deferred();
      const page = locks.request(mine, () => gate.promise);
      await ticks();
      const q = await locks.query();
      const held = q.held.filter((l) => l.name === n), pending = q.pending.filter((l) => l.name === n);
      const own = q.held.filter((l) => l.name === mine);
      check(held.length === 1 && held[0].mode === "exclusive" && pending.length === 1 && pending[0].mode === "shared" && own.length === 1, JSON.stringify(q));
      check(new Set([held[0].clientId, pending[0].clientId, own[0].clientId]).size === 3, `three agents, three clientIds: ${JSON.stringify(q)}`);
      gate.resolve();
      await page;
    } finally {
      a.terminate();
      b.terminate();
    }
  },
  async "query: the lock of an agent whose event loop is blocked"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    const sab = new SharedArrayBuffer(4);
    try {
      const { done } = await new Promise((r) => {
        // (once the worker holds it: { done }, the promise of its release)
        w.onmessage = ({ data }) => data === "held" && r({ done: new Promise((r2) => (w.onmessage = ({ data }) => data === "released" && r2())) });
        w.postMessage({ holdBlocked: n, sab });
      });
      const q = await locks.query();
      const held = q.held.filter((l) => l.name === n);
      check(held.length === 1 && held[0].mode === "exclusive" && typeof held[0].clientId === "string", JSON.stringify(q));
      Atomics.store(new Int32Array(sab), 0, 1);
      Atomics.notify(new Int32Array(sab), 0);
      await done;
      check((await locks.request(n, () => "after")) === "after", "released after");
    } finally {
      w.terminate();
    }
  },
  async "steal from another agent: its request rejects with an AbortError, the stealer runs"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    try {
      check((await w.ask({ hold: n })) === "held", "the worker's hold");
      check((await locks.request(n, { steal: true }, (l) => l.mode)) === "exclusive", "the page's steal");
      check((await w.ask({ outcome: n })) === "AbortError", "the worker's request");
      const m = name();
      const held = rejection(locks.request(m, () => new Promise(() => {}))); // (handled before the steal rejects it)
      await ticks();
      check((await w.ask({ steal: m })) === "stole", "the worker's steal");
      check((await held) === "AbortError", `the page's request: rejected with ${await held}, want AbortError`);
      check((await locks.request(m, () => "after")) === "after", "released after the steals");
    } finally {
      w.terminate();
    }
  },
  // Issue #52's cases: one lock request queue per name across agents.
  async "across agents: requests are granted in the order made (a worker holds, the page, then a second worker)"(locks, name, impl) {
    // The same two workers in the five runs, each run on a name of its own.
    const [w1, w2] = await Promise.all([worker(impl), worker(impl)]);
    try {
      for (let run = 0; run < 5; run++) {
        const n = name();
        check((await w1.ask({ holdGate: n })) === "held", "the first worker's hold");
        const gate = deferred();
        let page = false;
        const p = locks.request(n, () => ((page = true), gate.promise));
        await untilQueued(locks, n, 1);
        let second = false;
        const w2held = w2.ask({ holdGate: n }).then(() => (second = true));
        await untilQueued(locks, n, 2);
        check((await w1.ask({ release: n })) === "resolved", "the first worker's release");
        await until(() => page || second);
        await ticks();
        check(page && !second, `run ${run}: after the first worker let go, the page ${page ? "was" : "was not"} granted and the second worker ${second ? "was" : "was not"}`);
        gate.resolve();
        await p;
        await w2held;
        check((await w2.ask({ release: n })) === "resolved", "the second worker's release");
      }
    } finally {
      w1.terminate();
      w2.terminate();
    }
  },
  async "across agents: a shared request behind a queued exclusive one waits for it"(locks, name, impl) {
    const n = name();
    const [w1, w2, w3] = await Promise.all([worker(impl), worker(impl), worker(impl)]);
    try {
      check((await w1.ask({ holdGate: n })) === "held", "the first worker's hold");
      const gate = deferred();
      let page = false;
      const p = locks.request(n, { mode: "shared" }, () => ((page = true), gate.promise));
      await untilQueued(locks, n, 1);
      let writer = false;
      const w2held = w2.ask({ holdGate: n }).then(() => (writer = true));
      await untilQueued(locks, n, 2);
      let reader = false;
      const w3held = w3.ask({ holdGate: n, mode: "shared" }).then(() => (reader = true));
      await untilQueued(locks, n, 3);
      await w1.ask({ release: n });
      await until(() => page);
      await ticks();
      check(page && !reader && !writer, `the page's shared lock ${page}, the third worker's shared one behind the exclusive ${reader} (want false), the exclusive ${writer}`);
      gate.resolve();
      await p;
      await w2held;
      check(!reader, "the shared request was granted beside the exclusive one");
      await w2.ask({ release: n });
      await w3held;
      await w3.ask({ release: n });
    } finally {
      for (const w of [w1, w2, w3]) w.terminate();
    }
  },
  async "across agents: query() lists a blocked worker's held read lock and another's pending request, at once"(locks, name, impl) {
    const n = name();
    const [w1, w2] = await Promise.all([worker(impl), worker(impl)]);
    const sab = new SharedArrayBuffer(4);
    try {
      const held = w1.ask({ holdBlocked: n, sab, mode: "shared" });
      check((await held) === "held", "the blocked worker's hold");
      check((await w2.ask({ pend: n })) === "queued", "the second worker's request");
      await untilQueued(locks, n, 1);
      const q = await locks.query();
      const mine = (l) => l.name === n;
      check(q.held.filter(mine).length === 1 && q.held.find(mine).mode === "shared", `held ${JSON.stringify(q.held.filter(mine))}`);
      check(q.pending.filter(mine).length === 1 && q.pending.find(mine).mode === "exclusive", `pending ${JSON.stringify(q.pending.filter(mine))}`);
      check(q.held.find(mine).clientId !== q.pending.find(mine).clientId, "one clientId for two agents");
      check(Atomics.load(new Int32Array(sab), 0) === 0, "the holder was released before query() answered");
      const released = w1.next();
      Atomics.store(new Int32Array(sab), 0, 1);
      Atomics.notify(new Int32Array(sab), 0);
      check((await released) === "released", "the blocked worker's release");
      check((await w2.ask({ outcome: n })) === "granted", "the pending request after the release");
    } finally {
      w1.terminate();
      w2.terminate();
    }
  },
  async "across agents: a steal is granted at once while the holder's worker is blocked in its callback"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    const sab = new SharedArrayBuffer(4);
    try {
      check((await w.ask({ holdBlocked: n, sab })) === "held", "the worker's hold");
      const got = await Promise.race([locks.request(n, { steal: true }, () => "stole"), sleep(3000).then(() => "not granted in 3 s")]);
      check(got === "stole", `the steal: ${got}`);
      check(Atomics.load(new Int32Array(sab), 0) === 0, "the holder was released first");
      const released = w.next();
      Atomics.store(new Int32Array(sab), 0, 1);
      Atomics.notify(new Int32Array(sab), 0);
      await released; // (its request's outcome: navigator.locks in Chromium resolves it, its callback having returned while blocked)
    } finally {
      w.terminate();
    }
  },
  async "a worker that ends while it waits leaves the queue; the next request is granted"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    try {
      const gate = deferred();
      const held = locks.request(n, () => gate.promise);
      check((await w.ask({ pend: n })) === "queued", "the worker's request");
      await untilQueued(locks, n, 1);
      const next = locks.request(n, () => "next");
      await untilQueued(locks, n, 2);
      w.terminate();
      await sleep(100);
      gate.resolve();
      await held;
      const got = await Promise.race([next, sleep(3000).then(() => "not granted in 3 s")]);
      check(got === "next", `the request after the ended worker's: ${got}`);
    } finally {
      w.terminate();
    }
  },
  async "distinct names take no room once released: more than the registry holds at once, on the page and in a worker's requestSync"(locks, name, impl) {
    // (navigator.locks takes some 0.3 ms a request: fewer there.)
    const count = impl === "native" ? 1000 : sizes.distinctNames;
    const base = name();
    // On the page only, as the size cases below: a worker's names are the
    // same table, and the page's run ends with a worker's requestSync of as
    // many.
    if (base.startsWith("worker ")) return;
    for (let i = 0; i < count; i++) {
      const got = await locks.request(`${base}:${i}`, (l) => l.name);
      if (got !== `${base}:${i}`) throw new Error(`name ${i}: ${got}`);
    }
    if (impl !== "sab") return; // (requestSync and primitives by name are sabmutex's)
    const w = await worker(impl);
    try {
      const n = await w.ask({ syncNames: count, prefix: `${base} sync:` });
      check(n === count, `a worker's requestSync of ${count} names: ${n}`);
    } finally {
      w.terminate();
    }
    // Primitives by name keep their room beside them: 9,000 named Mutexes
    // after every lock name above (of the registry's 10,000 by default; the
    // other cases name a few; TestLockQueueBesideNamedPrimitives, in
    // internal/core, takes all 10,000).
    for (let i = 0; i < 9000; i++) sabmutex.Mutex.named(`${base} mutex ${i}`);
  },
  // The fast path (a name its agent has requested before, idle: one
  // compare-and-swap): each name below is requested once first, so that the
  // request after it takes that path in sabmutex.
  async "a name requested again: a worker's lock queues the page, shows in query() first, and is granted on in order"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    try {
      for (let round = 0; round < 2; round++) {
        check((await w.ask({ holdGate: n })) === "held", `the worker's hold, round ${round}`);
        let page = false;
        const p = locks.request(n, () => (page = true));
        await untilQueued(locks, n, 1);
        const q = await locks.query();
        const held = q.held.filter((l) => l.name === n);
        check(held.length === 1 && held[0].mode === "exclusive" && !page, `round ${round}: the worker's lock in query(), the page waiting: ${JSON.stringify(q)}`);
        check((await w.ask({ release: n })) === "resolved", `the worker's release, round ${round}`);
        check((await p) === true && page, `round ${round}: the page after the worker`);
      }
    } finally {
      w.terminate();
    }
  },
  async "a name requested again: the page's lock is stolen by a worker, and its request rejects with an AbortError"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    try {
      check((await locks.request(n, () => "first")) === "first", "the first request");
      const held = rejection(locks.request(n, () => new Promise(() => {})));
      await ticks();
      check((await w.ask({ steal: n })) === "stole", "the worker's steal");
      check((await held) === "AbortError", `the page's request: rejected with ${await held}, want AbortError`);
      check((await locks.request(n, () => "after")) === "after", "released after the steal");
      check((await locks.request(n, () => "again")) === "again", "and again");
    } finally {
      w.terminate();
    }
  },
  async "a name requested again: a worker that ends holding it releases it"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    check((await w.ask({ holdGate: n })) === "held", "the worker's first hold");
    check((await w.ask({ release: n })) === "resolved", "its release");
    check((await w.ask({ hold: n })) === "held", "the worker's second hold");
    const p = locks.request(n, () => "page");
    await untilQueued(locks, n, 1);
    const t0 = performance.now();
    w.terminate();
    check((await p) === "page", "after the worker ended");
    return { ms: performance.now() - t0 };
  },
  // Web Locks without limits (#59): sizes at which sabmutex.locks once
  // refused (128 code units, 1,024 names, 4,096 requests).
  async "a name of 200 code units, one with a lone surrogate, and one that starts with - is refused"(locks, name) {
    const long = name() + "/" + "x".repeat(200);
    const lone = name() + "\ud800";
    check((await locks.request(long, (l) => l.name)) === long, "the long name's lock");
    const gate = deferred();
    const held = locks.request(lone, () => gate.promise);
    await ticks();
    // (query() of navigator.locks may give it back as U+FFFD: Chromium's does.)
    check((await locks.request(lone, { ifAvailable: true }, (l) => l)) === null, "the lone surrogate's lock is held");
    check((await locks.request(lone.slice(0, -1) + "\ufffd", { ifAvailable: true }, (l) => l !== null)) === true, "the name with U+FFFD for the surrogate is another lock");
    gate.resolve();
    await held;
    await mustReject(locks.request("-reserved", () => {}), "NotSupportedError", "a name that starts with -");
  },
  async "3,000 names held at once, all listed by query()"(locks, name, impl) {
    if (name().startsWith("worker ")) return; // (on the page: a worker's locks are the same queues; TestLocksAtSize holds 100,000 from the page and lists them from a worker)
    // navigator.locks, the reference, shows that the case is right, which
    // its steps show at any count: 300 there (the 3,000 took it 0.3-1.3 s).
    const count = impl === "native" ? 300 : 3000;
    const prefix = name() + " ";
    const gate = deferred();
    let inside = 0;
    const ps = [];
    for (let i = 0; i < count; i++) ps.push(locks.request(prefix + i, () => (inside++, gate.promise)));
    await until(() => inside === count);
    check(inside === count, `${inside} of ${count} held`);
    const listed = (await locks.query()).held.filter((l) => l.name.startsWith(prefix)).length;
    gate.resolve();
    await Promise.all(ps);
    check(listed === count, `query() listed ${listed} of ${count}`);
  },
  async "10,000 exclusive requests, then 1,000 shared ones, on one name: granted in order, the shared together"(locks, name, impl) {
    const n = name();
    if (n.startsWith("worker ")) return; // (on the page, as the 3,000 names)
    // navigator.locks, the reference: a tenth (1,000 and 100; the whole
    // took it 1-4 s), the same steps (a queue behind a held lock, exclusive
    // ones in order, then shared ones all at once).
    const exclusives = impl === "native" ? 1000 : 10000;
    const shareds = exclusives / 10;
    const gate = deferred();
    const first = locks.request(n, () => gate.promise);
    const order = [];
    const ps = [];
    for (let i = 0; i < exclusives; i++) ps.push(locks.request(n, () => order.push(i)));
    let inside = 0, most = 0;
    const shared = deferred();
    for (let i = 0; i < shareds; i++) {
      ps.push(locks.request(n, { mode: "shared" }, async () => ((most = Math.max(most, ++inside)), await shared.promise, inside--)));
    }
    gate.resolve();
    await first;
    for (const t0 = performance.now(); most < shareds && performance.now() - t0 < 25000; ) await sleep(5);
    shared.resolve();
    await Promise.all(ps);
    check(order.length === exclusives && order.every((v, i) => v === i), `the exclusive ones in order: ${order.length} of ${exclusives} granted`);
    check(most === shareds, `${most} of the ${shareds} shared ones held together`);
  },
  async "a worker's lock excludes the page; a worker that ends releases its lock"(locks, name, impl) {
    const n = name();
    const w = await worker(impl);
    check((await w.ask({ hold: n })) === "held", "the worker's hold");
    check((await locks.request(n, { ifAvailable: true }, (l) => l)) === null, "the page got the worker's lock");
    const t0 = performance.now();
    const p = locks.request(n, () => "page");
    w.terminate();
    check((await p) === "page", "after the worker ended");
    return { ms: performance.now() - t0 };
  },
};

// Every case whose title includes only (all without it) and none of skip,
// against each implementation of which (both by default): [{ title,
// native, sab, nativeMs, sabMs }], "ok" or the error ("" for one not
// run), once sabmutex is started. prefix: this agent's, in the cases' lock
// names (the page's and a worker's cases share the registry).
// How many distinct names "distinct names take no room once released"
// requests (sabmutex.locks'; the page sets it: TestLocksCases).
export const sizes = { distinctNames: 100000 };

export async function runCases(only, prefix, which = ["native", "sab"], skip = []) {
  const out = [];
  for (const [title, fn] of Object.entries(cases)) {
    if (only && !title.includes(only)) continue;
    if (skip.some((s) => title.includes(s))) continue;
    const row = { title, native: "", sab: "" };
    for (const impl of which) {
      const name = () => `${prefix}case ${unique++} ${impl}`;
      try {
        const extra = await Promise.race([fn(impls[impl](), name, impl), sleep(30000).then(() => Promise.reject(new Error("no end within 30 s")))]);
        row[impl] = "ok";
        if (extra && extra.ms !== undefined) row[impl + "Ms"] = extra.ms;
      } catch (e) {
        row[impl] = `${e && e.name}: ${e && e.message}`;
      }
    }
    out.push(row);
  }
  return out;
}
