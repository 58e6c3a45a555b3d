// The glue's two wait loops, over the core's record of each wait
// (internal/core/waitrec.go), which holds the wait's state and makes every
// decision: waitBlocking (Atomics.wait; workers only) and waitFor
// (Atomics.waitAsync; main thread too). Each only sleeps where a turn says
// and tells the next turn how the sleep ended. Here too: the options of an
// async call, a sleep with Atomics.waitAsync (or a helper worker where it is
// missing), and abort.
import * as P from "./protocol.js";
import { core } from "./runtime.js";
import { badTimeout, describe } from "./errors.js";
import { watchSleepMs } from "./registry.js";
import { sleepWatched } from "./ticker.js";

// How many looks a blocking wait that spins before it sleeps makes (the
// Channel's #spin, a lock request's grantedWithin): a gap between a
// producer and a consumer, or a release and the next grant, is short beside
// a sleep and its wake-up.
export const SPIN_LOOKS = 2000;

// Whether the engine has Atomics.pause (Chromium 133+, Firefox 137+, Safari
// 18.4+): a spin's looks pause the core between them (the x86 PAUSE and
// ARM YIELD hints) where it does, and run as a plain loop elsewhere
// (docs/decisions/atomics-pause.md).
export const HAS_PAUSE = typeof (/** @type {any} */ (Atomics).pause) === "function";

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

// The blocking wait loop, workers only: a wait of `kind` (one of P's
// KIND_*) on primitive p (its _i32, _mem and _at), of timeoutMs at most
// (Infinity: none); arg is what the kind takes. Returns the core's result.
// The core's own loop runs it (the export wait), except that a wait without
// a deadline runs its kind's commonest turns here first, where the kind has
// them (fastTurn(p, slept, startMs, sleptOn): the Mutex's lockTurn, the
// Barrier's barrierTurn), since through the core each costs many import
// calls (docs/decisions/contended-path.md). A fast turn returns a result,
// a value to sleep on, or null, having changed nothing, for a turn that is
// the core's: the wait then goes on in the core's loop from that turn, with
// the state kept here until then (slept, sleptOn, startMs: what the core's
// record would hold). So does a sleep that runs out (a watched agent sleeps
// at most watchSleepMs()): the watch is the core's. watched false: the fast
// turns' sleeps are untimed and never watched (the Barrier's: nobody holds
// what its parties wait for, and the ticker's stores cost its generations
// dearly: docs/decisions/barrier-in-glue.md).
export function waitBlocking(kind, p, arg, timeoutMs, fastTurn = null, watched = true) {
  const mem = p._mem, at = p._at;
  if (fastTurn === null || timeoutMs !== Infinity) return core.wait(kind, mem, at, arg, timeoutMs, NaN, -1, P.SLEPT_NONE);
  const i32 = p._i32, index = at + (kind & P.KIND_SLEEPS_AT_MASK), sleepMs = watched ? watchSleepMs() : Infinity;
  for (let slept = P.SLEPT_NONE, sleptOn = -1, startMs = NaN; ; ) {
    const r = fastTurn(p, slept, startMs, sleptOn);
    if (r === null) return core.wait(kind, mem, at, arg, Infinity, startMs, sleptOn, slept);
    if (r < 0) return r;
    sleptOn = r;
    const w = watched ? sleepWatched(i32, mem, index, r, sleepMs) : Atomics.wait(i32, index, r);
    if (w === "timed-out") return core.wait(kind, mem, at, arg, Infinity, startMs, sleptOn, P.SLEPT_TIMED_OUT);
    slept = w === "ok" ? P.SLEPT_OK : P.SLEPT_NOT_EQUAL;
    // The clock starts at the first wake-up by a notify, as in the core.
    if (w === "ok" && startMs !== startMs) startMs = performance.now();
  }
}

