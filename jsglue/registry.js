// The registry: the agents (a page and its workers) that know each other.
// One small SharedArrayBuffer, made by the first agent's init and handed on
// by forWorker(); each agent that joins draws the next id from it, so ids
// are unique among the agents that joined, and records its name for the
// messages that name it.
//
// Its int32 slots:
//
//	0   REGISTRY_MAGIC: what tells a registry from any other buffer
//	1   base: drawn at random by the maker; ids are base+1, base+2, ...
//	2   joined: how many agents have joined (the next one takes joined+1)
//	3   (reserved)
//	4+  a record of RECORD_SLOTS per agent, by join order (the first
//	    MAX_RECORDS agents): its id, written last (0: not yet written), the
//	    length of its name in bytes, and the name (UTF-8, NAME_MAX_BYTES)
//
// An agent that does not join (init() without forWorker()'s object, as
// before the registry) makes a registry of its own: its id is as random as
// ids were then, and unique among the workers it hands forWorker() to.
import * as P from "./protocol.js";
import { describe } from "./errors.js";

const REGISTRY_MAGIC = 0x53414231; // "SAB1"
const HEADER_SLOTS = 4;
const NAME_MAX_BYTES = 64;
const RECORD_SLOTS = 2 + NAME_MAX_BYTES / 4;
const MAX_RECORDS = 1024;
const REGISTRY_BYTES = (HEADER_SLOTS + MAX_RECORDS * RECORD_SLOTS) * 4;
// Ids stay within 1..MAX_AGENT_ID: the base leaves room for a million joins.
const MAX_JOINS = 1 << 20;

/** @type {Int32Array | null} */
let slots = null; // the registry this agent joined

// Joins the registry buffer (forWorker()'s), or a new one when buffer is
// undefined, under name; returns this agent's id.
export function joinRegistry(buffer, name) {
  const r = buffer === undefined ? makeRegistry() : registryOf(buffer);
  const n = Atomics.add(r, 2, 1) + 1;
  if (n > MAX_JOINS) {
    Atomics.sub(r, 2, 1);
    throw new RangeError(`sabmutex: ${MAX_JOINS} agents have joined this registry; start the next workers from a new page`);
  }
  const id = Atomics.load(r, 1) + n;
  if (n <= MAX_RECORDS) {
    const at = HEADER_SLOTS + (n - 1) * RECORD_SLOTS;
    const bytes = new Uint8Array(NAME_MAX_BYTES);
    const len = new TextEncoder().encodeInto(name, bytes).written; // whole characters only
    new Uint8Array(r.buffer, r.byteOffset + (at + 2) * 4, NAME_MAX_BYTES).set(bytes.subarray(0, len));
    Atomics.store(r, at + 1, len);
    Atomics.store(r, at, id); // last: the record is whole once its id is there
  }
  slots = r;
  return id;
}

function makeRegistry() {
  const r = new Int32Array(new SharedArrayBuffer(REGISTRY_BYTES));
  r[0] = REGISTRY_MAGIC;
  r[1] = crypto.getRandomValues(new Uint32Array(1))[0] % (P.MAX_AGENT_ID - MAX_JOINS);
  return r;
}

// The registry in buffer (forWorker()'s), checked; init calls it before
// loading anything, so that a wrong one is told at once.
export function registryOf(buffer) {
  if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength !== REGISTRY_BYTES || Atomics.load(new Int32Array(buffer), 0) !== REGISTRY_MAGIC) {
    throw new TypeError(
      `sabmutex: init({ registry }) takes the registry of sabmutex.forWorker() (post forWorker()'s object to the worker and pass it to init whole); got ${describe(buffer)}`,
    );
  }
  return new Int32Array(buffer);
}

// The name an agent gave init, if it joined this agent's registry; "" if
// it gave none or is not known here.
export function nameOf(id) {
  const r = slots;
  if (r === null) return "";
  const n = id - Atomics.load(r, 1);
  if (n < 1 || n > MAX_RECORDS || n > Atomics.load(r, 2)) return "";
  const at = HEADER_SLOTS + (n - 1) * RECORD_SLOTS;
  if (Atomics.load(r, at) !== id) return "";
  // slice() copies out of the shared buffer, which TextDecoder refuses.
  return new TextDecoder().decode(new Uint8Array(r.buffer, r.byteOffset + (at + 2) * 4, Atomics.load(r, at + 1)).slice());
}

// "agent 7" or `agent 7 ("decoder 2")`: how messages name an agent.
export function agentLabel(id) {
  const name = nameOf(id);
  return name === "" ? `agent ${id}` : `agent ${id} (${JSON.stringify(name)})`;
}

// What forWorker() adds to the module: this agent's registry.
export function registryBuffer() {
  return slots === null ? undefined : slots.buffer;
}
