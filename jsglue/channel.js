// Channel: a bounded queue of messages between agents (internal/core/chan.go).
// No lock: a send claims the cell at the tail (its stamp, naming this
// agent), moves the tail past it, copies the message in and commits (the
// cell's stamp again, with no claimer); a receive likewise at the head.
// Go defines every step (chan.go's table); the uncontended ones are inlined
// here (#fastSend, #fastRecv: the look, the claim, the copy, the commit, and
// Go only to wake waiters), step by step as Go takes them, since a call into
// the Go module costs more than the whole send
// (docs/decisions/channel-ring.md). Go's claim (OP_CHAN_CLAIM_SEND,
// OP_CHAN_CLAIM_RECV) and its waits for room or a message do the rest.
// browsertest's TestFamilyGlueAgreesWithCore compares them with Go's steps
// state by state.
import * as P from "./protocol.js";
import { canBlock, mustBeStarted } from "./runtime.js";
import { checkSize, describe, fill, mustNotBlock, timeoutOf } from "./errors.js";
import { Primitive } from "./primitive.js";
import { asyncOptions, optionsNotAborted, waitFor, SPIN_LOOKS, HAS_PAUSE } from "./wait.js";
import { MsgChannelMismatch, MsgClosedAlready, MsgMaxBytesRange, MsgMessageTooLong } from "./messages.js";
import { named } from "./names.js";
import { endQueueWait, handOffsOf, nextTask, queueBehind, tasksWaiting, waitForQueue } from "./mutex.js";

