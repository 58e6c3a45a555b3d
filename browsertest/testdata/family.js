// Page side of the sync family's browser tests (family_test.go). Each
// scenario is one body that every agent runs: the workers with the blocking
// calls, the page with the ...Async ones. With use: false the body does the
// same work without the primitive, to show that the check can fail. Every
// wait has a deadline; a body that misses one throws, which fails the test.
"use strict";

// Runs body in `workers` workers (agents 1..workers) and on the page (agent
// 0), all with { sab, agent, agents, ...data }, and returns their results.
// With stop ({ slot, ms }), slot turns 1 ms after every worker is running:
// a window that began before the workers' start (which takes hundreds of
// ms in WebKit, more on a busy machine) left some agents a few turns.
async function everyAgent(body, workers, sab, data, stop) {
  const ws = await startWorkers(Array.from({ length: workers }, (_, i) => (i % 2 ? "classic" : "module")), sab);
  const agents = workers + 1;
  if (stop) setTimeout(() => Atomics.store(new Int32Array(sab), stop.slot, 1), stop.ms);
  try {
    const page = (0, eval)(`(${body})`)(sabmutex, { sab, agent: 0, agents, ...data });
    return await Promise.all([page, ...ws.map((w, i) => w.run(body, { sab, agent: i + 1, agents, ...data }))]);
  } finally {
    ws.forEach((w) => w.terminate());
  }
}

// A bounded queue between 3 producer workers and two consumers (a worker and
// the page), with a Mutex and two Conds (notEmpty, notFull). Slots: 0-1 the
// mutex, 2 notEmpty, 3 notFull, 4 head, 5 tail, 6 consumed, 7 stop, 16.. the
// ring, then one count per item: every item must arrive exactly once.
async function producerConsumer({ perProducer, capacity, use }) {
  await sabmutex.init();
  const producers = 3, total = producers * perProducer, ring = 16, seen = ring + capacity;
  const sab = new SharedArrayBuffer(4 * (seen + total + 1));
  const body = async (sabmutex, { sab, agent, use, perProducer, capacity, total, ring, seen }) => {
    const w = new Int32Array(sab);
    const blocking = typeof document === "undefined";
    const m = new sabmutex.Mutex(sab, 0), notEmpty = new sabmutex.Cond(sab, 2), notFull = new sabmutex.Cond(sab, 3);
    const deadline = performance.now() + 10000;
    const late = (what) => {
      if (performance.now() > deadline) throw new Error(`agent ${agent}: ${what} for 10 s`);
    };
    const pause = () => (blocking ? Atomics.wait(w, 7, 0, 0.05) : new Promise((r) => setTimeout(r, 0)));
    // The primitive's calls, or (use: false) the same steps without them.
    const lock = () => (!use ? null : blocking ? m.lock(10000) || late("lock") : m.lockAsync(10000).then((ok) => ok || late("lockAsync")));
    const wait = (c) => (!use ? pause() : blocking ? c.wait(m, 100) : c.waitAsync(m, 100));
    const unlock = () => use && m.unlock();
    if (agent >= 1 && agent <= 3) {
      for (let k = 0; k < perProducer && !Atomics.load(w, 7); k++) {
        await lock();
        while (w[5] - w[4] === capacity && !Atomics.load(w, 7)) await wait(notFull), late("waiting for room");
        const tail = w[5];
        for (let s = 0; s < 20; s++) Atomics.load(w, 7); // a window for a race, should there be no lock
        w[ring + (tail % capacity)] = (agent - 1) * perProducer + k + 1;
        w[5] = tail + 1;
        if (use) notEmpty.notifyOne();
        unlock();
      }
      return "producer";
    }
    let mine = 0;
    for (;;) {
      await lock();
      while (w[5] === w[4] && w[6] < total && !Atomics.load(w, 7)) await wait(notEmpty), late("waiting for items");
      if (w[6] >= total || Atomics.load(w, 7)) {
        unlock();
        return mine;
      }
      const head = w[4];
      const item = w[ring + (head % capacity)];
      for (let s = 0; s < 20; s++) Atomics.load(w, 7);
      w[4] = head + 1;
      w[6]++;
      if (w[6] === total && use) notEmpty.notifyAll(); // the other consumer stops too
      if (use) notFull.notifyOne();
      unlock();
      Atomics.add(w, seen + item, 1);
      mine++;
      if (!blocking && mine % 32 === 0) await new Promise((r) => setTimeout(r, 0));
    }
  };
  // Without the primitive, lost items would keep the consumers waiting: stop after 3 s.
  const stop = use ? null : setTimeout(() => Atomics.store(new Int32Array(sab), 7, 1), 3000);
  const [page, , , , worker] = await everyAgent(body, 4, sab, { use, perProducer, capacity, total, ring, seen });
  clearTimeout(stop);
  const counts = new Int32Array(sab, 4 * (seen + 1), total);
  return {
    total,
    missing: counts.filter((c) => c === 0).length,
    duplicated: counts.filter((c) => c > 1).length,
    byPage: page,
    byWorker: worker,
    mutexWord: new Int32Array(sab)[0],
  };
}

