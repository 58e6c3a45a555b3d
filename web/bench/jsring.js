// The Channel's yardstick in the channel section (chan.js): a lock-free
// single-producer single-consumer ring in plain JS, written as a careful
// hand-written one is (issue 35). Its cells are the Channel's: capacity
// cells of a length word and maxMessageBytes of bytes each. Strings are
// encoded with TextEncoder.encodeInto straight into the cell, bytes copied
// in; the consumer copies bytes out, and decodes strings (from a copy where
// TextDecoder refuses a view of shared memory, as the Channel must).
//
// Each side keeps its own position and the last it saw of the other's, so
// that it reads the other's cache line only when the ring looks full
// (producer) or empty (consumer). There it looks again, up to SPIN_LOOKS
// times, then flags that it sleeps, looks once more and sleeps in
// Atomics.wait on the other side's position; the other side notifies only
// when it finds the flag set. The flag is stored before the last look and
// the position before the other side reads the flag, all seq-cst: one of
// the two sees the other's store, so a wake-up is never lost.
//
// One producer and one consumer, no close: the bench sends a known count.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const STRING = 1 << 30; // in a cell's length word: the message is a string (the Channel's CHAN_KIND_STRING)
const LENGTH_MASK = STRING - 1;
const SPIN_LOOKS = 2000; // the Channel's (jsglue/channel.js), so that the two differ in the queue, not in how long they spin
const HAS_PAUSE = typeof (/** @type {any} */ (Atomics).pause) === "function"; // as the Channel's spin

// Whether f accepts a view of shared memory (TextDecoder.decode refuses
// one in some engines).
function acceptsShared(f) {
  try {
    f(new Uint8Array(new SharedArrayBuffer(8)));
    return true;
  } catch {
    return false;
  }
}
const ENCODE_SHARED = acceptsShared((u) => encoder.encodeInto("a", u));
const DECODE_SHARED = acceptsShared((u) => decoder.decode(u));

// Slots from index on: the producer's line (its position, and the flag
// the consumer sets before it sleeps), the consumer's line (its position,
// the producer's flag), then the cells. Positions count messages, modulo
// 2^32; a position's cell is position mod capacity.
const TAIL = 0, CONSUMER_SLEEPS = 1, HEAD = 16, PRODUCER_SLEEPS = 17, CELLS = 32;

export class JsRing {
  // memory: a SharedArrayBuffer; index: its first int32 slot (JsRing.slotsFor
  // of them, zeroed); capacity: a power of 2. Each side makes its own.
  constructor(memory, index, capacity, maxMessageBytes) {
    if (capacity <= 0 || (capacity & (capacity - 1)) !== 0) throw new RangeError(`JsRing: capacity ${capacity} is not a power of 2`);
    this.i32 = new Int32Array(memory);
    this.u8 = new Uint8Array(memory);
    this.at = index;
    this.mask = capacity - 1;
    this.capacity = capacity;
    this.maxBytes = maxMessageBytes;
    this.cellSlots = 1 + Math.ceil(maxMessageBytes / 4);
    // This side's position and the last seen of the other's.
    this.tail = this.seenTail = Atomics.load(this.i32, index + TAIL);
    this.head = this.seenHead = Atomics.load(this.i32, index + HEAD);
  }

  static slotsFor(capacity, maxMessageBytes) {
    return CELLS + capacity * (1 + Math.ceil(maxMessageBytes / 4));
  }

  // The producer: puts msg (a string, or an ArrayBufferView's bytes) in,
  // waiting for room.
  send(msg) {
    const i32 = this.i32, t = this.tail;
    if (((t - this.seenHead) | 0) >= this.capacity) this.seenHead = this.#waitFor(HEAD, PRODUCER_SLEEPS, (h) => ((t - h) | 0) < this.capacity);
    const cell = this.at + CELLS + (t & this.mask) * this.cellSlots, start = (cell + 1) * 4;
    let meta;
    if (typeof msg === "string") {
      if (ENCODE_SHARED) {
        const { read, written } = encoder.encodeInto(msg, this.u8.subarray(start, start + this.maxBytes));
        if (read !== msg.length) this.#tooLong(msg);
        meta = written | STRING;
      } else {
        const bytes = encoder.encode(msg);
        if (bytes.length > this.maxBytes) this.#tooLong(msg);
        this.u8.set(bytes, start);
        meta = bytes.length | STRING;
      }
    } else {
      const bytes = msg instanceof Uint8Array ? msg : new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength);
      if (bytes.length > this.maxBytes) this.#tooLong(msg);
      this.u8.set(bytes, start);
      meta = bytes.length;
    }
    i32[cell] = meta;
    this.tail = (t + 1) | 0;
    Atomics.store(i32, this.at + TAIL, this.tail); // publishes the cell
    if (Atomics.load(i32, this.at + CONSUMER_SLEEPS) !== 0) Atomics.notify(i32, this.at + TAIL, 1);
  }

  // The consumer: the next message (a string, or a new Uint8Array), waiting
  // for one.
  recv() {
    const i32 = this.i32, h = this.head;
    if (h === this.seenTail) this.seenTail = this.#waitFor(TAIL, CONSUMER_SLEEPS, (t) => t !== h);
    const cell = this.at + CELLS + (h & this.mask) * this.cellSlots, start = (cell + 1) * 4;
    const meta = i32[cell], length = meta & LENGTH_MASK;
    if (meta < 0 || length > this.maxBytes) throw new Error(`JsRing: corrupted cell (length word ${meta})`);
    let m;
    if (meta & STRING) m = decoder.decode(DECODE_SHARED ? this.u8.subarray(start, start + length) : this.u8.slice(start, start + length));
    else m = this.u8.slice(start, start + length);
    this.head = (h + 1) | 0;
    Atomics.store(i32, this.at + HEAD, this.head); // gives the cell back
    if (Atomics.load(i32, this.at + PRODUCER_SLEEPS) !== 0) Atomics.notify(i32, this.at + HEAD, 1);
    return m;
  }

  // Waits until ready(the other side's position at slot), and returns that
  // position: SPIN_LOOKS looks, then sleeps flagged in sleeps, on slot.
  // Only the other side moves slot, and any move makes ready true (one
  // producer, one consumer), so the wait's expected value is the last look.
  #waitFor(slot, sleeps, ready) {
    const i32 = this.i32, at = this.at;
    for (let left = SPIN_LOOKS; ; ) {
      const p = Atomics.load(i32, at + slot);
      if (ready(p)) return p;
      if (left-- > 0) {
        if (HAS_PAUSE) /** @type {any} */ (Atomics).pause();
        continue;
      }
      Atomics.store(i32, at + sleeps, 1);
      if (Atomics.load(i32, at + slot) === p) Atomics.wait(i32, at + slot, p);
      Atomics.store(i32, at + sleeps, 0);
    }
  }

  #tooLong(msg) {
    throw new RangeError(`JsRing: a message longer than ${this.maxBytes} bytes (${typeof msg === "string" ? `"${msg.slice(0, 20)}"` : `${msg.byteLength} bytes`})`);
  }
}
