// Page side of the browser tests. Tests call these through chromedp.
"use strict";

// The ES module page sets window.sabmutex a little later than the classic one.
function sabmutexReady() {
  return window.sabmutex ? Promise.resolve() : new Promise((r) => addEventListener("sabmutex-module", r, { once: true }));
}

// A worker ("classic" or "module") that runs functions the tests send it.
// Anything that goes wrong in it reaches the page's console, which fails the test.
function startWorker(kind) {
  const w = kind === "module" ? new Worker("worker.mjs", { type: "module" }) : new Worker("worker.js");
  w.onerror = (e) => console.error(`${kind} worker: uncaught ${e.message} (${e.filename}:${e.lineno})`);
  w.onmessageerror = () => console.error(`${kind} worker: message could not be read`);
  const pending = new Map();
  let next = 0;
  w.onmessage = ({ data }) => {
    if (data.consoleError) return console.error(`${kind} worker: ${data.consoleError}`);
    const p = pending.get(data.id);
    pending.delete(data.id);
    if ("err" in data) p.reject(new Error(data.err));
    else p.resolve(data.ok);
  };
  // run(fn, data): fn is async (sabmutex, data) => value, run in the worker.
  w.run = (fn, data) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      w.postMessage({ id, src: String(fn), data });
    });
  return w;
}

// What an error looks like to a test.
function errorInfo(e) {
  return { name: e.name, message: e.message };
}

// The error fn throws or rejects with, or null.
async function errorOf(fn) {
  try {
    await fn();
    return null;
  } catch (e) {
    return errorInfo(e);
  }
}

// Workers of the given kinds, each started with the page's compiled module.
async function startWorkers(kinds, sab) {
  const ws = kinds.map(startWorker);
  await Promise.all(
    ws.map((w) =>
      w.run(
        async (sabmutex, { module, sab }) => {
          await sabmutex.init({ wasm: module });
          self.m = new sabmutex.Mutex(sab, 0);
          self.sab = sab;
        },
        { module: sabmutex.module, sab },
      ),
    ),
  );
  return ws;
}

// A worker's part in the hammers (run with w.run): once slot 3 turns 1, add
// 1 to the counter in slot 2 n times, as a separate load and store, holding
// self.m (with useLock); then, if given, take 1 from slot running.
async function blockingIncrements(sabmutex, { sab, n, useLock, running }) {
  const words = new Int32Array(sab);
  if (Atomics.wait(words, 3, 0, 10000) === "timed-out") throw new Error("no start signal within 10 s");
  for (let i = 0; i < n; i++) {
    if (useLock) self.m.lock();
    const v = Atomics.load(words, 2);
    Atomics.store(words, 2, v + 1);
    if (useLock) self.m.unlock();
  }
  if (running !== undefined) Atomics.sub(words, running, 1);
}

