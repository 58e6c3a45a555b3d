// select and selectAsync: one of several sends and receives, on one or
// several Channels, whichever can happen first (Go's select). Each case is
// tried as trySend or tryRecv are, whole (the claim of a cell, the copy,
// the commit), and the first that happens ends the select, so exactly one
// happens. When none can, every case is armed (internal/core/chan.go, chanArm:
// the next commit, let-go or close on its channel wakes it), tried again,
// and the select sleeps: selectAsync on all the armed words at once
// (Atomics.waitAsync), select (a worker, which can sleep on one word only)
// on the first, looking at the others at least every POLL_MAX_MS. Each
// WATCH_MS it asks the watch about every case (a cell held by an agent
// that ended is voided: chan.go, chanRecover).
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
    for (let pollMs = POLL_MIN_MS, watchAtMs = performance.now() + P.WATCH_MS; ; pollMs = Math.min(2 * pollMs, POLL_MAX_MS)) {
      watchAtMs = watchIfDue(cases, waiter, watchAtMs);
      const turn = attempt(cases, deadlineMs);
      if (turn.done) return turn.done;
      if (turn.armed !== null) {
        const [i32, index, value] = turn.armed[0];
        Atomics.wait(i32, index, value, Math.min(deadlineMs - performance.now(), turn.armed.length > 1 ? pollMs : P.WATCH_MS));
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
    for (let watchAtMs = performance.now() + P.WATCH_MS; ; ) {
      if (signal && signal.aborted) throw signal.reason;
      watchAtMs = watchIfDue(cases, waiter, watchAtMs);
      const turn = attempt(cases, deadlineMs);
      if (turn.done) return turn.done;
      if (turn.armed !== null) await sleepAny(turn.armed, Math.min(deadlineMs - performance.now(), P.WATCH_MS), signal);
    }
  } finally {
    endWatch(waiter);
  }
}

// One turn: every case tried (from a rotating start); if none happened,
// every case armed. { done } when a case happened or the time is up; else
// { armed }: the words to sleep on, or null to go again at once (a case
// ready when armed, though its try failed: it became ready in between, or
// its claim lost a race to another's).
function attempt(cases, deadlineMs) {
  const start = rotation++ % cases.length;
  for (let k = 0; k < cases.length; k++) {
    const index = (start + k) % cases.length, c = cases[index];
    const value = c.channel._try(c);
    if (value !== NOT_READY) return { done: { index, value } };
  }
  const armed = [];
  for (const c of cases) {
    const a = c.channel._arm(c);
    if (a === null) return { armed: null };
    armed.push(a);
  }
  if (performance.now() >= deadlineMs) return { done: { index: -1 } };
  return { armed };
}

// Once the select has waited WATCH_MS since the last watch (watchAtMs), a
// watch of every case, as a wait of its kind (waiter: the select's number):
// a cell that an agent that ended holds is voided. The next watch's time.
function watchIfDue(cases, waiter, watchAtMs) {
  const nowMs = performance.now();
  if (nowMs < watchAtMs) return watchAtMs;
  for (const c of cases) watchTurn(c.send ? P.KIND_CHAN_ROOM : P.KIND_CHAN_MESSAGE, c.channel, waiter);
  return nowMs + P.WATCH_MS;
}

function checkCases(cases, call) {
  if (!Array.isArray(cases) || cases.length === 0 || !cases.every((c) => c instanceof SelectCase)) {
    throw new TypeError(`sabmutex: ${call} takes a non-empty array of cases from ch.recvCase() and ch.sendCase(msg); got ${describe(cases)}`);
  }
}
