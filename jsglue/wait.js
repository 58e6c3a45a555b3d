// The asynchronous wait loop that every primitive's async calls share
// (waitFor), with what it needs: the options of an async call, a sleep with
// Atomics.waitAsync (or a helper worker where it is missing), and abort.
// The decisions are Go's: waitFor calls the core's step, turn after turn,
// and sleeps where a turn says; on abort, the core's abandon gives the wait
// up (wasm/core/wait.go says what each kind does).
import * as P from "./protocol.js";
import { core } from "./runtime.js";
import { badTimeout, describe } from "./errors.js";
import { watchTurn, endWatch, newWaiter } from "./watch.js";
import { watchSleepMs } from "./registry.js";

// An asynchronous call's options: a timeout in ms, or { timeoutMs, signal }
// (timeout is accepted for timeoutMs, as in the Web's own option bags).
export function asyncOptions(options) {
  if (options === undefined) return { timeoutMs: Infinity, signal: null };
  if (typeof options === "number") {
    if (!(options >= 0)) badTimeout(options);
    return { timeoutMs: options, signal: null };
  }
  if (options === null || typeof options !== "object") {
    throw new TypeError(`sabmutex: the options of an async call are a timeout (a number of milliseconds) or { timeoutMs, signal }; got ${describe(options)}`);
  }
  if (options.timeoutMs !== undefined && options.timeout !== undefined) {
    throw new TypeError("sabmutex: give timeoutMs or timeout, not both (both are milliseconds)");
  }
  const timeoutMs = options.timeoutMs ?? options.timeout ?? Infinity;
  if (typeof timeoutMs !== "number" || !(timeoutMs >= 0)) badTimeout(timeoutMs);
  const signal = options.signal ?? null;
  if (signal !== null && !(typeof signal === "object" && typeof signal.aborted === "boolean" && typeof signal.addEventListener === "function")) {
    throw new TypeError(`sabmutex: signal must be an AbortSignal (for example from new AbortController()); got ${describe(signal)}`);
  }
  return { timeoutMs, signal };
}

// An async call's options (asyncOptions), with the promise every async call
// keeps: an aborted signal wins over a ready primitive. It throws the
// signal's reason, as is, if the signal has aborted; each call runs it
// before its fast path where options are given, so nothing is taken. (The
// calls without options keep their fast paths as they were: there is no
// signal to look at.)
export function optionsNotAborted(options) {
  const o = asyncOptions(options);
  if (o.signal !== null && o.signal.aborted) throw o.signal.reason;
  return o;
}

// The asynchronous wait loop, main thread too: Go's waitBlocking
// (wasm/core/wait.go) with Atomics.waitAsync, for a wait of `kind` (one of
// P's KIND_*) on primitive p (its _i32, _mem and _at); arg is what the kind
// takes. Resolves with the core's result; rejects with the signal's reason
// on abort: an abort seen when a sleep ends, however that sleep ended, ends
// the wait before another turn could take anything (the core abandons it),
// unless the abandon finds the wait had already succeeded (a Barrier's
// generation completed with its arrival): then the wait resolves with that,
// since what a call took, it reports. (A turn that follows a "go on with
// kind k" is not a place to stop: the first kind's announcement, a writer's
// bit, is the next kind's to withdraw.) The caller has checked the signal
// before the first turn (optionsNotAborted).
// fastTurn(woken, startMs, deadlineMs), where given, runs the
// commonest turns in JavaScript (the Mutex's lockTurn) and returns null for
// Go's. The
// remaining time is recomputed on every turn, so stolen wake-ups do not
// stretch the wait.
export async function waitFor(kind, p, arg, timeoutMs, signal, fastTurn = null) {
  const waiter = newWaiter(); // this wait, for watch.js
  try {
    return await waitTurns(kind, p, arg, timeoutMs, signal, fastTurn, waiter);
  } finally {
    endWatch(waiter);
  }
}