// The hammer: workers of the given kinds (m.lock) and the main thread
// (await m.lockAsync) add 1 to a shared counter, as a separate load and store,
// until each worker has done n. Slots: 0 and 1 the mutex (Mutex.SLOTS), 2 the
// counter, 3 the start flag, 4 the workers still running.
async function hammer({ kinds, n, useLock }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(32);
  const words = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  const ws = await startWorkers(kinds, sab);
  words[4] = ws.length;
  const done = ws.map((w) => w.run(blockingIncrements, { sab, n, useLock, running: 4 }));
  Atomics.store(words, 3, 1); // start together, so that they overlap
  Atomics.notify(words, 3);
  let mine = 0;
  while (Atomics.load(words, 4) > 0) {
    if (useLock) await m.lockAsync();
    else await null;
    const v = Atomics.load(words, 2);
    Atomics.store(words, 2, v + 1);
    mine++;
    if (useLock) m.unlock();
    if (mine % 64 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.all(done);
  ws.forEach((w) => w.terminate());
  return { counter: words[2], expected: kinds.length * n + mine, mine, word: words[0] };
}

// The soak: workers and the main thread take one mutex every way there is
// (lock, lock with a timeout, tryLock, lockAsync with timeouts and aborts,
// withLock) for ms milliseconds. Inside, two counters must differ by exactly
// one; each critical section moves both. Slots: 0 and 1 the mutex, 2 and 3
// the counters, 4 violations, 5 running, 8 + agent: acquisitions per agent,
// 8 + agents + agent: the way each agent is taking the mutex now (+1; 0: none).
async function soak({ workers, ms, seed }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(4 * (8 + 2 * (workers + 1)));
  const w = new Int32Array(sab);
  w[3] = 1; // counter b starts one ahead of a
  w[5] = 1;
  const ws = await startWorkers(Array.from({ length: workers }, (_, i) => (i % 2 ? "module" : "classic")), sab);
  const body = async (sabmutex, { sab, agent, agents, seed }) => {
    const w = new Int32Array(sab);
    const m = self.m || new sabmutex.Mutex(sab, 0);
    let x = seed >>> 0 || 1;
    const rnd = (n) => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) % n);
    const inside = () => {
      const a = Atomics.load(w, 2), b = Atomics.load(w, 3);
      if (b - a !== 1) Atomics.add(w, 4, 1);
      Atomics.store(w, 2, a + 1);
      for (let i = rnd(200); i > 0; i--) Atomics.load(w, 5); // a little work, with the counters equal
      Atomics.store(w, 3, b + 1);
      Atomics.add(w, 8 + agent, 1);
    };
    const blocking = typeof document === "undefined";
    let n = 0;
    const doing = 8 + agents + agent;
    while (Atomics.load(w, 5) === 1) {
      let got = false;
      const way = rnd(blocking ? 7 : 4);
      w[doing] = way + 1;
      switch (way) {
        case 0: got = m.tryLock(); break;
        case 1: got = await m.lockAsync(rnd(3)); break;
        case 2: {
          const ac = new AbortController();
          setTimeout(() => ac.abort(new Error("abort")), rnd(2));
          got = await m.lockAsync({ timeoutMs: 50, signal: ac.signal }).catch((e) => { if (e.message !== "abort") throw e; return false; });
          break;
        }
        case 3: got = await m.lockAsync(); break;
        case 4: got = m.lock(); break;
        case 5: got = m.lock(rnd(2)); break;
        case 6: m.withLock(inside); n++; w[doing] = 0; continue;
      }
      w[doing] = 0;
      if (got) {
        inside();
        m.unlock();
        n++;
      }
      if (!blocking || n % 64 === 0) await null;
      if (n % 256 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    return n;
  };
  const agents = workers + 1;
  const runs = ws.map((wk, i) => wk.run(body, { sab, agent: i + 1, agents, seed: seed * 31 + i }));
  const mine = body(sabmutex, { sab, agent: 0, agents, seed: seed * 31 + 99 });
  await new Promise((r) => setTimeout(r, ms));
  Atomics.store(w, 5, 0);
  const ways = ["tryLock", "lockAsync(0-2 ms)", "lockAsync({ timeoutMs: 50, signal }) aborted at 0-1 ms", "lockAsync()", "lock()", "lock(0-1 ms)", "withLock"];
  const deadline = new Promise((_, reject) =>
    setTimeout(() => {
      const stuck = Array.from(w.subarray(8 + agents), (v, a) => (v ? `agent ${a} in ${ways[v - 1]}` : "")).filter(Boolean);
      reject(new Error(`something was still waiting 10 s after the stop: ${stuck.join(", ")}; lock word ${w[0]}, holder ${w[1]}`));
    }, 10000),
  );
  const counts = await Promise.race([Promise.all([mine, ...runs]), deadline]);
  ws.forEach((x) => x.terminate());
  const total = counts.reduce((a, b) => a + b, 0);
  return { total, perAgent: counts, a: w[2], b: w[3], violations: w[4], recorded: Array.from(w.subarray(8, 8 + agents)).reduce((a, b) => a + b, 0), word: w[0] };
}

// Sibling tasks: what one agent's asynchronous tasks see while another task
// of the same agent holds the mutex. Self-contained, so that it runs on the
// page and in a worker (w.run(siblingCases, { sab, index })) alike.
async function siblingCases(sabmutex, { sab, index }) {
  const m = new sabmutex.Mutex(sab, index);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const info = (e) => ({ name: e.name, message: e.message });
  const r = { order: [] };
  // Two "handlers" started back to back, each holding the lock across an await.
  const handler = (name) =>
    m.withLockAsync(async () => {
      r.order.push(`${name} in`);
      await sleep(20);
      r.order.push(`${name} out`);
      return name;
    });
  r.handlers = await Promise.all([handler("a"), handler("b")]).catch(info);

  // The cases while a sibling task holds the mutex.
  if (!(await m.lockAsync(1000))) throw new Error("the mutex is not free");
  // lockAsync(0) answers within this task's microtasks, before a timer
  // queued just before it fires: no sleep, no helper, no timer (a clock
  // would count a thread off the CPU: 148 ms once, in WebKit, with three
  // engines' tests on two cores).
  let t0 = performance.now(), timerFired = false;
  setTimeout(() => (timerFired = true), 0);
  r.zero = await m.lockAsync(0);
  r.zeroBeforeTask = !timerFired;
  r.zeroMs = performance.now() - t0;
  t0 = performance.now();
  r.sixty = await m.lockAsync(60);
  r.sixtyMs = performance.now() - t0;
  t0 = performance.now();
  r.acquire = await m.acquireAsync({ timeoutMs: 60 }).then(() => null, info);
  r.acquireMs = performance.now() - t0;
  const ac = new AbortController();
  const aborted = m.lockAsync({ signal: ac.signal }).then(() => "resolved", (e) => e.message);
  await sleep(20);
  ac.abort(new Error("no longer needed"));
  r.aborted = await aborted;
  // A blocking lock by this agent can never succeed: it throws at once.
  if (typeof document === "undefined") {
    t0 = performance.now();
    r.blockingRelock = (() => { try { m.lock(1000); return null; } catch (e) { return info(e); } })();
    r.blockingRelockMs = performance.now() - t0;
  }
  // A sibling that waits gets the mutex when the holder unlocks, and no
  // waiter is left behind by the aborted one.
  const queued = m.lockAsync(5000);
  await sleep(10);
  m.unlock();
  r.queuedGot = await queued;
  m.unlock();
  r.freeAfter = m.tryLock();
  if (r.freeAfter) m.unlock();
  r.word = Atomics.load(new Int32Array(sab), index);
  return r;
}

// The task hammer: page tasks (lockAsync), asynchronous loops of one worker
// (lockAsync) and blocking workers (lock) add 1 to a shared counter, each as
// a load, an await (for the async ones: a sibling task may run there) and a
// store. Slots: 0 and 1 the mutex, 2 the counter, 3 the start flag.
async function taskHammer({ pageTasks, workerTasks, blockingWorkers, n, useLock }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(32);
  const words = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  const [asyncWorker, ...blocking] = await startWorkers(Array.from({ length: 1 + blockingWorkers }, (_, i) => (i % 2 ? "classic" : "module")), sab);
  const startSignal = async (words) => {
    while (Atomics.load(words, 3) === 0) await new Promise((r) => setTimeout(r, 1));
  };
  const asyncLoop = async (m, words, n, useLock) => {
    for (let i = 0; i < n; i++) {
      if (useLock) await m.lockAsync();
      const v = Atomics.load(words, 2);
      await null; // a sibling task may run here
      Atomics.store(words, 2, v + 1);
      if (useLock) m.unlock();
      if (i % 64 === 0) await new Promise((r) => setTimeout(r, 0));
    }
  };
  const runs = [
    asyncWorker.run(
      async (sabmutex, { sab, tasks, n, useLock, loop, start }) => {
        const words = new Int32Array(sab);
        await (0, eval)(`(${start})`)(words);
        const f = (0, eval)(`(${loop})`);
        await Promise.all(Array.from({ length: tasks }, () => f(self.m, words, n, useLock)));
      },
      { sab, tasks: workerTasks, n, useLock, loop: String(asyncLoop), start: String(startSignal) },
    ),
    ...blocking.map((w) => w.run(blockingIncrements, { sab, n, useLock })),
  ];
  Atomics.store(words, 3, 1);
  Atomics.notify(words, 3);
  await Promise.all([...runs, ...Array.from({ length: pageTasks }, () => asyncLoop(m, words, n, useLock))]);
  [asyncWorker, ...blocking].forEach((w) => w.terminate());
  return { counter: words[2], expected: (pageTasks + workerTasks + blockingWorkers) * n, word: words[0] };
}

// The glue inlines some of Go's transitions (jsglue/mutex.js: the fast paths
// of tryLock, lockAsync and unlock). For every lock word (legal and not) and
// holder, run each such call once through the glue and once straight through
// Go's export, from the same slots with two asynchronous sleepers queued on
// the word, and report where they differ: the result, the slots after, or
// how many sleepers were woken.
async function glueCoreAgreement() {
  await sabmutex.init();
  const { core, P, agentId, handleOf, lockTurn } = sabmutex[Symbol.for("sabmutex.internals")]();
  const other = agentId === 1 ? 2 : agentId - 1;
  const sab = new SharedArrayBuffer(8);
  const i32 = new Int32Array(sab);
  const mem = handleOf(sab);
  let m; // a new Mutex for each case: the slots are set, not reached by its calls (previousHolderDied is cleared by unlock)
  const codeOf = (e) =>
    /not locked/.test(e.message) ? P.RESULT_NOT_LOCKED : /does not hold/.test(e.message) ? P.RESULT_NOT_HOLDER : /corrupted/.test(e.message) ? P.RESULT_CORRUPTED : `error ${e.message}`;
  const calls = {
    // name: [through the glue, straight to Go]; each gives a result code
    tryLock: [() => (m.tryLock() ? (m.previousHolderDied ? P.RESULT_HOLDER_DIED : P.RESULT_OK) : P.RESULT_BUSY), () => core.call(P.OP_TRY_LOCK, mem, 0, 0, 0)],
    "lockAsync(0)": [
      async () => ((await m.lockAsync(0)) ? (m.previousHolderDied ? P.RESULT_HOLDER_DIED : P.RESULT_OK) : P.RESULT_BUSY),
      () => core.turn(core.begin(P.KIND_LOCK, mem, 0, 0, -1, performance.now()), P.SLEPT_NONE),
    ],
    unlock: [() => (m.unlock(), P.RESULT_OK), () => core.call(P.OP_UNLOCK, mem, 0, 0, 0)],
  };
  const run = async (f, word, holder) => {
    i32[0] = word;
    i32[1] = holder;
    m = new sabmutex.Mutex(sab, 0);
    const sleepers = [Atomics.waitAsync(i32, 0, word), Atomics.waitAsync(i32, 0, word)];
    let result;
    try {
      result = await f();
    } catch (e) {
      result = codeOf(e);
    }
    const slots = [i32[0], i32[1]];
    const left = Atomics.notify(i32, 0); // wakes those still asleep
    await Promise.all(sleepers.map((s) => s.value));
    return { result, slots, woken: sleepers.filter((s) => s.async).length - left };
  };
  const differences = [];
  let cases = 0;
  for (const [name, [glue, go]] of Object.entries(calls)) {
    for (const word of [0, 1, 2, 4, 5, 6, 8, 3, -1]) {
      for (const holder of [0, agentId, other]) {
        const a = await run(glue, word, holder);
        const b = await run(go, word, holder);
        cases++;
        if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${name} on word ${word}, holder ${holder === agentId ? "me" : holder ? "other" : 0}: glue ${JSON.stringify(a)}, Go ${JSON.stringify(b)}`);
      }
    }
  }
  // lockTurn, the turns of a wait without a deadline that the glue runs
  // itself, against the core's turn of a lock (a record's first, told how
  // the glue's last sleep ended): after each way a
  // sleep can end, with a short and a long wait (past the starvation
  // threshold). Where it declines (null), it must have changed nothing.
  // (A short wait is given a start a second ahead: a pause of the page
  // between the clock read here and Go's could not carry it past 1 ms.)
  const turns = [
    ["first turn", P.SLEPT_NONE, NaN],
    ["notified, short wait", P.SLEPT_OK, -1000],
    ["not-equal, short wait", P.SLEPT_NOT_EQUAL, -1000],
    ["notified, waited 10 ms", P.SLEPT_OK, 10],
    ["not-equal, waited 10 ms", P.SLEPT_NOT_EQUAL, 10],
  ];
  let taken = 0;
  for (const [how, slept, waitedMs] of turns) {
    for (const word of [0, 1, 2, 4, 5, 6, 8, 3, -1]) {
      for (const holder of [0, agentId, other]) {
        const where = `lockTurn (${how}) on word ${word}, holder ${holder === agentId ? "me" : holder ? "other" : 0}`;
        let declined = false;
        const a = await run(() => {
          const r = lockTurn(i32, 0, slept, performance.now() - waitedMs);
          declined = r === null;
          return r;
        }, word, holder);
        cases++;
        if (declined) {
          if (a.slots[0] !== word || a.slots[1] !== holder || a.woken !== 0) differences.push(`${where}: declined, but left ${JSON.stringify(a)}`);
          continue;
        }
        taken++;
        const b = await run(() => core.turn(core.begin(P.KIND_LOCK, mem, 0, 0, Infinity, performance.now() - waitedMs), slept), word, holder);
        if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${where}: glue ${JSON.stringify(a)}, Go ${JSON.stringify(b)}`);
      }
    }
  }
  // The turns the glue must run itself: on a first turn, word 0 with any
  // holder and 1 or 2 held by another (7); after a short wait, 0, 1 and 2
  // with any holder (2 * 9); after a long one, 0 when a notify woke it (3),
  // and 0, 1 and 2 when it ended "not-equal", which reads no clock (9).
  if (taken !== 37) differences.push(`lockTurn ran ${taken} turns itself, not 37`);
  i32.fill(0);
  // The lock queues' fast path (locks.js's fastTakeStep and fastLetGoStep
  // against Go's lqFastTake and lqFastLetGo): a queue slot's fast word
  // (LOCK_QUEUE_FAST) and gen (LOCK_QUEUE_GEN) in a memory of their own,
  // from every kind of word, with the caller's gen and another.
  const { fastTakeStep, fastLetGoStep } = sabmutex[Symbol.for("sabmutex.internals")]();
  const qsab = new SharedArrayBuffer(4 * 16); // (a queue's smallest block: internal/core/lockq.go)
  const q32 = new Int32Array(qsab);
  const qmem = handleOf(qsab);
  for (const word of [0, agentId, other, -agentId, -other, P.LOCK_FAST_OFF]) {
    for (const [step, glue, go] of [
      ["take, its gen", () => fastTakeStep(q32, 0, 7), () => core.call(P.OP_LOCK_FAST_TAKE, qmem, 0, 7, 0)],
      ["take, another gen", () => fastTakeStep(q32, 0, 6), () => core.call(P.OP_LOCK_FAST_TAKE, qmem, 0, 6, 0)],
      ["let go", () => fastLetGoStep(q32, 0), () => core.call(P.OP_LOCK_FAST_LET_GO, qmem, 0, 0, 0)],
    ]) {
      const once = (f) => {
        q32.fill(0);
        q32[P.LOCK_QUEUE_FAST] = word;
        q32[P.LOCK_QUEUE_GEN] = 7;
        const result = f();
        return { result, fast: q32[P.LOCK_QUEUE_FAST], gen: q32[P.LOCK_QUEUE_GEN] };
      };
      const a = once(glue), b = once(go);
      cases++;
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`lock queue fast path, ${step}, on word ${word}: glue ${JSON.stringify(a)}, Go ${JSON.stringify(b)}`);
    }
  }
  // The run (runAddStep and runNextStep against Go's lqRunAdd and
  // lqRunNext): a queue slot's run word (LOCK_QUEUE_RUN) of every kind,
  // tagged or not, with its fast word this agent's, less it, or not.
  const { runAddStep, runNextStep } = sabmutex[Symbol.for("sabmutex.internals")]();
  const tag = P.LOCK_RUN_COUNT + 1;
  for (const run of [0, 1, 3, 3 | P.LOCK_RUN_SEALED, P.LOCK_RUN_SEALED, P.LOCK_RUN_STOLEN, P.LOCK_RUN_STOLEN | P.LOCK_RUN_SEALED, 5 * tag, 5 * tag + 2, P.LOCK_RUN_COUNT, P.LOCK_RUN_COUNT - 1]) {
    for (const word of [agentId, -agentId, other, P.LOCK_FAST_OFF, 0]) {
      for (const [step, glue, go] of [
        ["add", () => runAddStep(q32, 0), () => core.call(P.OP_LOCK_RUN_ADD, qmem, 0, 0, 0)],
        ["next", () => runNextStep(q32, 0), () => core.call(P.OP_LOCK_RUN_NEXT, qmem, 0, 0, 0)],
      ]) {
        const once = (f) => {
          q32.fill(0);
          q32[P.LOCK_QUEUE_FAST] = word;
          q32[P.LOCK_QUEUE_RUN] = run;
          const result = f();
          return { result, fast: q32[P.LOCK_QUEUE_FAST], run: q32[P.LOCK_QUEUE_RUN] };
        };
        const a = once(glue), b = once(go);
        cases++;
        if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`lock queue run, ${step}, on run ${run} and fast word ${word}: glue ${JSON.stringify(a)}, Go ${JSON.stringify(b)}`);
      }
    }
  }
  return { cases, differences };
}