// The hand-off between tasks of one agent (issue 60), as the Semaphore's
// (semaphore.js) where the waiters of a side are its sendAsync tasks (room)
// or its recvAsync tasks (a message). The tasks of this agent that wait on
// one side of a Channel wait in a queue of the agent's (sendQueues,
// recvQueues: by buffer and index), FIFO, and one wait on the side's word
// stands for them (mutex.js's waitForQueue), as any waiter's (the core
// knows of it: snapshot(), the watch). When that wait finds the side
// ready, and whenever a send (a receive) of this agent has committed, with
// tasks queued on the other side, the queue's first tasks claim in turn
// (_serve), in this job, while they can: a message sent by a task of the
// agent reaches the first of its receiving tasks without a wake-up, and a
// cell freed by a receive takes the first waiting task's message.
//
// Nothing new is shared: each claim is a claim of the ring, as a newcomer
// makes it, or as a waiter once the queue's wait came back as one (Go's
// resultWaiter: h.waiter, until a task of the queue has claimed). So the
// ring's order holds, and its bound: a worker that starves on a side sets
// chanStarving, and the queue's claims, newcomers', leave it the last
// message (or cell) as every newcomer's do (chan.go).
/** @type {WeakMap<ArrayBufferLike, Map<number, any>>} */
const sendQueues = new WeakMap();
/** @type {WeakMap<ArrayBufferLike, Map<number, any>>} */
const recvQueues = new WeakMap();
const sendKind = (h) => (h.waiter ? P.KIND_CHAN_ROOM_WAITED : P.KIND_CHAN_ROOM);
const recvKind = (h) => (h.waiter ? P.KIND_CHAN_MESSAGE_WAITED : P.KIND_CHAN_MESSAGE);
// A queue's wait came back ready (RESULT_OK, or RESULT_WAITER): its tasks claim.
const sendReady = (h, first, r) => readyServe(h, first, r, true);
const recvReady = (h, first, r) => readyServe(h, first, r, false);
function readyServe(h, first, r, send) {
  if (r !== P.RESULT_OK && r !== P.RESULT_WAITER) return false;
  if (r === P.RESULT_WAITER && h.head < h.tasks.length) h.waiter = true;
  first.m._serve(h, send);
  return true;
}
// A queue emptied: its wait ends, and the queue is a newcomer again.
const emptied = (h) => ((h.waiter = false), endQueueWait(h));
// A queue of this agent's tasks, if any wait in it.
const queueAt = (queues, i32, at) => {
  const h = queues.get(i32.buffer)?.get(at);
  return h !== undefined && h.head < h.tasks.length ? h : undefined;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const LENGTH_MASK = P.CHAN_KIND_STRING - 1;
const MAX_MESSAGE_BYTES = (P.CHAN_MAX_CELL_SLOTS - P.CHAN_CELL_WORDS) * 4;

// Whether f takes a view of shared memory: TextEncoder.encodeInto and
// TextDecoder.decode may (the Encoding standard's [AllowShared]), or may
// throw, engine by engine; and a view of a growable SharedArrayBuffer,
// which WebKit's refuse (Web IDL's [AllowResizable], which the Encoding
// standard does not give them), where Node's take it.
function takesShared(f, growable) {
  try {
    f(new Uint8Array(growable ? new SharedArrayBuffer(4, { maxByteLength: 8 }) : new SharedArrayBuffer(4)));
    return true;
  } catch {
    return false;
  }
}
const ENCODE_SHARED = takesShared((u) => encoder.encodeInto("a", u), false);
const DECODE_SHARED = takesShared((u) => decoder.decode(u), false);
const ENCODE_GROWABLE = ENCODE_SHARED && takesShared((u) => encoder.encodeInto("a", u), true);
const DECODE_GROWABLE = DECODE_SHARED && takesShared((u) => decoder.decode(u), true);

export class Channel extends Primitive {
  _capacity;
  _maxBytes; // maxMessageBytes, as this agent gave it
  _cellSlots;
  _u8; // the bytes of the whole buffer
  _encodeShared; // whether a string is encoded straight into its cell (ENCODE_SHARED, for this buffer)
  _decodeShared; // and decoded straight from it
  _mark; // the claimer bits of this agent's stamps (chan.go's channel.mark), which set-up gives

  // main thread too. memory, index: as for Mutex, with
  // Channel.slotsFor(capacity, maxMessageBytes) slots (zeroed: an empty
  // open channel); capacity: how many messages it holds; maxMessageBytes:
  // the longest message, in bytes (a string's in UTF-8). Every agent gives
  // the same two.
  constructor(memory, index, capacity, maxMessageBytes) {
    super("Channel", slotsFor(capacity, maxMessageBytes), memory, index,
      `a Channel of capacity ${capacity} and ${maxMessageBytes}-byte messages`, `Channel.slotsFor(${capacity}, ${maxMessageBytes})`);
    this._capacity = capacity;
    this._maxBytes = maxMessageBytes;
    this._cellSlots = cellSlotsOf(maxMessageBytes);
    this._u8 = new Uint8Array(this._i32.buffer, 0, this._i32.length * 4); // (not length-tracking: see slots.js)
    const growable = /** @type {SharedArrayBuffer} */ (this._i32.buffer).growable;
    this._encodeShared = growable ? ENCODE_GROWABLE : ENCODE_SHARED;
    this._decodeShared = growable ? DECODE_GROWABLE : DECODE_SHARED;
    const r = this._call(P.OP_CHAN_SET_UP, capacity, this._cellSlots); // (this agent's mark)
    if (r === P.RESULT_MISMATCH) {
      const cells = Atomics.load(this._i32, this._at + P.CHAN_CELL_SIZE_AT);
      throw new Error(fill(MsgChannelMismatch, { what: this._what, capacity: Atomics.load(this._i32, this._at + P.CHAN_CAPACITY_AT), bytes: (cells - P.CHAN_CELL_WORDS) * 4, gotCapacity: capacity, gotBytes: maxMessageBytes }));
    }
    if (r < 0) throw this._failure(r);
    this._mark = r;
  }

  // main thread too. The Channel named name in this agent's registry: every
  // agent of the registry (the page, the workers given its forWorker(), Go
  // programs that joined) gets the same one, with no memory to lay out.
  // options: { capacity, maxMessageBytes }, as for the constructor, which
  // the agent that creates it gives; optional after, and then the same.
  static named(name, options) {
    return named(P.NAME_KIND_CHANNEL, name, ...channelOptions(options), (buffer, index, a, b) => new Channel(buffer, index, a, b));
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
    return (Atomics.load(this._i32, this._at + P.CHAN_TAIL) & P.CHAN_CLOSED) !== 0;
  }

  // Workers only. send(msg, timeoutMs): puts msg in, waiting for room at
  // most timeoutMs (none: forever); false if it timed out. msg: a string,
  // or an ArrayBufferView (sent as its bytes, received as a Uint8Array).
  // Throws if the channel is closed, or closes while it waits.
  send(msg, timeoutMs) {
    if (!canBlock) mustNotBlock("send()", "ch.sendAsync(msg, timeoutMs)");
    const m = this.#encode(msg, "send(msg)");
    const t = timeoutOf(timeoutMs);
    // (The fast path once first: a send that finds room at once needs none
    // of the spin's bookkeeping.)
    if (this.#fastSend(m, false) === true || this.#spinSend(m)) return this.#sent();
    const deadlineMs = performance.now() + t;
    for (let waiter = false; ; ) {
      if (this.#claimSend(m, waiter)) return this.#sent();
      const r = this._wait(waiter ? P.KIND_CHAN_ROOM_WAITED : P.KIND_CHAN_ROOM, 0, Math.max(0, deadlineMs - performance.now()));
      if (r === P.RESULT_BUSY) return false;
      waiter = waiter || this.#waiterOf(r);
    }
  }

  // Main thread too. Resolves true once msg is in, false after the
  // timeout; options as for Mutex.lockAsync. Rejects if the channel is
  // closed, or closes while it waits. An aborted signal rejects, with
  // nothing sent, also when there is room.
  async sendAsync(msg, options) {
    const m = this.#encode(msg, "sendAsync(msg)");
    if (options !== undefined) optionsNotAborted(options); // before the fast path
    const queued = tasksWaiting() !== 0 && queueAt(sendQueues, this._i32, this._at) !== undefined;
    if (!queued && this.#fastSend(m, false) === true) return this.#sent();
    const o = asyncOptions(options);
    if (o.timeoutMs === 0) return this.#sendOnce(m, o.signal);
    // Behind the agent's queue, or alone: one try, then the queue (see sendQueues).
    const h = handOffsOf(this._i32, this._at, sendQueues);
    h.emptied = emptied;
    if (!queued && this.#claimSend(m, false)) return this.#sent();
    const p = queueBehind(this, h, o, 0, m);
    if (!h.waiting) waitForQueue(h, sendKind, sendReady);
    return p;
  }

  // sendAsync with a timeout of 0: a try, and a wait that never sleeps.
  async #sendOnce(m, signal) {
    for (let waiter = false; ; ) {
      if (this.#claimSend(m, waiter)) return this.#sent();
      const r = await waitFor(waiter ? P.KIND_CHAN_ROOM_WAITED : P.KIND_CHAN_ROOM, this, 0, 0, signal);
      if (r === P.RESULT_BUSY) return false;
      waiter = waiter || this.#waiterOf(r);
    }
  }

  // Main thread too. Puts msg in if there is room now; never waits.
  trySend(msg) {
    const m = this.#encode(msg, "trySend(msg)");
    const r = this.#fastSend(m, FULL); // full: no room now (Go's answer too)
    return r === FULL ? false : (r || this.#claimSend(m, false)) && this.#sent();
  }

  // Workers only. recv(timeoutMs): the next message, waiting at most
  // timeoutMs (none: forever); undefined if none came in time, or if the
  // channel is closed and drained (closed tells which).
  recv(timeoutMs) {
    if (!canBlock) mustNotBlock("recv()", "ch.recvAsync(timeoutMs)");
    const t = timeoutOf(timeoutMs);
    let m = this.#fastRecv(NOT_READY); // (as send's first try)
    if (m === NOT_READY) m = this.#spinRecv();
    if (m !== NOT_READY) return this.#received(m);
    const deadlineMs = performance.now() + t;
    for (let waiter = false; ; ) {
      const got = this.#claimRecv(waiter);
      if (got !== NOT_READY) return this.#received(got);
      const r = this._wait(waiter ? P.KIND_CHAN_MESSAGE_WAITED : P.KIND_CHAN_MESSAGE, 0, Math.max(0, deadlineMs - performance.now()));
      if (r === P.RESULT_BUSY) return undefined;
      waiter = waiter || this.#waiterOf(r);
    }
  }

  // Main thread too. Resolves with the next message, or undefined as recv.
  // An aborted signal rejects, taking nothing, also when a message is in.
  async recvAsync(options) {
    if (options !== undefined) optionsNotAborted(options); // before the fast path
    const queued = tasksWaiting() !== 0 && queueAt(recvQueues, this._i32, this._at) !== undefined;
    if (!queued) {
      const m = this.#fastRecv(NOT_READY);
      if (m !== NOT_READY) return this.#received(m);
    }
    const o = asyncOptions(options);
    if (o.timeoutMs === 0) return this.#recvOnce(o.signal);
    // Behind the agent's queue, or alone: one try, then the queue (see recvQueues).
    const h = handOffsOf(this._i32, this._at, recvQueues);
    (h.emptied = emptied), (h.timedOut = undefined);
    if (!queued) {
      const got = this.#claimRecv(false);
      if (got !== NOT_READY) return this.#received(got);
    }
    const p = queueBehind(this, h, o, 0);
    if (!h.waiting) waitForQueue(h, recvKind, recvReady);
    return p;
  }

  // recvAsync with a timeout of 0: a try, and a wait that never sleeps.
  async #recvOnce(signal) {
    for (let waiter = false; ; ) {
      const got = this.#claimRecv(waiter);
      if (got !== NOT_READY) return this.#received(got);
      const r = await waitFor(waiter ? P.KIND_CHAN_MESSAGE_WAITED : P.KIND_CHAN_MESSAGE, this, 0, 0, signal);
      if (r === P.RESULT_BUSY) return undefined;
      waiter = waiter || this.#waiterOf(r);
    }
  }

  // After a send of this agent committed: the first tasks of its queue of
  // receivers claim (_serve), if tasks wait there. Returns true.
  #sent() {
    if (tasksWaiting() !== 0) {
      const h = queueAt(recvQueues, this._i32, this._at);
      if (h !== undefined) this._serve(h, false);
    }
    return true;
  }

  // After a receive of this agent (message m; undefined: closed and
  // drained): its queue of senders likewise. Returns m.
  #received(m) {
    if (tasksWaiting() !== 0 && m !== undefined) {
      const h = queueAt(sendQueues, this._i32, this._at);
      if (h !== undefined) this._serve(h, true);
    }
    return m;
  }

  // The turn of queue h of this Channel's senders (send) or receivers: its
  // first tasks claim in turn, each as its own Channel object (which
  // checked its message), until one cannot now. A claim that throws (a
  // closed channel's send, a corrupted message) is its task's. Each claim
  // serves the other side's queue in turn (#sent, #received); a turn of a
  // queue already being served is that one's.
  _serve(h, send) {
    if (h.serving) return;
    h.serving = true;
    try {
      for (let task; (task = h.tasks[h.head]) !== undefined; ) {
        let got;
        try {
          got = send ? task.m.#queuedSend(task.data, h.waiter) : task.m.#queuedRecv(h.waiter);
        } catch (e) {
          nextTask(h);
          task.reject(e);
          continue;
        }
        if (got === NOT_READY) return;
        nextTask(h);
        h.waiter = false;
        task.resolve(got);
        if (send) task.m.#sent();
        else task.m.#received(got);
      }
    } finally {
      h.serving = false;
    }
  }

  // A queued task's claim, as a waiter or a newcomer: the fast path where
  // it can answer (full, empty and open: not now), else Go's. A send's:
  // true, or NOT_READY; a receive's: as #claimRecv.
  #queuedSend(m, waiter) {
    const r = this.#fastSend(m, FULL);
    if (r === true) return true;
    return r !== FULL && this.#claimSend(m, waiter) ? true : NOT_READY;
  }

  #queuedRecv(waiter) {
    const m = this.#fastRecv(EMPTY);
    if (m !== NOT_READY && m !== EMPTY) return m;
    if (m === EMPTY && (Atomics.load(this._i32, this._at + P.CHAN_TAIL) & P.CHAN_CLOSED) === 0) return NOT_READY;
    return this.#claimRecv(waiter);
  }

  // Main thread too. The next message if one is in now, else undefined.
  tryRecv() {
    const m = this.#fastRecv(undefined); // empty: nothing now, open or closed (Go's answer too)
    if (m !== NOT_READY) return this.#received(m);
    const got = this.#claimRecv(false);
    return got === NOT_READY ? undefined : this.#received(got);
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
    if (c.send) return this.#fastSend(c.message, false) === true || this.#claimSend(c.message, false) ? (this.#sent(), undefined) : NOT_READY;
    const m = this.#fastRecv(NOT_READY);
    const got = m !== NOT_READY ? m : this.#claimRecv(false);
    return got === NOT_READY ? got : this.#received(got);
  }

  // select.js: arms case c (internal/core/chan.go, chanArm): null if it would
  // not wait now, else [the Int32Array, the index, the value] to sleep on.
  _arm(c) {
    const r = this._call(c.send ? P.OP_CHAN_ARM_SEND : P.OP_CHAN_ARM_RECV);
    if (r === P.RESULT_OK) return null;
    if (r < 0) throw this._failure(r);
    return [this._i32, this._at + (c.send ? P.CHAN_SEND_SEQ_AT : P.CHAN_RECV_SEQ_AT), r];
  }

  // A message checked before anything is taken: a string that fits in
  // UTF-8, or its bytes (Utf8), or a Uint8Array of the bytes of an
  // ArrayBufferView. Where the engine's TextEncoder writes into shared
  // memory, a string stays one, to be encoded straight into its cell
  // (#copyIn), its length in UTF-8 counted only where its length in code
  // units leaves it open; elsewhere it is encoded now, once, as it must be
  // to be copied in: counting its length first would only add to that.
  /** @returns {string | Utf8 | Uint8Array} */
  #encode(msg, call) {
    const max = this._maxBytes;
    if (typeof msg === "string") {
      if (this._encodeShared) {
        // At least one byte a code unit, at most three.
        if (msg.length <= max && (msg.length * 3 <= max || utf8Length(msg) <= max)) return msg;
      } else {
        const bytes = encoder.encode(msg);
        if (bytes.length <= max) return new Utf8(bytes);
      }
      throw new RangeError(fill(MsgMessageTooLong, { call, bytes: utf8Length(msg), encoded: " in UTF-8", max, what: this._what }));
    }
    if (!ArrayBuffer.isView(msg)) {
      throw new TypeError(
        `sabmutex: ${call} takes a string or an ArrayBufferView (a Uint8Array, for example); got ${describe(msg)}. To send other data, send JSON.stringify(data) and JSON.parse what arrives, or encode it to bytes`,
      );
    }
    const bytes = msg instanceof Uint8Array ? msg : new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength);
    if (bytes.length > max) throw new RangeError(fill(MsgMessageTooLong, { call, bytes: bytes.length, encoded: "", max, what: this._what }));
    return bytes;
  }

  // The copy of message m (as #encode returned it) into the cell this
  // agent claimed: its meta word, then its bytes. A string is encoded
  // straight into the cell where the engine's TextEncoder takes shared
  // memory.
  #copyIn(cell, m) {
    const start = (cell + P.CHAN_CELL_WORDS) * 4;
    if (typeof m === "string") {
      this._i32[cell + P.CHAN_CELL_META_AT] = encoder.encodeInto(m, this._u8.subarray(start, start + this._maxBytes)).written | P.CHAN_KIND_STRING;
    } else if (m instanceof Utf8) {
      this._i32[cell + P.CHAN_CELL_META_AT] = m.bytes.length | P.CHAN_KIND_STRING;
      this._u8.set(m.bytes, start);
    } else {
      this._i32[cell + P.CHAN_CELL_META_AT] = m.length;
      this._u8.set(m, start);
    }
  }

  // The fast paths, chan.go's chanLook and chanClaim as a newcomer takes
  // them, then the copy and chanCommit. #fastSend puts m in and returns
  // true, `full` if it found the channel open and full (trySend's FULL; the
  // waits' false), or false for Go to decide (the cell another's, closed,
  // a flagged word, a word it cannot read, a claim that lost a race).
  // #fastRecv returns the message at the head, `empty` if it found none
  // (tryRecv's undefined: no message now, open or closed; the waits'
  // NOT_READY), or NOT_READY for Go to decide (likewise, and a void cell).
  #fastSend(m, full) {
    const i32 = this._i32, at = this._at, n = this._capacity;
    const t = Atomics.load(i32, at + P.CHAN_TAIL), p = t & P.CHAN_POS_MASK;
    // chanLook: Go's when the tail is flagged (closed, a starving sender)
    // or out of range.
    if (t !== p || p >= 2 * n) return false;
    const cell = this.#cell(p), lap = p < n ? 0 : P.CHAN_LAP;
    if (Atomics.load(i32, cell) !== lap) {
      const h = Atomics.load(i32, at + P.CHAN_HEAD); // full, or another's copy?
      return h >= 0 && h < 2 * n && (p - h + 2 * n) % (2 * n) === n ? full : false;
    }
    // chanClaim: the stamp names this agent, then the tail p -> p+1.
    if (Atomics.compareExchange(i32, cell, lap, lap | this._mark) !== lap) return false;
    if (Atomics.compareExchange(i32, at + P.CHAN_TAIL, t, p + 1 < 2 * n ? p + 1 : 0) !== t) return this.#letGo(cell, lap);
    this.#copyIn(cell, m);
    // chanCommit: the stamp, with no claimer (which publishes the copy),
    // then Go to wake (chanWakeAfter) if the receivers wait, or anyone
    // found a cell mid-claim.
    Atomics.store(i32, cell, lap | P.CHAN_FULL);
    const r = Atomics.load(i32, at + P.CHAN_RECV_SEQ_AT), w = Atomics.load(i32, at + P.CHAN_SEND_SEQ_AT);
    if (((r & P.CHAN_WAITERS) | ((r | w) & P.CHAN_CLAIM_WAITERS)) !== 0) this._call(P.OP_CHAN_WAKE, 0);
    return true;
  }

  #fastRecv(empty) {
    const i32 = this._i32, at = this._at, n = this._capacity;
    const h = Atomics.load(i32, at + P.CHAN_HEAD);
    if (h < 0 || h >= 2 * n) return NOT_READY; // a starving receiver's (CHAN_STARVING), or out of range: Go's
    const cell = this.#cell(h), full = (h < n ? 0 : P.CHAN_LAP) | P.CHAN_FULL, stamp = Atomics.load(i32, cell);
    if (stamp !== full) {
      if (stamp === (full | P.CHAN_VOID)) return NOT_READY; // a void message: Go's claim frees it
      const t = Atomics.load(i32, at + P.CHAN_TAIL) & P.CHAN_POS_MASK; // empty, or another's copy?
      return t === h ? empty : NOT_READY;
    }
    if (Atomics.compareExchange(i32, cell, full, full | this._mark) !== full) return NOT_READY;
    if (Atomics.compareExchange(i32, at + P.CHAN_HEAD, h, h + 1 < 2 * n ? h + 1 : 0) !== h) {
      this.#letGo(cell, full);
      return NOT_READY;
    }
    return this.#take(h, cell);
  }

  // A claim that changed nothing, given back (chan.go's chanLetGo: the
  // stamp back to what it was), and Go to wake whoever found the cell
  // mid-claim: false.
  #letGo(cell, stamp) {
    const i32 = this._i32, at = this._at;
    Atomics.store(i32, cell, stamp);
    if (((Atomics.load(i32, at + P.CHAN_RECV_SEQ_AT) | Atomics.load(i32, at + P.CHAN_SEND_SEQ_AT)) & P.CHAN_CLAIM_WAITERS) !== 0) this._call(P.OP_CHAN_WAKE, 2);
    return false;
  }

  // The copy out of the cell of position p, which this agent claimed, and
  // the commit (chan.go's chanCommit): the message. A length word that no
  // message can have is reported, once the cell is freed.
  #take(p, cell) {
    const i32 = this._i32, at = this._at;
    const meta = i32[cell + P.CHAN_CELL_META_AT], length = meta & LENGTH_MASK, start = (cell + P.CHAN_CELL_WORDS) * 4;
    const bad = meta < 0 || length > (this._cellSlots - P.CHAN_CELL_WORDS) * 4;
    // The message: a string decoded straight from the cell where the
    // engine's TextDecoder takes shared memory (before the cell is freed),
    // else from a copy; bytes in an ArrayBuffer of their own.
    const string = !bad && (meta & P.CHAN_KIND_STRING) !== 0;
    const m = bad ? null : string && this._decodeShared ? decoder.decode(this._u8.subarray(start, start + length)) : this._u8.slice(start, start + length);
    Atomics.store(i32, cell, p < this._capacity ? P.CHAN_LAP : 0); // free, for the position a lap on, no claimer
    const r = Atomics.load(i32, at + P.CHAN_RECV_SEQ_AT), w = Atomics.load(i32, at + P.CHAN_SEND_SEQ_AT);
    if (((w & P.CHAN_WAITERS) | ((r | w) & P.CHAN_CLAIM_WAITERS)) !== 0) this._call(P.OP_CHAN_WAKE, 1);
    if (m === null) throw new Error(`sabmutex: corrupted message in ${this._what}: its length word holds ${meta}, which no message can have, so something else wrote to its slots; give each object its own slots`);
    return string && !this._decodeShared ? decoder.decode(/** @type {Uint8Array} */ (m)) : m;
  }

  // Go's claim of a send, as a waiter or a newcomer, then the copy and the
  // commit: true if sent, false if not now (no room, or the cell another's).
  #claimSend(m, waiter) {
    const p = this._call(P.OP_CHAN_CLAIM_SEND, waiter ? 1 : 0);
    if (p === P.RESULT_BUSY) return false;
    if (p === P.RESULT_CLOSED) throw new Error(`sabmutex: send on a closed channel (${this._what}); nothing was sent. Stop sending once it is closed, or check ch.closed`);
    if (p < 0) throw this._failure(p);
    this.#copyIn(this.#cell(p), m);
    const r = this._call(P.OP_CHAN_SEND_COMMIT, p);
    if (r !== P.RESULT_OK) throw this._failure(r);
    return true;
  }

  // Go's claim of a receive, then the copy out and the commit: the
  // message; undefined once closed and drained; NOT_READY if none now.
  #claimRecv(waiter) {
    const p = this._call(P.OP_CHAN_CLAIM_RECV, waiter ? 1 : 0);
    if (p === P.RESULT_BUSY) return NOT_READY;
    if (p === P.RESULT_CLOSED) return undefined;
    if (p < 0) throw this._failure(p);
    return this.#take(p, this.#cell(p));
  }

  // A wait's result: true if it made the caller a waiter (RESULT_WAITER),
  // false for a newcomer's ready (RESULT_OK); else it throws.
  #waiterOf(r) {
    if (r === P.RESULT_WAITER) return true;
    if (r === P.RESULT_OK) return false;
    throw this._failure(r);
  }

  // A blocking send or receive that finds no room (send) or no message, or
  // the cell being copied by another, looks again for up to SPIN_LOOKS
  // loads in all, and tries again each time it may go: between a producer
  // and a consumer of about the same speed the gap is short beside a sleep
  // and its wake-up, or Go's slow path (docs/decisions/channel-ring.md).
  // #spinSend: true if sent; #spinRecv: the message, or NOT_READY for Go to
  // decide.
  //
  // The budget adapts, per side of this agent's Channel object (as glibc's
  // adaptive mutex spins as long as its recent acquisitions needed): a
  // spin that ends in a send (a receive) leaves the next budget at least
  // twice the looks it took; one that runs out halves it, down to
  // MIN_LOOKS; and every PROBE_EVERY-th spin under the full budget looks
  // SPIN_LOOKS times, to learn again. Between one producer and one consumer
  // on cores of their own most spins succeed, and the budget stays; in a
  // pool of more workers than cores, where every look takes a core the
  // other side needs, most run out, and the workers sleep at once, where a
  // full spin each time took the producer's core (measured in
  // docs/decisions/channel-pool.md).
  #spinSend(m) {
    const budget = this.#budget(true);
    for (let left = budget; ; ) {
      if (this.#fastSend(m, false) === true) return this.#spun(true, budget, budget - left, true);
      if ((left = this.#spin(true, left)) < 0) return this.#spun(true, budget, budget, false);
    }
  }

  #spinRecv() {
    const budget = this.#budget(false);
    for (let left = budget; ; ) {
      const m = this.#fastRecv(NOT_READY);
      if (m !== NOT_READY) return this.#spun(false, budget, budget - left, true), m;
      if ((left = this.#spin(false, left)) < 0) return this.#spun(false, budget, budget, false), NOT_READY;
    }
  }

  #sendLooks = SPIN_LOOKS;
  #recvLooks = SPIN_LOOKS;
  #spins = 0;

  // This spin's budget of looks.
  #budget(send) {
    const b = send ? this.#sendLooks : this.#recvLooks;
    return b < SPIN_LOOKS && ++this.#spins % PROBE_EVERY === 0 ? SPIN_LOOKS : b;
  }

  // The next budget, after a spin of budget looks that took used of them
  // and succeeded (ok) or ran out; returns ok.
  #spun(send, budget, used, ok) {
    const b = send ? this.#sendLooks : this.#recvLooks;
    const next = ok ? Math.min(SPIN_LOOKS, Math.max(b, 2 * used + MIN_LOOKS)) : budget < b ? b : Math.max(MIN_LOOKS, b >> 1);
    if (send) this.#sendLooks = next;
    else this.#recvLooks = next;
    return ok;
  }

  // Looks until the cell at the tail (send) or the head is free for it:
  // the looks left of the budget (0 or more), or -1 once it is spent, or
  // the word is flagged or the channel closed (Go's to report). So a send
  // or receive makes at most SPIN_LOOKS looks and one try more than that.
  #spin(send, left) {
    const i32 = this._i32, at = this._at, n = this._capacity, full = send ? 0 : P.CHAN_FULL;
    while (left-- > 0) {
      const v = Atomics.load(i32, at + (send ? P.CHAN_TAIL : P.CHAN_HEAD)), p = v & P.CHAN_POS_MASK;
      if (v !== p || p >= 2 * n) return -1;
      const cell = this.#cell(p);
      if (Atomics.load(i32, cell) === ((p < n ? 0 : P.CHAN_LAP) | full)) return left;
      if (!send && (Atomics.load(i32, at + P.CHAN_TAIL) & P.CHAN_CLOSED) !== 0) return -1;
      if (HAS_PAUSE) /** @type {any} */ (Atomics).pause();
    }
    return -1;
  }

  // The first slot (the stamp) of the cell of position pos, 0 to
  // 2*capacity-1 (every caller checked it): a compare, where pos %
  // capacity would divide at every send and receive. The moves past a
  // position below wrap likewise.
  #cell(pos) {
    const n = this._capacity;
    return this._at + P.CHAN_SLOTS + (pos < n ? pos : pos - n) * this._cellSlots;
  }
}

