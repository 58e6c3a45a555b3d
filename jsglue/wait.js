// The waiting machinery that every primitive's glue shares: option parsing,
// the asynchronous wait loop (Atomics.waitAsync, or a helper worker where it
// is missing), abort, timeouts, and the handle that acquire returns. The
// decisions stay in Go: a primitive passes waitLoop one turn of its Go wait
// loop (a lockStep), and waitLoop only sleeps where that turn says.

// What a value is, for error messages (jsglue/load.js's too).
function describe(v) {
  if (v === null || v === undefined) return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v !== "object" && typeof v !== "function") return `${typeof v} ${String(v)}`;
  return Object.prototype.toString.call(v).slice(8, -1);
}

// A blocking call on the browser's main thread, where Atomics.wait throws.
function mustNotBlock(call, asyncForm) {
  throw new Error(
    `sabmutex: ${call} cannot block the browser's main thread (Atomics.wait is not allowed there); use \`await ${asyncForm}\`, or call ${call} in a worker`,
  );
}

// A blocking call's timeout: milliseconds, >= 0 (0 tries once), Infinity for none.
function checkTimeout(timeoutMs) {
  if (typeof timeoutMs !== "number" || !(timeoutMs >= 0)) badTimeout(timeoutMs);
}

// A timeout read from `arguments` (see Mutex.lock): undefined, or not
// given, waits forever; anything else is checked.
function timeoutOf(timeoutMs) {
  if (timeoutMs === undefined) return Infinity;
  checkTimeout(timeoutMs);
  return timeoutMs;
}

function badTimeout(timeoutMs) {
  if (typeof timeoutMs !== "number") {
    throw new TypeError(`sabmutex: timeoutMs must be a number of milliseconds (Infinity waits forever); got ${describe(timeoutMs)}`);
  }
  throw new RangeError(`sabmutex: timeoutMs must be >= 0 (0 tries once, Infinity waits forever); got ${timeoutMs}`);
}

// An asynchronous call's options: a timeout in ms, or { timeoutMs, signal }
// (timeout is accepted for timeoutMs, as in the Web's own option bags).
function asyncOptions(options) {
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

// Atomics.waitAsync where the browser has it (Chrome 90+, Firefox 145+,
// Safari 16.4+). Elsewhere a helper worker blocks in Atomics.wait for us and
// posts back: no timer polling. One helper per wait in progress, kept for
// reuse; an aborted wait's helper is freed by the notify-all that follows.
const idleHelpers = [];
let helperURL = null;

function waitAsync(i32, index, value, timeoutMs) {
  if (typeof Atomics.waitAsync === "function") {
    const w = Atomics.waitAsync(i32, index, value, timeoutMs);
    if (w.async) w.value = keepAwake(w.value);
    return w;
  }
  if (Atomics.load(i32, index) !== value) return { async: false, value: "not-equal" };
  if (!(timeoutMs > 0)) return { async: false, value: "timed-out" };
  return {
    async: true,
    value: new Promise((resolve) => {
      let h = idleHelpers.pop();
      if (!h) {
        helperURL ??= URL.createObjectURL(
          new Blob(["onmessage = ({ data: [a, i, v, t] }) => postMessage(Atomics.wait(a, i, v, t));"], { type: "text/javascript" }),
        );
        h = new Worker(helperURL);
        h.onerror = (e) => console.error(`sabmutex: the lockAsync helper worker failed (${e.message}); a page whose CSP forbids blob: workers needs Atomics.waitAsync`);
      }
      h.onmessage = ({ data }) => {
        idleHelpers.push(h);
        resolve(data);
      };
      h.postMessage([i32, index, value, timeoutMs]);
    }),
  };
}

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

// Resolves with what promise resolves to, or ABORTED if signal aborts first.
function untilAbort(promise, signal) {
  return new Promise((resolve) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then((v) => {
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    });
  });
}

// The error acquire and acquireAsync throw when the time runs out; what
// names what was waited for ("the mutex at index 4").
function timedOut(what, timeoutMs) {
  const e = new Error(`sabmutex: timed out after ${timeoutMs} ms waiting for ${what}`);
  e.name = "TimeoutError";
  return e;
}

