// select and selectAsync: one of several sends and receives, on one or
// several Channels, whichever can happen first (Go's select). Each case is
// tried as trySend or tryRecv are, whole (the channel's lock, the copy, the
// commit), and the first that happens ends the select, so exactly one
// happens. When none can, every case is armed (wasm/core/chan.go,
// chanArmSend: the next commit or close on its channel wakes it), tried
// again, and the select sleeps: selectAsync on all the armed words at once
// (Atomics.waitAsync), select (a worker, which can sleep on one word only)
// on the first, looking at the others at least every POLL_MAX_MS.
import * as P from "./protocol.js";
import { canBlock } from "./runtime.js";
import { describe, mustNotBlock, timeoutOf } from "./errors.js";
import { asyncOptions, sleepAny } from "./wait.js";
import { watchTurn, endWatch, newWaiter } from "./watch.js";
import { NOT_READY, SelectCase } from "./channel.js";

const POLL_MIN_MS = 0.25;
const POLL_MAX_MS = 8;
let rotation = 0; // where the next select starts trying: no case is always first

// Workers only. select(cases, timeoutMs): waits at most timeoutMs (none:
// forever) until one case happens; { index, value } for it (value: a
// receive's message, or undefined if its channel is closed and drained),
// or { index: -1 } at the timeout.
export function select(cases, timeoutMs) {
  if (!canBlock) mustNotBlock("select(cases)", "sabmutex.selectAsync(cases, timeoutMs)");
  checkCases(cases, "select(cases)");
  const deadlineMs = performance.now() + timeoutOf(timeoutMs);
  const waiter = newWaiter(); // for the watch: never a blocking one, so no cycle through a select is told
  try {
    for (let pollMs = POLL_MIN_MS; ; pollMs = Math.min(2 * pollMs, POLL_MAX_MS)) {
      const turn = attempt(cases, deadlineMs, waiter);
      if (turn.done) return turn.done;
      if (turn.armed !== null) {
        const [i32, index, value] = turn.armed[0];
        Atomics.wait(i32, index, value, Math.min(deadlineMs - performance.now(), turn.poll || turn.armed.length > 1 ? pollMs : P.WATCH_MS));
      }
    }
  } finally {
    endWatch(waiter);
  }
}

// Main thread too. Like select, asleep on every armed case at once;
// options as for Mutex.lockAsync (an abort rejects with its reason, and no
// case has happened).
export async function selectAsync(cases, options) {
  checkCases(cases, "selectAsync(cases)");
  const { timeoutMs, signal } = asyncOptions(options);
  const deadlineMs = performance.now() + timeoutMs;
  const waiter = newWaiter();
  try {
    for (;;) {
      if (signal && signal.aborted) throw signal.reason;
      const turn = attempt(cases, deadlineMs, waiter);
      if (turn.done) return turn.done;
      if (turn.armed !== null) await sleepAny(turn.armed, Math.min(deadlineMs - performance.now(), turn.poll ? POLL_MAX_MS : P.WATCH_MS), signal);
    }
  } finally {
    endWatch(waiter);
  }
}

// One turn: every case tried (from a rotating start); if none happened,
// every case armed. { done } when a case happened or the time is up; else
// { armed, poll }: the words to sleep on, or null to go again at once. A
// case that is ready when armed, though its try failed, either became
// ready in between (go again), or has its channel's lock held by someone:
// the select then sleeps a poll on the lock word (poll), and the watch
// frees the lock of a holder that ended (wasm/core/watch.go).
function attempt(cases, deadlineMs, waiter) {
  const start = rotation++ % cases.length;
  for (let k = 0; k < cases.length; k++) {
    const index = (start + k) % cases.length, c = cases[index];
    const value = c.channel._try(c);
    if (value !== NOT_READY) return { done: { index, value } };
  }
  const armed = [];
  for (const c of cases) {
    const a = c.channel._arm(c);
    if (a === null) {
      /** @type {Int32Array} */ const i32 = c.channel._i32;
      const at = c.channel._at, lock = Atomics.load(i32, at);
      if ((lock & 3) === P.STATE_UNLOCKED) return { armed: null, poll: false };
      watchTurn(c.send ? P.KIND_CHAN_SEND : P.KIND_CHAN_RECV, c.channel, waiter); // held: by someone alive?
      // (The deadline holds here too: a lock held for good, by an agent
      // that ended unwatched, must not keep the select past it.)
      if (performance.now() >= deadlineMs) return { done: { index: -1 } };
      return { armed: [[i32, at, lock]], poll: true };
    }
    armed.push(a);
  }
  if (performance.now() >= deadlineMs) return { done: { index: -1 } };
  return { armed, poll: false };
}

function checkCases(cases, call) {
  if (!Array.isArray(cases) || cases.length === 0 || !cases.every((c) => c instanceof SelectCase)) {
    throw new TypeError(`sabmutex: ${call} takes a non-empty array of cases from ch.recvCase() and ch.sendCase(msg); got ${describe(cases)}`);
  }
}