// The asynchronous wait loop, main thread too: a wait as for waitBlocking,
// each sleep an Atomics.waitAsync. Resolves with the core's result; rejects
// with the signal's reason on abort: an abort seen when a sleep ends,
// however that sleep ended, ends the wait before another turn could take
// anything (the core gives it up), unless the give-up finds the wait had
// already succeeded (a Barrier's generation completed with its arrival):
// then the wait resolves with that, since what a call took, it reports. The
// caller has checked the signal before the first turn (optionsNotAborted).
export async function waitFor(kind, p, arg, timeoutMs, signal) {
  const i32 = p._i32, startMs = performance.now(), deadlineMs = startMs + timeoutMs;
  const id = core.begin(kind, p._mem, p._at, arg, timeoutMs, startMs), shares = SHARED_KINDS.has(kind);
  for (let r = id < 0 ? id : core.turn(id, P.SLEPT_NONE); ; ) {
    if (r < 0) return r;
    const out = sleepOut();
    const w = shares ? sleepShared(i32, out[0], r, out[1]) : sleepOn(i32, out[0], r, out[1]);
    let outcome = w.value;
    if (w.async) {
      // A helper worker's sleep ends at its deadline once the helper runs,
      // but a helper that is still starting answers later: the deadline
      // ends the wait on time without it (EXPIRED).
      outcome = await (signal || (w.helper && deadlineMs !== Infinity) ? untilEither(w.value, signal, w.helper ? deadlineMs : Infinity) : w.value);
      if (outcome === EXPIRED) {
        // The queued sleep stays: the core gives the wait up (and passes
        // on a wake-up that sleep takes later).
        const given = core.turn(id, P.SLEPT_GIVE_UP);
        w.value.then((late) => core.turn(id, lateOf(late)));
        return given; // RESULT_BUSY, or what a wait that had succeeded keeps (a Barrier's generation)
      }
    }
    if (signal !== null && signal.aborted) {
      // As at the deadline; a wake-up the sleep took, then or later, was
      // another waiter's.
      const given = core.turn(id, P.SLEPT_GIVE_UP);
      if (outcome === ABORTED) w.value.then((late) => core.turn(id, lateOf(late)));
      else core.turn(id, lateOf(outcome));
      if (given !== P.RESULT_BUSY) return given; // it had succeeded (or the core reports an error)
      throw signal.reason;
    }
    r = core.turn(id, outcome === "ok" ? P.SLEPT_OK : outcome === "timed-out" ? P.SLEPT_TIMED_OUT : P.SLEPT_NOT_EQUAL);
  }
}

// The end of a given-up wait's queued sleep, for its last turn.
const lateOf = (outcome) => (outcome === "ok" ? P.SLEPT_LATE_OK : P.SLEPT_LATE_OTHER);

// Where the export turn leaves the sleep it says, [slot, ms], and a call
// that answered RESULT_BUSY what to sleep on, [slot, the id it holds]: two
// float64s in the module's memory (re-viewed when that memory grows).
let outBuffer = null;
let outView = new Float64Array(2);
export function sleepOut() {
  if (core.mem.buffer !== outBuffer) {
    outBuffer = core.mem.buffer;
    outView = new Float64Array(outBuffer, core.call(P.OP_SLEEP_OUT, 0, 0, 0, 0), 2);
  }
  return outView;
}

// Atomics.waitAsync(i32, index, value, timeoutMs) where the browser has it
// (Chrome 90+, Firefox 145+, Safari 16.4+). Elsewhere a helper worker blocks
// in Atomics.wait for us and posts back: no timer polling. One helper per
// wait in progress, kept for reuse; an aborted wait's helper is freed by the
// notify-all that follows. (The tasks of an agent queued on one Mutex, one
// RWMutex's write lock or one lock name make one such wait between them:
// mutex.js, rwmutex.js, locks.js; those on one WaitGroup, Once or
// Barrier share one sleep: sleepShared; and at most MAX_HELPERS sleep at
// once.)
// helper: whether the sleep is a helper's.
const idleHelpers = [];
let helperURL = null;

// Where Atomics.waitAsync is missing, init starts one helper ahead of need:
// a helper started by the first wait takes a worker's start-up to run, and
// while it starts the wait sees no release, so a first lockAsync behind a
// worker that takes again at once was served late, past what the README
// promises (how late: docs/decisions/helper-worker-deadline.md).
export function startHelperAhead() {
  if (typeof Atomics.waitAsync !== "function" && typeof Worker === "function" && idleHelpers.length === 0) idleHelpers.push(newHelper());
}

function newHelper() {
  helperURL ??= URL.createObjectURL(new Blob([HELPER_SRC], { type: "text/javascript" }));
  const h = new Worker(helperURL);
  h.onerror = (e) => console.error(`sabmutex: the lockAsync helper worker failed (${e.message}); a page whose CSP forbids blob: workers needs Atomics.waitAsync`);
  return h;
}

/** @returns {{ async: boolean, value: any, helper?: boolean }} */
function sleepOn(i32, index, value, timeoutMs) {
  if (typeof Atomics.waitAsync === "function") {
    const w = Atomics.waitAsync(i32, index, value, timeoutMs);
    if (w.async) w.value = keepAwake(w.value);
    return w;
  }
  if (Atomics.load(i32, index) !== value) return { async: false, value: "not-equal" };
  if (!(timeoutMs > 0)) return { async: false, value: "timed-out" };
  if (helpersBusy >= MAX_HELPERS) return { async: true, value: lookWait(i32, index, value, timeoutMs), helper: true };
  return { async: true, value: helperWait(i32, index, value, timeoutMs), helper: true };
}

// At most MAX_HELPERS helper workers sleep for this agent at once (issue
// 60: with one per wait, 10,000 waiting tasks made 10,000 workers and the
// page stopped answering). Past that, a wait looks at its word every
// LOOK_MS instead (lookWait): "not-equal" once it has changed, as a sleep
// begun after the change answers, or "timed-out" at its end. Every turn
// takes either answer (a word can change between a turn and its sleep),
// and a wake-up that changes no word is a watched wait's to find after
// WATCH_MS, as a timed sleep's is. The tasks queued on one Mutex or one lock
// name share one wait (mutex.js, locks.js), and those on one WaitGroup,
// Once or Barrier one sleep (sleepShared), so the cap is met only by waits
// on many words at once.
const MAX_HELPERS = 8;
const LOOK_MS = 4;
let helpersBusy = 0;

