// The channel section's worker (a module worker): one measurement per
// message, as family-worker.js. The page side is chan.js.
import * as sabmutex from "/dist/sabmutex.mjs";
import { JsMutex } from "./jsmutex.js";
import { JsCond } from "./jsfamily.js";
import { C } from "./chan.js";

const epochMs = () => performance.timeOrigin + performance.now();
let port = null; // a MessagePort the page sent (chan.js: postMessage rows)

function started(sab) {
  if (Atomics.wait(new Int32Array(sab), C.START, 0, 10000) === "timed-out") throw new Error("no start signal");
}

// A 16-byte message carrying (id, k).
function message(id, k) {
  const m = new Uint8Array(16);
  const v = new DataView(m.buffer);
  v.setInt32(0, id);
  v.setInt32(4, k);
  return m;
}

// The textbook queue in plain JS: a mutex, two conds, CAP items of 4 int32
// (16 bytes) copied in and out, as the Channel copies its messages.
class JsQueue {
  constructor(sab) {
    this.c = new Int32Array(sab);
    this.m = new JsMutex(sab, C.Q_LOCK);
    this.notEmpty = new JsCond(sab, C.Q_NOT_EMPTY);
    this.notFull = new JsCond(sab, C.Q_NOT_FULL);
  }
  put(m) {
    const c = this.c, w = new Int32Array(m.buffer);
    this.m.lock();
    while (c[C.Q_COUNT] === C.CAP) this.notFull.wait(this.m);
    const at = C.Q_ITEMS + 4 * c[C.Q_TAIL];
    c[at] = w[0], c[at + 1] = w[1], c[at + 2] = w[2], c[at + 3] = w[3];
    c[C.Q_TAIL] = (c[C.Q_TAIL] + 1) % C.CAP;
    c[C.Q_COUNT]++;
    this.notEmpty.notifyOne();
    this.m.unlock();
  }
  take() {
    const c = this.c, m = new Uint8Array(16), w = new Int32Array(m.buffer);
    this.m.lock();
    while (c[C.Q_COUNT] === 0) this.notEmpty.wait(this.m);
    const at = C.Q_ITEMS + 4 * c[C.Q_HEAD];
    w[0] = c[at], w[1] = c[at + 1], w[2] = c[at + 2], w[3] = c[at + 3];
    c[C.Q_HEAD] = (c[C.Q_HEAD] + 1) % C.CAP;
    c[C.Q_COUNT]--;
    this.notFull.notifyOne();
    this.m.unlock();
    return m;
  }
}

const queueOf = (impl, sab) => {
  if (impl === "js") return new JsQueue(sab);
  const ch = new sabmutex.Channel(sab, C.CHAN, C.CAP, 16);
  return { put: (m) => ch.send(m), take: () => ch.recv() };
};

const ops = {
  async init(received) {
    await sabmutex.init(received);
  },

  // Sends n messages (through the queue of impl, or the port).
  async produce({ impl, sab, id, n }) {
    const q = impl === "postMessage" ? null : queueOf(impl, sab);
    started(sab);
    for (let k = 0; k < n; k++) q ? q.put(message(id, k)) : port.postMessage(message(id, k));
    return { endMs: epochMs() };
  },

  // Takes n messages and marks each in seen (id * per + k).
  async consume({ impl, sab, n, per, seen }) {
    const s = new Int32Array(seen);
    const mark = (m) => {
      const v = new DataView(m.buffer, m.byteOffset);
      Atomics.add(s, v.getInt32(0) * per + v.getInt32(4), 1);
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
    const q = queueOf(impl, sab);
    started(sab);
    for (let k = 0; k < n; k++) mark(q.take());
    return { endMs: epochMs() };
  },

  // Ping-pong: the pinger sends, waits for the echo, n times, and returns
  // the mean round trip (µs: one trip is below the clock's resolution in a
  // worker, 5 µs to 1 ms by engine); the echoer sends back what it gets.
  async ping({ impl, sab, n }) {
    if (impl === "postMessage") {
      const t = performance.now();
      for (let k = 0; k < n; k++) {
        const back = new Promise((r) => (port.onmessage = r));
        port.postMessage(message(0, k));
        await back;
      }
      return ((performance.now() - t) * 1000) / n;
    }
    const there = new sabmutex.Channel(sab, C.CHAN, C.CAP, 16), back = new sabmutex.Channel(sab, C.CHAN_BACK, C.CAP, 16);
    started(sab);
    const t = performance.now();
    for (let k = 0; k < n; k++) {
      there.send(message(0, k));
      back.recv();
    }
    return ((performance.now() - t) * 1000) / n;
  },

  async echo({ impl, sab, n }) {
    if (impl === "postMessage") {
      let got = 0;
      return new Promise((resolve) => {
        port.onmessage = ({ data }) => {
          port.postMessage(data);
          if (++got === n) resolve(got);
        };
      });
    }
    const there = new sabmutex.Channel(sab, C.CHAN, C.CAP, 16), back = new sabmutex.Channel(sab, C.CHAN_BACK, C.CAP, 16);
    for (let k = 0; k < n; k++) back.send(there.recv());
    return n;
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