// Readers and writers of 8 data slots, which a writer sets one by one to
// the same new value: a reader must never see them differ, a writer must be
// alone. Slots: 0-3 the RWMutex, 4 readers inside, 5 writers inside, 6 most
// readers inside at once, 7 violations, 8 stop, 16-23 the data.
async function readersWriters({ workers, ms, use }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(4 * 32);
  const body = async (sabmutex, { sab, agent, use }) => {
    const w = new Int32Array(sab);
    const blocking = typeof document === "undefined";
    const rw = new sabmutex.RWMutex(sab, 0);
    let x = agent * 7919 + 1;
    const rnd = (n) => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) % n);
    let reads = 0, writes = 0;
    for (let i = 0; !Atomics.load(w, 8); i++) {
      if (rnd(5) === 0) {
        if (use && !(blocking ? rw.lock(10000) : await rw.lockAsync(10000))) throw new Error("write lock: 10 s");
        if (Atomics.add(w, 5, 1) !== 0 || Atomics.load(w, 4) !== 0) Atomics.add(w, 7, 1);
        const v = Atomics.load(w, 16) + 1;
        for (let k = 16; k < 24; k++) {
          Atomics.store(w, k, v);
          for (let s = 0; s < 20; s++) Atomics.load(w, 8);
        }
        Atomics.sub(w, 5, 1);
        if (use) rw.unlock();
        writes++;
      } else {
        if (use && !(blocking ? rw.readLock(10000) : await rw.readLockAsync(10000))) throw new Error("read lock: 10 s");
        const inside = Atomics.add(w, 4, 1) + 1;
        if (inside > Atomics.load(w, 6)) Atomics.store(w, 6, inside);
        if (Atomics.load(w, 5) !== 0) Atomics.add(w, 7, 1);
        const first = Atomics.load(w, 16);
        for (let k = 17; k < 24; k++) if (Atomics.load(w, k) !== first) Atomics.add(w, 7, 1);
        for (let s = 0; s < 50; s++) Atomics.load(w, 8); // readers linger, so that they overlap
        Atomics.sub(w, 4, 1);
        if (use) rw.readUnlock();
        reads++;
      }
      if (!blocking && i % 16 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    return [reads, writes];
  };
  const counts = await everyAgent(body, workers, sab, { use }, { slot: 8, ms });
  const w = new Int32Array(sab);
  return { counts, violations: w[7], maxReaders: w[6], state: w[0] };
}

// Agents take 1 or 2 of 3 permits and count what they hold in a gauge, which
// must never pass 3. Slots: 0-2 the Semaphore, 4 the gauge, 5 its highest,
// 6 stop, 7 acquisitions.
async function semaphoreGauge({ workers, ms, use }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(4 * 16);
  const body = async (sabmutex, { sab, agent, use }) => {
    const w = new Int32Array(sab);
    const blocking = typeof document === "undefined";
    const sem = new sabmutex.Semaphore(sab, 0, 3);
    let x = agent * 104729 + 3;
    const rnd = (n) => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) % n);
    for (let i = 0; !Atomics.load(w, 6); i++) {
      const n = 1 + rnd(2);
      if (use && !(blocking ? sem.acquire(n, 10000) : await sem.acquireAsync(n, 10000))) throw new Error(`acquire(${n}): 10 s`);
      const g = Atomics.add(w, 4, n) + n;
      if (g > Atomics.load(w, 5)) Atomics.store(w, 5, g);
      for (let s = 0; s < 100; s++) Atomics.load(w, 6);
      Atomics.sub(w, 4, n);
      if (use) sem.release(n);
      Atomics.add(w, 7, 1);
      if (!blocking && i % 16 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    return sem.available();
  };
  const available = await everyAgent(body, workers, sab, { use }, { slot: 6, ms });
  const w = new Int32Array(sab);
  return { highest: w[5], acquisitions: w[7], available };
}

// Every agent, generation after generation: mark its arrival, wait at the
// barrier, then check that every party has marked this generation. Slots:
// 0-1 the Barrier, 4 violations, 5 "last" results, 16.. each agent's mark.
// (A worker waiting without a timeout that is never woken fails the test
// by the evaluation's deadline.)
async function barrierGenerations({ workers, generations, use }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(4 * (16 + workers + 1));
  const body = async (sabmutex, { sab, agent, agents, generations, use }) => {
    const w = new Int32Array(sab);
    const blocking = typeof document === "undefined";
    const b = new sabmutex.Barrier(sab, 0, agents);
    for (let g = 1; g <= generations; g++) {
      Atomics.store(w, 16 + agent, g);
      if (use) {
        // Odd workers wait without a timeout: the glue's own turns
        // (barrier.js's barrierTurn); even ones through the core's.
        const r = !blocking ? await b.waitAsync(10000) : agent % 2 === 1 ? b.wait() : b.wait(10000);
        if (r === "timed-out") throw new Error(`generation ${g}: 10 s at the barrier`);
        if (r === "last") Atomics.add(w, 5, 1);
      } else if (!blocking) await null;
      for (let a = 0; a < agents; a++) if (Atomics.load(w, 16 + a) < g) Atomics.add(w, 4, 1);
    }
    return "done";
  };
  await everyAgent(body, workers, sab, { use, generations });
  const w = new Int32Array(sab);
  return { violations: w[4], lasts: w[5], word: w[0] };
}

// Rounds of fan-out: the page adds workers to the WaitGroup and starts a
// round; each worker does some work, writes its result and calls done; the
// page's waitAsync must see every result. Slots: 0 the WaitGroup, 1 the
// round, 16.. each worker's result.
async function waitGroupRounds({ workers, rounds, use }) {
  await sabmutex.init();
  const sab = new SharedArrayBuffer(4 * (16 + workers + 1));
  const w = new Int32Array(sab);
  const wg = new sabmutex.WaitGroup(sab, 0);
  const ws = await startWorkers(Array.from({ length: workers }, (_, i) => (i % 2 ? "classic" : "module")), sab);
  const runs = ws.map((wk, i) =>
    wk.run(
      async (sabmutex, { sab, agent, rounds }) => {
        const w = new Int32Array(sab);
        const wg = new sabmutex.WaitGroup(sab, 0);
        for (let r = 1; r <= rounds; r++) {
          // A wake-up is no proof the round began: a worker that finished
          // round r-1 before the page's notify for it went out is woken by
          // that notify while it waits for round r (seen in Firefox, where
          // the round then ran ahead of the page's add). So look again.
          for (let seen; (seen = Atomics.load(w, 1)) < r; ) {
            if (Atomics.wait(w, 1, seen, 10000) === "timed-out") throw new Error(`round ${r} did not start in 10 s`);
          }
          for (let s = 0; s < 2000 * (1 + (agent % 3)); s++) Atomics.load(w, 1); // work, unequal
          Atomics.store(w, 16 + agent, r);
          wg.done();
        }
      },
      { sab, agent: i + 1, rounds },
    ),
  );
  let incomplete = 0;
  for (let r = 1; r <= rounds; r++) {
    wg.add(workers);
    Atomics.store(w, 1, r);
    Atomics.notify(w, 1);
    if (use) {
      if (!(await wg.waitAsync(10000))) throw new Error(`round ${r}: waitAsync 10 s`);
    } else await null;
    for (let a = 1; a <= workers; a++) if (Atomics.load(w, 16 + a) < r) incomplete++;
    if (!use) while (wg.count() > 0) await new Promise((res) => setTimeout(res, 0)); // let the round end before the next
  }
  await Promise.all(runs);
  ws.forEach((x) => x.terminate());
  return { incomplete, count: wg.count() };
}

