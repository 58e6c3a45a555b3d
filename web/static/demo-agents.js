// The demo's agents panel: sabmutex.snapshot(), drawn five times a second,
// whatever the scene. Each agent that joined the page's registry (the
// page, and the workers that were handed sabmutex.forWorker()) is one row:
// its name and id, whether it lives, and the wait it has been in for 50 ms
// or more: on what, held by whom, for how long, blocking or async.
import * as sabmutex from "/dist/sabmutex.mjs";

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 200;
const KEEP_DEAD = 4; // ended agents shown, the latest ones

function label(agents, id) {
  const a = agents.find((x) => x.agentId === id);
  return a && a.name ? `${a.name} (${id})` : `agent ${id}`;
}

function waitText(agents, w) {
  if (w === null) return "";
  const held = w.holder === null ? "" : `, held by ${label(agents, w.holder)}`;
  const what = w.name === null ? `the ${w.kind} at index ${w.index}` : `the ${w.kind} ${JSON.stringify(w.name)}`; // (a primitive by name: its name)
  return `waits for ${what}${held}, for ${(w.sinceMs / 1000).toFixed(1)} s, ${w.blocked ? "blocking" : "async"}${w.deadlineInMs === null ? "" : `, ${(w.deadlineInMs / 1000).toFixed(1)} s left`}`;
}

// The rows drawn last, for the browser test.
export let shown = [];

function draw() {
  const { agents } = sabmutex.snapshot();
  const dead = agents.filter((a) => !a.alive).slice(-KEEP_DEAD);
  const rows = agents.filter((a) => a.alive || dead.includes(a));
  shown = rows.map((a) => ({ name: a.name, agentId: a.agentId, alive: a.alive, waiting: waitText(agents, a.waitingFor) }));
  $("agents").replaceChildren(
    ...shown.flatMap((r) => {
      const name = document.createElement("span");
      name.textContent = `${r.name || "(no name)"} · ${r.agentId}`;
      const state = document.createElement("span");
      state.textContent = r.alive ? "alive" : "ended";
      state.className = r.alive ? "ok" : "bad";
      const wait = document.createElement("span");
      wait.textContent = r.waiting || "—";
      if (r.waiting) wait.className = "waiting";
      return [name, state, wait];
    }),
  );
}

await sabmutex.init({ name: "page" });
setInterval(draw, REFRESH_MS);
draw();
window.demoAgents = { get shown() { return shown; } };
