// The demo page: starts workers, takes part itself with lockAsync, and draws
// what the shared memory shows, every frame.
import * as sabmutex from "/dist/sabmutex.mjs";
import { JsMutex } from "/bench/jsmutex.js";
import * as L from "./demo-layout.js";

const $ = (id) => document.getElementById(id);
const WORK = 300; // loop turns of work inside each critical section, a few µs
const WINDOW_MS = 2; // the timelines show this much of the recent past

let run = null; // the current run: { ints, floats, workers, mode, agents, done }

async function start() {
  const mode = document.querySelector("input[name=mode]:checked").value;
  const n = Number($("workers").value);
  const intsBuf = new SharedArrayBuffer(L.INTS * 4);
  const floatsBuf = new SharedArrayBuffer(L.FLOATS * 8);
  const ints = new Int32Array(intsBuf);
  const floats = new Float64Array(floatsBuf);
  ints[L.RUNNING] = 1;
  const workers = [];
  for (let a = 1; a <= n; a++) {
    const w = new Worker("demo-worker.js", { type: "module" });
    w.onerror = (e) => console.error(`demo worker: ${e.message}`);
    const started = new Promise((r) => (w.onmessage = r));
    w.postMessage({ init: { ...sabmutex.forWorker(), name: `worker ${a}` }, ints: intsBuf, floats: floatsBuf, agent: a, mode, work: WORK });
    workers.push({ w, started });
  }
  await Promise.all(workers.map((x) => x.started));
  const m = mode === "sabmutex" ? new sabmutex.Mutex(intsBuf, L.SAB_MUTEX) : mode === "js" ? new JsMutex(intsBuf, L.JS_MUTEX) : null;
  run = { ints, floats, mode, m, agents: n + 1, workers: workers.map((x) => x.w), shown: null };
  run.done = mainThread(run);
  layoutTimelines(run.agents);
  const modeName = { none: "no lock", sabmutex: "sabmutex", js: "the plain-JS futex mutex" }[mode];
  $("status").textContent = `running: ${n} worker${n > 1 ? "s" : ""} and the main thread, with ${modeName}`;
  $("about").hidden = false;
}

// The main thread is agent 0. It yields to the event loop now and then, so
// the page keeps drawing.
async function mainThread(r) {
  const { ints, floats, m } = r;
  for (let i = 1; Atomics.load(ints, L.RUNNING) === 1; i++) {
    const t = performance.now();
    if (m) await m.lockAsync();
    L.criticalSection(ints, floats, 0, performance.now() - t, WORK);
    if (m) {
      r.shown = read(r); // holding the lock: a consistent reading for the next frame
      m.unlock();
    }
    if (i % 16 === 0) await new Promise((r) => setTimeout(r, 0));
  }
}

async function stop() {
  if (!run) return null;
  const r = run;
  Atomics.store(r.ints, L.RUNNING, 0);
  await Promise.all(r.workers.map((w) => new Promise((res) => { w.onmessage = (e) => e.data === "stopped" && res(); })));
  await r.done;
  r.workers.forEach((w) => w.terminate());
  run = null;
  $("status").textContent = "stopped";
  return draw(r, performance.now(), true);
}

function layoutTimelines(agents) {
  const box = $("timelines");
  box.innerHTML = "";
  for (let a = 0; a < agents; a++) {
    const label = document.createElement("span");
    label.textContent = a === 0 ? "main thread" : `worker ${a}`;
    const c = document.createElement("canvas");
    c.width = 600;
    c.height = 14;
    c.id = `tl${a}`;
    const rate = document.createElement("span");
    rate.id = `rate${a}`;
    box.append(label, c, rate);
  }
}

let last = null; // the previous frame's { t, increments per agent }

// The counter and the increments each agent made, read together. An agent
// writes the counter before it counts its increment, so read at any moment
// the two can disagree by one even under a mutex.
function read(r) {
  const inc = Array.from({ length: r.agents }, (_, a) => Atomics.load(r.ints, L.agentSlot(a, L.INCREMENTS)));
  return { inc, expected: inc.reduce((x, y) => x + y, 0), actual: Atomics.load(r.ints, L.COUNTER) };
}

// What a frame shows. With a mutex, a reading taken holding it: the page's
// own turns take one (mainThread), and a frame tries for a fresher one
// (tryLock fails often under the unfair plain-JS mutex, hence both). Without
// a mutex nothing can make the two agree, which is the point.
function counts(r, stopped) {
  if (!r.m || stopped) r.shown = read(r);
  else if (r.m.tryLock()) {
    try {
      r.shown = read(r);
    } finally {
      r.m.unlock();
    }
  }
  return r.shown ?? { inc: new Array(r.agents).fill(0), expected: 0, actual: 0 };
}

