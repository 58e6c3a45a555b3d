// Channel: a bounded queue of messages between agents (wasm/core/chan.go).
// Go decides who may copy a message in or out (it takes the channel's lock,
// and waits for room or a message); the glue copies between that first
// step and Go's commit, and turns bytes into the kind of message that was
// sent. The uncontended steps are inlined (#fastSend, #fastRecv: the lock
// 0 -> 1 with the holder slot, the look, the commit, the release 1 -> 0,
// and Go only to wake waiters; and a try's answer when the look finds the
// channel full or empty), as Go publishes them: a call into the Go
// module costs more than the whole send (docs/decisions/channel.md).
// browsertest's TestFamilyGlueAgreesWithCore compares them with Go's steps
// state by state.
import * as P from "./protocol.js";
import { agentId, canBlock, mustBeStarted } from "./runtime.js";
import { checkSize, describe, fill, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive } from "./primitive.js";
import { optionsNotAborted } from "./wait.js";
import { MsgChannelMismatch, MsgClosedAlready, MsgMaxBytesRange, MsgMessageTooLong } from "./messages.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const LENGTH_MASK = P.CHAN_KIND_STRING - 1;
const MAX_MESSAGE_BYTES = (P.CHAN_MAX_CELL_SLOTS - 1) * 4;
const SPIN_LOOKS = 2000; // see #spin

// Whether the engine has Atomics.pause (Chromium 133+, Firefox 137+, Safari
// 18.4+): the spin's looks pause the core between them (the x86 PAUSE and
// ARM YIELD hints) where it does, and run as a plain loop elsewhere
// (docs/decisions/atomics-pause.md).
const HAS_PAUSE = typeof (/** @type {any} */ (Atomics).pause) === "function";

export class Channel extends Primitive {
  _capacity;
  _maxBytes; // maxMessageBytes, as this agent gave it
  _cellSlots;
  _u8; // the bytes of the whole buffer
  _self = agentId;

  // main thread too. memory, index: as for Mutex, with
  // Channel.slotsFor(capacity, maxMessageBytes) slots (zeroed: an empty
  // open channel); capacity: how many messages it holds; maxMessageBytes:
  // the longest message, in bytes (a string's in UTF-8). Every agent gives
  // the same two.
  constructor(memory, index, capacity, maxMessageBytes) {
    super("Channel", slotsFor(capacity, maxMessageBytes), memory, index);
    this._capacity = capacity;
    this._maxBytes = maxMessageBytes;
    this._cellSlots = cellSlotsOf(maxMessageBytes);
    this._u8 = new Uint8Array(this._i32.buffer);
    const r = this._call(P.OP_CHAN_SET_UP, capacity, this._cellSlots);
    if (r === P.RESULT_MISMATCH) {
      const cells = Atomics.load(this._i32, this._at + 7);
      throw new Error(fill(MsgChannelMismatch, { what: this._what, capacity: Atomics.load(this._i32, this._at + 6), bytes: (cells - 1) * 4, gotCapacity: capacity, gotBytes: maxMessageBytes }));
    }
    if (r !== P.RESULT_OK) throw this._failure(r);
  }

  // main thread too. How many int32 slots a Channel of capacity messages
  // of up to maxMessageBytes each uses, from its index on.
  static slotsFor(capacity, maxMessageBytes) {
    mustBeStarted("Channel.slotsFor()");
    return slotsFor(capacity, maxMessageBytes);
  }

  // main thread too. The messages it can hold.
  get capacity() {
    return this._capacity;
  }

  // main thread too. How many messages are in it now.
  get length() {
    const n = this._call(P.OP_CHAN_LENGTH);
    if (n < 0) throw this._failure(n);
    return n;
  }

  // main thread too. Whether close() was called. (A receive that returns
  // undefined without a timeout means closed and drained.)
  get closed() {
    return (Atomics.load(this._i32, this._at + 5) & P.CHAN_CLOSED) !== 0;
  }

  // Workers only. send(msg, timeoutMs): puts msg in, waiting for room at
  // most timeoutMs (none: forever); false if it timed out. msg: a string,
  // or an ArrayBufferView (sent as its bytes, received as a Uint8Array).
  // Throws if the channel is closed, or closes while it waits.
  send(msg, timeoutMs) {
    if (!canBlock) mustNotBlock("send()", "ch.sendAsync(msg, timeoutMs)");
    const m = this.#encode(msg, "send(msg)");
    const t = timeoutOf(timeoutMs);
    return this.#spinSend(m) || this.#sent(this._wait(P.KIND_CHAN_SEND, 0, t), m);
  }