// Whether this engine parses `using` declarations (explicit resource management).
function usingSyntax() {
  try {
    new Function("{ using x = null; }");
    return true;
  } catch {
    return false;
  }
}

// The order in which Atomics.notify(…, 1) wakes a page's waitAsync and
// workers' Atomics.wait queued on one word, for several queue orders.
// Starvation mode's hand-off counts on first-in, first-out, sync and async
// waiters in one queue (internal/core/protocol.go).
async function notifyOrder() {
  await sabmutex.init();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const sab = new SharedArrayBuffer(64);
  const i32 = new Int32Array(sab);
  const ws = await startWorkers(["module", "module", "module"], sab);
  const out = [];
  for (const order of [["page", 0, 1], [0, "page", 1], [0, 1, "page"], [2, 0, 1]]) {
    Atomics.store(i32, 0, 0);
    Atomics.store(i32, 4, 0);
    const woke = [];
    const sleepers = [];
    for (const who of order) {
      if (who === "page") {
        sleepers.push(Atomics.waitAsync(i32, 0, 0, 5000).value.then((v) => woke.push("page") && v));
      } else {
        const before = Atomics.load(i32, 4);
        sleepers.push(
          ws[who].run(async (_, { sab }) => {
            const i = new Int32Array(sab);
            Atomics.add(i, 4, 1);
            return Atomics.wait(i, 0, 0, 5000);
          }, { sab }).then((v) => woke.push(`w${who}`) && v),
        );
        while (Atomics.load(i32, 4) === before) await sleep(1);
      }
      await sleep(20); // asleep by now
    }
    for (let k = 0; k < order.length; k++) {
      Atomics.notify(i32, 0, 1);
      const deadline = performance.now() + 2000;
      while (woke.length <= k && performance.now() < deadline) await sleep(1);
    }
    const results = await Promise.all(sleepers);
    out.push({ queued: order.map((w) => (w === "page" ? "page" : `w${w}`)), woke, results });
  }
  ws.forEach((w) => w.terminate());
  return out;
}

