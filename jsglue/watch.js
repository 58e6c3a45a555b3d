// The watch: what a wait that has lasted a while does (Go's side is watch
// in wasm/core/wait.go). Each time a wait has slept P.WATCH_MS through, it
// records in this agent's registry record what it waits for and for whom,
// and asks the registry two questions:
//
//	is the agent it waits for dead?  then the wait frees what that agent
//	                                 held (OP_RECOVER) and takes it, told
//	                                 of the death (previousHolderDied)
//	is it in a deadlock?             the agents it waits for, holder after
//	                                 holder, come back to it, each asleep in
//	                                 a blocking wait: the wait ends with
//	                                 RESULT_CYCLE, and its Error names them
//
// The three wait loops ask: Go's blocking one through the import watch
// (imports.js), the Mutex's blocking one (mutex.js) and the asynchronous
// one (wait.js) through watchTurn. A wait shorter than WATCH_MS asks
// nothing, so the watch costs nothing until then.
//
// A deadlock is told only when it is certain, never on a wait that could
// still end. A blocking wait cannot run anything else, so an agent asleep
// in one holds what it holds until that wait ends; an asynchronous wait's
// agent runs other tasks, which may release, so a cycle through one is
// never an error. The records are read without a lock, and may be stale: a
// member may have read its holder just before that holder released (it is
// then about to wake). So a cycle is told only once every member has read
// its holder again after the cycle was first seen (its R_READ_STAMP, the
// clock before that read, past the clock then), in the same wait (the
// same R_WAIT_STAMP): each holder was then asleep in its wait since before
// that read, and so still held what it was seen to hold. Of a cycle's
// members, the one with the lowest id is told; the others sleep on, and go
// on once it releases what it holds.
import * as P from "./protocol.js";
import { arrays, core } from "./runtime.js";
import { CLOCK, R_BLOCKING, R_HOLDER, R_INDEX, R_KIND, R_READ_STAMP, R_SINCE, R_WAIT_STAMP, agentLabel, allRecords, deadAt, idAt, isDead, nameAt, nowMs, ownRecord, readersOf, recordOf, slots } from "./registry.js";

// The wait that owns this agent's record: null, BLOCKING (the agent's one
// blocking wait), or an asynchronous wait's own object (the first of them
// to last; a blocking wait takes the record over).
export const BLOCKING = { nextStamp: 0 };
let owner = null;
let suspect = null; // a cycle seen, not yet certain: { key, clock }

// A watch of a wait of `kind` on the primitive at mem[index], whose
// release it needs from agent holder (0: none or not known); w is
// BLOCKING or an asynchronous wait's object (a new one per wait, {
// nextStamp: 0 }). Kind P.WATCH_END ends the watch of w. Returns a
// verdict, one of P.WATCH_GO_ON, P.WATCH_DEAD and P.WATCH_CYCLE, or for a
// writer that waits for readers to leave (whom only the records name),
// P.WATCH_FREED_READS + (n << 2): n read locks of agents that ended, taken
// off their records, for the wait to give back.
export function watchWait(kind, mem, index, holder, w) {
  const r = slots, me = ownRecord;
  if (me < 0) return P.WATCH_GO_ON;
  if (kind === P.KIND_RW_DRAIN) {
    const readers = readersOf(Atomics.load(arrays[mem], index + 3)); // the RWMutex's tag (wasm/core/rwmutex.go)
    if (readers.freed > 0) return P.WATCH_FREED_READS + (readers.freed << 2);
    holder = readers.live;
  }
  if (kind === P.WATCH_END) {
    if (owner === w) {
      owner = null;
      Atomics.store(r, me + R_KIND, 0);
    }
    return P.WATCH_GO_ON;
  }
  if (owner !== w && (owner === null || w === BLOCKING)) {
    owner = w;
    w.nextStamp = 0;
    Atomics.store(r, me + R_INDEX, index);
    Atomics.store(r, me + R_SINCE, Math.round(nowMs() - P.WATCH_MS));
    Atomics.store(r, me + R_BLOCKING, w === BLOCKING ? 1 : 0);
    Atomics.store(r, me + R_WAIT_STAMP, tick());
    Atomics.store(r, me + R_KIND, kind);
  }
  if (owner === w) {
    Atomics.store(r, me + R_HOLDER, holder);
    Atomics.store(r, me + R_READ_STAMP, w.nextStamp);
    w.nextStamp = tick(); // before the next turn reads the holder
  }
  if (holder !== 0 && isDead(holder)) return P.WATCH_DEAD;
  return w === BLOCKING && owner === w && cycleIsCertain() ? P.WATCH_CYCLE : P.WATCH_GO_ON;
}

function tick() {
  return Atomics.add(slots, CLOCK, 1) + 1;
}

// watchWait for a wait of primitive p driven by the glue's own loops: asks
// the core for the holder, and frees what a dead one held.
export function watchTurn(kind, p, w) {
  const holder = core.call(P.OP_WAITS_FOR, p._mem, p._at, kind, 0);
  const v = watchWait(kind, p._mem, p._at, holder, w);
  if (v === P.WATCH_DEAD) core.call(P.OP_RECOVER, p._mem, p._at, kind, holder);
  else if ((v & 3) === P.WATCH_FREED_READS) core.call(P.OP_RECOVER, p._mem, p._at, kind, v >> 2);
  return v;
}