  // Main thread too. Resolves true once msg is in, false after the
  // timeout; options as for Mutex.lockAsync. Rejects if the channel is
  // closed, or closes while it waits. An aborted signal rejects, with
  // nothing sent, also when there is room.
  async sendAsync(msg, options) {
    const m = this.#encode(msg, "sendAsync(msg)");
    if (options !== undefined) optionsNotAborted(options); // before the fast path
    return this.#fastSend(m, false) || this.#sent(await this._waitAsync(P.KIND_CHAN_SEND, 0, options), m);
  }

  // Main thread too. Puts msg in if there is room now; never waits.
  trySend(msg) {
    const m = this.#encode(msg, "trySend(msg)");
    const r = this.#fastSend(m, FULL); // full: no room now (Go's answer too)
    return r === FULL ? false : r || this.#sent(this._call(P.OP_CHAN_TRY_SEND), m);
  }

  // Workers only. recv(timeoutMs): the next message, waiting at most
  // timeoutMs (none: forever); undefined if none came in time, or if the
  // channel is closed and drained (closed tells which).
  recv(timeoutMs) {
    if (!canBlock) mustNotBlock("recv()", "ch.recvAsync(timeoutMs)");
    const t = timeoutOf(timeoutMs);
    const m = this.#spinRecv();
    return m !== NOT_READY ? m : this.#received(this._wait(P.KIND_CHAN_RECV, 0, t));
  }

  // Main thread too. Resolves with the next message, or undefined as recv.
  // An aborted signal rejects, taking nothing, also when a message is in.
  async recvAsync(options) {
    if (options !== undefined) optionsNotAborted(options); // before the fast path
    const m = this.#fastRecv(NOT_READY);
    return m !== NOT_READY ? m : this.#received(await this._waitAsync(P.KIND_CHAN_RECV, 0, options));
  }

  // Main thread too. The next message if one is in now, else undefined.
  tryRecv() {
    const m = this.#fastRecv(undefined); // empty: nothing now, open or closed (Go's answer too)
    return m !== NOT_READY ? m : this.#received(this._call(P.OP_CHAN_TRY_RECV));
  }

  // Main thread too. Closes the channel: sends throw from then on (also
  // those waiting), and receivers get what is left, then undefined. Throws
  // if it was closed already.
  close() {
    const r = this._call(P.OP_CHAN_CLOSE);
    if (r === P.RESULT_CLOSED) throw new Error(fill(MsgClosedAlready, { what: this._what }));
    if (r !== P.RESULT_OK) throw this._failure(r);
  }

  // Main thread too: for await (const msg of ch) runs until the channel is
  // closed and drained.
  async *[Symbol.asyncIterator]() {
    for (let m; (m = await this.recvAsync()) !== undefined; ) yield m;
  }

  // Workers only: for (const msg of ch), the same with blocking receives.
  *[Symbol.iterator]() {
    for (let m; (m = this.recv()) !== undefined; ) yield m;
  }

  // Main thread too. A case of select/selectAsync: a receive from this channel.
  recvCase() {
    return new SelectCase(this, false, null);
  }

  // Main thread too. A case of select/selectAsync: a send of msg on this
  // channel (checked now, as send checks it).
  sendCase(msg) {
    return new SelectCase(this, true, this.#encode(msg, "sendCase(msg)"));
  }

  // select.js: case c tried once, never waiting: NOT_READY, or it happened
  // (a receive's message, or undefined when closed and drained; a send's
  // undefined). A send on a closed channel throws, as send does.
  _try(c) {
    if (c.send && this.#fastSend(c.message, false)) return undefined;
    const m = c.send ? NOT_READY : this.#fastRecv(NOT_READY);
    if (m !== NOT_READY) return m;
    const r = this._call(c.send ? P.OP_CHAN_TRY_SEND : P.OP_CHAN_TRY_RECV);
    if (r === P.RESULT_BUSY) return NOT_READY;
    if (!c.send) return this.#received(r);
    this.#sent(r, c.message);
    return undefined;
  }

  // select.js: arms case c (wasm/core/chan.go, chanArmSend): null if it
  // would not wait now, else [the Int32Array, the index, the value] to
  // sleep on.
  _arm(c) {
    const r = this._call(c.send ? P.OP_CHAN_ARM_SEND : P.OP_CHAN_ARM_RECV);
    if (r === P.RESULT_OK) return null;
    if (r < 0) throw this._failure(r);
    return [this._i32, this._at + (c.send ? 3 : 2), r];
  }

  // A message as [bytes, kind bit], checked before anything is taken.
  /** @returns {[Uint8Array, number]} */
  #encode(msg, call) {
    let bytes, kind = 0;
    if (typeof msg === "string") {
      bytes = encoder.encode(msg);
      kind = P.CHAN_KIND_STRING;
    } else if (ArrayBuffer.isView(msg)) {
      bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength);
    } else {
      throw new TypeError(
        `sabmutex: ${call} takes a string or an ArrayBufferView (a Uint8Array, for example); got ${describe(msg)}. To send other data, send JSON.stringify(data) and JSON.parse what arrives, or encode it to bytes`,
      );
    }
    if (bytes.length > this._maxBytes) {
      throw new RangeError(fill(MsgMessageTooLong, { call, bytes: bytes.length, encoded: kind ? " in UTF-8" : "", max: this._maxBytes, what: this._what }));
    }
    return [bytes, kind];
  }

