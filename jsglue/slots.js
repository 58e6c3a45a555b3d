// Where a primitive lives: SLOTS int32 slots of the user's SharedArrayBuffer,
// registered with the Go module, which reaches them by a handle. Shared by
// every primitive's constructor, with its checks and their messages.
import { arrays, handles, mustBeStarted } from "./runtime.js";
import { describe, fill } from "./errors.js";
import { tickerTake } from "./ticker.js";
import { MsgIndexRange, MsgMemoryGrow, MsgMemoryKind, MsgMemoryLarger, MsgMemoryNotShared, MsgMemoryTooSmall } from "./messages.js";

export const NOT_ISOLATED =
  "SharedArrayBuffer needs a cross-origin isolated page: serve the page (and its workers) " +
  "with the headers `Cross-Origin-Opener-Policy: same-origin` and " +
  "`Cross-Origin-Embedder-Policy: require-corp`";

// The memory handle for buffer, registering it on first use: an Int32Array
// over the whole buffer. A growable buffer's is over its length when some
// primitive first needed a slot at or past end (slots up to end - 1), made
// anew whenever a primitive needs more: not one that tracks its length,
// which engines run several times slower (docs/decisions/growable-memory.md).
// A primitive keeps the array it was made with, which covers its slots.
export function handleOf(buffer, end = 0) {
  let h = handles.get(buffer);
  if (h === undefined) {
    h = arrays.length;
    arrays.push(new Int32Array(buffer, 0, buffer.byteLength >> 2));
    handles.set(buffer, h);
    tickerTake(h);
  } else if (arrays[h].length < end) {
    arrays[h] = new Int32Array(buffer, 0, buffer.byteLength >> 2); // (it grew)
  }
  return h;
}

function isShared(buffer) {
  return Object.prototype.toString.call(buffer) === "[object SharedArrayBuffer]";
}

// The slots of a new `type` at memory[index], as { i32, mem, at }: the
// Int32Array over the whole buffer, its handle, and the first slot's index in
// it. memory: a SharedArrayBuffer or an Int32Array over one; slots: how many
// int32 slots a `type` uses; need names what needs them in the message for
// a memory too small at any index ("a Mutex", "a Channel of capacity 4 and
// 16-byte messages"), count how the API counts them ("Mutex.SLOTS").
//
// A growable SharedArrayBuffer (or an Int32Array over one) is checked
// against its length now: it only grows, so the slots stay inside it
// (docs/decisions/growable-memory.md).
export function slotsOf(type, slots, memory, index, need = `${type === "RWMutex" ? "an" : "a"} ${type}`, count = `${type}.SLOTS`) {
  mustBeStarted(`\`new sabmutex.${type}(...)\``);
  let buffer, base, length;
  if (ArrayBuffer.isView(memory)) {
    const kind = describe(memory);
    if (!isShared(memory.buffer)) {
      throw new TypeError(`${fill(MsgMemoryNotShared, { kind })}. ${NOT_ISOLATED}`);
    }
    if (kind !== "Int32Array") {
      throw new TypeError(`sabmutex: memory is a ${kind}; pass the SharedArrayBuffer itself or an Int32Array over it (new Int32Array(sab))`);
    }
    [buffer, base, length] = [memory.buffer, memory.byteOffset >> 2, /** @type {Int32Array} */ (memory).length];
  } else if (isShared(memory)) {
    [buffer, base, length] = [memory, 0, memory.byteLength >> 2];
  } else if (memory instanceof ArrayBuffer) {
    throw new TypeError(`sabmutex: memory must be a SharedArrayBuffer, not an ArrayBuffer, so that the page and its workers see the same ${type}. ${NOT_ISOLATED}`);
  } else {
    throw new TypeError(fill(MsgMemoryKind, { got: describe(memory) }));
  }
  if (length < slots) {
    const grows = memory === buffer && buffer.growable && buffer.maxByteLength >= slots * 4;
    const grow = grows ? fill(MsgMemoryGrow, { max: buffer.maxByteLength }) : MsgMemoryLarger;
    throw new RangeError(fill(MsgMemoryTooSmall, { need, bytes: slots * 4, slots, count, kind: memory === buffer ? "SharedArrayBuffer" : "Int32Array", has: length * 4, grow }));
  }
  if (typeof index !== "number") {
    throw new TypeError(`sabmutex: index must be a number (an int32 slot); got ${describe(index)}`);
  }
  if (!Number.isInteger(index) || index < 0 || index > length - slots) {
    throw new RangeError(fill(MsgIndexRange, { max: length - slots, count, slots, length, bytes: length * 4, got: index }));
  }
  const mem = handleOf(buffer, base + index + slots);
  return { i32: arrays[mem], mem, at: base + index };
}
