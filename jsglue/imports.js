// The imports of the Go core, module "sabmutex" (internal/abi/imports.go).
// Go's own memory cannot be shared, so the lock words live in the user's
// SharedArrayBuffer and Go reaches them through these. mem is a handle that
// Mutex's constructor registered (an index into arrays), index an int32 slot
// of arrays[mem], which spans its whole SharedArrayBuffer.
import { wakeShared } from "./wait.js";

export function coreImports(arrays) {
  return {
    // func atomicLoad(mem, index int32) int32
    atomicLoad: (mem, index) => Atomics.load(arrays[mem], index),

    // func atomicStore(mem, index, value int32)
    atomicStore: (mem, index, value) => {
      Atomics.store(arrays[mem], index, value);
    },

    // func atomicCompareExchange(mem, index, expected, replacement int32) int32
    atomicCompareExchange: (mem, index, expected, replacement) =>
      Atomics.compareExchange(arrays[mem], index, expected, replacement),

    // func atomicWait(mem, index, expected int32, timeoutMs float64) int32
    // Workers only: the glue's lock() refuses to run where Atomics.wait throws.
    atomicWait: (mem, index, expected, timeoutMs) =>
      WAIT_RESULTS[Atomics.wait(arrays[mem], index, expected, timeoutMs)],

    // func atomicNotify(mem, index, count int32) int32
    // A negative count (the core's notifyAll) wakes every waiter, this
    // agent's shared sleeps at once (wait.js's wakeShared).
    atomicNotify: (mem, index, count) => {
      if (count >= 0) return Atomics.notify(arrays[mem], index, count);
      const n = Atomics.notify(arrays[mem], index, Infinity);
      wakeShared(arrays[mem], index);
      return n;
    },

    // func memGrow(mem, slots int32) int32
    // The lock request queues' heap (internal/core/lockq.go), under their
    // guard: this agent's array over the buffer made to reach slots, the
    // buffer grown first if it is shorter (the registry's is growable).
    memGrow: (mem, slots) => {
      if (arrays[mem].length >= slots) return arrays[mem].length;
      const buffer = /** @type {SharedArrayBuffer} */ (arrays[mem].buffer);
      if (buffer.byteLength < slots * 4) {
        if (!buffer.growable || buffer.maxByteLength < slots * 4) return arrays[mem].length;
        try {
          buffer.grow(growTo(buffer.byteLength, slots * 4, buffer.maxByteLength));
        } catch {
          // (RangeError: the engine could not reserve it; another agent's growth may have done it meanwhile)
        }
      }
      arrays[mem] = new Int32Array(buffer, 0, buffer.byteLength >> 2);
      return arrays[mem].length;
    },

    // func monotonicNowMs() float64
    monotonicNowMs: () => performance.now(),

    // func timeOriginMs() float64
    timeOriginMs: () => performance.timeOrigin,
  };
}

// How long a growing buffer of bytes becomes to hold need bytes (at most
// max): half as long again at least, in steps of 64 KiB, so that a heap
// that grows by a record at a time grows the buffer rarely.
/** @param {number} bytes @param {number} need @param {number} max */
export function growTo(bytes, need, max) {
  return Math.min(max, Math.ceil(Math.max(need, bytes * 1.5) / 65536) * 65536);
}

// Atomics.wait's answers as numbers (internal/testing/futex uses the same ones).
const WAIT_RESULTS = { ok: 0, "not-equal": 1, "timed-out": 2 };
