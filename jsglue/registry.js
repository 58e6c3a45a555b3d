// The registry: the agents (a page and its workers) that know each other.
// One small SharedArrayBuffer, made by the first agent's init and handed on
// by forWorker(); each agent that joins draws the next id from it, so ids
// are unique among the agents that joined, records its name for the
// messages that name it, and says whether it lives and what it waits for
// (watch.js writes and reads that part).
//
// Its header, int32 slots:
//
//	0    REGISTRY_MAGIC: what tells a registry from any other buffer
//	1    base: drawn at random by the maker; ids are base+1, base+2, ...
//	2    joined: how many agents have joined (the next one takes joined+1)
//	3    announced: counts agents that became LIVE (the maker sleeps on it)
//	4    clock: a counter that orders the watch's records (watch.js)
//	5    tags: how many RWMutexes got a tag from this registry (readCounter)
//	6-7  epoch: the maker's performance.timeOrigin (a float64, in ms), so
//	     that every agent gives times on one clock (nowMs)
//
// Then a record of RECORD_SLOTS per agent, by join order (the first
// MAX_RECORDS agents), at the offsets R_*: its id, written last when it
// joins (0: not yet written); its state (below); the wait it is in, where
// that wait has lasted a while (watch.js); its name (UTF-8, NAME_MAX_BYTES);
// its read locks: READ_ENTRIES pairs (an RWMutex's tag, how many read locks
// of it the agent holds), written by the agent alone (readCounter), so that
// the watch can give back those of an agent that ended (watch.js).
//
// An agent's state, and who changes it:
//
//	JOINING -> LIVE       the agent itself, once it holds its life lock:
//	                      a Web Lock (navigator.locks) held until it ends,
//	                      which the browser then releases
//	JOINING -> UNWATCHED  the agent itself, where it has no Web Locks
//	LIVE -> DEAD          the maker, when its request for that life lock
//	                      is granted: the agent has ended (terminate(),
//	                      close(), its parent ended)
//
// An agent that does not join (init() without forWorker()'s object, as
// before the registry) makes a registry of its own: its id is as random as
// ids were then, and unique among the workers it hands forWorker() to.
import * as P from "./protocol.js";
import { describe } from "./errors.js";

const REGISTRY_MAGIC = 0x53414232; // "SAB2"
const BASE = 1;
const JOINED = 2;
const ANNOUNCED = 3;
export const CLOCK = 4;
const TAGS = 5;
const EPOCH_BYTES = 24;
const HEADER_SLOTS = 8;

// A record's slots.
const R_ID = 0;
const R_STATE = 1;
const R_NAME_LENGTH = 2;
export const R_KIND = 3; // the wait's kind (0: none that lasted)
export const R_INDEX = 4; // its primitive's first slot
export const R_HOLDER = 5; // the agent it waits for, when last looked at (0: none known)
export const R_SINCE = 6; // when it began, in nowMs()
export const R_WAIT_STAMP = 7; // the clock when the record was made: which wait it is
export const R_READ_STAMP = 8; // the clock before R_HOLDER was last read (0: not yet)
export const R_BLOCKING = 9; // 1: the agent sleeps in Atomics.wait
const R_NAME = 10;
const NAME_MAX_BYTES = 64;
const R_READS = R_NAME + NAME_MAX_BYTES / 4;
const READ_ENTRIES = 16;
const RECORD_SLOTS = R_READS + 2 * READ_ENTRIES;
const MAX_RECORDS = 1024;
const REGISTRY_BYTES = (HEADER_SLOTS + MAX_RECORDS * RECORD_SLOTS) * 4;
// Ids stay within 1..MAX_AGENT_ID: the base leaves room for a million joins.
const MAX_JOINS = 1 << 20;

const JOINING = 0;
const LIVE = 1;
const DEAD = 2;
const UNWATCHED = 3;

/** @type {Int32Array | null} */
export let slots = null; // the registry this agent joined
let shared = false; // whether another agent may join, or has joined, it: see watchSleepMs
export let ownRecord = -1; // the slot of this agent's record in it (-1: none)
let epochOffsetMs = 0; // this agent's performance.timeOrigin less the epoch