// Every agent races for each round's Once, whose fn counts its runs, works a
// little and marks itself finished: one run per round, and nobody returns
// before it finished. Slots: 1 the round, 2 arrivals, 3 violations, then per
// round: the Once (Once.SLOTS), runs, finished.
async function onceRace({ workers, rounds, use }) {
  await sabmutex.init();
  const per = 2 + 4;
  const sab = new SharedArrayBuffer(4 * (16 + rounds * per));
  const body = async (sabmutex, { sab, agent, agents, rounds, per, use }) => {
    const w = new Int32Array(sab);
    const blocking = typeof document === "undefined";
    let ran = 0;
    for (let r = 0; r < rounds; r++) {
      const base = 16 + r * per, runs = base + sabmutex.Once.SLOTS, finished = runs + 1;
      // Start together: the last to arrive opens the round.
      if (Atomics.add(w, 2, 1) === (r + 1) * agents - 1) {
        Atomics.store(w, 1, r + 1);
        Atomics.notify(w, 1);
      }
      const t0 = performance.now();
      while (Atomics.load(w, 1) <= r) {
        if (performance.now() - t0 > 10000) throw new Error(`round ${r} did not start in 10 s`);
        if (blocking) Atomics.wait(w, 1, r, 100);
        else await new Promise((res) => setTimeout(res, 0));
      }
      const fn = () => {
        Atomics.add(w, runs, 1);
        for (let s = 0; s < 3000; s++) Atomics.load(w, 1);
        Atomics.store(w, finished, 1);
      };
      const once = new sabmutex.Once(sab, base);
      if (!use) {
        if (Atomics.load(w, finished) === 0) fn(), ran++;
      } else if (blocking ? once.do(fn, 10000) : await once.doAsync(fn, 10000)) ran++;
      if (Atomics.load(w, finished) !== 1) Atomics.add(w, 3, 1);
    }
    return ran;
  };
  const ran = await everyAgent(body, workers, sab, { rounds, per, use });
  const w = new Int32Array(sab);
  let extraRuns = 0;
  for (let r = 0; r < rounds; r++) extraRuns += w[16 + r * per + sabmutex.Once.SLOTS] - 1;
  return { ran, extraRuns, violations: w[3] };
}

