// The imports of the Go core, module "sabmutex" (internal/abi/imports.go).
// Go's own memory cannot be shared, so the lock words live in the user's
// SharedArrayBuffer and Go reaches them through these. mem is a handle that
// Mutex's constructor registered (an index into arrays), index an int32 slot
// of arrays[mem], which spans its whole SharedArrayBuffer.
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
    // A negative count (the core's notifyAll) wakes every waiter.
    atomicNotify: (mem, index, count) => Atomics.notify(arrays[mem], index, count < 0 ? Infinity : count),

    // func monotonicNowMs() float64
    monotonicNowMs: () => performance.now(),

    // func timeOriginMs() float64
    timeOriginMs: () => performance.timeOrigin,
  };
}

// Atomics.wait's answers as numbers (internal/testing/futex uses the same ones).
const WAIT_RESULTS = { ok: 0, "not-equal": 1, "timed-out": 2 };