// Draws one frame from the shared memory, and returns what it showed.
function draw(r, t, stopped = false) {
  const { ints, floats, agents } = r;
  const { inc, expected, actual } = counts(r, stopped);
  $("expected").textContent = expected;
  $("actual").textContent = actual;
  $("lost").textContent = expected - actual;
  $("lost").className = "num " + (expected === actual ? "ok" : "bad");
  if (last && t - last.t > 200) {
    const per = inc.map((v, a) => ((v - last.inc[a]) * 1000) / (t - last.t));
    $("rate").textContent = Math.round(per.reduce((x, y) => x + y, 0)).toLocaleString("en");
    $("mainRate").textContent = Math.round(per[0]).toLocaleString("en");
    per.forEach((v, a) => ($(`rate${a}`).textContent = `${Math.round(v).toLocaleString("en")}/s`));
    last = { t, inc };
  } else if (!last) last = { t, inc };
  const now = performance.timeOrigin + performance.now();
  for (let a = 0; a < agents; a++) {
    const c = $(`tl${a}`);
    if (!c) continue;
    const g = c.getContext("2d");
    g.clearRect(0, 0, c.width, c.height);
    g.fillStyle = a === 0 ? "#c98a2b" : "#4a78c2";
    for (let k = 0; k < L.RING_SIZE; k++) {
      const s = floats[(a * L.RING_SIZE + k) * 2], e = floats[(a * L.RING_SIZE + k) * 2 + 1];
      if (e < now - WINDOW_MS) continue;
      const x = ((s - (now - WINDOW_MS)) / WINDOW_MS) * c.width;
      g.fillRect(Math.max(0, x), 0, Math.max(1, ((e - s) / WINDOW_MS) * c.width), c.height);
    }
  }
  const buckets = new Array(16).fill(0);
  for (let a = 0; a < agents; a++) for (let b = 0; b < 16; b++) buckets[b] += Atomics.load(ints, L.agentSlot(a, L.BUCKETS + b));
  const top = Math.max(1, ...buckets);
  $("histTop").textContent = Math.max(...buckets).toLocaleString("en");
  $("hist").innerHTML = buckets.map((b) => `<div title="${b}" style="height:${b ? Math.max(2, (100 * Math.log1p(b)) / Math.log1p(top)) : 0}%"></div>`).join("");
  return { expected, actual, lost: expected - actual, mainIncrements: inc[0], mode: r.mode };
}

// Frames per second of this page, to show it stays responsive.
let frames = 0, fpsSince = performance.now();
function frame(t) {
  frames++;
  if (t - fpsSince > 500) {
    $("fps").textContent = Math.round((frames * 1000) / (t - fpsSince));
    frames = 0;
    fpsSince = t;
  }
  if (run) draw(run, t);
  requestAnimationFrame(frame);
}

async function restart() {
  last = null;
  await stop();
  await start();
}

try {
  await sabmutex.init({ name: "page" });
  $("workers").oninput = () => {
    $("workersOut").textContent = $("workers").value;
    if (run) restart();
  };
  for (const r of document.querySelectorAll("input[name=mode]")) r.onchange = () => run && restart();
  $("toggle").onclick = async () => {
    if (run) {
      await stop();
      $("toggle").textContent = "Start";
    } else {
      await start();
      $("toggle").textContent = "Stop";
    }
  };
  requestAnimationFrame(frame);
  $("status").textContent = "ready: press Start";
  // ?start=sabmutex (or js, none) starts that mode at once: for screenshots.
  const startMode = new URLSearchParams(location.search).get("start");
  if (startMode) {
    document.querySelector(`input[name=mode][value=${CSS.escape(startMode)}]`).checked = true;
    $("toggle").click();
  }
  // For the browser test: run a mode for ms milliseconds and report what was shown.
  window.demo = {
    async runFor(mode, workers, ms) {
      document.querySelector(`input[name=mode][value=${mode}]`).checked = true;
      $("workers").value = workers;
      $("workersOut").textContent = workers;
      last = null;
      await start();
      // What the page shows while it runs, sampled every animation frame.
      const live = [];
      for (const end = performance.now() + ms; performance.now() < end; ) {
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        live.push({ expected: Number($("expected").textContent), lost: Number($("lost").textContent) });
      }
      const shown = await stop();
      return { ...shown, live, dom: { expected: $("expected").textContent, actual: $("actual").textContent, lost: $("lost").textContent } };
    },
  };
} catch (e) {
  $("status").textContent = e.message;
  throw e;
}