// The family's semantics in one agent (the page, or a worker): timeouts,
// aborts, sibling tasks, misuse. Each case returns true or a description of
// what went wrong; the test fails on anything but true.
async function familyCases(sabmutex, { sab }) {
  const blocking = typeof document === "undefined";
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const took = async (f) => {
    const t0 = performance.now();
    const v = await f();
    return [v, performance.now() - t0];
  };
  const rejects = async (f, ...parts) => {
    try {
      await f();
      return "did not throw";
    } catch (e) {
      const text = `${e.name}: ${e.message}`;
      return parts.every((p) => text.includes(p)) || text;
    }
  };
  const aborted = async (start, ms = 20) => {
    const ac = new AbortController();
    const p = start(ac.signal).then((v) => `resolved ${v}`, (e) => e.message);
    await sleep(ms);
    ac.abort(new Error("stop"));
    return (await p) === "stop" || (await p);
  };
  let next = 0;
  const at = (slots) => ((next += slots), next - slots);
  const cases = {};
  const check = async (name, f) => {
    try {
      cases[name] = await f();
    } catch (e) {
      cases[name] = `threw ${e.name}: ${e.message}`;
    }
  };
  const S = sabmutex;

  // Cond: a timed wait, an abort (settles holding the mutex again), a notify, misuse.
  const m = new S.Mutex(sab, at(S.Mutex.SLOTS)), c = new S.Cond(sab, at(S.Cond.SLOTS));
  await check("cond waitAsync(60) times out after 60 ms, mutex held again", async () => {
    await m.lockAsync();
    const [v, ms] = await took(() => c.waitAsync(m, 60));
    const held = m.holder() === S.agentId;
    m.unlock();
    return (v === false && ms >= 59.9 && held) || `${v} after ${ms} ms, held ${held}`;
  });
  await check("cond waitAsync aborted: rejects, holding the mutex", async () => {
    await m.lockAsync();
    const r = await aborted((signal) => c.waitAsync(m, { signal }));
    const held = m.holder() === S.agentId;
    m.unlock();
    return (r === true && held) || `${r}, held ${held}`;
  });
  await check("cond notifyOne wakes a sibling task's waitAsync", async () => {
    await m.lockAsync();
    const waiting = c.waitAsync(m, 5000);
    await sleep(10);
    await m.lockAsync(); // the waiter unlocked it
    const woke = c.notifyOne();
    m.unlock();
    const v = await waiting;
    m.unlock();
    // Without Atomics.waitAsync the wait is a helper worker's Atomics.wait,
    // which a loaded machine may start only after the notify (then it finds
    // the sequence moved on, and the waiter is done all the same).
    const helper = typeof Atomics.waitAsync !== "function";
    return (v === true && (woke === 1 || (helper && woke === 0))) || `woke ${woke}, waitAsync ${v}`;
  });
  await check("cond wait without the mutex throws", () => rejects(() => (blocking ? c.wait(m, 10) : c.waitAsync(m, 10)), "sabmutex:", "held by this agent"));
  await check("cond wait with something else throws", () => rejects(() => c.waitAsync({}), "TypeError", "sabmutex.Mutex"));

  // RWMutex: sibling tasks queue; timeouts; abort; misuse.
  const rw = new S.RWMutex(sab, at(S.RWMutex.SLOTS));
  await check("rw readers share, a writer waits for them", async () => {
    const a = await rw.readLockAsync(0), b = rw.tryReadLock(), w = rw.tryLock();
    const [late, ms] = await took(() => rw.lockAsync(60));
    rw.readUnlock();
    rw.readUnlock();
    return (a && b && !w && !late && ms >= 59.9) || `${a} ${b} ${w} ${late} ${ms}`;
  });
  await check("rw a sibling task's readLockAsync waits for the write lock", async () => {
    await rw.lockAsync();
    const reading = rw.readLockAsync(5000);
    await sleep(20);
    const early = rw.tryReadLock();
    rw.unlock();
    const got = await reading;
    rw.readUnlock();
    return (got && !early) || `got ${got}, early ${early}`;
  });
  await check("rw aborted readLockAsync and lockAsync leave it free", async () => {
    await rw.lockAsync();
    const r1 = await aborted((signal) => rw.readLockAsync({ signal }));
    rw.unlock();
    await rw.readLockAsync();
    const r2 = await aborted((signal) => rw.lockAsync({ signal }));
    rw.readUnlock();
    const free = rw.tryLock();
    if (free) rw.unlock();
    return (r1 === true && r2 === true && free) || `${r1} ${r2} free ${free}`;
  });
  await check("rw readUnlock without a read lock throws", () => rejects(() => rw.readUnlock(), "sabmutex:", "no reader holds it"));
  await check("rw unlock without the write lock throws", () => rejects(() => rw.unlock(), "sabmutex:", "not write-locked"));

  // Semaphore: sizes, timeouts, abort, misuse.
  const semAt = at(S.Semaphore.SLOTS);
  const sem = new S.Semaphore(sab, semAt, 3);
  await check("sem acquireAsync(2) waits, timeout 0 and 60", async () => {
    const a = await sem.acquireAsync(2, 0);
    const z = await sem.acquireAsync(2, 0);
    const [s, ms] = await took(() => sem.acquireAsync(2, 60));
    const one = sem.tryAcquire(1);
    sem.release(3);
    return (a && !z && !s && ms >= 59.9 && one && sem.available() === 3) || `${a} ${z} ${s} ${ms} ${one} ${sem.available()}`;
  });
  await check("sem a big waiter is not passed by small ones", async () => {
    await sem.acquireAsync(2);
    const big = sem.acquireAsync(3, 5000);
    await sleep(10);
    const small = sem.tryAcquire(1); // would leave 0: the waiter for 3 reserved them
    sem.release(2);
    const got = await big;
    sem.release(3);
    if (small) sem.release(1);
    return (got && !small) || `big ${got}, small passed it: ${small}`;
  });
  await check("sem aborted acquireAsync leaves all permits", async () => {
    await sem.acquireAsync(3);
    const r = await aborted((signal) => sem.acquireAsync(1, { signal }));
    sem.release(3);
    return (r === true && sem.available() === 3) || `${r}, available ${sem.available()}`;
  });
  await check("sem release of more than taken throws", () => rejects(() => sem.release(1), "sabmutex:", "more than is taken"));
  await check("sem another size throws", () => rejects(() => new S.Semaphore(sab, semAt, 4), "sabmutex:", "set up with 3 permits"));
  await check("sem n out of range throws", () => rejects(() => sem.tryAcquire(4), "RangeError", "from 1 to 3"));
  // Bad arguments to the calls whose optional ones are read from `arguments`:
  // the same errors as declared defaults gave, and nothing taken.
  await check("sem release(1.5) and release(null) throw", async () => {
    const a = await rejects(() => sem.release(1.5), "RangeError", "from 1 to 3", "got number 1.5");
    const b = await rejects(() => sem.release(null), "RangeError", "from 1 to 3", "got null");
    return (a === true && b === true && sem.available() === 3) || `${a} ${b} available ${sem.available()}`;
  });
  if (blocking) {
    await check("blocking calls' bad arguments throw, taking nothing", async () => {
      const r = [
        await rejects(() => sem.acquire(0), "RangeError", "from 1 to 3"),
        await rejects(() => sem.acquire(1, -5), "RangeError", "got -5"),
        await rejects(() => sem.acquire(null), "RangeError", "from 1 to 3", "got null"),
        await rejects(() => rw.lock(-1), "RangeError", "got -1"),
        await rejects(() => rw.readLock("5"), "TypeError", "timeoutMs must be a number"),
        await rejects(() => rw.lock(null), "TypeError", "timeoutMs must be a number"),
      ];
      const free = sem.available() === 3 && rw.tryLock();
      if (free) rw.unlock();
      return (r.every((x) => x === true) && free) || `${r.join(" | ")} free ${free}`;
    });
  }

  // WaitGroup and Barrier.
  const wg = new S.WaitGroup(sab, at(S.WaitGroup.SLOTS));
  await check("wg waitAsync: 0 at once, 60 ms timeout, done() wakes", async () => {
    const zero = await wg.waitAsync(0);
    wg.add(2);
    const [t, ms] = await took(() => wg.waitAsync(60));
    const later = wg.waitAsync(5000);
    wg.done();
    await sleep(5);
    wg.done();
    return (zero && !t && ms >= 59.9 && (await later)) || `${zero} ${t} ${ms}`;
  });
  await check("wg below zero throws", () => rejects(() => wg.done(), "sabmutex:", "negative"));
  const b = new S.Barrier(sab, at(S.Barrier.SLOTS), 3);
  await check("barrier: timed-out arrival withdraws; three tasks pass, one last", async () => {
    const [t, ms] = await took(() => b.waitAsync(60));
    const rs = await Promise.all([b.waitAsync(5000), b.waitAsync(5000), b.waitAsync(5000)]);
    const lasts = rs.filter((r) => r === "last").length;
    return (t === "timed-out" && ms >= 59.9 && lasts === 1 && rs.filter((r) => r === "passed").length === 2) || `${t} ${ms} ${rs}`;
  });
  await check("barrier: aborted arrival withdraws", async () => {
    const r = await aborted((signal) => b.waitAsync({ signal }));
    const rs = await Promise.all([b.waitAsync(5000), b.waitAsync(5000), b.waitAsync(5000)]);
    return (r === true && rs.filter((x) => x === "last").length === 1) || `${r} ${rs}`;
  });

  // Once: sibling tasks wait for the running fn; a throwing fn lets the next run.
  const once = new S.Once(sab, at(S.Once.SLOTS));
  await check("once: a failed fn lets the next caller run; siblings wait", async () => {
    const e = await rejects(() => once.doAsync(() => { throw new Error("boom"); }), "boom");
    let order = [];
    const first = once.doAsync(async () => { order.push("in"); await sleep(30); order.push("out"); });
    const second = once.doAsync(() => order.push("second ran"));
    const [a, c2] = await Promise.all([first, second]);
    return (e === true && a === true && c2 === false && order.join() === "in,out" && once.isDone()) || `${e} ${a} ${c2} ${order}`;
  });

  // The blocking forms: on the main thread they throw pointing to the async form.
  if (!blocking) {
    await check("main thread: blocking calls throw", async () => {
      const r = [
        await rejects(() => rw.readLock(), "cannot block the browser's main thread", "readLockAsync"),
        await rejects(() => sem.acquire(), "cannot block", "acquireAsync"),
        await rejects(() => wg.wait(), "cannot block", "waitAsync"),
        await rejects(() => b.wait(), "cannot block", "waitAsync"),
        await rejects(() => c.wait(m), "cannot block", "waitAsync"),
        await rejects(() => new S.Once(sab, at(2)).do(() => {}), "cannot block", "doAsync"),
      ];
      return r.every((x) => x === true) || r.join(" | ");
    });
  } else {
    await check("worker: blocking forms with timeouts", async () => {
      const t0 = performance.now();
      await rw.lockAsync();
      const rd = (() => { try { rw.readLock(50); return "no error"; } catch (e) { return e.message; } })(); // this agent writes: deadlock
      rw.unlock();
      const s = sem.acquire(3, 0) && !sem.acquire(1, 30);
      sem.release(3);
      wg.add(1);
      const w = wg.wait(30);
      wg.done();
      return (rd.includes("deadlock") && s && w === false && performance.now() - t0 >= 59) || `${rd} ${s} ${w}`;
    });
  }
  return cases;
}