// The Go tests' helpers. workerFinished: a promise of the { id } a worker
// posts when done (rejected on { error }, an error event, or 60 s), after
// which the worker is terminated.
function workerFinished(w) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("a worker did not finish in 60 s")), 60000);
    w.onmessage = ({ data }) => {
      clearTimeout(timer);
      w.terminate();
      data.error ? reject(new Error(data.error)) : resolve(data.id);
    };
    w.onerror = (e) => reject(new Error(`worker: ${e.message}`));
  });
}

// startTogether: once `workers` have counted themselves ready in slot
// flag + 1, set slot flag to 1 and wake them: all agents then run at once
// (a lock-less run whose agents ran one after another would lose nothing).
async function startTogether(i32, flag, workers) {
  for (const until = performance.now() + 30000; Atomics.load(i32, flag + 1) < workers; ) {
    if (performance.now() > until) throw new Error("the workers were not ready in 30 s");
    await new Promise((r) => setTimeout(r, 1));
  }
  Atomics.store(i32, flag, 1);
  Atomics.notify(i32, flag);
}

// A bounded queue (capacity 4) across languages, under one Mutex and two
// Conds: a Go producer and a Go consumer (testdata/goqueue in
// go-queue-worker.js), a JavaScript producer worker (blocking wait) and this
// page consuming (waitAsync); a WaitGroup that the page waits on with
// waitAsync counts the workers out. Slots as testdata/goqueue/main.go says.
async function goAndJSQueue(n) {
  await sabmutex.init();
  const total = 2 * n;
  const sab = new SharedArrayBuffer(4 * (16 + total + 8));
  const w = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  const notEmpty = new sabmutex.Cond(sab, 2), notFull = new sabmutex.Cond(sab, 3);
  const wg = new sabmutex.WaitGroup(sab, 4);
  wg.add(3);
  const goProducer = new Worker("/go-queue-worker.js"), goConsumer = new Worker("/go-queue-worker.js");
  const jsProducer = new Worker(
    URL.createObjectURL(
      new Blob(
        [
          `importScripts("${location.origin}/dist/sabmutex.js");
           onmessage = async ({ data: { sab, id, n, module } }) => {
             await sabmutex.init({ wasm: module });
             const w = new Int32Array(sab), m = new sabmutex.Mutex(sab, 0);
             const notEmpty = new sabmutex.Cond(sab, 2), notFull = new sabmutex.Cond(sab, 3), wg = new sabmutex.WaitGroup(sab, 4);
             for (let i = 0; i < n; i++) {
               m.lock();
               while (w[5] === 4) notFull.wait(m);
               w[8 + ((w[6] + w[5]) % 4)] = id * n + i;
               w[5]++;
               notEmpty.notifyOne();
               m.unlock();
             }
             wg.done();
             postMessage({ id: sabmutex.agentId });
           };`,
        ],
        { type: "text/javascript" },
      ),
    ),
  );
  const done = [goProducer, goConsumer, jsProducer].map(workerFinished);
  goProducer.postMessage({ memory: sab, role: "producer", id: 0, n, total });
  goConsumer.postMessage({ memory: sab, role: "consumer", id: 0, n, total });
  jsProducer.postMessage({ sab, id: 1, n, module: sabmutex.module });
  let mine = 0;
  for (;;) {
    await m.lockAsync();
    while (w[5] === 0 && w[7] < total) await notEmpty.waitAsync(m);
    if (w[5] === 0) {
      m.unlock();
      break;
    }
    const item = w[8 + w[6]];
    w[6] = (w[6] + 1) % 4;
    w[5]--;
    w[16 + item]++;
    w[7]++;
    mine++;
    if (w[7] === total) notEmpty.notifyAll();
    notFull.notifyOne();
    m.unlock();
  }
  const ids = await Promise.all(done);
  const waited = await wg.waitAsync(10000);
  const counts = Array.from(w.subarray(16, 16 + total));
  return {
    consumed: w[7],
    total,
    once: counts.every((c) => c === 1),
    byPage: mine,
    waitGroup: waited && wg.count() === 0,
    ids: [sabmutex.agentId, ...ids],
    held: m.isLocked(),
  };
}

// A Channel across languages (capacity 4, 16-byte messages): a Go producer
// and a JavaScript producer worker each send n messages "id:i", the even
// ones as strings, the odd ones as bytes; a Go consumer (testdata/goqueue,
// roles "chanproducer", "chanconsumer") and this page (for await) receive
// until the page closes the channel once both producers are done. Each
// message adds to slot 16 + id*n + i: 1, or 1000 if it arrived as the other
// kind. Returns { total, once, byPage, ids }.
async function goAndJSChannel(n) {
  await sabmutex.init();
  const total = 2 * n, at = 16 + total;
  const sab = new SharedArrayBuffer(4 * (at + sabmutex.Channel.slotsFor(4, 16)));
  const w = new Int32Array(sab);
  const ch = new sabmutex.Channel(sab, at, 4, 16);
  const goProducer = new Worker("/go-queue-worker.js"), goConsumer = new Worker("/go-queue-worker.js");
  const jsProducer = new Worker(
    URL.createObjectURL(
      new Blob(
        [
          `importScripts("${location.origin}/dist/sabmutex.js");
           onmessage = async ({ data: { sab, at, n, module } }) => {
             try {
               await sabmutex.init({ wasm: module });
               const ch = new sabmutex.Channel(sab, at, 4, 16), bytes = new TextEncoder();
               for (let i = 0; i < n; i++) ch.send(i % 2 === 0 ? "1:" + i : bytes.encode("1:" + i));
               postMessage({ id: sabmutex.agentId });
             } catch (e) {
               postMessage({ error: String(e) });
             }
           };`,
        ],
        { type: "text/javascript" },
      ),
    ),
  );
  const sending = [goProducer, jsProducer].map(workerFinished), receiving = workerFinished(goConsumer);
  goProducer.postMessage({ memory: sab, role: "chanproducer", id: 0, n, total, chan: at });
  goConsumer.postMessage({ memory: sab, role: "chanconsumer", id: 0, n, total, chan: at });
  jsProducer.postMessage({ sab, at, n, module: sabmutex.module });
  let failure = null; // a worker's: close, so that the receives end, then throw it
  const fail = (e) => {
    failure ??= e;
    if (!ch.closed) ch.close();
  };
  [...sending, receiving].forEach((p) => p.catch(fail));
  const closing = Promise.all(sending).then((ids) => (ch.closed || ch.close(), ids));
  let byPage = 0;
  for await (const m of ch) {
    const text = typeof m === "string" ? m : new TextDecoder().decode(m);
    const [p, i] = text.split(":").map(Number);
    Atomics.add(w, 16 + p * n + i, (typeof m === "string") === (i % 2 === 0) ? 1 : 1000);
    byPage++;
  }
  if (failure) throw failure;
  const ids = [...(await closing), await receiving];
  const counts = Array.from(w.subarray(16, 16 + total));
  return { total, once: counts.every((c) => c === 1), byPage, ids, wrong: counts.filter((c) => c !== 1).slice(0, 5) };
}

