// The checks and messages that every primitive shares. Every error starts
// with "sabmutex:" and says what to do.
import { MsgSizeRange } from "./messages.js";

// What a value is, for error messages.
export function describe(v) {
  if (v === null || v === undefined) return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v !== "object" && typeof v !== "function") return `${typeof v} ${String(v)}`;
  return Object.prototype.toString.call(v).slice(8, -1);
}

// A blocking call on the browser's main thread, where Atomics.wait throws.
export function mustNotBlock(call, asyncForm) {
  throw new Error(
    `sabmutex: ${call} cannot block the browser's main thread (Atomics.wait is not allowed there); use \`await ${asyncForm}\`, or call ${call} in a worker`,
  );
}

export function badTimeout(timeoutMs) {
  if (typeof timeoutMs !== "number") {
    throw new TypeError(`sabmutex: timeoutMs must be a number of milliseconds (Infinity waits forever); got ${describe(timeoutMs)}`);
  }
  throw new RangeError(`sabmutex: timeoutMs must be >= 0 (0 tries once, Infinity waits forever); got ${timeoutMs}`);
}

// A blocking call's timeout: milliseconds, >= 0 (0 tries once), Infinity for none.
export function checkTimeout(timeoutMs) {
  if (typeof timeoutMs !== "number" || !(timeoutMs >= 0)) badTimeout(timeoutMs);
}

// A timeout read from `arguments` (see Mutex.lock): undefined, or not
// given, waits forever; anything else is checked.
export function timeoutOf(timeoutMs) {
  if (timeoutMs === undefined) return Infinity;
  checkTimeout(timeoutMs);
  return timeoutMs;
}

// The error that acquire and the like throw when the time runs out; what
// names what was waited for (a primitive's _what: "the Mutex at index 4",
// "the Mutex \"db\"").
export function timeoutError(what, timeoutMs) {
  const e = new Error(`sabmutex: timed out after ${timeoutMs} ms waiting for ${what}`);
  e.name = "TimeoutError";
  return e;
}

// fn of withLock(fn) and the like: call names the method, and what fn runs
// under ("holding the lock").
export function checkFn(fn, call, under) {
  if (typeof fn !== "function") {
    throw new TypeError(`sabmutex: ${call} takes a function to run ${under}; got ${describe(fn)}`);
  }
}

// The count of acquire(n) and the like: a whole number from 1 to max.
export function checkCount(call, n, max) {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > max) {
    throw new RangeError(`sabmutex: ${call} takes a whole number from 1 to ${max}; got ${describe(n)}`);
  }
}

// A size every agent must give alike (Semaphore's permits, Barrier's parties).
export function checkSize(what, n, max) {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > max) {
    throw new RangeError(fill(MsgSizeRange, { what, max, got: describe(n) }));
  }
}

// A shared text (messages.js, written once in internal/proto/messages.go) with
// each {name} replaced by vars[name].
export function fill(text, vars) {
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name]));
}