// Every asynchronous call that takes a signal, given one already aborted
// on a primitive that is ready (the call would succeed at once): it must
// reject with the signal's reason, as is, and take nothing. Each row makes
// a ready primitive (ready), calls with the signal (call), then checks that
// nothing was taken (after: true, or what is wrong). Every row runs with
// { signal } and { timeoutMs, signal }, and with a reason given and without
// one (the signal's DOMException). Returns { row: true or what went wrong }.
async function preAbortedCases(sabmutex) {
  const S = sabmutex;
  const sab = new SharedArrayBuffer(4 * 4096);
  let next = 0;
  const at = (slots) => ((next += slots), next - slots);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const pending = async (p) => (await Promise.race([p.then(() => "settled", () => "settled"), sleep(30).then(() => "pending")])) === "pending";
  const ch = () => new S.Channel(sab, at(S.Channel.slotsFor(2, 16)), 2, 16);
  const rows = {
    "Mutex.lockAsync": () => {
      const m = new S.Mutex(sab, at(S.Mutex.SLOTS));
      return { call: (o) => m.lockAsync(o), after: () => !m.isLocked() || "the mutex is locked" };
    },
    "Mutex.acquireAsync": () => {
      const m = new S.Mutex(sab, at(S.Mutex.SLOTS));
      return { call: (o) => m.acquireAsync(o), after: () => !m.isLocked() || "the mutex is locked" };
    },
    "Mutex.withLockAsync": () => {
      const m = new S.Mutex(sab, at(S.Mutex.SLOTS));
      let ran = false;
      return { call: (o) => m.withLockAsync(() => (ran = true), o), after: () => (!ran && !m.isLocked()) || `fn ran ${ran}, locked ${m.isLocked()}` };
    },
    ...Object.fromEntries(
      [
        ["RWMutex.lockAsync", (rw, o) => rw.lockAsync(o)],
        ["RWMutex.readLockAsync", (rw, o) => rw.readLockAsync(o)],
        ["RWMutex.withLockAsync", (rw, o, ran) => rw.withLockAsync(() => (ran.ran = true), o)],
        ["RWMutex.withReadLockAsync", (rw, o, ran) => rw.withReadLockAsync(() => (ran.ran = true), o)],
      ].map(([name, f]) => [
        name,
        () => {
          const rw = new S.RWMutex(sab, at(S.RWMutex.SLOTS)), ran = { ran: false };
          const free = () => {
            const w = rw.tryLock(); // free: no reader and no writer
            if (w) rw.unlock();
            return w;
          };
          return { call: (o) => f(rw, o, ran), after: () => (!ran.ran && free()) || `fn ran ${ran.ran}, free ${free()}` };
        },
      ]),
    ),
    ...Object.fromEntries(
      [1, 3].map((n) => [
        `Semaphore.acquireAsync(${n}) of 3`,
        () => {
          const sem = new S.Semaphore(sab, at(S.Semaphore.SLOTS), 3);
          return { call: (o) => sem.acquireAsync(n, o), after: () => sem.available() === 3 || `${sem.available()} of 3 permits free` };
        },
      ]),
    ),
    "WaitGroup.waitAsync, count 0": () => {
      const wg = new S.WaitGroup(sab, at(S.WaitGroup.SLOTS));
      return { call: (o) => wg.waitAsync(o), after: () => wg.count() === 0 || `count ${wg.count()}` };
    },
    "Barrier.waitAsync, the arrival that completes it": () => {
      const b = new S.Barrier(sab, at(S.Barrier.SLOTS), 2);
      const first = b.waitAsync(5000);
      return {
        call: (o) => b.waitAsync(o),
        after: async () => {
          if (!(await pending(first))) return `the generation completed: the first arrival got ${await first}`;
          const rs = [await b.waitAsync(5000), await first].sort().join();
          return rs === "last,passed" || `the next arrival and the first: ${rs}`;
        },
      };
    },
    "Once.doAsync, not run": () => {
      const once = new S.Once(sab, at(S.Once.SLOTS));
      let ran = false;
      return {
        call: (o) => once.doAsync(() => (ran = true), o),
        after: async () => {
          if (ran || once.isDone()) return `fn ran ${ran}, done ${once.isDone()}`;
          return (await once.doAsync(() => {})) || "the next doAsync did not run its fn";
        },
      };
    },
    "Once.doAsync, done": async () => {
      const once = new S.Once(sab, at(S.Once.SLOTS));
      await once.doAsync(() => {});
      return { call: (o) => once.doAsync(() => {}, o), after: () => once.isDone() || "not done" };
    },
    "Cond.waitAsync": async () => {
      const m = new S.Mutex(sab, at(S.Mutex.SLOTS)), c = new S.Cond(sab, at(S.Cond.SLOTS));
      await m.lockAsync();
      return {
        call: (o) => c.waitAsync(m, o),
        after: () => {
          const held = m.holder() === S.agentId;
          if (held) m.unlock();
          return held || `the mutex is held by ${m.holder()}, not this agent (${S.agentId})`;
        },
      };
    },
    "Channel.sendAsync, room": () => {
      const c = ch();
      return { call: (o) => c.sendAsync("sent", o), after: () => c.length === 0 || `${c.length} messages in it: ${c.tryRecv()}` };
    },
    "Channel.recvAsync, a message in": () => {
      const c = ch();
      c.trySend("kept");
      return { call: (o) => c.recvAsync(o), after: () => (c.length === 1 && c.tryRecv() === "kept") || `${c.length} messages in it` };
    },
    "Channel.recvAsync, closed and drained": () => {
      const c = ch();
      c.close();
      return { call: (o) => c.recvAsync(o), after: () => c.closed };
    },
    "selectAsync, a receive that is ready": () => {
      const c = ch(), empty = ch();
      c.trySend("kept");
      return { call: (o) => S.selectAsync([empty.recvCase(), c.recvCase()], o), after: () => (c.length === 1 && c.tryRecv() === "kept") || `${c.length} messages in it` };
    },
    "selectAsync, a send that is ready": () => {
      const c = ch(), empty = ch();
      return { call: (o) => S.selectAsync([empty.recvCase(), c.sendCase("sent")], o), after: () => c.length === 0 || `${c.length} messages in it` };
    },
  };
  const out = {};
  for (const [name, make] of Object.entries(rows)) {
    for (const [shape, options] of [
      ["{ signal }", (signal) => ({ signal })],
      ["{ timeoutMs, signal }", (signal) => ({ timeoutMs: 5000, signal })],
    ]) {
      for (const given of [true, false]) {
        const row = `${name} ${shape}${given ? "" : ", no reason"}`;
        try {
          const { call, after } = await make();
          const signal = given ? AbortSignal.abort(new Error(`pre-aborted: ${row}`)) : AbortSignal.abort();
          const got = await call(options(signal)).then(
            (v) => `resolved ${v}`,
            (e) => e === signal.reason || `rejected with ${e && e.name}: ${e && e.message}, not the signal's reason`,
          );
          const left = await after();
          out[row] = got === true && left === true ? true : [got, left].filter((x) => x !== true).join("; then ");
        } catch (e) {
          out[row] = `threw ${e.name}: ${e.message}`;
        }
      }
    }
  }
  return out;
}