async function waitTurns(kind, p, arg, timeoutMs, signal, fastTurn, waiter) {
  const i32 = p._i32, mem = p._mem, at = p._at;
  const startMs = performance.now();
  const deadlineMs = startMs + timeoutMs;
  for (let woken = P.WOKEN_FIRST, sleptOn = -1; ; ) {
    const r = (fastTurn === null ? null : fastTurn(woken, startMs, deadlineMs)) ?? core.step(kind, mem, at, arg, woken, sleptOn, startMs, deadlineMs);
    if (r < 0) {
      if (r > P.RESULT_GO_ON_AS) return r;
      // Go on with the wait of the kind the core names, from its first turn.
      [kind, woken, sleptOn, fastTurn] = [P.RESULT_GO_ON_AS - r, P.WOKEN_FIRST, -1, null];
      continue;
    }
    // No sleep is longer than watchSleepMs(): then the wait asks watch.js
    // about the agent it waits for (a dead one's hold is freed).
    const w = sleepOn(i32, at + (kind & P.KIND_SLEEPS_AT_MASK), r, Math.min(deadlineMs - performance.now(), watchSleepMs()));
    let outcome = w.value;
    if (w.async) {
      // A helper worker's sleep ends at its deadline once the helper runs,
      // but a helper that is still starting answers later: the deadline
      // ends the wait on time without it (EXPIRED).
      outcome = await (signal || (w.helper && deadlineMs !== Infinity) ? untilEither(w.value, signal, w.helper ? deadlineMs : Infinity) : w.value);
      if (outcome === EXPIRED) {
        // A waitAsync cannot be withdrawn, and left queued it could swallow
        // a wake-up meant for another waiter: the core undoes what the wait
        // announced and wakes whoever needs it. If the queued wait (a helper
        // worker's) ends "ok" after that, it took a wake-up: the core passes
        // it on.
        const k = kind;
        const g = core.abandon(k, mem, at, arg, r, 0);
        w.value.then((late) => late === "ok" && core.abandon(k, mem, at, arg, r, 1));
        return g; // RESULT_BUSY, or what a wait that had succeeded keeps (a Barrier's generation)
      }
    }
    if (signal !== null && signal.aborted) {
      // As at the deadline; and if the queued wait had ended "ok" when the
      // abort came (before this turn), it took a wake-up: passed on too.
      const k = kind;
      const given = core.abandon(k, mem, at, arg, r, 0);
      if (outcome === ABORTED) w.value.then((late) => late === "ok" && core.abandon(k, mem, at, arg, r, 1));
      else if (outcome === "ok") core.abandon(k, mem, at, arg, r, 1);
      if (given !== P.RESULT_BUSY) return given; // it had succeeded (or the core reports an error)
      throw signal.reason;
    }
    woken = outcome === "ok" ? P.WOKEN_NOTIFIED : P.WOKEN_OTHER;
    sleptOn = r;
    if (outcome === "timed-out" && performance.now() < deadlineMs) watchTurn(kind, p, waiter);
  }
}

// Atomics.waitAsync(i32, index, value, timeoutMs) where the browser has it
// (Chrome 90+, Firefox 145+, Safari 16.4+). Elsewhere a helper worker blocks
// in Atomics.wait for us and posts back: no timer polling. One helper per
// wait in progress, kept for reuse; an aborted wait's helper is freed by the
// notify-all that follows. helper: whether the sleep is a helper's.
const idleHelpers = [];
let helperURL = null;

/** @returns {{ async: boolean, value: any, helper?: boolean }} */
function sleepOn(i32, index, value, timeoutMs) {
  if (typeof Atomics.waitAsync === "function") {
    const w = Atomics.waitAsync(i32, index, value, timeoutMs);
    if (w.async) w.value = keepAwake(w.value);
    return w;
  }
  if (Atomics.load(i32, index) !== value) return { async: false, value: "not-equal" };
  if (!(timeoutMs > 0)) return { async: false, value: "timed-out" };
  return { async: true, value: helperWait(i32, index, value, timeoutMs), helper: true };
}

// Resolves once any of the words [i32, index, value] may no longer hold its
// value, after timeoutMs at the latest, or when signal aborts (select.js).
// Without Atomics.waitAsync, a helper worker sleeps on the first word only.
export async function sleepAny(words, timeoutMs, signal) {
  const sleeps = [];
  for (const [i32, index, value] of typeof Atomics.waitAsync === "function" ? words : words.slice(0, 1)) {
    const w = sleepOn(i32, index, value, timeoutMs);
    if (!w.async) return;
    sleeps.push(w.value);
  }
  const any = Promise.race(sleeps);
  await (signal ? untilAbort(any, signal) : any);
}