  // The fast paths. #lock: the channel's lock if it is free (0 -> 1, then
  // the holder slot); #unlock gives it back (Go's unlock if someone waits
  // for it). #fastSend puts m in and returns true, `full` if it found the
  // channel open and full (trySend's FULL; the waits' false), or false for
  // Go to decide (the lock held, closed, a word it cannot read). #fastRecv
  // returns the message at the head, `empty` if it found none (tryRecv's
  // undefined: no message now, open or closed; the waits' NOT_READY), or
  // NOT_READY for Go to decide (the lock held, a word it cannot read).
  #lock() {
    if (Atomics.compareExchange(this._i32, this._at, 0, P.STATE_LOCKED) !== 0) return false;
    this._i32[this._at + 1] = this._self;
    return true;
  }

  #unlock() {
    const i32 = this._i32, at = this._at;
    i32[at + 1] = 0;
    if (Atomics.compareExchange(i32, at, P.STATE_LOCKED, 0) === P.STATE_LOCKED) return;
    i32[at + 1] = this._self; // Go's turn
    const r = this._call(P.OP_UNLOCK);
    if (r !== P.RESULT_OK) throw this._failure(r);
  }

  #fastSend([bytes, kind], full) {
    if (!this.#lock()) return false;
    const i32 = this._i32, at = this._at, t = i32[at + 5], count = this.#count(t, i32[at + 4]); // (plain reads under the lock: see #fastRecv)
    // Room, as a newcomer: the last cell is left to a starving sender (the
    // tail's CHAN_STARVING: wasm/core/chan.go, chanSide).
    const open = (t & P.CHAN_CLOSED) === 0, room = open && count >= 0 && (count + 1 < this._capacity || (count < this._capacity && (t & P.CHAN_STARVING) === 0));
    if (room) {
      const cell = this.#cell(t);
      i32[cell] = bytes.length | kind;
      this._u8.set(bytes, (cell + 1) * 4);
    }
    const sent = room && Atomics.compareExchange(i32, at + 5, t, ((t & P.CHAN_POS_MASK) + 1) % (2 * this._capacity) | (t & P.CHAN_STARVING)) === t; // (fails if closed meanwhile)
    this.#unlock();
    if (sent && (Atomics.load(i32, at + 2) & P.CHAN_WAITERS) !== 0) this._call(P.OP_CHAN_WAKE, 0);
    return sent || (open && count === this._capacity ? full : false);
  }

  #fastRecv(empty) {
    if (!this.#lock()) return NOT_READY;
    // Plain reads of the head and tail: whoever moves them holds the lock,
    // taken above by a compare-and-swap that sees their last release (close
    // sets the tail's closed bit without it, and a read from before that is
    // a receive from before the close). Atomics.load is dear in V8 here:
    // docs/decisions/failing-tries.md.
    // A head with CHAN_STARVING (a receiver starves) is Go's: #count finds it
    // out of range, as the plain store below could undo a give-up's clear.
    const i32 = this._i32, at = this._at, h = i32[at + 4], count = this.#count(i32[at + 5], h);
    if (count <= 0) {
      this.#unlock();
      return count === 0 ? empty : NOT_READY; // empty, or Go reports what is wrong
    }
    const cell = this.#cell(h), meta = i32[cell], length = meta & LENGTH_MASK;
    if (meta < 0 || length > (this._cellSlots - 1) * 4) {
      this.#unlock();
      return NOT_READY; // Go reports what is wrong
    }
    const start = (cell + 1) * 4, bytes = this._u8.slice(start, start + length);
    Atomics.store(i32, at + 4, (h + 1) % (2 * this._capacity));
    this.#unlock();
    if ((Atomics.load(i32, at + 3) & P.CHAN_WAITERS) !== 0) this._call(P.OP_CHAN_WAKE, 1);
    return meta & P.CHAN_KIND_STRING ? decoder.decode(bytes) : bytes;
  }

  // A blocking send or receive that finds no room (send) or no message, or
  // the lock held, looks again for up to SPIN_LOOKS loads in all, and tries
  // again each time it may go: between a producer and a consumer of about
  // the same speed the gap is short beside a sleep and its wake-up, or Go's
  // slow path (docs/decisions/channel.md). #spinSend: true if
  // sent; #spinRecv: the message, or NOT_READY for Go to decide.
  #spinSend(m) {
    for (let left = SPIN_LOOKS; ; ) {
      if (this.#fastSend(m, false)) return true;
      if ((left = this.#spin(true, left)) < 0) return false;
    }
  }

  #spinRecv() {
    for (let left = SPIN_LOOKS; ; ) {
      const m = this.#fastRecv(NOT_READY);
      if (m !== NOT_READY) return m;
      if ((left = this.#spin(false, left)) < 0) return NOT_READY;
    }
  }

  // Looks until the lock is free with room (send) or a message in it: the
  // looks left of the budget (0 or more), or -1 once it is spent or the
  // channel closed (Go's to report). So a send or receive makes at most
  // SPIN_LOOKS looks and one try more than that.
  #spin(send, left) {
    const i32 = this._i32, at = this._at;
    while (left-- > 0) {
      const t = Atomics.load(i32, at + 5), count = this.#count(t, Atomics.load(i32, at + 4));
      if (Atomics.load(i32, at) === 0 && (send ? count >= 0 && count < this._capacity : count > 0)) return left;
      if (t & P.CHAN_CLOSED) return -1;
      if (HAS_PAUSE) /** @type {any} */ (Atomics).pause();
    }
    return -1;
  }

  // Messages in it, from the tail word t and the head (-1: out of range, Go's to report).
  #count(t, h) {
    const n = 2 * this._capacity, p = t & P.CHAN_POS_MASK;
    return t < 0 || p >= n || h < 0 || h >= n ? -1 : (p - h + n) % n;
  }

  // The end of a send, after Go's first step returned r: if it holds the
  // lock (resultOK), the copy into the cell at the tail, then Go's commit.
  #sent(r, [bytes, kind]) {
    if (r === P.RESULT_OK || r === P.RESULT_HOLDER_DIED) {
      const i32 = this._i32;
      const cell = this.#cell(Atomics.load(i32, this._at + 5) & P.CHAN_POS_MASK);
      i32[cell] = bytes.length | kind;
      this._u8.set(bytes, (cell + 1) * 4);
      r = this._call(P.OP_CHAN_SEND_COMMIT);
    }
    if (r === P.RESULT_OK) return true;
    if (r === P.RESULT_BUSY) return false;
    if (r === P.RESULT_CLOSED) throw new Error(`sabmutex: send on a closed channel (${this._what}); nothing was sent. Stop sending once it is closed, or check ch.closed`);
    throw this._failure(r);
  }

  // The end of a receive: if it holds the lock, the copy out of the cell at
  // the head, then Go's commit.
  #received(r) {
    if (r === P.RESULT_BUSY || r === P.RESULT_CLOSED) return undefined;
    if (r !== P.RESULT_OK && r !== P.RESULT_HOLDER_DIED) throw this._failure(r);
    const i32 = this._i32;
    const cell = this.#cell(Atomics.load(i32, this._at + 4) & P.CHAN_POS_MASK);
    const meta = i32[cell], length = meta & LENGTH_MASK, start = (cell + 1) * 4;
    if (meta < 0 || length > (this._cellSlots - 1) * 4) {
      this._call(P.OP_UNLOCK); // change nothing
      throw new Error(`sabmutex: corrupted message in ${this._what}: its length word holds ${meta}, which no message can have, so something else wrote to its slots; give each object its own slots`);
    }
    const bytes = this._u8.slice(start, start + length); // a copy, in an ArrayBuffer of its own
    const c = this._call(P.OP_CHAN_RECV_COMMIT);
    if (c !== P.RESULT_OK) throw this._failure(c);
    return meta & P.CHAN_KIND_STRING ? decoder.decode(bytes) : bytes;
  }

  // The first slot of the cell of position pos.
  #cell(pos) {
    return this._at + P.CHAN_SLOTS + (pos % this._capacity) * this._cellSlots;
  }
}

// What _try returns for a case that would have to wait.
export const NOT_READY = Symbol("not ready");
const FULL = Symbol("full"); // trySend's answer from #fastSend: no room now

// A case of select: made by recvCase() and sendCase(msg) only.
export class SelectCase {
  constructor(channel, send, message) {
    this.channel = channel;
    this.send = send;
    this.message = message;
  }
}

function cellSlotsOf(maxMessageBytes) {
  return 1 + Math.ceil(maxMessageBytes / 4);
}

function slotsFor(capacity, maxMessageBytes) {
  checkSize("capacity", capacity, P.CHAN_MAX_CAPACITY);
  if (typeof maxMessageBytes !== "number" || !Number.isInteger(maxMessageBytes) || maxMessageBytes < 0 || maxMessageBytes > MAX_MESSAGE_BYTES) {
    throw new RangeError(fill(MsgMaxBytesRange, { max: MAX_MESSAGE_BYTES, got: describe(maxMessageBytes) }));
  }
  return P.CHAN_SLOTS + capacity * cellSlotsOf(maxMessageBytes);
}