// The family's inlined fast paths (jsglue/rwmutex.js, semaphore.js,
// waitgroup.js, cond.js, channel.js) against Go's own steps, from legal and illegal
// slots: for each call, once through the glue and once straight to Go's
// export, from the same slots with two asynchronous sleepers on each word
// that may be woken; the outcome, the slots after and the wake-ups must be
// the same.
async function familyGlueCoreAgreement() {
  await sabmutex.init();
  const { core, P, agentId, handleOf } = sabmutex[Symbol.for("sabmutex.internals")]();
  const other = agentId === 1 ? 2 : agentId - 1;
  const sab = new SharedArrayBuffer(4 * 128); // the Channel's states below take 102 slots
  const i32 = new Int32Array(sab);
  const mem = handleOf(sab);
  const go = (op, a = 0) => core.call(op, mem, 0, a, 0);
  const classOf = (r) =>
    r === true || r === undefined || r === P.RESULT_OK ? "ok"
    : r === false || r === P.RESULT_BUSY ? "busy"
    : r === P.RESULT_CORRUPTED ? "corrupted"
    : r === P.RESULT_NOT_LOCKED || r === P.RESULT_NEGATIVE ? "refused"
    : r === P.RESULT_NOT_HOLDER ? "not holder"
    : r === P.RESULT_HOLDER_DIED ? "ok, told"
    : r === P.RESULT_TOO_MANY ? "too many"
    : typeof r === "number" && r >= 0 ? r
    : `code ${r}`;
  const classOfError = (e) =>
    /corrupted/.test(e.message) ? "corrupted"
    : /not write-locked|no reader holds|more than is taken|negative/.test(e.message) ? "refused"
    : /does not hold/.test(e.message) ? "not holder"
    : /too many|past/.test(e.message) ? "too many"
    : `error ${e.message}`;
  const run = async (slots, sleepOn, f) => {
    i32.fill(0);
    slots.forEach((v, k) => (i32[k] = v));
    const sleepers = sleepOn.flatMap((k) => [Atomics.waitAsync(i32, k, i32[k]), Atomics.waitAsync(i32, k, i32[k])].map((s) => ({ k, s })));
    let result;
    try {
      result = classOf(await f());
    } catch (e) {
      result = classOfError(e);
    }
    const after = slots.map((_, k) => i32[k]);
    const left = sleepOn.reduce((n, k) => n + Atomics.notify(i32, k), 0);
    await Promise.all(sleepers.map(({ s }) => s.value));
    return { result, slots: after, woken: sleepers.filter(({ s }) => s.async).length - left };
  };
  const differences = [];
  let cases = 0;
  const compare = async (what, states, sleepOn, calls) => {
    for (const slots of states) {
      for (const [name, [glue, goCall]] of Object.entries(calls)) {
        const a = await run(slots, sleepOn, glue);
        const b = await run(slots, sleepOn, goCall);
        cases++;
        if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${what}.${name} from [${slots}]: glue ${JSON.stringify(a)}, Go ${JSON.stringify(b)}`);
      }
    }
  };

  // An acquisition's result as Go gives it: told, if previousHolderDied.
  const told = (p, had) => (had && p.previousHolderDied ? P.RESULT_HOLDER_DIED : had);

  // RWMutex: [state, admissions, writer].
  const rw = new sabmutex.RWMutex(sab, 0);
  const W = P.RW_WRITER, B = P.RW_BLOCKED_ONE, WW = W >> 1, D = W << 1; // D: the last writer died
  const rwStates = [];
  for (const state of [0, 1, 2, P.MAX_READERS - 1, P.MAX_READERS, W, W | 1, W | B, W | WW, W | WW | 1, B, WW, -1, D, D | 1, D | W, D | W | 1, D | B])
    for (const writer of [0, agentId, other]) rwStates.push([state, 0, writer]);
  await compare("rw", rwStates, [0, 1], {
    tryReadLock: [() => told(rw, rw.tryReadLock()), () => go(P.OP_RW_TRY_READ_LOCK)],
    readUnlock: [() => rw.readUnlock(), () => go(P.OP_RW_READ_UNLOCK)],
    tryLock: [() => told(rw, rw.tryLock()), () => go(P.OP_RW_TRY_LOCK)],
    unlock: [() => rw.unlock(), () => go(P.OP_RW_UNLOCK)],
  });

  // Semaphore(3): [taken|waiters, reserved, permits].
  i32.fill(0);
  const sem = new sabmutex.Semaphore(sab, 0, 3);
  const semStates = [];
  for (const taken of [0, 1, 2, 3, 4]) for (const waiters of [0, P.SEM_WAITERS]) for (const reserved of [0, 2]) semStates.push([taken | waiters, reserved, 3]);
  semStates.push([-1, 0, 3]);
  await compare("semaphore", semStates, [0], {
    "tryAcquire(1)": [() => sem.tryAcquire(1), () => go(P.OP_SEM_TRY_ACQUIRE, 1)],
    "tryAcquire(2)": [() => sem.tryAcquire(2), () => go(P.OP_SEM_TRY_ACQUIRE, 2)],
    "release(1)": [() => sem.release(1), () => go(P.OP_SEM_RELEASE, 1)],
    "release(2)": [() => sem.release(2), () => go(P.OP_SEM_RELEASE, 2)],
  });

  // WaitGroup: [count|waiters].
  const wg = new sabmutex.WaitGroup(sab, 0);
  const wgStates = [0, 1, 2, P.WG_WAITERS | 1, P.WG_WAITERS | 2, P.MAX_COUNT, -1].map((v) => [v]);
  await compare("waitgroup", wgStates, [0], {
    "add(1)": [() => wg.add(1), () => go(P.OP_WG_ADD, 1)],
    "add(-1)": [() => wg.add(-1), () => go(P.OP_WG_ADD, -1)],
    "add(-2)": [() => wg.add(-2), () => go(P.OP_WG_ADD, -2)],
    "waitAsync(0)": [() => wg.waitAsync(0), () => core.turn(core.begin(P.KIND_WG_WAIT, mem, 0, 0, -Infinity, 0), P.SLEPT_NONE)],
  });

  // Cond: [sequence].
  const cond = new sabmutex.Cond(sab, 0);
  await compare("cond", [0, 5, P.COND_SEQ_MASK, -1].map((v) => [v]), [0], {
    notifyOne: [() => cond.notifyOne(), () => go(P.OP_COND_NOTIFY, 1)],
    notifyAll: [() => cond.notifyAll(), () => go(P.OP_COND_NOTIFY, -1)],
  });

  // Barrier(3): [generation|count, parties]. barrierTurn, the turns of a
  // worker's wait without a deadline that the glue runs itself, against the
  // core's turns of the same wait: the arrival (a first turn), and a later
  // turn, woken, on the word as the others left it (the generation moved or
  // not). Where it declines (null), it must have changed nothing.
  const { barrierTurn } = sabmutex[Symbol.for("sabmutex.internals")]();
  i32.fill(0);
  const bar = new sabmutex.Barrier(sab, 0, 3);
  const G = P.BARRIER_GEN_ONE;
  let record = -1; // the core's record of the wait a Go side began, given up after the comparison
  const goTurns = (first, then) => () => {
    record = core.begin(P.KIND_BARRIER, mem, 0, 0, Infinity, performance.now());
    i32[0] = first;
    const r = core.turn(record, P.SLEPT_NONE);
    if (then === undefined || r < 0) return r;
    i32[0] = then;
    return core.turn(record, P.SLEPT_OK);
  };
  const barrierCase = async (what, slots, glue, goCall) => {
    let declined = false;
    const a = await run(slots, [0], () => {
      const r = glue();
      declined = r === null;
      return r;
    });
    cases++;
    if (declined) {
      if (JSON.stringify(a.slots) !== JSON.stringify(slots) || a.woken !== 0) differences.push(`barrier ${what} from [${slots}]: declined, but left ${JSON.stringify(a)}`);
      return;
    }
    const b = await run(slots, [0], goCall);
    if (record >= 0) core.turn(record, P.SLEPT_GIVE_UP); // a wait still asleep: its record ends
    record = -1;
    if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`barrier ${what} from [${slots}]: glue ${JSON.stringify(a)}, Go ${JSON.stringify(b)}`);
  };
  for (const gen of [0, 5 * G, P.BARRIER_GEN_MASK & -G])
    for (const count of [0, 1, 2, 3])
      for (const parties of [3, 2, 0]) await barrierCase("arrival", [gen | count, parties], () => barrierTurn(bar, P.SLEPT_NONE, NaN, -1), goTurns(gen | count));
  await barrierCase("arrival", [-1, 3], () => barrierTurn(bar, P.SLEPT_NONE, NaN, -1), goTurns(-1));
  for (const gen of [0, 5 * G, P.BARRIER_GEN_MASK & -G])
    for (const count of [0, 1]) {
      const sleptOn = gen | (count + 1), moved = (gen + G) & P.BARRIER_GEN_MASK;
      for (const then of [sleptOn, sleptOn + 1, moved, moved | 1, -1])
        await barrierCase(`woken (arrived at [${sleptOn}])`, [then, 3], () => barrierTurn(bar, P.SLEPT_OK, NaN, sleptOn), goTurns(gen | count, then));
    }

  // Channel(2, 4 bytes): [recvSeq, sendSeq, 2, 3 (cellSlots), the
  // registry as set-up recorded it (CHAN_REGISTRY_AT), 0..., head at
  // CHAN_HEAD, 0..., tail|closed at CHAN_TAIL, 0..., then at CHAN_SLOTS
  // cell 0: stamp (its claimer: none, or another agent), "abc"; cell 1:
  // stamp, bytes 1, 2] (chanWords). The glue's trySend and tryRecv (fast paths first) against Go's
  // steps (the claim, the copy as chan.go gives it, the commit); a message
  // as "s:abc" or "b:1,2".
  i32.fill(0);
  const ch = new sabmutex.Channel(sab, 0, 2, 4);
  const u8 = new Uint8Array(sab), chanRegistry = i32[P.CHAN_REGISTRY_AT];
  const claimed = ch._mark + (1 << P.CHAN_OWNER_SHIFT); // by another agent of the registry (a number not this one's)
  const S = P.CHAN_KIND_STRING, CW = P.CHAN_WAITERS, CL = P.CHAN_CLOSED, ST = P.CHAN_STARVING;
  const F = P.CHAN_FULL, L = P.CHAN_LAP, V = P.CHAN_VOID, CW3 = P.CHAN_CELL_WORDS;
  const cellAt = (pos) => P.CHAN_SLOTS + (pos % 2) * (CW3 + 1);
  const shown = (m) => (m === undefined ? "none" : typeof m === "string" ? `s:${m}` : `b:${[...m]}`);
  const goSend = () => {
    const p = go(P.OP_CHAN_CLAIM_SEND, 0);
    if (p === P.RESULT_BUSY) return false;
    if (p === P.RESULT_CLOSED) return "closed";
    if (p < 0) return p;
    const cell = cellAt(p);
    i32[cell + P.CHAN_CELL_META_AT] = 2 | S;
    u8.set([120, 121], (cell + CW3) * 4); // "xy"
    return go(P.OP_CHAN_SEND_COMMIT, p);
  };
  const goRecv = () => {
    const p = go(P.OP_CHAN_CLAIM_RECV, 0);
    if (p === P.RESULT_BUSY || p === P.RESULT_CLOSED) return "none";
    if (p < 0) return p;
    const cell = cellAt(p), meta = i32[cell + P.CHAN_CELL_META_AT], length = meta & (S - 1);
    const bytes = meta < 0 || length > 4 ? null : u8.slice((cell + CW3) * 4, (cell + CW3) * 4 + length);
    const c = go(P.OP_CHAN_RECV_COMMIT, p);
    return c !== P.RESULT_OK ? c : bytes === null ? P.RESULT_CORRUPTED : shown(meta & S ? new TextDecoder().decode(bytes) : bytes);
  };
  const chanStates = [];
  const chanWords = ([recvSeq, sendSeq], head, tail, cells) => {
    const words = new Array(P.CHAN_SLOTS).fill(0);
    [words[P.CHAN_RECV_SEQ_AT], words[P.CHAN_SEND_SEQ_AT], words[P.CHAN_HEAD], words[P.CHAN_TAIL], words[P.CHAN_CAPACITY_AT], words[P.CHAN_CELL_SIZE_AT], words[P.CHAN_REGISTRY_AT]] = [recvSeq, sendSeq, head, tail, 2, CW3 + 1, chanRegistry];
    return [...words, ...cells];
  };
  const abc = [3 | S, 0x636261], b12 = [2, 0x0201]; // "abc"; bytes 1, 2
  const cell0s = [[0], [F], [L], [L | F], [claimed], [F | claimed], [F | V], [L | F | V]];
  const cell1s = [[0], [F], [L | F], [L | claimed]];
  for (const [head, tail] of [[0, 0], [0, 1], [0, 2], [3, 0], [2, 0], [1, 1], [1, 2], [0, 1 | CL], [1, 1 | CL], [0, 2 | CL], [0, 4], [-1, 0], [4, 1], [0 | ST, 1], [0, 1 | ST], [1, 2 | ST]])
    for (const c0 of cell0s)
      for (const c1 of cell1s)
        for (const seqs of [[0, 0], [CW | 5, CW | 7]]) chanStates.push(chanWords(seqs, head, tail, [...c0, ...abc, ...c1, ...b12]));
  chanStates.push(chanWords([0, 0], 0, 1, [F, -1, 0, 0, 2, 0x0201]), chanWords([0, 0], 0, 1, [F, 100, 0, 0, 2, 0x0201])); // a torn meta word
  await compare("channel", chanStates, [2, 3], {
    'trySend("xy")': [() => { try { return ch.trySend("xy"); } catch (e) { if (/send on a closed/.test(e.message)) return "closed"; throw e; } }, goSend],
    tryRecv: [() => shown(ch.tryRecv()), goRecv],
  });
  i32.fill(0);
  return { cases, differences };
}