// An RWMutex across languages: two Go workers (testdata/goqueue, role
// "rw"), a JavaScript worker and this page each take n turns, every 4th a
// write of two counters (slots 4 and 5, each +1), the others a read that
// counts in slot 6 the times the two differed. Under the RWMutex (slots
// 0-2) no reader sees a write half done, and no write is lost.
async function goAndJSRWMutex(lock, n) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(64);
  const w = new Int32Array(sab);
  const rw = new sabmutex.RWMutex(sab, 0);
  const turn = `(i, w, write, read) => {
    if (i % 4 === 0) { w[4]++; w[5]++; return; }
    if (w[4] !== w[5]) Atomics.add(w, 6, 1);
  }`;
  const goWorkers = [0, 1].map(() => new Worker("/go-queue-worker.js"));
  const js = new Worker(
    URL.createObjectURL(
      new Blob(
        [
          `importScripts("${location.origin}/dist/sabmutex.js");
           onmessage = async ({ data: { sab, n, lock, module } }) => {
             await sabmutex.init({ wasm: module });
             const w = new Int32Array(sab), rw = new sabmutex.RWMutex(sab, 0);
             Atomics.add(w, 8, 1);
             Atomics.wait(w, 7, 0, 10000);
             for (let i = 0; i < n; i++) {
               const write = i % 4 === 0;
               if (lock) write ? rw.lock() : rw.readLock();
               (${turn})(i, w);
               if (lock) write ? rw.unlock() : rw.readUnlock();
             }
             postMessage({ id: sabmutex.agentId });
           };`,
        ],
        { type: "text/javascript" },
      ),
    ),
  );
  const done = [...goWorkers, js].map(workerFinished);
  for (const g of goWorkers) g.postMessage({ memory: sab, role: "rw", id: 0, n, total: 0, lock, start: 7 });
  js.postMessage({ sab, n, lock, module: sabmutex.module });
  await startTogether(w, 7, 3);
  const pageTurn = eval(turn);
  for (let i = 0; i < n; i++) {
    const write = i % 4 === 0;
    if (lock) await (write ? rw.lockAsync() : rw.readLockAsync());
    else if (i % 16 === 0) await null;
    pageTurn(i, w);
    if (lock) write ? rw.unlock() : rw.readUnlock();
  }
  const ids = await Promise.all(done);
  return { first: w[4], second: w[5], halfSeen: w[6], expected: 4 * Math.ceil(n / 4), ids: [sabmutex.agentId, ...ids] };
}

// The first asynchronous wait of an agent, which times out (mutex_test.go's
// TestFirstTimeoutOnTime): a worker holds what it waits for and releases it
// 150 ms after the wait began, so a wait of timeoutMs (100 or less) that
// ends late finds it free. what: "page acquireAsync" (a Mutex's, which
// rejects; three tasks of the page at once, each with a helper to start,
// ended once all are), "page Semaphore" (acquireAsync(1, timeoutMs),
// false) or "worker lockAsync" (a fresh worker's, without Atomics.waitAsync
// where the page lacks it). Times are on one clock across agents (timeOrigin + now).
// Returns { got, startedAt, endedAt, releasedAt, timerLateMs }: got is what
// the wait gave ("timeout", false, or what it took); timerLateMs, how late a
// setTimeout of timeoutMs started beside the wait in the same agent fired
// (that agent's own scheduling).
async function firstTimeout(what, timeoutMs) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(64);
  const i32 = new Int32Array(sab), started = new Float64Array(sab, 32, 1);
  const SEM = 2, GO = 6; // the Semaphore's slots (2-4), the holder's go-ahead
  const [holder] = await startWorkers(["classic"], sab);
  // The holder takes it, and once the wait has begun (started[0], on the
  // shared clock), releases it 150 ms later.
  await holder.run(async (sabmutex, { what, SEM }) => {
    self.sem = new sabmutex.Semaphore(self.sab, SEM, 1);
    if (what === "page Semaphore") self.sem.acquire(1);
    else self.m.lock();
  }, { what, SEM });
  const released = holder.run(async (sabmutex, { what, GO }) => {
    const i32 = new Int32Array(self.sab), started = new Float64Array(self.sab, 32, 1);
    const now = () => performance.timeOrigin + performance.now();
    Atomics.wait(i32, GO, 0, 10000);
    Atomics.wait(i32, GO + 1, 0, started[0] + 150 - now()); // slot GO + 1 stays 0: a sleep
    if (what === "page Semaphore") self.sem.release(1);
    else self.m.unlock();
    return now();
  }, { what, GO });
  // The waiter: this page, or a fresh worker. Its wait is its first.
  const wait = async (sabmutex, { what, sab, SEM, GO, timeoutMs }) => {
    const now = () => performance.timeOrigin + performance.now();
    const i32 = new Int32Array(sab), started = new Float64Array(sab, 32, 1);
    const m = new sabmutex.Mutex(sab, 0), sem = new sabmutex.Semaphore(sab, SEM, 1);
    let timerAt = 0;
    const timer = new Promise((r) => setTimeout(r, timeoutMs)).then(() => (timerAt = now()));
    const startedAt = (started[0] = now());
    Atomics.store(i32, GO, 1);
    Atomics.notify(i32, GO);
    let got;
    if (what === "page acquireAsync") {
      // Three tasks at once, each with a helper of its own to start.
      const one = () => m.acquireAsync(timeoutMs).then((h) => (h.release(), "took it"), (e) => (e.name === "TimeoutError" ? "timeout" : String(e)));
      got = [...new Set(await Promise.all([one(), one(), one()]))].join(", ");
    }
    else if (what === "page Semaphore") got = await sem.acquireAsync(1, timeoutMs);
    else got = await m.lockAsync(timeoutMs);
    const endedAt = now();
    if (got === true) (what === "page Semaphore" ? sem.release(1) : m.unlock());
    await timer;
    return { got, startedAt, endedAt, timerLateMs: timerAt - startedAt - timeoutMs };
  };
  let r;
  if (what === "worker lockAsync") {
    const w = startWorker("classic");
    r = await w.run(async (sabmutex, { wasm, noWaitAsync, src, args }) => {
      if (noWaitAsync) delete Atomics.waitAsync; // as on the page
      await sabmutex.init({ wasm });
      return (0, eval)(`(${src})`)(sabmutex, args);
    }, { wasm: sabmutex.module, noWaitAsync: typeof Atomics.waitAsync !== "function", src: String(wait), args: { what, sab, SEM, GO, timeoutMs } });
    w.terminate();
  } else {
    r = await wait(sabmutex, { what, sab, SEM, GO, timeoutMs });
  }
  r.releasedAt = await released;
  holder.terminate();
  return r;
}

