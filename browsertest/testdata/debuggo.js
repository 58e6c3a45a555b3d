// Page side of browsertest's debug_go_test.go: a Go agent in debug mode
// (it joined a registry made in debug mode: debuggo.html?debug) and a
// JavaScript worker take the same locks in opposite orders, never at the
// same time; the page (the registry's maker, whose collector reads every
// agent's region) reports the inversion to onReport. The Go agent is
// testdata/goagent (role "order"); goAgent, workers and sleep come from
// goagent.js, recovery.js and harness.js.
"use strict";

// The Go agent locks the Mutexes of locks ([{ index, name }], name
// optional) in their order and unlocks them; then a joined JavaScript
// worker locks them in the opposite order (blocking lock()) and unlocks
// them. Resolves, once onReport has had a "lock-order" report or ms after
// the worker is done, with { reports, goId, jsId, afterMs }: every report
// onReport gave (this page's earlier ones too), the agents' ids, and how
// long after the worker was done the wait ended.
async function goJsInversion(locks, ms) {
  await initPage();
  const reports = [];
  const stop = sabmutex.onReport((r) => reports.push({ kind: r.kind, message: r.message, agents: Array.from(r.agents) }));
  const sab = new SharedArrayBuffer(64);
  const go = await goAgent({ role: "order", join: true, name: "go agent", memory: sab, locks });
  const [js] = await workers(["js agent"]);
  try {
    const { id: goId } = await go.next();
    await js.run(
      (sabmutex, { sab, locks }) => {
        const ms = locks.map(({ index, name }) => new sabmutex.Mutex(sab, index, name === undefined ? undefined : { name }));
        for (const m of ms.slice().reverse()) m.lock();
        for (const m of ms) m.unlock();
      },
      { sab, locks },
    );
    const t0 = performance.now();
    const found = () => reports.some((r) => r.kind === "lock-order" && locks.every(({ index, name }) => r.message.includes(name === undefined ? `the Mutex at index ${index}` : `the Mutex "${name}"`)));
    while (performance.now() - t0 < ms && !found()) await sleep(10);
    return { reports, goId, jsId: js.id, afterMs: performance.now() - t0 };
  } finally {
    stop();
    go.terminate();
    js.terminate();
  }
}