// The asynchronous wait loop, main thread too: Go's waitBlocking
// (wasm/core/wait.go) with Atomics.waitAsync. step(deadlineMs, startMs,
// woken, sleptOn) is one turn of Go's (a result, below 0, or a word to sleep
// on while i32[at] holds it; P's WOKEN_* say how the last sleep ended, and
// sleptOn is the word it slept on, -1 at first); abandon(sleptOn) is Go's way
// to give up a wait that stays queued. Resolves with the result; rejects with
// the signal's reason on abort. The remaining time is recomputed on every
// turn, so stolen wake-ups do not stretch the wait.
async function waitLoop(P, i32, at, timeoutMs, signal, step, abandon) {
  const startMs = performance.now();
  const deadlineMs = startMs + timeoutMs;
  for (let woken = P.WOKEN_FIRST, sleptOn = -1; ; ) {
    const r = step(deadlineMs, startMs, woken, sleptOn);
    if (r < 0) return r;
    const w = waitAsync(i32, at, r, deadlineMs - performance.now());
    let outcome = w.value;
    if (w.async) {
      outcome = await (signal ? untilAbort(w.value, signal) : w.value);
      if (outcome === ABORTED) {
        // A waitAsync cannot be withdrawn, and left queued it could swallow
        // the one wake-up (or hand-off) a release sends: Go wakes every
        // waiter, which takes ours off the queue.
        abandon(r);
        // A helper worker's wait (no Atomics.waitAsync) may begin only after
        // that, and then take a wake-up meant for another waiter: if it ends
        // "ok", pass the wake-up on.
        // (abandon's second argument says so: only pass it on, the wait was
        // already given up.)
        w.value.then((late) => late === "ok" && abandon(r, true));
        throw signal.reason;
      }
    }
    woken = outcome === "ok" ? P.WOKEN_NOTIFIED : P.WOKEN_OTHER;
    sleptOn = r;
  }
}

// Symbol.dispose where the browser has it (Chromium 134+), else the
// well-known stand-in that TypeScript's downlevel `using` looks for.
const DISPOSE = Symbol.dispose || Symbol.for("Symbol.dispose");

// What acquire and acquireAsync return: release() once, or let `using`
// dispose of it.
class LockHandle {
  #mutex;
  constructor(mutex) {
    this.#mutex = mutex;
  }
  // Main thread too. Unlocks; a second release() throws.
  release() {
    if (!this.#mutex) throw new Error("sabmutex: this lock handle was already released; release() it once");
    const m = this.#mutex;
    this.#mutex = null;
    m.unlock();
  }
  get released() {
    return this.#mutex === null;
  }
  [DISPOSE]() {
    if (this.#mutex) this.release();
  }
}

// withLock and the like: fn run after take() acquired something, which
// release() gives back whatever fn does.
function runHolding(take, release, fn) {
  take();
  try {
    return fn();
  } finally {
    release();
  }
}

// withLockAsync and the like: fn awaited once the acquisition `took`
// resolved true (false: a sabmutex TimeoutError naming what, after the
// timeout of options), then release().
async function runHoldingAsync(took, what, options, release, fn) {
  if (!(await took)) throw timedOut(what, asyncOptions(options).timeoutMs);
  try {
    return await fn();
  } finally {
    release();
  }
}

// fn of withLock(fn) and the like: call names the method, and what fn runs
// under ("holding the lock").
function checkFn(fn, call, under) {
  if (typeof fn !== "function") {
    throw new TypeError(`sabmutex: ${call} takes a function to run ${under}; got ${describe(fn)}`);
  }
}

// The sabmutex error for a result of the Go module that is not an outcome
// the caller handles: specific(r) gives the primitive's own messages (or
// undefined), and what names the object ("the Semaphore at index 4") and
// word the value its first slot holds, for a corruption report.
function failure(P, r, what, word, specific) {
  const text = specific && specific(r);
  if (text) return new Error(`sabmutex: ${text}`);
  if (r === P.RESULT_CORRUPTED) {
    return new Error(
      `sabmutex: corrupted state in ${what}: its first slot holds ${word}, which it cannot hold, ` +
        "so something else wrote to its slots; give each object SLOTS slots of its own",
    );
  }
  return new Error(`sabmutex: internal error: the Go module returned ${r} for ${what}; please report this`);
}

// The count of acquire(n) and the like: a whole number from 1 to max.
function checkCount(call, n, max) {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > max) {
    throw new RangeError(`sabmutex: ${call} takes a whole number from 1 to ${max}; got ${describe(n)}`);
  }
}
