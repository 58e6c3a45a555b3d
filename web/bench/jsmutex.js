// The yardstick: the three-state futex mutex that people write by hand in
// plain JavaScript (Drepper's "mutex 2"), kept deliberately textbook. It has
// no timeouts, no fairness and no misuse checks.
//   0 unlocked, 1 locked, 2 locked and maybe waiters.
export class JsMutex {
  constructor(sab, index) {
    this.a = new Int32Array(sab);
    this.i = index;
  }

  lock() {
    let c = Atomics.compareExchange(this.a, this.i, 0, 1);
    if (c === 0) return;
    if (c !== 2) c = Atomics.exchange(this.a, this.i, 2);
    while (c !== 0) {
      Atomics.wait(this.a, this.i, 2);
      c = Atomics.exchange(this.a, this.i, 2);
    }
  }

  async lockAsync() {
    let c = Atomics.compareExchange(this.a, this.i, 0, 1);
    if (c === 0) return;
    if (c !== 2) c = Atomics.exchange(this.a, this.i, 2);
    while (c !== 0) {
      const w = Atomics.waitAsync(this.a, this.i, 2);
      if (w.async) await w.value;
      c = Atomics.exchange(this.a, this.i, 2);
    }
  }

  tryLock() {
    return Atomics.compareExchange(this.a, this.i, 0, 1) === 0;
  }

  unlock() {
    if (Atomics.sub(this.a, this.i, 1) !== 1) {
      Atomics.store(this.a, this.i, 0);
      Atomics.notify(this.a, this.i, 1);
    }
  }
}

// The floor under sabmutex's uncontended rows: the same textbook mutex plus
// the owner bookkeeping sabmutex keeps and the textbook one does not (its
// holder slot, index + 1: the holder's id written after it takes the mutex,
// checked and cleared before it releases it). The difference from JsMutex is
// what sabmutex's owner checks (deadlock, unlock by another agent,
// releaseIfHeldBy) cost; sabmutex cannot be cheaper than this and keep them.
// (Written out, not derived from JsMutex: the derived class, with its super
// calls, ran the contended rows far under the baseline in WebKit, no floor
// at all, and uncontended lock+unlock above where this one runs in Firefox;
// the figures: docs/decisions/workers-of-one-implementation.md.)
export class JsOwnedMutex {
  constructor(sab, index, id) {
    this.a = new Int32Array(sab);
    this.i = index;
    this.id = id;
  }

  lock() {
    let c = Atomics.compareExchange(this.a, this.i, 0, 1);
    if (c !== 0) {
      if (c !== 2) c = Atomics.exchange(this.a, this.i, 2);
      while (c !== 0) {
        Atomics.wait(this.a, this.i, 2);
        c = Atomics.exchange(this.a, this.i, 2);
      }
    }
    this.a[this.i + 1] = this.id;
  }

  async lockAsync() {
    let c = Atomics.compareExchange(this.a, this.i, 0, 1);
    if (c !== 0 && c !== 2) c = Atomics.exchange(this.a, this.i, 2);
    while (c !== 0) {
      const w = Atomics.waitAsync(this.a, this.i, 2);
      if (w.async) await w.value;
      c = Atomics.exchange(this.a, this.i, 2);
    }
    this.a[this.i + 1] = this.id;
  }

  tryLock() {
    if (Atomics.compareExchange(this.a, this.i, 0, 1) !== 0) return false;
    this.a[this.i + 1] = this.id;
    return true;
  }

  unlock() {
    if (this.a[this.i + 1] !== this.id) throw new Error("JsOwnedMutex: unlock by another agent");
    this.a[this.i + 1] = 0;
    if (Atomics.sub(this.a, this.i, 1) !== 1) {
      Atomics.store(this.a, this.i, 0);
      Atomics.notify(this.a, this.i, 1);
    }
  }
}

// The second yardstick: the mutex as the seed article people copy writes it
// (../shared/seeds, "Better Mutexes in JavaScript"): a function that returns
// an object whose methods close over the Int32Array and the offset, rather
// than a class reading them from `this`. Its algorithm is the article's
// (compare-and-swap throughout: mark the word contended, sleep, retry as
// contended); the engines compile the closure shape differently, which is
// why it is measured beside JsMutex.
export function makeClosureMutex(sab, index) {
  const memory = new Int32Array(sab);
  const offset = index;
  const UNLOCKED = 0, LOCKED = 1, CONTENDED = 2;
  return {
    lock() {
      let cur = Atomics.compareExchange(memory, offset, UNLOCKED, LOCKED);
      while (cur !== UNLOCKED) {
        if (cur !== CONTENDED) Atomics.compareExchange(memory, offset, LOCKED, CONTENDED);
        Atomics.wait(memory, offset, CONTENDED);
        cur = Atomics.compareExchange(memory, offset, UNLOCKED, CONTENDED);
      }
    },
    async lockAsync() {
      let cur = Atomics.compareExchange(memory, offset, UNLOCKED, LOCKED);
      while (cur !== UNLOCKED) {
        if (cur !== CONTENDED) Atomics.compareExchange(memory, offset, LOCKED, CONTENDED);
        const w = Atomics.waitAsync(memory, offset, CONTENDED);
        if (w.async) await w.value;
        cur = Atomics.compareExchange(memory, offset, UNLOCKED, CONTENDED);
      }
    },
    tryLock() {
      return Atomics.compareExchange(memory, offset, UNLOCKED, LOCKED) === UNLOCKED;
    },
    unlock() {
      if (Atomics.sub(memory, offset, 1) !== LOCKED) {
        Atomics.store(memory, offset, UNLOCKED);
        Atomics.notify(memory, offset, 1);
      }
    },
  };
}
