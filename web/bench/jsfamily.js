// The yardsticks for the rest of the family: what people write by hand in
// plain JavaScript over Atomics, kept deliberately textbook (no timeouts,
// no fairness, no misuse checks), as jsmutex.js is for the mutex. Each
// takes (sab, index) and uses the int32 slots from index on (zeroed: free).
import { JsMutex } from "./jsmutex.js";

// Readers/writer lock in one word: the count of readers, or WRITER, plus a
// WAITING bit that tells the one who releases to wake the sleepers. Readers
// get in whenever no writer holds it (reader preference, the simplest kind).
const WRITER = 1 << 30, WAITING = 1 << 29;

export class JsRWMutex {
  constructor(sab, index) {
    this.a = new Int32Array(sab);
    this.i = index;
  }

  // Sleeps until the word changes from s, after setting WAITING in it.
  #sleep(s) {
    if (s & WAITING || Atomics.compareExchange(this.a, this.i, s, s | WAITING) === s) Atomics.wait(this.a, this.i, s | WAITING);
  }

  lock() {
    for (;;) {
      const s = Atomics.load(this.a, this.i);
      if ((s & ~WAITING) === 0) {
        if (Atomics.compareExchange(this.a, this.i, s, s | WRITER) === s) return;
      } else this.#sleep(s);
    }
  }

  unlock() {
    if (Atomics.exchange(this.a, this.i, 0) & WAITING) Atomics.notify(this.a, this.i);
  }

  readLock() {
    for (;;) {
      const s = Atomics.load(this.a, this.i);
      if (!(s & WRITER)) {
        if (Atomics.compareExchange(this.a, this.i, s, s + 1) === s) return;
      } else this.#sleep(s);
    }
  }

  tryLock() {
    const s = Atomics.load(this.a, this.i);
    return (s & ~WAITING) === 0 && Atomics.compareExchange(this.a, this.i, s, s | WRITER) === s;
  }

  tryReadLock() {
    const s = Atomics.load(this.a, this.i);
    return !(s & WRITER) && Atomics.compareExchange(this.a, this.i, s, s + 1) === s;
  }

  readUnlock() {
    // The last reader out wakes the sleepers, unless someone got in first
    // (then whoever holds it now wakes them on its release).
    if (Atomics.sub(this.a, this.i, 1) === (WAITING | 1) && Atomics.compareExchange(this.a, this.i, WAITING, 0) === WAITING) {
      Atomics.notify(this.a, this.i);
    }
  }
}

// Counting semaphore: slot index holds the free permits, index+1 the
// number of sleepers (so that release only notifies when someone sleeps).
// Whoever makes the buffer calls setUp before sharing it.
export class JsSemaphore {
  static setUp(sab, index, permits) {
    Atomics.store(new Int32Array(sab), index, permits);
  }

  constructor(sab, index) {
    this.a = new Int32Array(sab);
    this.i = index;
  }

  acquire(n = 1) {
    for (;;) {
      const c = Atomics.load(this.a, this.i);
      if (c >= n) {
        if (Atomics.compareExchange(this.a, this.i, c, c - n) === c) return;
        continue;
      }
      Atomics.add(this.a, this.i + 1, 1);
      Atomics.wait(this.a, this.i, c); // returns at once if a release came in between
      Atomics.sub(this.a, this.i + 1, 1);
    }
  }

  tryAcquire() {
    const c = Atomics.load(this.a, this.i);
    return c >= 1 && Atomics.compareExchange(this.a, this.i, c, c - 1) === c;
  }

  release(n = 1) {
    Atomics.add(this.a, this.i, n);
    if (Atomics.load(this.a, this.i + 1) > 0) Atomics.notify(this.a, this.i);
  }
}

// Condition variable: a sequence word. A waiter reads it holding the mutex,
// so any notify after that changes it and Atomics.wait cannot miss it.
export class JsCond {
  constructor(sab, index) {
    this.a = new Int32Array(sab);
    this.i = index;
  }

  // mutex: a JsMutex held by the caller.
  wait(mutex) {
    const seq = Atomics.load(this.a, this.i);
    mutex.unlock();
    Atomics.wait(this.a, this.i, seq);
    mutex.lock();
  }

  notifyOne() {
    Atomics.add(this.a, this.i, 1);
    Atomics.notify(this.a, this.i, 1);
  }

  notifyAll() {
    Atomics.add(this.a, this.i, 1);
    Atomics.notify(this.a, this.i);
  }
}

