// Page side of the sync family's browser tests (family_test.go). Each
// scenario is one body that every agent runs: the workers with the blocking
// calls, the page with the ...Async ones. With use: false the body does the
// same work without the primitive, to show that the check can fail. Every
// wait has a deadline; a body that misses one throws, which fails the test.
"use strict";

// Runs body in `workers` workers (agents 1..workers) and on the page (agent
// 0), all with { sab, agent, agents, ...data }, and returns their results.
async function everyAgent(body, workers, sab, data) {
  const ws = await startWorkers(Array.from({ length: workers }, (_, i) => (i % 2 ? "classic" : "module")), sab);
  const agents = workers + 1;
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
  setTimeout(() => Atomics.store(new Int32Array(sab), 8, 1), ms);
  const counts = await everyAgent(body, workers, sab, { use });
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
  setTimeout(() => Atomics.store(new Int32Array(sab), 6, 1), ms);
  const available = await everyAgent(body, workers, sab, { use });
  const w = new Int32Array(sab);
  return { highest: w[5], acquisitions: w[7], available };
}

// Every agent, generation after generation: mark its arrival, wait at the
// barrier, then check that every party has marked this generation. Slots:
// 0-1 the Barrier, 4 violations, 5 "last" results, 16.. each agent's mark.
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
        const r = blocking ? b.wait(10000) : await b.waitAsync(10000);
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
          if (Atomics.wait(w, 1, r - 1, 10000) === "timed-out") throw new Error(`round ${r} did not start in 10 s`);
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
