// Primitives by name (Mutex.named("db"), ...): every agent of a registry
// (the page, the workers given its forWorker(), Go programs that joined)
// gets the same primitive for the same name, in the registry's name table.
// The table is Go's (internal/core/names.go: lookup-or-create, claims, a
// creator that ends); here are only what a host does: the name in the
// core's text, the sleep while another agent is creating the entry its
// lookup stopped at, and this agent's cache, name -> its primitive.
import * as P from "./protocol.js";
import { arrays, canBlock, core, mustBeStarted } from "./runtime.js";
import { namesTable } from "./registry.js";
import { sleepOut } from "./wait.js";
import { fill } from "./errors.js";
import { MsgNameNone, MsgNameOtherKind, MsgNameOtherParams, MsgNamedBarrier, MsgNamedChannel, MsgNamedIs, MsgNamedSemaphore, MsgNamesAnswered, MsgNamesFull } from "./messages.js";

/** @type {Map<string, { kind: number, a: number, b: number, p: any }>} */
const cache = new Map();

const TYPES = ["", "Mutex", "RWMutex", "Semaphore", "Cond", "WaitGroup", "Barrier", "Once", "Channel"];

// How long the page's main thread, which cannot sleep, looks again at an
// entry that another agent is creating before it gives up: creating one
// takes microseconds, so only an agent that ended while creating it (which
// the page learns of only once its event loop turns) holds it this long.
const SPIN_MS = 200;

// A name as WebIDL converts a DOMString (as navigator.locks does): a Symbol
// throws a TypeError; anything else is its string.
export function nameString(name) {
  return `${name}`;
}

// The primitive of kind named name. a, b: its parameters (undefined when
// not given: the name must then exist, unless the kind takes none). make(buffer,
// index, a, b, name) makes this agent's object over the table's slots.
export function named(kind, name, a, b, make) {
  const type = TYPES[kind];
  mustBeStarted(`${type}.named()`);
  const n = nameString(name);
  let c = cache.get(n);
  if (c === undefined) {
    const [mem, table] = namesTable();
    const i32 = arrays[mem];
    const e = lookup(mem, table, kind, n, a, b);
    c = { kind: i32[e + P.NAME_KIND], a: i32[e + P.NAME_A], b: i32[e + P.NAME_B], p: null };
    if (c.kind === kind) {
      c.p = make(i32.buffer, i32[e + P.NAME_PRIM], c.a, c.b, n);
      c.p._what = `the ${type} ${JSON.stringify(n)}`;
    }
    cache.set(n, c);
  }
  if (c.kind !== kind) {
    throw new Error(fill(MsgNameOtherKind, { name: JSON.stringify(n), is: what(c), type, call: `${TYPES[c.kind]}.named()` }));
  }
  if ((a !== undefined && a !== c.a) || (b !== undefined && b !== c.b)) {
    throw new Error(fill(MsgNameOtherParams, { name: JSON.stringify(n), is: what(c), want: what({ kind, a: a ?? c.a, b: b ?? c.b }), params: PARAMS[kind] }));
  }
  return c.p;
}

const PARAMS = ["", "", "", "permits", "", "", "parties", "", "capacity and maxMessageBytes"];

// "a Semaphore of 3 permits", for messages.
function what(c) {
  const text = { [P.NAME_KIND_SEMAPHORE]: MsgNamedSemaphore, [P.NAME_KIND_BARRIER]: MsgNamedBarrier, [P.NAME_KIND_CHANNEL]: MsgNamedChannel }[c.kind];
  return fill(text ?? MsgNamedIs, { type: TYPES[c.kind], a: c.a, b: c.b });
}