// The floor under sabmutex's notify: JsCond whose sequence stays
// non-negative (modulo 2^31), as sabmutex's must, so that a word something
// else overwrote shows; a compare-and-swap from the sequence last seen
// instead of an add. (Not a yardstick: family.js's notify row prints it.)
export class JsCondNonNegative extends JsCond {
  seq = 0;

  notifyOne() {
    for (let v = this.seq; ; ) {
      const next = (v + 1) & 0x7fffffff, got = Atomics.compareExchange(this.a, this.i, v, next);
      if (got === v) {
        this.seq = next;
        return Atomics.notify(this.a, this.i, 1);
      }
      v = got;
    }
  }
}

// Barrier of a fixed number of parties: slot index counts arrivals, index+1
// is the generation. An arrival reads the generation first: it cannot move
// on before this arrival, which it needs.
export class JsBarrier {
  constructor(sab, index, parties) {
    this.a = new Int32Array(sab);
    this.i = index;
    this.parties = parties;
  }

  wait() {
    const gen = Atomics.load(this.a, this.i + 1);
    if (Atomics.add(this.a, this.i, 1) + 1 === this.parties) {
      Atomics.store(this.a, this.i, 0);
      Atomics.add(this.a, this.i + 1, 1);
      Atomics.notify(this.a, this.i + 1);
      return "last";
    }
    while (Atomics.load(this.a, this.i + 1) === gen) Atomics.wait(this.a, this.i + 1, gen);
    return "passed";
  }
}

// The textbook queue, the Channel's yardstick with a lock (chan-worker.js,
// pool-worker.js): a JsMutex and two JsConds, notEmpty and notFull, each on
// a cache line of its own, then the head, tail and count, then capacity
// items of itemBytes bytes (a multiple of 4), copied in and out word by
// word, as the Channel copies its messages. JsQueue.slotsFor(capacity,
// itemBytes) slots from index on, zeroed: an empty queue.
const Q_NOT_EMPTY = 16, Q_NOT_FULL = 32, Q_HEAD = 48, Q_TAIL = 49, Q_COUNT = 50, Q_ITEMS = 64;

export class JsQueue {
  static slotsFor(capacity, itemBytes) {
    return Q_ITEMS + capacity * (itemBytes >> 2);
  }

  constructor(sab, index, capacity, itemBytes) {
    if (itemBytes % 4 !== 0) throw new RangeError(`JsQueue: items of ${itemBytes} bytes, not a multiple of 4`);
    this.c = new Int32Array(sab);
    this.at = index;
    this.capacity = capacity;
    this.ints = itemBytes >> 2;
    this.m = new JsMutex(sab, index);
    this.notEmpty = new JsCond(sab, index + Q_NOT_EMPTY);
    this.notFull = new JsCond(sab, index + Q_NOT_FULL);
  }

  // Puts item m in (a Uint8Array of itemBytes bytes, at offset 0 of its
  // buffer), waiting for room.
  put(m) {
    const c = this.c, q = this.at, ints = this.ints, w = new Int32Array(m.buffer);
    this.m.lock();
    while (c[q + Q_COUNT] === this.capacity) this.notFull.wait(this.m);
    const at = q + Q_ITEMS + ints * c[q + Q_TAIL];
    for (let i = 0; i < ints; i++) c[at + i] = w[i];
    c[q + Q_TAIL] = (c[q + Q_TAIL] + 1) % this.capacity;
    c[q + Q_COUNT]++;
    this.notEmpty.notifyOne();
    this.m.unlock();
  }

  // The next item, a new Uint8Array, waiting for one.
  take() {
    const c = this.c, q = this.at, ints = this.ints, m = new Uint8Array(ints * 4), w = new Int32Array(m.buffer);
    this.m.lock();
    while (c[q + Q_COUNT] === 0) this.notEmpty.wait(this.m);
    const at = q + Q_ITEMS + ints * c[q + Q_HEAD];
    for (let i = 0; i < ints; i++) w[i] = c[at + i];
    c[q + Q_HEAD] = (c[q + Q_HEAD] + 1) % this.capacity;
    c[q + Q_COUNT]--;
    this.notFull.notifyOne();
    this.m.unlock();
    return m;
  }

  // take() if an item is in now, else undefined (the textbook tryRecv).
  tryTake() {
    this.m.lock();
    const empty = this.c[this.at + Q_COUNT] === 0;
    this.m.unlock();
    return empty ? undefined : this.take();
  }
}