// Issue 60's hand-off between tasks of one agent (Mutex.lockAsync): n page
// tasks queue on a mutex a worker holds for 30 ms, and each, granted, notes
// its turn and unlocks (order: the tasks' numbers in the order they held it;
// ms: from the worker's unlock to the last grant). Then a stream of page
// tasks (three loops of lockAsync, 50 µs held, unlock, for streamMs) with a
// worker that locks it (blocking) ten times meanwhile, 10 ms apart: its
// waits, which the hand-offs' bound keeps short. rw: the same with an
// RWMutex's write lock.
async function mutexHandOff({ n, streamMs, rw = false }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(16);
  const i32 = new Int32Array(sab);
  const lockSab = rw ? new SharedArrayBuffer(64) : sab; // (rw: an RWMutex's write lock instead)
  const m = rw ? new sabmutex.RWMutex(lockSab, 0) : new sabmutex.Mutex(sab, 0);
  const [w] = await startWorkers(["module"], sab);
  await w.run(
    async (sabmutex, { rw, lockSab }) => {
      self.lk = rw ? new sabmutex.RWMutex(lockSab, 0) : self.m;
      self.lk.lock();
    },
    { rw, lockSab },
  );
  const order = [];
  const tasks = [];
  for (let i = 0; i < n; i++) tasks.push(m.lockAsync().then((ok) => (order.push(ok ? i : -1 - i), m.unlock())));
  const unlocked = w.run(async () => {
    Atomics.wait(new Int32Array(self.sab), 3, 0, 30);
    const t = performance.timeOrigin + performance.now(); // (before: a worker descheduled after its unlock read its clock late)
    self.lk.unlock();
    return t;
  });
  await Promise.all(tasks);
  const ms = performance.timeOrigin + performance.now() - (await unlocked);
  const wrong = order.filter((x, k) => x !== k).slice(0, 5);

  const { held, workerWaits } = await workerBehindStream(w, i32, {
    streamMs,
    take: () => m.lockAsync(),
    give: () => m.unlock(),
    worker: { name: "lk", take: "lock", give: "unlock" },
  });
  w.terminate();

  const word = Atomics.load(new Int32Array(lockSab), 0);
  if (rw) return { granted: order.length, wrong, ms, held, workerWaits, word, condNotified: true };

  // A task queued behind the holder, which releases the mutex in
  // Cond.waitAsync: the queued task gets it then, and notifies.
  const sab2 = new SharedArrayBuffer(16);
  const c = new sabmutex.Cond(sab2, 0), m2 = new sabmutex.Mutex(sab2, 1);
  await m2.lockAsync();
  const queued = m2.lockAsync().then(() => (c.notifyOne(), m2.unlock()));
  const condNotified = await c.waitAsync(m2, 2000);
  m2.unlock();
  await queued;
  return { granted: order.length, wrong, ms, held, workerWaits, word, condNotified };
}

// Without Atomics.waitAsync (the second pass), how many helper workers the
// page starts while n page tasks wait in Mutex.lockAsync and n in
// locks.request behind a worker that holds both: counted by wrapping
// Worker for blob: URLs (the helpers' script). Also whether all were
// granted, in order, once the worker let go.
async function helpersWhileQueued(n) {
  let helpers = 0;
  const W = window.Worker;
  window.Worker = function (url, options) {
    if (String(url).startsWith("blob:")) helpers++;
    return new W(url, options);
  };
  try {
    await sabmutex.init();
    const sab = new SharedArrayBuffer(16);
    const m = new sabmutex.Mutex(sab, 0);
    const [w] = await startWorkers(["module"], sab);
    await w.run(async (sabmutex) => {
      self.m.lock();
      sabmutex.locks.request("helpers", () => new Promise((r) => (self.letGo = r)));
    });
    const order = [];
    const tasks = [];
    for (let i = 0; i < n; i++) {
      tasks.push(m.lockAsync().then(() => (order.push(i), m.unlock())));
      tasks.push(sabmutex.locks.request("helpers", () => order.push(n + i)));
    }
    await new Promise((r) => setTimeout(r, 300));
    const during = helpers;
    await w.run(async () => (self.m.unlock(), self.letGo()));
    await Promise.all(tasks);
    w.terminate();
    const mutexOrder = order.filter((x) => x < n), lockOrder = order.filter((x) => x >= n);

    // Then n page tasks, each waiting on a Semaphore of its own (n words):
    // past the cap, the waits look at their words; all are served once
    // each semaphore gets a permit.
    const before = helpers;
    const ssab = new SharedArrayBuffer(4 * sabmutex.Semaphore.SLOTS * n);
    const sems = Array.from({ length: n }, (_, i) => new sabmutex.Semaphore(ssab, i * sabmutex.Semaphore.SLOTS, 1));
    for (const s of sems) s.tryAcquire();
    let served = 0;
    const acquired = sems.map((s) => s.acquireAsync().then((ok) => ok && served++));
    await new Promise((r) => setTimeout(r, 300));
    const semHelpers = helpers - before;
    for (const s of sems) s.release();
    await Promise.all(acquired);
    return { helpers: during, granted: order.length, inOrder: mutexOrder.every((x, k) => x === k) && lockOrder.every((x, k) => x === n + k), semHelpers, served };
  } finally {
    window.Worker = W;
  }
}

// Counts the sleeps the page starts while fn runs: calls of
// Atomics.waitAsync, or, without it, sleeps posted to helper workers
// (wait.js's helperWait posts [Int32Array, index, value, endsAt]). A task
// that waits each on its own starts one (past the helpers' cap, it looks
// at its word on a timer instead).
async function sleepsDuring(fn) {
  let sleeps = 0;
  const waitAsync = Atomics.waitAsync, post = Worker.prototype.postMessage;
  if (typeof waitAsync === "function") Atomics.waitAsync = (...a) => (sleeps++, waitAsync.apply(Atomics, a));
  Worker.prototype.postMessage = function (data, ...rest) {
    if (Array.isArray(data) && data[0] instanceof Int32Array) sleeps++;
    return post.call(this, data, ...rest);
  };
  try {
    const r = await fn();
    return { ...r, sleeps };
  } finally {
    if (typeof waitAsync === "function") Atomics.waitAsync = waitAsync;
    Worker.prototype.postMessage = post;
  }
}

