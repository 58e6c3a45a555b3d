// Scene 2, a pipeline: producer workers send numbered items on a sabmutex
// Channel in a SharedArrayBuffer, and this page receives them with
// `await ch.recvAsync()`, checking that every item arrives once. Also
// switches between the scenes. (The same queue written with a Mutex and two
// Conds is the README's Cond example.)
import * as sabmutex from "/dist/sabmutex.mjs";
import * as L from "./demo-pipeline-layout.js";

const $ = (id) => document.getElementById(id);
const now = () => performance.now();
const HISTORY = 300; // frames of queue depth kept for the chart (about 5 s)
const YIELD_MS = 8; // the page consumes for at most this long between frames' chances

let run = null; // the current run (see start)

async function start() {
  const n = Number($("pProducers").value), workUs = Number($("pWork").value), pageUs = Number($("pPage").value);
  const intsBuf = new SharedArrayBuffer(L.INTS * 4);
  const floatsBuf = new SharedArrayBuffer(L.FLOATS * 8);
  const chan = new SharedArrayBuffer(sabmutex.Channel.slotsFor(L.CAP, L.ITEM_BYTES) * 4);
  const ints = new Int32Array(intsBuf);
  const workers = [];
  for (let p = 0; p < n; p++) {
    const w = new Worker("demo-pipeline-worker.js", { type: "module" });
    w.onerror = (e) => console.error(`pipeline worker: ${e.message}`);
    w.started = new Promise((r) => (w.onmessage = r));
    w.postMessage({ init: { ...sabmutex.forWorker(), name: `producer ${p}` }, ints: intsBuf, floats: floatsBuf, chan, p, workUs });
    workers.push(w);
  }
  await Promise.all(workers.map((w) => w.started));
  run = {
    ints,
    waitedMs: new Float64Array(floatsBuf),
    workers,
    pageUs,
    ch: new sabmutex.Channel(chan, 0, L.CAP, L.ITEM_BYTES),
    next: new Array(n).fill(0), // the sequence number expected next from each producer
    consumed: 0,
    missing: 0,
    duplicates: 0,
    maxDepth: 0, // the deepest the page found the channel
    frameDepth: 0, // the deepest since the last frame
    pageWaitedMs: 0,
    waitingSince: null, // when the page began its current wait for items
    snapshot: { produced: 0, consumed: 0, queued: 0 }, // read together (consume)
    depths: [],
  };
  run.done = consume(run);
  layoutAgents(n);
  $("pStatus").textContent = `running: ${n} producer${n > 1 ? "s" : ""}, the page consuming`;
  $("pAbout").hidden = false;
}

// The page's side: take every item there is; when there is none, wait for
// one without blocking the event loop, until the channel is closed and
// drained.
async function consume(r) {
  const { ints, ch } = r;
  let since = now();
  for (;;) {
    const depth = ch.length;
    const items = [];
    if (depth === 0) {
      Atomics.store(ints, L.PAGE_WAITING, 1);
      r.waitingSince = now();
      const item = await ch.recvAsync();
      r.pageWaitedMs += now() - r.waitingSince;
      r.waitingSince = null;
      Atomics.store(ints, L.PAGE_WAITING, 0);
      if (item === undefined) return; // closed and drained
      items.push(item);
    } else {
      r.maxDepth = Math.max(r.maxDepth, depth);
      r.frameDepth = Math.max(r.frameDepth, depth);
      // What the page found, before it takes it: produced >= consumed + queued
      // (a producer counts an item just before it sends it).
      r.snapshot = { produced: produced(r), consumed: r.consumed, queued: depth };
      for (let k = 0, item; k < depth && (item = ch.tryRecv()) !== undefined; k++) items.push(item);
    }
    r.consumed += items.length;
    for (const item of items) {
      const [p, seq] = new Int32Array(item.buffer);
      check(r, p, seq);
      L.work(r.pageUs); // handling the item
    }
    if (now() - since > YIELD_MS) {
      await new Promise((res) => setTimeout(res, 0));
      since = now();
    }
  }
}