export function endWatch(w) {
  watchWait(P.WATCH_END, 0, 0, 0, w);
}

// The cycle through this agent's blocking wait, as records (this agent's
// first), or null: each member waits in a blocking wait for the next, the
// last for this agent.
function cycle() {
  const self = idAt(ownRecord);
  const members = [ownRecord];
  for (let at = ownRecord; members.length <= 64; ) {
    const next = Atomics.load(slots, at + R_HOLDER);
    if (next === self) return members;
    at = recordOf(next);
    if (at < 0 || members.includes(at) || deadAt(at)) return null;
    if (Atomics.load(slots, at + R_KIND) === 0 || Atomics.load(slots, at + R_BLOCKING) !== 1) return null;
    members.push(at);
  }
  return null;
}

// Whether this agent's wait is in a deadlock for certain (see the top):
// the same cycle as at an earlier watch, every member's holder read again
// since, and this agent the member with the lowest id.
function cycleIsCertain() {
  const members = cycle();
  if (members === null || members.some((at) => idAt(at) < idAt(ownRecord))) {
    suspect = null;
    return false;
  }
  const key = members.map((at) => `${idAt(at)}@${Atomics.load(slots, at + R_WAIT_STAMP)}`).join(" ");
  if (suspect === null || suspect.key !== key) {
    suspect = { key, clock: tick() };
    return false;
  }
  const certain = members.every((at) => Atomics.load(slots, at + R_READ_STAMP) > suspect.clock);
  if (certain) {
    lastCycle = cycleText(members);
    suspect = null;
  }
  return certain;
}

let lastCycle = "";

// The message of the deadlock that this agent's last wait was told of.
export function deadlockMessage() {
  return lastCycle;
}

function cycleText(members) {
  const edges = members.map((at, i) => {
    const holder = idAt(members[(i + 1) % members.length]);
    return `${agentLabel(idAt(at))} waits for ${waitText(at)}, which ${agentLabel(holder)} holds`;
  });
  return (
    `deadlock: ${edges.join("; ")}. Each waits in a blocking call for the next, so none could ever go on: ` +
    `this wait ended without taking anything; release what this agent holds (and take locks in one order everywhere)`
  );
}

// "the Mutex at index 4": what the record at `at` waits for.
function waitText(at) {
  return `the ${KIND_NAMES[Atomics.load(slots, at + R_KIND)] || "primitive"} at index ${Atomics.load(slots, at + R_INDEX)}`;
}

// What each kind of wait waits for, as snapshot() names it.
const KIND_NAMES = {
  [P.KIND_LOCK]: "Mutex",
  [P.KIND_RW_READ]: "RWMutex (read)",
  [P.KIND_RW_ANNOUNCE]: "RWMutex (write)",
  [P.KIND_RW_DRAIN]: "RWMutex (write)",
  [P.KIND_SEM_ACQUIRE]: "Semaphore",
  [P.KIND_WG_WAIT]: "WaitGroup",
  [P.KIND_BARRIER]: "Barrier",
  [P.KIND_ONCE]: "Once",
  [P.KIND_COND]: "Cond",
  [P.KIND_CHAN_SEND]: "Channel (send)",
  [P.KIND_CHAN_ROOM]: "Channel (send)",
  [P.KIND_CHAN_RECV]: "Channel (receive)",
  [P.KIND_CHAN_MESSAGE]: "Channel (receive)",
  [P.KIND_CHAN_SEND_WAITED]: "Channel (send)",
  [P.KIND_CHAN_ROOM_WAITED]: "Channel (send)",
  [P.KIND_CHAN_RECV_WAITED]: "Channel (receive)",
  [P.KIND_CHAN_MESSAGE_WAITED]: "Channel (receive)",
};

// Main thread too. Who waits for whom, as this agent's registry says: every
// agent that joined it, whether it lives, and the wait it is in if that
// has lasted WATCH_MS or more (an agent in several asynchronous waits shows
// the first; holder: the agent it waits for, where known).
export function snapshot() {
  const now = nowMs();
  return {
    agentId: ownRecord < 0 ? 0 : idAt(ownRecord),
    agents: allRecords().map((at) => {
      const r = slots;
      const kind = deadAt(at) ? 0 : Atomics.load(r, at + R_KIND);
      const holder = Atomics.load(r, at + R_HOLDER);
      return {
        agentId: idAt(at),
        name: nameAt(at),
        alive: !deadAt(at),
        waitingFor:
          kind === 0
            ? null
            : {
                kind: KIND_NAMES[kind] || "primitive",
                index: Atomics.load(r, at + R_INDEX),
                holder: holder === 0 ? null : holder,
                sinceMs: Math.max(0, Math.round(now - Atomics.load(r, at + R_SINCE))),
                blocking: Atomics.load(r, at + R_BLOCKING) === 1,
              },
      };
    }),
  };
}