// Issue 60's hand-off for RWMutex.readLockAsync: n page reader tasks queue
// behind a page writer task (page), then behind a worker's write lock
// (worker); each time, how many sleeps the page started, how many readers
// went in (all together: most inside at once), and the ms from the
// unlock to the last admission. Then Go's rule (rule): a page reader
// inside, a worker's lock() waiting for it (W), n page readers queued
// behind that writer: none may go in before the worker's unlock.
async function readersHandOff({ n }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(64);
  const rw = new sabmutex.RWMutex(sab, 0);
  const [w] = await startWorkers(["module"], sab);
  await w.run(async (sabmutex) => void (self.rw = new sabmutex.RWMutex(self.sab, 0)));
  const queue = () => {
    const readers = [];
    let inside = 0, most = 0;
    const times = [];
    for (let i = 0; i < n; i++) readers.push(rw.readLockAsync().then((ok) => (ok && (inside++, (most = Math.max(most, inside)), times.push(performance.now())), ok)));
    return async () => {
      const oks = await Promise.all(readers);
      times.sort((a, b) => a - b);
      // inAt: the last in; allButOneAt: the last but one (the agent's reader on the word may be last, after its wake-up)
      const r = { granted: oks.filter(Boolean).length, most, inAt: times[times.length - 1], allButOneAt: times[times.length - 2], firstAt: times[0] };
      for (let i = 0; i < r.granted; i++) rw.readUnlock();
      return r;
    };
  };
  const page = await sleepsDuring(async () => {
    await rw.lockAsync();
    const all = queue();
    await new Promise((r) => setTimeout(r, 20));
    const t = performance.now();
    rw.unlock();
    const r = await all();
    return { ...r, ms: r.inAt - t, allButOneMs: r.allButOneAt - t };
  });
  await w.run(async () => self.rw.lock());
  const worker = await sleepsDuring(async () => {
    const all = queue();
    await new Promise((r) => setTimeout(r, 20));
    const unlocked = w.run(async () => {
      const t = performance.timeOrigin + performance.now();
      self.rw.unlock();
      return t;
    });
    const r = await all();
    const t = (await unlocked) - performance.timeOrigin;
    return { ...r, ms: r.inAt - t, allButOneMs: r.allButOneAt - t };
  });
  // Go's rule: a writer waiting for the readers inside blocks new ones.
  if (!rw.tryReadLock()) throw new Error("the RWMutex is taken");
  const locked = w.run(async () => {
    self.rw.lock();
    Atomics.wait(new Int32Array(self.sab), 9, 0, 30);
    const t = performance.timeOrigin + performance.now();
    self.rw.unlock();
    return t;
  });
  const i32 = new Int32Array(sab);
  for (let k = 0; k < 2000 && (Atomics.load(i32, 0) & (1 << 29)) === 0; k++) await new Promise((r) => setTimeout(r, 1));
  const all = queue();
  await new Promise((r) => setTimeout(r, 20));
  rw.readUnlock();
  const writerOut = (await locked) - performance.timeOrigin;
  const rule = await all();
  w.terminate();
  // (before: how long before the worker's unlock the first reader went in; < 0: after it)
  return { page, worker, rule: { granted: rule.granted, most: rule.most, beforeMs: writerOut - rule.firstAt }, word: Atomics.load(i32, 0) };
}

// Waits out microtasks only (no other job runs meanwhile: no wake-up of an
// Atomics.waitAsync, no helper's message, no timer) until count() reaches
// n or a thousand microtasks have run; returns count() then.
async function inThisJob(count, n) {
  for (let k = 0; k < 1000 && count() < n; k++) await null;
  return count();
}

// Issue 60's hand-off for the waits that every wake-up ends for all:
// WaitGroup.waitAsync, Once.doAsync and Barrier.waitAsync. n page tasks
// wait on one primitive; then a page task releases them (page: the done()
// that brings the count to 0, the end of the page's run of fn, the page's
// arrival that completes the generation), and then a worker (worker).
// Each case: how many sleeps the page started, how many tasks were
// resolved before the release (early), how many within the release's job
// (inJob: at once, in microtasks), how many in all, as the primitive
// says (got), and the ms from the release to the last (ms). Once also runs Go's rule for a fn that throws (throws): the
// waiting tasks wake and exactly one of them runs its own fn. which:
// "wg", "once" or "barrier".
async function familyHandOff({ n, which }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(128);
  const i32 = new Int32Array(sab);
  const [w] = await startWorkers(["module"], sab);
  await w.run(
    async (sabmutex, { parties }) => {
      self.wg = new sabmutex.WaitGroup(self.sab, 4);
      self.once = new sabmutex.Once(self.sab, 10);
      self.barrier = new sabmutex.Barrier(self.sab, 18, parties);
    },
    { parties: n + 1 },
  );
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  // n tasks of want(); release() then lets them go; returns the case's figures.
  const run = (want, ok, release) =>
    sleepsDuring(async () => {
      let resolved = 0, lastAt = 0;
      const tasks = [];
      for (let i = 0; i < n; i++) tasks.push(want().then((v) => (resolved++, (lastAt = performance.now()), v)));
      await pause(20);
      const early = resolved;
      const t = performance.now();
      await release();
      const inJob = await inThisJob(() => resolved, n);
      const got = (await Promise.all(tasks)).filter(ok).length;
      return { early, inJob, got, ms: lastAt - t };
    });

  try {
    if (which === "wg") return await wgCase();
    if (which === "once") return await onceCase();
    return await barrierCase();
  } finally {
    w.terminate();
  }

  // WaitGroup: a page task's done(), then a worker's.
  async function wgCase() {
    const wg = new sabmutex.WaitGroup(sab, 4);
    wg.add(1);
    const page = await run(() => wg.waitAsync(), (v) => v === true, () => wg.done());
    wg.add(1);
    const worker = await run(() => wg.waitAsync(), (v) => v === true, () => w.run(async () => self.wg.done()));
    return { page, worker, word: i32[4] };
  }

  // Once: the end of a page task's run of fn, then of a worker's.
  async function onceCase() {
    let letGo, pageRuns = 0;
    const once = new sabmutex.Once(sab, 6);
    const first = once.doAsync(() => new Promise((r) => (letGo = r)));
    await pause(0);
    const page = await run(() => once.doAsync(() => pageRuns++), (v) => v === false, () => letGo());
    const firstRan = await first;
    const once2 = new sabmutex.Once(sab, 10);
    const running = w.run(async () => {
      const i32 = new Int32Array(self.sab);
      self.once.do(() => {
        Atomics.store(i32, 31, 1);
        Atomics.wait(i32, 30, 0, 10000);
      });
    });
    for (let k = 0; k < 5000 && Atomics.load(i32, 31) === 0; k++) await pause(1);
    const worker = await run(() => once2.doAsync(() => pageRuns++), (v) => v === false, async () => {
      Atomics.store(i32, 30, 1);
      Atomics.notify(i32, 30);
      await running;
    });
    // Go's rule: a page task's fn throws; exactly one waiting task runs its own.
    const once3 = new sabmutex.Once(sab, 14);
    let fail, ranAfter = 0;
    const failing = once3.doAsync(() => new Promise((_, reject) => (fail = reject))).catch((e) => e.message);
    await pause(0);
    const throws = await run(() => once3.doAsync(() => ranAfter++), (v) => v === false, () => fail(new Error("fn threw")));
    return { page, worker, throws, firstRan, pageRuns, failed: await failing, ranAfter, done: [once.isDone(), once2.isDone(), once3.isDone()] };
  }

  // Barrier of n+1 parties: the page's own arrival completes the
  // generation, then a worker's.
  async function barrierCase() {
    const barrier = new sabmutex.Barrier(sab, 18, n + 1);
    let last;
    const page = await run(() => barrier.waitAsync(), (v) => v === "passed", async () => (last = await barrier.waitAsync()));
    let workerLast;
    const worker = await run(() => barrier.waitAsync(), (v) => v === "passed", async () => (workerLast = await w.run(async () => self.barrier.wait())));
    return { page, worker, last, workerLast, word: i32[18] };
  }
}