function lookWait(i32, index, value, timeoutMs) {
  const endsAt = performance.now() + timeoutMs;
  return new Promise((resolve) => {
    const look = () => {
      if (Atomics.load(i32, index) !== value) return resolve("not-equal");
      const leftMs = endsAt - performance.now();
      if (leftMs <= 0) return resolve("timed-out");
      setTimeout(look, Math.min(LOOK_MS, leftMs));
    };
    setTimeout(look, Math.min(LOOK_MS, timeoutMs));
  });
}

// The sleeps of one agent's asynchronous waits on one word, shared (issue
// 60). A WaitGroup's, a Once's and a Barrier's waiters are woken all at
// once by whoever ends their wait (the count reaching 0, the end of the
// run of fn, the generation completed: a notify-all, the only notify on
// their words; the core's waits table says so, an abandon of nil or late
// a no-op), so the tasks of an agent waiting on one of them need one
// sleep between them: the first task's (an Atomics.waitAsync, or a
// helper), which the next ones join, each still with its own wait in the
// core (its record and its turns, as before: snapshot() and the watch see
// every one, a Barrier's abort withdraws its own arrival). Joining is
// safe whatever value each sleeps on: a sleep queued on the slot before a
// task's turn (or woken already, and about to answer) is woken by every
// notify-all after it, and a spurious "ok" costs a turn that finds the
// word as it is and sleeps again, as after any wake-up. A task joins a
// sleep that ends no later than its own would (an earlier end answers
// "timed-out", and the turn sleeps again for the rest); else it sleeps
// alone. And a notify-all by this agent itself (the core's, through
// imports.js, and barrierTurn's) answers the sleeps it shares on that slot
// "ok" at once (wakeShared), as the wake-up would a job later: a page
// task's done(), the end of its run of fn or its arrival that completes
// a generation resolves the page's waiting tasks in the same job, without
// a wake-up. Nothing is written to shared memory.
const SHARED_KINDS = new Set([P.KIND_WG_WAIT, P.KIND_ONCE, P.KIND_BARRIER]);
/** @typedef {{ promise: Promise<any>, resolve: (v: any) => void, endsAt: number, helper: boolean }} SharedSleep */
/** @type {WeakMap<ArrayBufferLike, Map<number, SharedSleep>>} */
const sharedSleeps = new WeakMap();
let sharing = 0; // how many shared sleeps are pending (wakeShared looks only then)

/** @returns {{ async: boolean, value: any, helper?: boolean }} */
function sleepShared(i32, index, value, timeoutMs) {
  const endsAt = performance.now() + timeoutMs;
  let byIndex = sharedSleeps.get(i32.buffer);
  const s = byIndex?.get(index);
  if (s !== undefined && s.endsAt <= endsAt) {
    if (Atomics.load(i32, index) !== value) return { async: false, value: "not-equal" };
    return { async: true, value: s.promise, helper: s.helper };
  }
  const w = sleepOn(i32, index, value, timeoutMs);
  if (!w.async || s !== undefined) return w;
  if (byIndex === undefined) sharedSleeps.set(i32.buffer, (byIndex = new Map()));
  let resolve = (_) => {};
  const shared = { promise: new Promise((r) => (resolve = r)), resolve, endsAt, helper: w.helper === true };
  byIndex.set(index, shared);
  sharing++;
  w.value.then((v) => (unshare(byIndex, index, shared), shared.resolve(v)));
  return { async: true, value: shared.promise, helper: shared.helper };
}

/** @param {Map<number, SharedSleep>} byIndex @param {number} index @param {SharedSleep} shared */
function unshare(byIndex, index, shared) {
  if (byIndex.get(index) !== shared) return;
  byIndex.delete(index);
  sharing--;
}

// After a notify-all by this agent on i32[index]: its waits that share a
// sleep on that slot take their wake-up now (see SHARED_KINDS).
/** @param {Int32Array} i32 @param {number} index */
export function wakeShared(i32, index) {
  if (sharing === 0) return;
  const byIndex = sharedSleeps.get(i32.buffer), shared = byIndex?.get(index);
  if (shared === undefined) return;
  unshare(/** @type {Map<number, SharedSleep>} */ (byIndex), index, shared);
  shared.resolve("ok");
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
  helpersBusy++;
  return new Promise((resolve) => {
    const h = idleHelpers.pop() ?? newHelper();
    h.onmessage = ({ data }) => {
      helpersBusy--;
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
    if (signal?.aborted) return end(ABORTED); // (a wait begun after its abort: a lock request's, locks.js)
    signal?.addEventListener("abort", onAbort, { once: true });
    if (deadlineMs !== Infinity) expire();
    promise.then(end);
  });
}
