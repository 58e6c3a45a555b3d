// The channel section's worker (a module worker): one measurement per
// message, as family-worker.js. The page side is chan.js.
import * as sabmutex from "/dist/sabmutex.mjs";
import { JsQueue } from "./jsfamily.js";
import { JsRing } from "./jsring.js";
import { MULTITHREADING } from "./family.js";
import { median } from "./matrix.js";
import { C, STOP, message, unpack } from "./chan.js";

const epochMs = () => performance.timeOrigin + performance.now();
let port = null; // a MessagePort the page sent (chan.js: postMessage rows)

function started(sab) {
  if (Atomics.wait(new Int32Array(sab), C.START, 0, 10000) === "timed-out") throw new Error("no start signal");
}

// A sender or receiver of multithreading's channel, from the envelope the
// page serialized (chan.js, mtChannel), through its blocking calls.
async function mtQueue(handle) {
  await import(MULTITHREADING + "src/browser/lib.js"); // registers its classes
  const h = (await import(MULTITHREADING + "src/lib/shared.js")).deserialize(handle);
  const ok = (r) => {
    if (!r.ok) throw r.error;
    return r.value;
  };
  return { put: (m) => ok(h.blockingSend(m)), take: () => ok(h.blockingRecv()) };
}

// The queue of impl, for messages of up to size bytes (the channel's and
// the ring's cells; the textbook queue's items are 16 bytes).
const queueOf = async (impl, sab, handle, size = 16) => {
  if (impl === "js") return new JsQueue(sab, C.Q, C.CAP, 16);
  if (impl === "multithreading") return mtQueue(handle);
  if (impl === "ring") {
    const r = new JsRing(sab, C.CHAN, C.CAP, size);
    return { put: (m) => r.send(m), take: () => r.recv() };
  }
  const ch = new sabmutex.Channel(sab, C.CHAN, C.CAP, size);
  return { put: (m) => ch.send(m), take: () => ch.recv() };
};

// The worker's clock tick (ms): 5 µs in Chromium, 20 µs in Firefox, 1 ms
// in WebKit, longer than a Channel's round trip.
function clockTick() {
  let tick = Infinity;
  for (let i = 0, t = performance.now(); i < 5; i++) {
    let u;
    while ((u = performance.now()) === t);
    tick = Math.min(tick, u - t);
    t = u;
  }
  return tick;
}

// Round trips in batches of at least 20 clock ticks (run(k, untilMs) makes
// trips k, k+1, ... until then and returns the next k), until n trips and
// 9 batches: the median of the batches' mean trip (µs).
async function timeBatches(n, run) {
  const batchMs = Math.max(20 * clockTick(), 0.2), perTripUs = [];
  let k = 0;
  while (k < n || perTripUs.length < 9) {
    const t = performance.now(), k0 = k;
    k = await run(k, t + batchMs);
    perTripUs.push(((performance.now() - t) * 1000) / (k - k0));
  }
  return { p50Us: median(perTripUs), trips: k, batches: perTripUs.length };
}

// The loops of tryRecvEmpty, a function each (see worker.js).
function tryRecvLoop(ch, n) {
  for (let i = 0; i < n; i++) if (ch.tryRecv() !== undefined) throw new Error("bench: a message in an empty channel");
}
function tryTakeLoop(q, n) {
  for (let i = 0; i < n; i++) if (q.tryTake() !== undefined) throw new Error("bench: an item in an empty queue");
}

function checkEcho(m, k) {
  if (unpack(m)[1] !== k) throw new Error(`round trip ${k}: the echo was ${unpack(m)[1]}`);
}

const ops = {
  async init(received) {
    await sabmutex.init(received);
  },

  // n tries to receive from an empty queue, after one untimed run: ns per try.
  tryRecvEmpty({ impl, n }) {
    const sab = new SharedArrayBuffer(C.INTS * 4);
    const q = impl === "js" ? new JsQueue(sab, C.Q, C.CAP, 16) : new sabmutex.Channel(sab, C.CHAN, C.CAP, 16);
    const loop = impl === "js" ? tryTakeLoop : tryRecvLoop;
    loop(q, n);
    const t = performance.now();
    loop(q, n);
    return ((performance.now() - t) * 1e6) / n;
  },

  // Sends n messages (through the queue of impl, or the port).
  async produce({ impl, sab, id, n, text, size, handle }) {
    const q = impl === "postMessage" ? null : await queueOf(impl, sab, handle, size);
    started(sab);
    for (let k = 0; k < n; k++) q ? q.put(message(id, k, text, size)) : port.postMessage(message(id, k));
    return { endMs: epochMs() };
  },

  // Takes n messages and marks each in seen (id * per + k).
  async consume({ impl, sab, n, per, seen, size = 16, handle }) {
    const s = new Int32Array(seen);
    const mark = (m) => {
      const [id, k] = unpack(m);
      if (size > 16 && (m.byteLength !== size || new DataView(m.buffer, m.byteOffset).getInt32(size - 4) !== k)) throw new Error(`bench: message ${id}, ${k} arrived with ${m.byteLength} bytes, not the ${size} sent`);
      Atomics.add(s, id * per + k, 1);
    };
    if (impl === "postMessage") {
      return new Promise((resolve) => {
        let got = 0;
        port.onmessage = ({ data }) => {
          mark(data);
          if (++got === n) resolve({ endMs: epochMs() });
        };
      });
    }
    const q = await queueOf(impl, sab, handle, size);
    started(sab);
    for (let k = 0; k < n; k++) mark(q.take());
    return { endMs: epochMs() };
  },

  // Ping-pong: the pinger sends message k, waits for its echo and checks
  // it, timed in batches (timeBatches); then sends STOP, which ends the
  // echo. The echoer sends back what it gets and counts it.
  async ping({ impl, sab, n }) {
    if (impl === "postMessage") {
      const trip = (k) => new Promise((resolve) => {
        port.onmessage = ({ data }) => resolve(checkEcho(data, k));
        port.postMessage(message(0, k));
      });
      const res = await timeBatches(n, async (k, until) => {
        do await trip(k++);
        while (performance.now() < until);
        return k;
      });
      await trip(STOP);
      return res;
    }
    const there = new sabmutex.Channel(sab, C.CHAN, C.CAP, 16), back = new sabmutex.Channel(sab, C.CHAN_BACK, C.CAP, 16);
    started(sab);
    const res = await timeBatches(n, (k, until) => {
      do {
        there.send(message(0, k));
        checkEcho(back.recv(), k++);
      } while (performance.now() < until);
      return k;
    });
    there.send(message(0, STOP));
    checkEcho(back.recv(), STOP);
    return res;
  },

  async echo({ impl, sab }) {
    if (impl === "postMessage") {
      let got = 0;
      return new Promise((resolve) => {
        port.onmessage = ({ data }) => {
          port.postMessage(data);
          got++;
          if (unpack(data)[1] === STOP) resolve(got);
        };
      });
    }
    const there = new sabmutex.Channel(sab, C.CHAN, C.CAP, 16), back = new sabmutex.Channel(sab, C.CHAN_BACK, C.CAP, 16);
    for (let got = 1; ; got++) {
      const m = there.recv();
      back.send(m);
      if (unpack(m)[1] === STOP) return got;
    }
  },
};

onmessage = async ({ data: { id, op, args } }) => {
  if (op === "port") return void (port = args.port); // (no reply: chan.js sends it with a transfer)
  try {
    postMessage({ id, ok: await ops[op](args) });
  } catch (e) {
    postMessage({ id, err: `${e.name}: ${e.message}` });
  }
};
