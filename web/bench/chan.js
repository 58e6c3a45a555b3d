// The channel section of the bench: sabmutex's Channel beside postMessage
// (16-byte messages, worker to worker and worker to page, and round trips)
// and beside the textbook Mutex + Cond queue in plain JS (4 producers, 2
// consumers), each pair alternated in one page load. The workers' side is
// chan-worker.js.
import * as sabmutex from "/dist/sabmutex.mjs";

// Slots of the section's buffer: the start flag, the textbook queue, then
// the channels (CAP messages of 16 bytes each).
export const C = {
  START: 0,
  Q_LOCK: 16,
  Q_NOT_EMPTY: 32,
  Q_NOT_FULL: 48,
  Q_HEAD: 64,
  Q_TAIL: 65,
  Q_COUNT: 66,
  Q_ITEMS: 80, // CAP items of 4 int32
  CAP: 64,
  CHAN: 352,
  CHAN_BACK: 1024,
  INTS: 2048,
};

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const epochMs = () => performance.timeOrigin + now();

function start(sab) {
  Atomics.store(new Int32Array(sab), C.START, 1);
  Atomics.notify(new Int32Array(sab), C.START);
}

// A MessageChannel between two agents: port1 to worker a (or kept by the
// page when a is null), port2 to worker b.
function connect(a, b) {
  const { port1, port2 } = new MessageChannel();
  if (a) a.postMessage({ op: "port", args: { port: port1 } }, [port1]);
  b.postMessage({ op: "port", args: { port: port2 } }, [port2]);
  return a ? null : port1;
}

// Every message marked exactly once in seen, or a throw.
function checkSeen(seen, what) {
  const s = new Int32Array(seen);
  let missing = 0, dup = 0;
  for (let i = 0; i < s.length; i++) s[i] === 0 ? missing++ : s[i] > 1 && dup++;
  if (missing || dup) throw new Error(`${what}: ${missing} of ${s.length} messages missing, ${dup} more than once`);
}

// producers workers send n messages each to consumers workers (or the
// page, when consumers is 0); messages per second (k/s).
async function traffic(ws, impl, producers, consumers, n) {
  const sab = new SharedArrayBuffer(C.INTS * 4);
  const total = producers * n;
  const seen = new SharedArrayBuffer(total * 4);
  let pagePort = null;
  if (impl === "postMessage") pagePort = connect(consumers ? ws[producers] : null, ws[0]);
  const runs = ws.slice(0, producers).map((w, id) => w.call("produce", { impl, sab, id, n }));
  const taking = ws.slice(producers, producers + consumers).map((w) => w.call("consume", { impl, sab, n: total / consumers, per: n, seen }));
  await sleep(5);
  const t0 = epochMs();
  start(sab);
  if (consumers === 0) {
    const s = new Int32Array(seen);
    const mark = (m) => {
      const v = new DataView(m.buffer, m.byteOffset);
      s[v.getInt32(0) * n + v.getInt32(4)]++;
    };
    if (impl === "postMessage") {
      await new Promise((resolve) => {
        let got = 0;
        pagePort.onmessage = ({ data }) => {
          mark(data);
          if (++got === total) resolve();
        };
      });
      pagePort.close();
    } else {
      const ch = new sabmutex.Channel(sab, C.CHAN, C.CAP, 16);
      for (let got = 0; got < total; ) {
        const m = ch.tryRecv() ?? (await ch.recvAsync());
        mark(m);
        got++;
      }
    }
  }
  const ends = [...(await Promise.all(taking)).map((r) => r.endMs), consumers ? 0 : epochMs()];
  await Promise.all(runs);
  checkSeen(seen, `${impl}, ${producers} to ${consumers || "the page"}`);
  return (total / (Math.max(...ends) - t0)) * 1000 / 1e3;
}

// n round trips between worker a and worker b (or the page, when b is
// null); the mean round trip (µs).
async function roundTrip(a, b, impl, n) {
  const sab = new SharedArrayBuffer(C.INTS * 4);
  let meanUs;
  if (b) {
    if (impl === "postMessage") connect(a, b);
    const echo = b.call("echo", { impl, sab, n });
    await sleep(5);
    const pinging = a.call("ping", { impl, sab, n });
    start(sab);
    [meanUs] = await Promise.all([pinging, echo]);
  } else {
    // The page echoes.
    let port = null, echoing;
    if (impl === "postMessage") {
      port = connect(null, a);
      let got = 0;
      echoing = new Promise((resolve) => {
        port.onmessage = ({ data }) => {
          port.postMessage(data);
          if (++got === n) resolve();
        };
      });
    } else {
      const there = new sabmutex.Channel(sab, C.CHAN, C.CAP, 16), back = new sabmutex.Channel(sab, C.CHAN_BACK, C.CAP, 16);
      echoing = (async () => {
        for (let k = 0; k < n; k++) await back.sendAsync(there.tryRecv() ?? (await there.recvAsync()));
      })();
    }
    const pinging = a.call("ping", { impl, sab, n });
    start(sab);
    [meanUs] = await Promise.all([pinging, echoing]);
    if (port) port.close();
  }
  return meanUs;
}

// The section: its rows through add (marked section "family", with the
// baseline named in vs).
export async function runChannel({ workerPools, compare, quick, add, note }) {
  const reps = quick ? 2 : 5;
  const n = quick ? 2000 : 50000;
  const pools = workerPools("./chan-worker.js"); // workers of one implementation each
  const fresh = async (impl, k, f) => f(await pools.pool(impl, k));
  const row = (m, r, impl, vs) => add({ section: "family", vs, ...m, sabmutex: r.sabmutex, baseline: r[impl] });
  const pm = ["sabmutex", "postMessage"];

  let r = await compare(pm, reps, (impl) => fresh(impl, 2, (ws) => traffic(ws, impl, 1, 1, n)));
  row({ id: "chan-1to1", name: "Channel 16-byte messages, worker to worker", unit: "k/s", better: "higher", target: { ratioMin: 5 } }, r, "postMessage", "postMessage");
  r = await compare(pm, reps, (impl) => fresh(impl, 1, (ws) => traffic(ws, impl, 1, 0, n)));
  row({ id: "chan-1topage", name: "Channel 16-byte messages, worker to page", unit: "k/s", better: "higher", target: { ratioMin: 5 } }, r, "postMessage", "postMessage");
  r = await compare(["sabmutex", "js"], reps, (impl) => fresh(impl, 6, (ws) => traffic(ws, impl, 4, 2, n)));
  row({ id: "chan-4to2", name: `Channel (${C.CAP}) 16-byte messages, 4 prod. + 2 cons.`, unit: "k/s", better: "higher", target: { ratioMin: 0.8 } }, r, "js", "textbook JS queue");
  const trips = quick ? 200 : 5000;
  r = await compare(pm, reps, (impl) => fresh(impl, 2, (ws) => roundTrip(ws[0], ws[1], impl, trips)));
  row({ id: "chan-rtt", name: "Channel round trip, worker to worker, mean", unit: "µs", better: "lower", target: { ratioMax: 0.5 } }, r, "postMessage", "postMessage");
  r = await compare(pm, reps, (impl) => fresh(impl, 1, (ws) => roundTrip(ws[0], null, impl, trips)));
  row({ id: "chan-rtt-page", name: "Channel round trip, worker to page, mean", unit: "µs", better: "lower", target: { ratioMax: 0.5 } }, r, "postMessage", "postMessage");
  note("channel: the npm package multithreading's channel is not measured beside it yet");
  pools.terminate();
}