// Each producer's items come through the queue in order: a gap is missing
// items, a number seen before a duplicate.
function check(r, p, seq) {
  if (seq < r.next[p]) r.duplicates++;
  else {
    r.missing += seq - r.next[p];
    r.next[p] = seq + 1;
  }
}

const produced = (r) => r.workers.reduce((s, _, p) => s + Atomics.load(r.ints, L.producerSlot(p, L.PRODUCED)), 0);

async function stop() {
  if (!run) return null;
  const r = run;
  // Close the channel: the producers' sends throw (also those waiting for
  // space), and the page drains what is left.
  const stopped = Promise.all(r.workers.map((w) => new Promise((res) => (w.onmessage = (e) => e.data === "stopped" && res()))));
  r.ch.close();
  await stopped;
  await r.done;
  r.workers.forEach((w) => w.terminate());
  // Items pushed but never taken are missing too.
  r.workers.forEach((_, p) => (r.missing += Atomics.load(r.ints, L.producerSlot(p, L.PRODUCED)) - r.next[p]));
  r.snapshot = { produced: produced(r), consumed: r.consumed, queued: r.ch.length };
  run = null;
  $("pStatus").textContent = "stopped";
  return draw(r, now());
}

function layoutAgents(n) {
  const box = $("pAgents");
  box.innerHTML = "";
  for (let a = -1; a < n; a++) {
    const name = document.createElement("span");
    name.textContent = a < 0 ? "page (consumer)" : `producer ${a + 1}`;
    const state = document.createElement("span");
    state.id = `pState${a}`;
    const bar = document.createElement("div");
    bar.className = "share";
    bar.innerHTML = `<div id="pShare${a}"></div>`;
    box.append(name, state, bar);
  }
}

let last = null; // the previous rate reading: { t, consumed, waited per agent }