// Joins the registry buffer (forWorker()'s), or a new one when buffer is
// undefined, under name; resolves with this agent's id once it is LIVE
// (or UNWATCHED), and whether it made the registry (then it watches the
// others: watchAgents).
export async function joinRegistry(buffer, name) {
  const r = buffer === undefined ? makeRegistry() : registryOf(buffer);
  const n = Atomics.add(r, JOINED, 1) + 1;
  if (n > MAX_JOINS) {
    Atomics.sub(r, JOINED, 1);
    throw new RangeError(`sabmutex: ${MAX_JOINS} agents have joined this registry; start the next workers from a new page`);
  }
  const id = Atomics.load(r, BASE) + n;
  slots = r;
  shared = buffer !== undefined;
  epochOffsetMs = performance.timeOrigin - new Float64Array(r.buffer, r.byteOffset + EPOCH_BYTES, 1)[0];
  if (n > MAX_RECORDS) return { id, made: false };
  const at = recordAt(n);
  const bytes = new Uint8Array(NAME_MAX_BYTES);
  const length = new TextEncoder().encodeInto(name, bytes).written; // whole characters only
  new Uint8Array(r.buffer, r.byteOffset + (at + R_NAME) * 4, NAME_MAX_BYTES).set(bytes.subarray(0, length));
  Atomics.store(r, at + R_NAME_LENGTH, length);
  Atomics.store(r, at + R_ID, id); // last: the record is whole once its id is there
  ownRecord = at;
  Atomics.store(r, at + R_STATE, (await holdLifeLock(lifeLockName(r, id))) ? LIVE : UNWATCHED);
  Atomics.add(r, ANNOUNCED, 1);
  Atomics.notify(r, ANNOUNCED);
  return { id, made: buffer === undefined };
}

function makeRegistry() {
  const r = new Int32Array(new SharedArrayBuffer(REGISTRY_BYTES));
  r[0] = REGISTRY_MAGIC;
  r[BASE] = crypto.getRandomValues(new Uint32Array(1))[0] % (P.MAX_AGENT_ID - MAX_JOINS);
  new Float64Array(r.buffer, EPOCH_BYTES, 1)[0] = performance.timeOrigin;
  return r;
}

