// The watch's ticker: lets a watched blocking wait sleep in an untimed
// Atomics.wait and still end its sleep after a watch period.
//
// Why: a watched wait must look at the agent it waits for at least every
// P.WATCH_MS (watch.js: a dead holder, a deadlock, a hand-off nobody
// takes). A timeout on every Atomics.wait, however long, costs the contended
// Mutex much of its throughput (docs/decisions/watch-ticker.md). Only an
// agent that has the SharedArrayBuffer can notify its words, and Chromium
// delivers a SharedArrayBuffer sent over a BroadcastChannel as null; so each watched
// worker gets a helper of its own (a nested worker, started at its first
// watched sleep, or by init), given every buffer this agent registers, that
// ends a sleep which has lasted a whole tick. Where it cannot run (no Worker in this
// agent, a CSP that forbids blob: workers, or until it has the buffer),
// sleeps stay timed.
//
// The control words, shared by this agent and its ticker:
//   SEQ     odd s: this agent sleeps (its sleep number s) on word AT of the
//           ticker's buffer MEM; even: it is awake. Written by this agent
//           only.
//   MEM, AT the word of the sleep, written before SEQ turns odd.
//   TICKED  the number of the sleep the ticker ended; written by the ticker
//           only.
//   KNOWN   how many buffers the ticker has (this agent's buffer k, the
//           k-th it sent, is the ticker's once KNOWN > k).
//
// | ticker finds, every TICK_MS | it does                                  |
// | SEQ even                    | nothing                                  |
// | SEQ odd, new since its look | nothing (the sleep may have just begun)  |
// | SEQ odd, as at its last look| TICKED = SEQ, then notify MEM[AT], all   |
//
// A sleeper woken ("ok") with TICKED equal to its sleep number, and its
// word unchanged, slept at least a tick: its sleep ends as a timed-out one
// would. Every other
// sleeper on that word is woken too (a notify cannot pick one), finds a
// TICKED not its own, and goes on as after any wake-up. A tick for a sleep
// that ended meanwhile reaches nobody's number.
import * as P from "./protocol.js";
import { SERVER_RUNTIME, arrays } from "./runtime.js";

const SEQ = 0, MEM = 1, AT = 2, TICKED = 3, KNOWN = 4, CONTROL_SLOTS = 5;
const TICK_MS = P.WATCH_MS; // a sleep ends after 1 to 2 ticks: never sooner than a watch period
const SOURCE = `"use strict";
let c = null, last = 0;
const words = [];
onmessage = ({ data }) => {
  if (c === null) {
    c = new Int32Array(data);
    postMessage("ready");
    setInterval(() => {
      const s = Atomics.load(c, ${SEQ});
      if ((s & 1) === 1 && s === last) {
        Atomics.store(c, ${TICKED}, s);
        Atomics.notify(words[Atomics.load(c, ${MEM})], Atomics.load(c, ${AT}));
      }
      last = s;
    }, ${TICK_MS});
    return;
  }
  words.push(new Int32Array(data));
  Atomics.add(c, ${KNOWN}, 1);
};`;

/** @type {Int32Array | null} */
let control = null;
/** @type {Worker | null} */
let ticker = null;
let failed = false; // no ticker here: sleeps stay timed
let ready = false; // the ticker said it runs (for tickerStats)
let seq = -1; // the number of this agent's last untimed sleep (odd), or -1
const sent = []; // memory handle -> the index of its buffer at the ticker
let sentCount = 0;

// Workers only. Atomics.wait(i32, at, value, sleepMs) for the blocking wait
// loop of a watched agent (sleepMs P.WATCH_MS, from watchSleepMs): untimed
// where the ticker has i32's buffer, ended by it after 1 to 2 ticks, and
// then "timed-out"; timed elsewhere. mem: i32's memory handle. An
// unwatched agent (sleepMs Infinity) sleeps untimed without it.
export function sleepWatched(i32, mem, at, value, sleepMs) {
  if (sleepMs !== P.WATCH_MS) return Atomics.wait(i32, at, value, sleepMs);
  const k = tickerIndex(mem);
  if (k < 0) return Atomics.wait(i32, at, value, sleepMs);
  const c = /** @type {Int32Array} */ (control);
  c[MEM] = k;
  c[AT] = at;
  const s = (seq += 2);
  Atomics.store(c, SEQ, s);
  const w = Atomics.wait(i32, at, value);
  Atomics.store(c, SEQ, s + 1);
  // (A tick that came with a change of the word is taken as the wake-up
  // the change sent: a hand-off to this sleeper must not look timed out.)
  if (w !== "ok" || Atomics.load(c, TICKED) !== s || Atomics.load(i32, at) !== value) return w;
  ended++;
  return "timed-out";
}

let ended = 0; // sleeps the ticker ended

// For sabmutex's own tests (api.js's internals): whether this agent's ticker
// runs, how many of its sleeps it ended, and how many buffers it was sent
// and has not taken yet (a sleep on one of those is timed, and a wait whose
// first sleep is timed goes on in the core's timed loop: wait.js).
export function tickerStats() {
  const behind = control === null ? 0 : sentCount - Atomics.load(control, KNOWN);
  return { running: ready && !failed, ended, behind };
}

// The index of memory handle mem's buffer at the ticker, or -1 while the
// ticker lacks it (it is sent now, and the ticker started, if need be).
function tickerIndex(mem) {
  if (failed) return -1; // (it ended with an error: timed sleeps again)
  const k = sent[mem];
  if (k !== undefined) return Atomics.load(/** @type {Int32Array} */ (control), KNOWN) > k ? k : -1;
  if (!failed && start()) send(mem);
  return -1;
}

// init starts the ticker of a watched worker, in a task of its own once it
// is done: a nested worker starts only while its parent's event loop runs
// (Chromium and WebKit), and is slow to start, so a worker that blocks at
// once after init sleeps timed until it returns to its event loop (init
// does not wait for it, which would make init much longer:
// docs/decisions/start-up.md). Also sends the buffers registered so far.
export function startTicker() {
  if (!failed && start()) for (let mem = 0; mem < arrays.length; mem++) send(mem);
}

// handleOf's news: a buffer registered, sent at once to a running ticker
// so that it has it by this agent's first sleep on it.
export function tickerTake(mem) {
  if (ticker !== null && !failed) send(mem);
}

function send(mem) {
  if (sent[mem] !== undefined) return;
  sent[mem] = sentCount++;
  /** @type {Worker} */ (ticker).postMessage(arrays[mem].buffer);
}

// Starts the ticker; false where it cannot run.
function start() {
  if (ticker !== null) return true;
  try {
    if (typeof Worker !== "function" || typeof URL.createObjectURL !== "function") throw new Error("no workers here");
    // A server runtime's worker ends once its event loop is empty: a ticker
    // there must not keep it alive, so it runs only where it can be
    // unref()'d (Bun; not Deno, whose workers cannot be, nor Node.js, whose
    // worker_threads have no Worker).
    if (SERVER_RUNTIME && typeof (/** @type {any} */ (Worker.prototype).unref) !== "function") throw new Error("a ticker would keep this worker alive");
    ticker = new Worker(URL.createObjectURL(new Blob([SOURCE], { type: "text/javascript" })));
    ticker.onerror = (e) => {
      e.preventDefault();
      failed = true;
    };
    ticker.onmessage = () => (ready = true);
    // (Bun gives a worker_thread the Web's Worker too.)
    if (typeof (/** @type {any} */ (ticker).unref) === "function") /** @type {any} */ (ticker).unref();
    control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
    ticker.postMessage(control.buffer);
    return true;
  } catch {
    failed = true;
    return false;
  }
}
