// The page of go.html: Go workers (go-worker.js), JavaScript workers and the
// page itself add to one counter, slots 0-1 the Mutex, 2 the counter, 3 the
// start flag, 4 the workers ready.
import * as sabmutex from "/dist/sabmutex.mjs";

const $ = (id) => document.getElementById(id);

// A JavaScript worker: init with the page's module, then n increments.
const JS_WORKER = `
import * as sabmutex from "${location.origin}/dist/sabmutex.mjs";
onmessage = async ({ data: { sab, n, lock, module } }) => {
  await sabmutex.init({ wasm: module });
  const c = new Int32Array(sab), m = new sabmutex.Mutex(sab, 0);
  Atomics.add(c, 4, 1);
  Atomics.wait(c, 3, 0, 10000);
  for (let i = 0; i < n; i++) {
    if (lock) m.lock();
    const v = c[2];
    for (let k = 0; k < 30; k++);
    c[2] = v + 1;
    if (lock) m.unlock();
  }
  postMessage({ id: sabmutex.agentId, language: "JavaScript" });
};`;

// Runs goN Go workers, jsN JavaScript workers and the page, n increments
// each; shows and returns what the counter says.
async function run(goN, jsN, n, lock) {
  const sab = new SharedArrayBuffer(32);
  const c = new Int32Array(sab);
  const m = new sabmutex.Mutex(sab, 0);
  const jsURL = URL.createObjectURL(new Blob([JS_WORKER], { type: "text/javascript" }));
  const workers = [
    ...Array.from({ length: goN }, (_, i) => [new Worker("go-worker.js"), { sab, mutex: 0, counter: 2, n, lock, start: 3, registry: sabmutex.forWorker(), name: `go ${i}` }]),
    ...Array.from({ length: jsN }, () => [new Worker(jsURL, { type: "module" }), { sab, n, lock, module: sabmutex.module }]),
  ];
  const done = workers.map(
    ([w]) =>
      new Promise((resolve, reject) => {
        w.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve({ language: "Go", ...data }));
        w.onerror = (e) => reject(new Error(e.message));
      }),
  );
  for (const [w, msg] of workers) w.postMessage(msg);
  for (const until = performance.now() + 30000; Atomics.load(c, 4) < workers.length; ) {
    if (performance.now() > until) throw new Error("sabmutex demo: the workers did not start in 30 s");
    await new Promise((r) => setTimeout(r, 1));
  }
  const t = performance.now();
  Atomics.store(c, 3, 1);
  Atomics.notify(c, 3);
  for (let i = 0; i < n; i++) {
    if (lock) await m.lockAsync();
    else if (i % 64 === 0) await null;
    const v = c[2];
    for (let k = 0; k < 30; k++);
    c[2] = v + 1;
    if (lock) m.unlock();
  }
  const agents = await Promise.all(done);
  const ms = performance.now() - t;
  workers.forEach(([w]) => w.terminate());
  const expected = (workers.length + 1) * n;
  $("expected").textContent = expected.toLocaleString("en");
  $("actual").textContent = c[2].toLocaleString("en");
  $("lost").textContent = (expected - c[2]).toLocaleString("en");
  $("ms").textContent = `${ms.toFixed(0)} ms`;
  $("agents").textContent = `Agents: this page (${sabmutex.agentId}), ` + agents.map((a) => `${a.language} (${a.id})`).join(", ");
  return { expected, actual: c[2], agents: agents.length + 1 };
}

await sabmutex.init();
$("run").onclick = async () => {
  $("run").disabled = true;
  $("status").textContent = "running…";
  try {
    const r = await run(Number($("goN").value), Number($("jsN").value), Number($("each").value), $("lock").checked);
    $("status").textContent = r.actual === r.expected ? "no update lost" : `${r.expected - r.actual} updates lost`;
  } catch (e) {
    $("status").textContent = e.message;
    console.error(e);
  } finally {
    $("run").disabled = false;
  }
};
$("status").textContent = "ready";
window.goDemo = { run }; // for browsertest
