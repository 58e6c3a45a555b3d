// Page side of starve_test.go: does a waiter get its turn behind agents
// that release and take again at once? Looper workers hold a primitive,
// sleep 1 ms holding it, release it and take it again, counting their
// cycles; once they have done a few, one waiter asks (blocking in a worker,
// async in a worker, or async on the page), and we count the looper cycles
// and milliseconds until it is served, `rounds` times. The loopers leave after
// starveCap cycles: then a starved waiter is served, and shows about that.
"use strict";

const starveCap = 2000;

// One agent's part (w.run(starveAgent, data), or called on the page).
// Slots: 0 stop, 1 looper cycles (all loopers), 2 cycles when the waiter
// asked (or, for cond, was notified), 3 the cond waiter is waiting, 8-9 (a
// float64) the time of that, 15 a word to sleep 1 ms on; the primitive
// from slot 16.
async function starveAgent(sabmutex, { sab, kase, role, how, cap, rounds }) {
  const ctl = new Int32Array(sab, 0, 16), asked = new Float64Array(sab, 32, 1);
  const clock = () => performance.timeOrigin + performance.now();
  const sleep1 = () => Atomics.wait(ctl, 15, 0, 1); // workers only
  const at = 16, forever = 10000; // a waiter's timeout: a safety, never reached
  // The Mutex and the RWMutex at slot 16 for the cases that use them only:
  // an RWMutex's construction writes its tag (its slot 3), which is a
  // Channel's cell size where a channel case has its Channel.
  const channelCase = kase.startsWith("channel");
  const m = channelCase ? null : new sabmutex.Mutex(sab, at), rw = channelCase ? null : new sabmutex.RWMutex(sab, at);
  const async = how !== "blocking";
  // For each case: the looper's take and give, the waiter's ask (its result
  // true when served) and give.
  const ops = {
    mutex: () => ({ take: () => m.lock(), give: () => m.unlock(), ask: () => (async ? m.lockAsync(forever) : m.lock(forever)), done: () => m.unlock() }),
    semaphore: () => {
      const s = new sabmutex.Semaphore(sab, at, 1);
      return { take: () => s.acquire(1), give: () => s.release(1), ask: () => (async ? s.acquireAsync(1, forever) : s.acquire(1, forever)), done: () => s.release(1) };
    },
    "semaphore 2 of 2": () => {
      const s = new sabmutex.Semaphore(sab, at, 2);
      return { take: () => s.acquire(1), give: () => s.release(1), ask: () => (async ? s.acquireAsync(2, forever) : s.acquire(2, forever)), done: () => s.release(2) };
    },
    "rwmutex writer behind writer": () => ({ take: () => rw.lock(), give: () => rw.unlock(), ask: () => (async ? rw.lockAsync(forever) : rw.lock(forever)), done: () => rw.unlock() }),
    "rwmutex reader behind writer": () => ({ take: () => rw.lock(), give: () => rw.unlock(), ask: () => (async ? rw.readLockAsync(forever) : rw.readLock(forever)), done: () => rw.readUnlock() }),
    "rwmutex writer behind readers": () => ({ take: () => rw.readLock(), give: () => rw.readUnlock(), ask: () => (async ? rw.lockAsync(forever) : rw.lock(forever)), done: () => rw.unlock() }),
    "cond relock": () => {
      const c = new sabmutex.Cond(sab, at + sabmutex.Mutex.SLOTS);
      return {
        take: () => m.lock(),
        give: () => {
          // The looper, holding m, notifies the waiter once it waits (it set
          // slot 3 holding m, then released m in wait).
          // (The notify moves the sequence it read: its wait ends, asleep yet or not.)
          if (Atomics.load(ctl, 3) === 1) {
            c.notifyOne();
            Atomics.store(ctl, 3, 2);
            Atomics.store(ctl, 2, Atomics.load(ctl, 1));
            asked[0] = clock();
          }
          m.unlock();
        },
        ask: async () => {
          if (!(async ? await m.lockAsync(forever) : m.lock(forever))) return false;
          Atomics.store(ctl, 3, 1);
          return async ? c.waitAsync(m, forever) : c.wait(m, forever);
        },
        done: () => m.unlock(),
      };
    },
    // Capacity 1, full: the looper sends again as soon as there is room,
    // a partner receives every 1 ms; the waiter sends once.
    "channel sender": () => {
      const ch = new sabmutex.Channel(sab, at, 1, 16);
      return { take: () => ch.send("l", 100), give: () => {}, ask: () => (async ? ch.sendAsync("w", forever) : ch.send("w", forever)), done: () => {}, partner: () => ch.recv(100), ready: () => ch.length === 1 };
    },
    // Empty: the looper receives again at once, a partner sends every 1 ms;
    // the waiter receives once.
    "channel receiver": () => {
      const ch = new sabmutex.Channel(sab, at, 1, 16);
      const got = (v) => v !== undefined;
      return { take: () => got(ch.recv(100)), give: () => {}, ask: async () => got(await (async ? ch.recvAsync(forever) : ch.recv(forever))), done: () => {}, partner: () => ch.send("p", 100), ready: () => ch.length === 0 };
    },
  }[kase]();
  const channel = kase.startsWith("channel");
  if (role === "partner") {
    while (!Atomics.load(ctl, 0)) sleep1(), ops.partner();
    return null;
  }
  if (role === "looper") {
    // A channel's looper sends or receives (its "take") as fast as the
    // partner lets it; the others hold 1 ms between a take and a give.
    if (!channel && !ops.take()) throw new Error(`${kase}: the looper could not take`);
    while (!Atomics.load(ctl, 0) && Atomics.load(ctl, 1) < cap) {
      if (channel) {
        if (ops.take()) Atomics.add(ctl, 1, 1);
        continue;
      }
      sleep1();
      ops.give();
      ops.take();
      Atomics.add(ctl, 1, 1);
    }
    if (!channel) ops.give();
    return null;
  }
  // The waiter: asks `rounds` times, each once the loopers have done a few
  // cycles more, and gives back what it got at once.
  const pause = () => (async ? new Promise((r) => setTimeout(r, 1)) : sleep1());
  const out = [];
  for (let k = 0; k < rounds; k++) {
    const from = Atomics.load(ctl, 1) + 5;
    // (A channel's waiter asks when it would wait: full for a sender, empty for a receiver.)
    while ((Atomics.load(ctl, 1) < from || (ops.ready && !ops.ready())) && Atomics.load(ctl, 1) < cap) await pause();
    if (Atomics.load(ctl, 1) >= cap) break; // the loopers have left
    if (kase !== "cond relock") {
      Atomics.store(ctl, 2, Atomics.load(ctl, 1));
      asked[0] = clock();
    }
    if (!(await ops.ask())) throw new Error(`${kase}: not served in ${forever} ms`);
    out.push({ cycles: Atomics.load(ctl, 1) - Atomics.load(ctl, 2), ms: Math.round((clock() - asked[0]) * 10) / 10 });
    ops.done();
  }
  Atomics.store(ctl, 0, 1);
  return out;
}

