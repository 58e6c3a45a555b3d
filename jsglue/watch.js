// The watch, as the glue asks it: what a wait that has lasted P.WATCH_MS
// does is Go's (internal/core/watch.go: a dead holder's hold freed, a hand-off
// nobody takes voided, a deadlock named), and so is the snapshot. Every wait
// of a primitive is a record of the core's, whose turns ask the watch
// themselves (internal/core/waitrec.go); the select (select.js), which waits on
// several words at once, asks it here.
import * as P from "./protocol.js";
import { agentId, core } from "./runtime.js";
import { agentLabel, textOf } from "./registry.js";
import { nameAt } from "./names.js";
import { fill } from "./errors.js";
import { MsgDeadlock, MsgDeadlockMember, MsgMode, MsgPrimitiveAt, MsgPrimitiveNamed } from "./messages.js";

// What debug mode (debug.js) adds, once on: whereText(ids), where the
// agents of a deadlock (their ids) hold and wait; whereOf(id), an agent's
// holds and wait for the snapshot.
export const debugHooks = { whereText: null, whereOf: null };

// A number for a select, which names it to the watch (each agent's record
// shows one wait: the first to last). Records number their waits from 1
// (their ids), so a select's numbers start at SELECT_WAITERS.
const SELECT_WAITERS = 1 << 28;
let lastWaiter = 0;
export function newWaiter() {
  lastWaiter = (lastWaiter + 1) % (P.WAITER_BLOCKING - SELECT_WAITERS);
  return SELECT_WAITERS + lastWaiter;
}

// One watch of a select's wait (waiter) on channel p's lock, as a wait of
// kind (its _mem and _at): a dead holder's lock is freed. Never a blocking
// wait, so no cycle through a select is told.
export function watchTurn(kind, p, waiter) {
  return core.call(P.OP_WATCH, p._mem, p._at, kind, waiter * 2);
}

// Ends the watch of waiter's wait.
export function endWatch(waiter) {
  core.call(P.OP_WATCH_END, 0, 0, waiter, 0);
}

// The message of the deadlock that this agent's last wait was told of,
// worded from the members the core publishes (TEXT_DEADLOCK, its columns
// DEADLOCK_AGENT, ...; messages.js's MsgDeadlock says how): a primitive by name
// by its name (nameAt), which the core, keeping no names, gives as an
// index in the registry's memory.
export function deadlockMessage() {
  const members = JSON.parse(textOf(P.TEXT_DEADLOCK));
  const text = fill(MsgDeadlock, { members: members.map(memberText).join("; ") });
  return text + (debugHooks.whereText === null ? "" : debugHooks.whereText(members.map((m) => m[P.DEADLOCK_AGENT])));
}

function memberText(m) {
  const index = m[P.DEADLOCK_INDEX], type = m[P.DEADLOCK_TYPE];
  const mode = m[P.DEADLOCK_MODE] === "" ? "" : fill(MsgMode, { mode: m[P.DEADLOCK_MODE] });
  const name = m[P.DEADLOCK_IN_REGISTRY] === 1 ? nameAt(index) : null;
  const primitive = name === null ? fill(MsgPrimitiveAt, { type, mode, index }) : fill(MsgPrimitiveNamed, { type, name: JSON.stringify(name), mode });
  return fill(MsgDeadlockMember, { agent: agentLabel(m[P.DEADLOCK_AGENT]), primitive, holder: agentLabel(m[P.DEADLOCK_HOLDER]) });
}

// Main thread too. Who waits for whom, as this agent's registry says: every
// agent that joined it, whether it lives, and the wait it is in if that
// has lasted WATCH_MS or more (an agent in several asynchronous waits shows
// the first; holder: the agent it waits for, where known; name: its
// primitive's, for one by name, else null). In debug mode,
// also what each agent holds and where it took it (holding), and where it
// waits (waitingFor.at).
export function snapshot() {
  const where = debugHooks.whereOf;
  return {
    agentId,
    agents: JSON.parse(textOf(P.TEXT_SNAPSHOT)).map((row) => {
      const id = row[P.SNAPSHOT_AGENT], kind = row[P.SNAPSHOT_KIND], index = row[P.SNAPSHOT_INDEX], holder = row[P.SNAPSHOT_HOLDER];
      const deadlineInMs = row[P.SNAPSHOT_DEADLINE_IN_MS];
      const w = where === null ? null : where(id);
      const agent = {
        agentId: id,
        name: row[P.SNAPSHOT_NAME],
        alive: row[P.SNAPSHOT_ALIVE] === 1,
        waitingFor:
          kind === ""
            ? null
            : {
                kind,
                name: row[P.SNAPSHOT_IN_REGISTRY] === 1 ? nameAt(index) : null,
                index,
                holder: holder === 0 ? null : holder,
                sinceMs: row[P.SNAPSHOT_SINCE_MS],
                blocked: row[P.SNAPSHOT_BLOCKED] === 1,
                deadlineInMs: deadlineInMs < 0 ? null : deadlineInMs,
              },
      };
      if (w !== null) {
        agent.holding = w.holding;
        if (agent.waitingFor !== null && w.waitingAt !== null) agent.waitingFor.at = w.waitingAt;
      }
      return agent;
    }),
  };
}