// Resolves once the slot may no longer hold value, however long that takes:
// the registry's maker waiting for agents to join (registry.js). Not kept
// awake: the maker is normally a page.
export function sleepUntilChanged(i32, index, value) {
  if (typeof Atomics.waitAsync === "function") return Promise.resolve(Atomics.waitAsync(i32, index, value).value);
  return helperWait(i32, index, value, Infinity);
}

// Atomics.wait(i32, index, value, timeoutMs) in a helper worker; resolves
// with its answer. The helper is told when the sleep ends, not how long it
// lasts: a helper that starts now is slow to run its first message (more
// so on a busy machine), and a timeout counted from there would end that
// much late (docs/decisions/helper-worker-deadline.md). Both sides read
// performance.timeOrigin + performance.now(), which agents share
// (HELPER_SRC is sabsync's too: sabsync/wait.go).
function helperWait(i32, index, value, timeoutMs) {
  const endsAt = timeoutMs === Infinity ? Infinity : performance.timeOrigin + performance.now() + timeoutMs;
  return new Promise((resolve) => {
    let h = idleHelpers.pop();
    if (!h) {
      helperURL ??= URL.createObjectURL(new Blob([HELPER_SRC], { type: "text/javascript" }));
      h = new Worker(helperURL);
      h.onerror = (e) => console.error(`sabmutex: the lockAsync helper worker failed (${e.message}); a page whose CSP forbids blob: workers needs Atomics.waitAsync`);
    }
    h.onmessage = ({ data }) => {
      idleHelpers.push(h);
      resolve(data);
    };
    h.postMessage([i32, index, value, endsAt]);
  });
}

// The helper worker: [i32, index, value, endsAt] in, Atomics.wait's answer
// out. A sleep whose end has passed by the time the helper reads it is
// Atomics.wait's with timeout 0: "not-equal" or "timed-out".
const HELPER_SRC = "onmessage = ({ data: [a, i, v, end] }) => postMessage(Atomics.wait(a, i, v, Math.max(0, end - performance.timeOrigin - performance.now())));";

// WebKit (WebKitGTK 2.50) does not always wake an idle worker when one of
// its Atomics.waitAsync waits ends: a notify's wake-up, and always the
// timeout, are delivered only once something else runs in that worker (a
// timer, a message), so a lockAsync in a worker could wait forever with the
// mutex free. So while an asynchronous wait of this agent is pending, a
// timer ticks every KEEP_AWAKE_MS: the engine then delivers within a tick.
const KEEP_AWAKE_MS = 10;
let waitsPending = 0;
let keepAwakeTimer = 0;

function keepAwake(promise) {
  if (waitsPending++ === 0) keepAwakeTimer = setInterval(() => {}, KEEP_AWAKE_MS);
  return promise.then((v) => {
    if (--waitsPending === 0) clearInterval(keepAwakeTimer);
    return v;
  });
}

const ABORTED = Symbol("aborted");
const EXPIRED = Symbol("expired");

// Resolves with what promise resolves to, or ABORTED if signal aborts first.
/** @returns {Promise<any>} */
function untilAbort(promise, signal) {
  return untilEither(promise, signal, Infinity);
}

// Resolves with what promise resolves to, ABORTED if signal (or null)
// aborts first, or EXPIRED if performance.now() reaches deadlineMs (or
// Infinity) first. (A timer may fire early, by performance.now(), as
// Firefox's did: then it waits out the rest.)
function untilEither(promise, signal, deadlineMs) {
  return new Promise((resolve) => {
    let timer = 0;
    const end = (v) => {
      signal?.removeEventListener("abort", onAbort);
      clearTimeout(timer);
      resolve(v);
    };
    const onAbort = () => end(ABORTED);
    const expire = () => {
      const leftMs = deadlineMs - performance.now();
      if (leftMs > 0) timer = setTimeout(expire, leftMs);
      else end(EXPIRED);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (deadlineMs !== Infinity) expire();
    promise.then(end);
  });
}