// Four workers per registry mode (l1, l2, partner, waiter; or the first n
// only, for a page that runs one case that needs no more): joined (init
// with forWorker(): watched) or alone (init with the module only). They
// live as long as the page; the page's own registry is shared from its
// first forWorker() on, so the unwatched cases run first.
const starveAgents = {};
async function starveWorkers(join, n = 4) {
  return (starveAgents[join] ??= (async () => {
    await sabmutex.init({ name: "page" });
    const ws = Array.from({ length: n }, () => startWorker("module"));
    await Promise.all(
      ws.map((w, i) =>
        w.run(async (sabmutex, { init, name }) => void (await sabmutex.init(init.registry ? { ...init, name } : init)), {
          init: join ? sabmutex.forWorker() : { wasm: sabmutex.module },
          name: `starve ${i}`,
        }),
      ),
    );
    return ws;
  })());
}

// One case: kase (a key of starveAgent's ops), the waiter's how ("blocking"
// in a worker, "async" in a worker, "page"), join; workers: how many of
// starveWorkers' to start on a page that runs this case alone. Returns
// the rounds' { cycles, ms } and the cap.
async function starvation({ kase, how, join, rounds, workers = 4 }) {
  const [l1, l2, partner, waiter] = await starveWorkers(join, workers);
  const sab = new SharedArrayBuffer(4 * (16 + sabmutex.Channel.slotsFor(1, 16)));
  const loopers = kase === "semaphore 2 of 2" || kase === "rwmutex writer behind readers" ? [l1, l2] : [l1];
  const data = { sab, kase, cap: starveCap, rounds };
  const runs = loopers.map((w) => w.run(starveAgent, { ...data, role: "looper" }));
  if (kase.startsWith("channel")) runs.push(partner.run(starveAgent, { ...data, role: "partner" }));
  const asking = how === "page" ? starveAgent(sabmutex, { ...data, role: "waiter", how }) : waiter.run(starveAgent, { ...data, role: "waiter", how });
  const [served] = await Promise.all([asking, ...runs]);
  return { rounds: served, cap: starveCap };
}