// A worker's blocking take of a primitive behind a stream of the page's
// tasks (loops of take(), 50 µs held, give(), for streamMs; while one
// holds, the others wait): the worker takes and gives it back ten times
// meanwhile (self[worker.name][worker.take]() and [worker.give]()), 10 ms
// apart, once the page has held it 30 times; its waits (ms), which the
// starvation bound keeps short, and how many times the page held it. w: a
// worker with self.sab the buffer of i32, whose slots 2 and 3 this uses.
async function workerBehindStream(w, i32, { streamMs, loops = 3, take, give, worker }) {
  Atomics.store(i32, 2, 0);
  const waits = w.run(async (sabmutex, { name, take, give }) => {
    const i32 = new Int32Array(self.sab);
    while (Atomics.load(i32, 2) === 0) Atomics.wait(i32, 2, 0, 100);
    const waits = [];
    for (let k = 0; k < 10; k++) {
      const t0 = performance.now();
      self[name][take]();
      waits.push(performance.now() - t0);
      self[name][give]();
      Atomics.wait(i32, 3, 0, 10);
    }
    return waits;
  }, worker);
  const end = performance.now() + streamMs;
  let held = 0;
  const loop = async () => {
    while (performance.now() < end) {
      await take();
      held++;
      if (held === 30) Atomics.store(i32, 2, 1), Atomics.notify(i32, 2);
      for (const t = performance.now() + 0.05; performance.now() < t; );
      give();
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  return { held, workerWaits: await waits };
}

// A Semaphore's stream (workerBehindStream): sem the page's Semaphore of 1
// permit, not held; w's self.sem the same one.
function semWorkerBehindStream(sem, w, i32, { streamMs, loops = 3 }) {
  return workerBehindStream(w, i32, { streamMs, loops, take: () => sem.acquireAsync(), give: () => sem.release(), worker: { name: "sem", take: "acquire", give: "release" } });
}

// A Semaphore of 1 permit in a buffer of its own, on the page (sem) and in
// a worker (w's self.sem); held: the worker takes its permit first.
async function semOnPageAndWorker(held) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(64);
  const SEM = 4;
  const sem = new sabmutex.Semaphore(sab, SEM, 1);
  const [w] = await startWorkers(["module"], sab);
  await w.run(async (sabmutex, { SEM, held }) => {
    self.sem = new sabmutex.Semaphore(self.sab, SEM, 1);
    if (held) self.sem.acquire();
  }, { SEM, held });
  return { sab, sem, w };
}

// semWorkerBehindStream on a Semaphore of its own.
async function semStream({ streamMs, loops }) {
  const { sab, sem, w } = await semOnPageAndWorker(false);
  const r = await semWorkerBehindStream(sem, w, new Int32Array(sab), { streamMs, loops });
  w.terminate();
  return { ...r, available: sem.available() };
}

// Issue 60's hand-off for Semaphore.acquireAsync: n page tasks queue on a
// Semaphore of 1 permit that a worker holds, and each, granted, notes its
// turn and releases (order; ms: from the worker's release to the last
// grant; sleeps: how many the page started meanwhile). Then the worker
// behind a stream of the page's tasks (semWorkerBehindStream): its waits,
// which the hand-offs' bound keeps short.
async function semHandOff({ n, streamMs }) {
  const { sab, sem, w } = await semOnPageAndWorker(true);
  const queued = await sleepsDuring(async () => {
    const order = [];
    const tasks = [];
    for (let i = 0; i < n; i++) tasks.push(sem.acquireAsync().then((ok) => (order.push(ok ? i : -1 - i), sem.release())));
    const released = w.run(async () => {
      Atomics.wait(new Int32Array(self.sab), 3, 0, 30);
      const t = performance.timeOrigin + performance.now();
      self.sem.release();
      return t;
    });
    await Promise.all(tasks);
    const ms = performance.timeOrigin + performance.now() - (await released);
    return { granted: order.length, wrong: order.filter((x, k) => x !== k).slice(0, 5), ms };
  });
  const r = await semWorkerBehindStream(sem, w, new Int32Array(sab), { streamMs });
  w.terminate();
  return { ...queued, ...r, available: sem.available() };
}

// Issue 60's hand-off for a Channel's sendAsync and recvAsync. n page tasks
// wait in recvAsync on an empty channel; the page sends n messages
// (pageRecv), then a worker does (workerRecv): each task gets the message
// of its turn. n page tasks wait in sendAsync on a full channel, and the
// page receives everything (pageSend): the fill, then the tasks' messages
// in their order. Each case: how many sleeps the page started, how many
// tasks got the message of their turn (inOrder), how many of the page's
// sends (receives) had their task answered within their job (atOnce: in
// microtasks, with no wake-up between: inThisJob), and the ms from the first send (receive) to the last
// task's answer. Then a worker behind a stream of the page's tasks passing
// one token through a Channel of capacity 1 (workerBehindStream:
// recvAsync, then trySend): its waits.
async function chanHandOff({ n, streamMs }) {
  await sabmutex.init();
  const C = 4, slots = sabmutex.Channel.slotsFor(C, 16);
  const sab = new SharedArrayBuffer(4 * (16 + 2 * slots));
  const i32 = new Int32Array(sab);
  const ch = new sabmutex.Channel(sab, 16, C, 16), tok = new sabmutex.Channel(sab, 16 + slots, 1, 16);
  const [w] = await startWorkers(["module"], sab);
  await w.run(async (sabmutex, { C, slots }) => {
    self.ch = new sabmutex.Channel(self.sab, 16, C, 16);
    self.tok = new sabmutex.Channel(self.sab, 16 + slots, 1, 16);
    self.tokOps = { take: () => self.tok.recv(), give: () => self.tok.send("t") };
  }, { C, slots });
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  // n receiving tasks, then send(answered), which counts its sends whose
  // task was answered when they returned: how many got their turn's message.
  const receivers = (send) =>
    sleepsDuring(async () => {
      let lastAt = 0, answered = 0;
      const got = Array.from({ length: n }, () => ch.recvAsync().then((m) => (answered++, (lastAt = performance.now()), m)));
      await pause(20);
      const t = performance.now();
      const atOnce = await send(() => answered);
      const all = await Promise.all(got);
      return { inOrder: all.filter((m, k) => m === String(k)).length, atOnce, ms: lastAt - t };
    });
  try {
    const pageRecv = await receivers(async (answered) => {
      let atOnce = 0;
      for (let k = 0; k < n; k++) {
        await ch.sendAsync(String(k));
        if ((await inThisJob(answered, k + 1)) === k + 1) atOnce++;
      }
      return atOnce;
    });
    const workerRecv = await receivers(async () => {
      await w.run(async (_, { n }) => {
        for (let k = 0; k < n; k++) self.ch.send(String(k));
      }, { n });
      return 0;
    });
    const pageSend = await sleepsDuring(async () => {
      for (let k = 0; k < C; k++) if (!ch.trySend("fill")) throw new Error("the channel is not empty");
      let answered = 0;
      const sent = Array.from({ length: n }, (_, k) => ch.sendAsync(String(k)).then((ok) => (answered++, ok)));
      await pause(20);
      const t = performance.now(), all = [];
      let atOnce = 0;
      for (let k = 0; k < C + n; k++) {
        all.push(await ch.recvAsync());
        if (k < n && (await inThisJob(() => answered, k + 1)) === k + 1) atOnce++; // (each receive makes room for the next task)
      }
      const ms = performance.now() - t;
      const oks = (await Promise.all(sent)).filter((ok) => ok === true).length;
      return { inOrder: all.slice(C).filter((m, k) => m === String(k)).length, fill: all.slice(0, C).filter((m) => m === "fill").length, oks, atOnce, ms };
    });
    // The token: in the channel while nobody holds it.
    if (!tok.trySend("t")) throw new Error("the token's channel is not empty");
    const stream = await workerBehindStream(w, i32, {
      streamMs,
      take: () => tok.recvAsync(),
      give: () => {
        if (!tok.trySend("t")) throw new Error("no room for the token");
      },
      worker: { name: "tokOps", take: "take", give: "give" },
    });
    return { pageRecv, workerRecv, pageSend, ...stream, left: [ch.length, tok.length] };
  } finally {
    w.terminate();
  }
}