function recordAt(n) {
  return HEADER_SLOTS + (n - 1) * RECORD_SLOTS;
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

// The slot of agent id's record in this agent's registry, or -1 when id
// did not join it (or joined past the first MAX_RECORDS).
export function recordOf(id) {
  const r = slots;
  if (r === null) return -1;
  const n = id - Atomics.load(r, BASE);
  if (n < 1 || n > MAX_RECORDS || n > Atomics.load(r, JOINED)) return -1;
  const at = recordAt(n);
  return Atomics.load(r, at + R_ID) === id ? at : -1;
}

// Every record written, in join order.
export function allRecords() {
  const out = [];
  const r = slots;
  const joined = r === null ? 0 : Math.min(Atomics.load(r, JOINED), MAX_RECORDS);
  for (let n = 1; n <= joined; n++) if (Atomics.load(r, recordAt(n) + R_ID) !== 0) out.push(recordAt(n));
  return out;
}

export function idAt(at) {
  return Atomics.load(slots, at + R_ID);
}

export function nameAt(at) {
  // slice() copies out of the shared buffer, which TextDecoder refuses.
  const r = slots;
  return new TextDecoder().decode(new Uint8Array(r.buffer, r.byteOffset + (at + R_NAME) * 4, Atomics.load(r, at + R_NAME_LENGTH)).slice());
}

// Where this agent counts its read locks of the RWMutex whose tag slot is
// i32[tagAt], giving the RWMutex a tag first if it has none: [the Int32Array,
// the index of the count in it]. The count is this agent's own record's
// (the first READ_ENTRIES RWMutexes it reads), else a slot nobody reads
// (the watch then cannot free its read locks, as when it did not join).
// The RWMutex adds 1 after each read lock it takes and subtracts 1 before
// each it releases: an agent that ends between the two leaks one rather
// than have the watch free one it no longer holds.
/** @param {Int32Array} i32 @param {number} tagAt @returns {[Int32Array, number]} */
export function readCounter(i32, tagAt) {
  const r = slots, me = ownRecord;
  if (me >= 0) {
    let tag = Atomics.load(i32, tagAt);
    if (tag === 0) {
      // Unique in this registry; the base makes those of other registries unlikely to match.
      const mine = ((Atomics.load(r, BASE) + Atomics.add(r, TAGS, 1) + 1) & 0x7fffffff) || 1;
      tag = Atomics.compareExchange(i32, tagAt, 0, mine) || mine;
    }
    for (let e = me + R_READS; e < me + RECORD_SLOTS; e += 2) {
      const t = Atomics.load(r, e);
      if (t === tag) return [r, e + 1];
      if (t === 0) {
        Atomics.store(r, e, tag);
        return [r, e + 1];
      }
    }
  }
  return [new Int32Array(1), 0];
}

// The read locks of the RWMutex whose tag is `tag`, as the records say:
// { live, freed }. live: an agent alive that holds one (0: none); freed:
// how many the agents that ended held, now taken off their records (each
// once: a swap to 0), for the caller to give back (OP_RECOVER).
/** @param {number} tag */
export function readersOf(tag) {
  let live = 0, freed = 0;
  if (tag === 0) return { live, freed };
  for (const at of allRecords()) {
    for (let e = at + R_READS; e < at + RECORD_SLOTS; e += 2) {
      if (Atomics.load(slots, e) !== tag) continue;
      const n = Atomics.load(slots, e + 1);
      if (n <= 0) break;
      if (!deadAt(at)) live ||= idAt(at);
      else if (Atomics.compareExchange(slots, e + 1, n, 0) === n) freed += n;
      break;
    }
  }
  return { live, freed };
}

// Whether the agent of the record at `at` has ended (as far as the
// registry's maker has learnt from its life lock).
export function deadAt(at) {
  return Atomics.load(slots, at + R_STATE) === DEAD;
}

// Whether agent id joined this agent's registry and has ended.
export function isDead(id) {
  const at = recordOf(id);
  return at >= 0 && deadAt(at);
}

// The name an agent gave init, if it joined this agent's registry; "" if
// it gave none or is not known here.
export function nameOf(id) {
  const at = recordOf(id);
  return at < 0 ? "" : nameAt(at);
}

// "agent 7" or `agent 7 ("decoder 2")`: how messages name an agent.
export function agentLabel(id) {
  const name = nameOf(id);
  return name === "" ? `agent ${id}` : `agent ${id} (${JSON.stringify(name)})`;
}

// Milliseconds on the registry's one clock (from its maker's time origin).
export function nowMs() {
  return performance.now() + epochOffsetMs;
}

// What forWorker() adds to the module: this agent's registry.
export function registryBuffer() {
  return slots === null ? undefined : slots.buffer;
}

// How long a wait of this agent may sleep before it asks watch.js about
// the agent it waits for: P.WATCH_MS once its registry is shared, else
// Infinity. An agent alone in its registry (it made it, and has not yet
// called forWorker()) waits only for agents the registry does not know,
// whose end it cannot learn: a timed Atomics.wait would cost it for
// nothing (in Chromium, a contended 2-worker loop's throughput fell by
// about a sixth, web/bench/README.md). No one can join while it sleeps:
// only its own forWorker() lets anyone in.
export function watchSleepMs() {
  return shared ? P.WATCH_MS : Infinity;
}

// forWorker() calls it before it hands the registry on: from then on this
// agent's waits are watched. Returns whether that is new.
export function shareRegistry() {
  if (shared) return false;
  shared = true;
  return true;
}

function lifeLockName(r, id) {
  return `sabmutex agent ${Atomics.load(r, BASE)}:${id}`;
}

// Requests the Web Lock `name` and holds it until this agent ends;
// resolves true once held, false where there are no Web Locks (Node, a
// page that is not a secure context).
function holdLifeLock(name) {
  const locks = globalThis.navigator && globalThis.navigator.locks;
  if (!locks) return Promise.resolve(false);
  return new Promise((resolve) => {
    locks.request(name, () => {
      resolve(true);
      return new Promise(() => {}); // held for this agent's life
    }).catch(() => resolve(false));
  });
}

// The maker's watch over the others, for the life of the registry: for
// each agent that becomes LIVE, a request for its life lock, which the
// browser grants when that agent ends; the agent is then DEAD, and the
// waits that wait for it free what it held (watch.js). sleep(i32, index,
// value) resolves once the slot may no longer hold value (Atomics.waitAsync
// or a helper worker: wait.js). The maker is normally the page, whose event
// loop never blocks; a worker that made a registry learns of its workers'
// ends only while it is not blocked in a wait of its own.
export async function watchAgents(sleep) {
  const r = slots;
  const asked = new Set([ownRecord]);
  for (;;) {
    const seen = Atomics.load(r, ANNOUNCED);
    for (const at of allRecords()) {
      if (asked.has(at) || Atomics.load(r, at + R_STATE) !== LIVE) continue;
      asked.add(at);
      navigator.locks.request(lifeLockName(r, idAt(at)), () => {
        Atomics.store(r, at + R_STATE, DEAD);
      });
    }
    await sleep(r, ANNOUNCED, seen);
  }
}