// The entry of name in the table at (mem, table): found, or created when
// the kind's parameters are given (or it takes none). OP_NAME_LOOKUP again
// while another agent is creating the entry it stopped at: asleep on the
// entry's state (WATCH_MS at most, then the core asks whether that agent
// ended) in a worker; looking again for SPIN_MS at most on the main thread.
function lookup(mem, table, kind, name, a, b) {
  const create = a !== undefined || (kind !== P.NAME_KIND_SEMAPHORE && kind !== P.NAME_KIND_BARRIER && kind !== P.NAME_KIND_CHANNEL);
  const bytes = 16 + 2 * name.length;
  const until = performance.now() + SPIN_MS;
  for (;;) {
    const at = core.call(P.OP_TEXT, mem, 0, bytes, 0);
    if (at < 0) throw new RangeError(`sabmutex: the name is ${name.length} characters long; give a name of at most ${(1 << 19) - 8}`);
    const text = new DataView(core.mem.buffer, at, bytes);
    text.setInt32(0, kind, true);
    text.setInt32(4, a === undefined ? 0 : a, true);
    text.setInt32(8, b === undefined ? 0 : b, true);
    text.setInt32(12, create ? 1 : 0, true);
    for (let i = 0; i < name.length; i++) text.setUint16(16 + 2 * i, name.charCodeAt(i), true);
    const e = core.call(P.OP_NAME_LOOKUP, mem, table, bytes, 0);
    if (e >= 0) return e;
    if (e === P.RESULT_NONE) {
      throw new Error(fill(MsgNameNone, { type: TYPES[kind], name: JSON.stringify(name), params: PARAMS[kind], call: `${TYPES[kind]}.named(name, ...)` }));
    }
    if (e === P.RESULT_TOO_MANY) throw new RangeError(MsgNamesFull);
    if (e !== P.RESULT_BUSY) throw new Error(fill(MsgNamesAnswered, { result: e }));
    const [slot, id] = sleepOut();
    if (canBlock) {
      Atomics.wait(arrays[mem], slot, id, P.WATCH_MS);
    } else if (performance.now() > until) {
      throw new Error(`sabmutex: the name ${JSON.stringify(name)} is being created by agent ${id}, which has not finished in ${SPIN_MS} ms (has it ended?); try again once the page's event loop has turned (await a task)`);
    }
  }
}

// The name of the primitive by name whose first slot is index in this
// agent's registry (or of the lock request whose record is there), or null: what the snapshot and the deadlock message
// say of a wait that the core marks as in the registry's memory (where
// only primitives by name live). The module keeps no names (its text would
// cost every page's download), so this reads the table itself
// (internal/core/names.go's NamesLayout): this agent's cache first, then every
// entry, on these cold paths only. A READY entry's fields are final.
export function nameAt(index) {
  for (const [n, c] of cache) if (c.p !== null && c.p._at === index) return n;
  const [mem, table] = namesTable();
  if (mem < 0 || table === 0) return null;
  const i32 = arrays[mem];
  const entries = Atomics.load(i32, table + P.NAMES_ENTRIES);
  for (let e = table + P.NAMES_HEADER, end = e + entries * P.NAME_SLOTS; e < end; e += P.NAME_SLOTS) {
    if (Atomics.load(i32, e + P.NAME_PRIM) === index && Atomics.load(i32, e + P.NAME_STATE) === P.NAME_READY) {
      // Its code units, two a slot, low first (the core's storeBytes).
      const at = Atomics.load(i32, e + P.NAME_NAME), units = Atomics.load(i32, e + P.NAME_LENGTH);
      let name = "";
      for (let u = 0; u < units; u++) name += String.fromCharCode((Atomics.load(i32, at + (u >> 1)) >>> (16 * (u & 1))) & 0xffff);
      return name;
    }
  }
  return lockNameAt(i32, table, index);
}

// The name of the lock request whose record is at index (a wait for a
// lock: internal/core/lockq.go), or null: its queue's name, read as a
// primitive's name is (two code units a slot, low first). A record lies in
// the table's heap, which may have grown past i32 (another agent's
// growth), and names the table.
/** @param {Int32Array} i32 @param {number} table @param {number} index */
function lockNameAt(i32, table, index) {
  const locks = Atomics.load(i32, table + P.NAMES_LOCKS);
  const heap = locks === 0 ? 0 : Atomics.load(i32, locks + P.LOCKS_HEAP);
  if (heap > i32.length) i32 = new Int32Array(i32.buffer, 0, heap);
  if (locks === 0 || index < locks + P.LOCKS_HEADER || index >= heap || Atomics.load(i32, index + P.LOCK_RECORD_TABLE) !== locks) return null;
  const q = Atomics.load(i32, index + P.LOCK_RECORD_QUEUE);
  if (q < locks + P.LOCKS_HEADER || q >= heap) return null;
  const units = Atomics.load(i32, q + P.LOCK_QUEUE_LENGTH);
  let name = "";
  for (let u = 0; u < units; u++) name += String.fromCharCode((Atomics.load(i32, q + P.LOCK_QUEUE_NAME + (u >> 1)) >>> (16 * (u & 1))) & 0xffff);
  return name;
}