// The adaptive spin's floor, and how often a spin under the full budget
// looks SPIN_LOOKS times all the same (Channel's #spinSend).
const MIN_LOOKS = 16;
const PROBE_EVERY = 32;

// What _try returns for a case that would have to wait.
export const NOT_READY = Symbol("not ready");
const FULL = Symbol("full"); // trySend's answer from #fastSend: no room now
const EMPTY = Symbol("empty"); // a queued receiver's from #fastRecv: no message now

// A case of select: made by recvCase() and sendCase(msg) only.
export class SelectCase {
  constructor(channel, send, message) {
    this.channel = channel;
    this.send = send;
    this.message = message;
  }
}

// A string's bytes in UTF-8, encoded before its cell is claimed (#encode).
class Utf8 {
  constructor(bytes) {
    this.bytes = bytes;
  }
}

// The bytes of string s in UTF-8, as TextEncoder writes them (a lone
// surrogate as U+FFFD: 3).
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) n += 2, i++; // a pair: 4 bytes for its 2 units
    else n += 2;
  }
  return n;
}

function cellSlotsOf(maxMessageBytes) {
  return P.CHAN_CELL_WORDS + Math.ceil(maxMessageBytes / 4);
}

// Channel.named's options, checked: [capacity, maxMessageBytes], or
// undefined for both when not given.
function channelOptions(options) {
  if (options === undefined) return [undefined, undefined];
  if (options === null || typeof options !== "object") {
    throw new TypeError(`sabmutex: Channel.named(name, options) takes options such as { capacity: 16, maxMessageBytes: 256 }; got ${describe(options)}`);
  }
  slotsFor(options.capacity, options.maxMessageBytes);
  return [options.capacity, options.maxMessageBytes];
}

function slotsFor(capacity, maxMessageBytes) {
  checkSize("capacity", capacity, P.CHAN_MAX_CAPACITY);
  if (typeof maxMessageBytes !== "number" || !Number.isInteger(maxMessageBytes) || maxMessageBytes < 0 || maxMessageBytes > MAX_MESSAGE_BYTES) {
    throw new RangeError(fill(MsgMaxBytesRange, { max: MAX_MESSAGE_BYTES, got: describe(maxMessageBytes) }));
  }
  return P.CHAN_SLOTS + capacity * cellSlotsOf(maxMessageBytes);
}
