// The watch, as the glue asks it: what a wait that has lasted P.WATCH_MS
// does is Go's (internal/core/watch.go: a dead holder's hold freed, a hand-off
// nobody takes voided, a deadlock named), and so is the snapshot. Every wait
// of a primitive is a record of the core's, whose turns ask the watch
// themselves (internal/core/waitrec.go); the select (select.js), which waits on
// several words at once, asks it here.
import * as P from "./protocol.js";
import { agentId, core } from "./runtime.js";
import { namesTable, textOf } from "./registry.js";
import { nameAt } from "./names.js";

// What debug mode (debug.js) adds, once on: whereText(message), where the
// agents a deadlock message names hold and wait; whereOf(id), an agent's
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

// The message of the deadlock that this agent's last wait, of primitive p,
// was told of; a primitive by name named by its name (namedMembers).
export function deadlockMessage(p) {
  const message = textOf(P.TEXT_DEADLOCK);
  return namedMembers(message, p) + (debugHooks.whereText === null ? "" : debugHooks.whereText(message));
}

// One member of the core's deadlock message (internal/core/watch.go's
// cycleText), after "deadlock: " or the last member's "; ": who (an agent
// label: its id, and its name as a JSON string), what it waits for (a kind,
// then a mode: "RWMutex (write)"), at which index, and who holds that.
const MEMBER = /(agent (\d+)(?: \("(?:[^"\\]|\\.)*"\))? waits for the )([A-Za-z]+)((?: \([a-z]+\))?) at index (\d+)(, which agent \d+(?: \("(?:[^"\\]|\\.)*"\))? holds)(; |\. )/y;

// message with each member that waits for a primitive by name saying its
// name (`the Mutex "db"`, `the RWMutex "db" (write)`) where the core, which
// keeps no names, gives its index. Which memory a member's index is in is
// what its registry record says (the snapshot's inRegistry), read now: the
// members other than this agent are still asleep in the cycle, which only
// this agent's release ends; this agent's own wait is p's.
function namedMembers(message, p) {
  const head = "deadlock: ";
  if (!message.startsWith(head)) return message;
  const rows = new Map(JSON.parse(textOf(P.TEXT_SNAPSHOT)).map((r) => [r[2], r]));
  const [registry] = namesTable();
  let out = head;
  MEMBER.lastIndex = head.length;
  for (let m; (m = MEMBER.exec(message)) !== null; ) {
    const [all, who, id, kind, mode, index, holds, end] = m;
    const row = rows.get(Number(id));
    const mine = Number(id) === agentId && p !== undefined && p._mem === registry && p._at === Number(index);
    const theirs = row !== undefined && row[1] === kind + mode && row[4] === Number(index) && row[9] === 1;
    const name = mine || theirs ? nameAt(Number(index)) : null;
    out += name === null ? all : `${who}${kind} ${JSON.stringify(name)}${mode}${holds}${end}`;
    if (end === ". ") return out + message.slice(MEMBER.lastIndex);
  }
  return message; // (not as cycleText writes it: left as it is)
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
    agents: JSON.parse(textOf(P.TEXT_SNAPSHOT)).map(([name, kind, id, alive, index, holder, sinceMs, blocked, deadlineInMs, inRegistry]) => {
      const w = where === null ? null : where(id);
      const agent = {
        agentId: id,
        name,
        alive: alive === 1,
        waitingFor:
          kind === ""
            ? null
            : { kind, name: inRegistry === 1 ? nameAt(index) : null, index, holder: holder === 0 ? null : holder, sinceMs, blocked: blocked === 1, deadlineInMs: deadlineInMs < 0 ? null : deadlineInMs },
      };
      if (w !== null) {
        agent.holding = w.holding;
        if (agent.waitingFor !== null && w.waitingAt !== null) agent.waitingFor.at = w.waitingAt;
      }
      return agent;
    }),
  };
}
