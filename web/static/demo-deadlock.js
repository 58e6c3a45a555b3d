// The deadlock scene: two workers lock in opposite orders, each blocking
// for the other's mutex forever. sabmutex finds the cycle (jsglue/watch.js)
// and one of them gets an Error that names it; the page shows that error,
// and the agents panel (demo-agents.js) shows who waits for whom. The
// mutexes are Mutexes by name ("left fork", "right fork"), which the error
// and the panel call by their names.
import * as sabmutex from "/dist/sabmutex.mjs";
import * as L from "./demo-deadlock-layout.js";

const $ = (id) => document.getElementById(id);
const HOLD_MS = 2000; // how long the one told keeps its mutex before it releases

let running = null;

// Runs the scene once; resolves with { error, told, detectMs, finished }.
function run() {
  if (running) return running;
  $("dError").textContent = "";
  $("dStatus").textContent = "two workers: each holds its mutex and waits for the other's…";
  const workers = L.NAMES.map(() => new Worker("demo-deadlock-worker.js", { type: "module" }));
  running = new Promise((resolve) => {
    const out = { error: null, told: null, detectMs: null, finished: 0 };
    workers.forEach((w, i) => {
      w.onerror = (e) => console.error(`deadlock worker: ${e.message}`);
      w.onmessage = ({ data }) => {
        if (data.error !== null && !data.finished) {
          Object.assign(out, { error: data.error, told: L.NAMES[i], detectMs: data.atMs });
          $("dError").textContent = data.error;
          $("dStatus").textContent = `${L.NAMES[i]} was told, ${Math.round(data.atMs)} ms after it began to wait; it keeps its mutex ${HOLD_MS / 1000} s (see the panel), then releases it…`;
        }
        if (data.finished && ++out.finished === workers.length) {
          workers.forEach((x) => x.terminate());
          $("dStatus").textContent = `both workers finished: ${out.told ?? "nobody"} was told of the deadlock, released its mutex, and the other one went on.`;
          running = null;
          resolve(out);
        }
      };
      w.postMessage({ init: sabmutex.forWorker(), i, holdMs: HOLD_MS });
    });
  });
  return running;
}

await sabmutex.init({ name: "page" });
$("dStart").onclick = () => run();
$("dStatus").textContent = "ready: press Start";
window.demoDeadlock = { run };