// Draws one frame from the run's counts and the shared memory; returns what it showed.
function draw(r, t) {
  const s = r.snapshot;
  const depthNow = r.ch.length;
  r.depths.push(Math.max(r.frameDepth, depthNow));
  if (r.depths.length > HISTORY) r.depths.shift();
  r.frameDepth = 0;
  $("pProduced").textContent = s.produced;
  $("pConsumed").textContent = s.consumed;
  $("pQueued").textContent = s.queued;
  $("pMissing").textContent = r.missing;
  $("pDup").textContent = r.duplicates;
  $("pMaxDepth").textContent = `${r.maxDepth} of ${L.CAP}`;
  const ok = r.missing === 0 && r.duplicates === 0 && s.produced >= s.consumed + s.queued;
  $("pCheck").textContent = ok ? "every item once" : "items lost or repeated";
  $("pCheck").className = "num " + (ok ? "ok" : "bad");
  // Who waits: producers for space, the page for items, and their share of the last half second.
  const pageWaited = r.pageWaitedMs + (r.waitingSince === null ? 0 : t - r.waitingSince);
  const waited = [pageWaited, ...r.workers.map((_, p) => r.waitedMs[p])];
  const waiting = [Atomics.load(r.ints, L.PAGE_WAITING), ...r.workers.map((_, p) => Atomics.load(r.ints, L.producerSlot(p, L.WAITING)))];
  waiting.forEach((w, i) => {
    const el = $(`pState${i - 1}`);
    if (!el) return;
    el.textContent = w ? (i === 0 ? "waiting for items" : "waiting for space") : i === 0 ? "consuming" : "producing";
    el.className = w ? "waiting" : "";
  });
  if (!last || last.run !== r) last = { run: r, t, consumed: s.consumed, waited };
  else if (t - last.t > 500) {
    $("pRate").textContent = Math.round(((s.consumed - last.consumed) * 1000) / (t - last.t)).toLocaleString("en");
    waited.forEach((w, i) => {
      const el = $(`pShare${i - 1}`);
      if (el) el.style.width = `${Math.min(100, (100 * (w - last.waited[i])) / (t - last.t))}%`;
    });
    last = { run: r, t, consumed: s.consumed, waited };
  }
  const c = $("pDepth"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  g.fillStyle = "#4a78c2";
  const w = c.width / HISTORY;
  r.depths.forEach((d, k) => g.fillRect(k * w, c.height * (1 - d / L.CAP), Math.ceil(w), (c.height * d) / L.CAP));
  const producersWaitedMs = waited.slice(1).reduce((x, y) => x + y, 0);
  return { produced: s.produced, consumed: s.consumed, queued: s.queued, missing: r.missing, duplicates: r.duplicates, maxDepth: r.maxDepth, pageWaitedMs: pageWaited, producersWaitedMs };
}

// Frames per second of this page while the scene runs, and a frame drawn.
let frames = 0, fpsSince = now();
function frame(t) {
  frames++;
  if (t - fpsSince > 500) {
    $("pFps").textContent = Math.round((frames * 1000) / (t - fpsSince));
    frames = 0;
    fpsSince = t;
  }
  if (run) draw(run, t);
  requestAnimationFrame(frame);
}

// The scene switch: the scene left is stopped (scene 1 through its own button).
async function showScene(scene) {
  $("scene-counter").hidden = scene !== "counter";
  $("scene-pipeline").hidden = scene !== "pipeline";
  $("scene-deadlock").hidden = scene !== "deadlock";
  $("scene-names").hidden = scene !== "names";
  if (scene !== "counter" && $("toggle").textContent === "Stop") $("toggle").click();
  if (scene !== "pipeline" && run) {
    await stop();
    $("pToggle").textContent = "Start";
  }
}

async function restart() {
  if (!run) return;
  await stop();
  await start();
}

try {
  await sabmutex.init({ name: "page" });
  for (const r of document.querySelectorAll("input[name=scene]")) r.onchange = () => showScene(r.value);
  for (const id of ["pProducers", "pWork", "pPage"]) {
    $(id).oninput = () => {
      $(`${id}Out`).textContent = $(id).value;
      restart();
    };
  }
  $("pToggle").onclick = async () => {
    if (run) await stop();
    else await start();
    $("pToggle").textContent = run ? "Stop" : "Start";
  };
  requestAnimationFrame(frame);
  $("pStatus").textContent = "ready: press Start";
  // ?scene=pipeline opens this scene and starts it: for screenshots.
  if (new URLSearchParams(location.search).get("scene") === "pipeline") {
    document.querySelector("input[name=scene][value=pipeline]").checked = true;
    await showScene("pipeline");
    $("pToggle").click();
  }
  // For the browser test: run with producers for ms milliseconds (workUs
  // making each item, pageUs handling it), and report what the page showed,
  // live (every frame) and once stopped.
  window.demoPipeline = {
    async runFor(producers, ms, workUs, pageUs) {
      for (const [id, v] of [["pProducers", producers], ["pWork", workUs], ["pPage", pageUs]]) {
        $(id).value = v;
        $(`${id}Out`).textContent = v;
      }
      await start();
      const live = [];
      for (const end = now() + ms; now() < end; ) {
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        live.push({ depth: run.depths[run.depths.length - 1], produced: Number($("pProduced").textContent), consumed: Number($("pConsumed").textContent) });
      }
      const shown = await stop();
      const dom = Object.fromEntries(["pProduced", "pConsumed", "pQueued", "pMissing", "pDup", "pCheck"].map((id) => [id, $(id).textContent]));
      return { ...shown, cap: L.CAP, live, dom, fps: Number($("pFps").textContent) };
    },
  };
} catch (e) {
  $("pStatus").textContent = e.message;
  throw e;
}
