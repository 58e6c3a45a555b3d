// locks.html's worker: with navigator.locks (impl "native") or
// sabmutex.locks after joining the page's registry (impl "sab"), holds a
// lock by name until it ends, or runs requestSync.
import * as sabmutex from "/dist/sabmutex.mjs";

let locks = null;
const outcomes = new Map(); // name -> the promise of what its request settled with
const releases = new Map(); // name -> what lets its holdGate go
onmessage = async ({ data }) => {
  if (data.impl !== undefined) {
    if (data.impl === "sab") await sabmutex.init(data.init);
    locks = data.impl === "sab" ? sabmutex.locks : navigator.locks;
    postMessage("ready");
  } else if (data.hold !== undefined) {
    // Holds data.hold (in data.mode) until the worker ends, or its request
    // rejects: then its error's name is what {outcome} answers.
    const req = locks.request(data.hold, { mode: data.mode ?? "exclusive" }, () => (postMessage("held"), new Promise(() => {})));
    outcomes.set(data.hold, req.then(() => "resolved", (e) => e.name));
  } else if (data.pend !== undefined) {
    // Requests data.pend (in data.mode), which another agent holds: answers
    // "queued" at once, and {outcome} what its request settled with.
    outcomes.set(data.pend, locks.request(data.pend, { mode: data.mode ?? "exclusive" }, () => "granted").then((v) => v, (e) => e.name));
    postMessage("queued");
  } else if (data.holdBlocked !== undefined) {
    // Holds data.holdBlocked (in data.mode) with its event loop blocked (in Atomics.wait
    // inside the callback) until slot 0 of data.sab is set: answers "held"
    // from inside, and "released" once its request has settled.
    // (A stolen one settles with an AbortError: {outcome} answers it.)
    const i32 = new Int32Array(data.sab);
    const req = locks.request(data.holdBlocked, { mode: data.mode ?? "exclusive" }, () => {
      postMessage("held");
      Atomics.wait(i32, 0, 0, 5000);
    });
    outcomes.set(data.holdBlocked, req.then(() => "resolved", (e) => e.name));
    await outcomes.get(data.holdBlocked);
    postMessage("released");
  } else if (data.holdGate !== undefined) {
    // Requests data.holdGate (in data.mode): answers "held" once granted,
    // and holds it until {release} of the name.
    const gate = new Promise((r) => releases.set(data.holdGate, r));
    outcomes.set(data.holdGate, locks.request(data.holdGate, { mode: data.mode ?? "exclusive" }, () => (postMessage("held"), gate)).then(() => "resolved", (e) => e.name));
  } else if (data.release !== undefined) {
    releases.get(data.release)();
    postMessage(await outcomes.get(data.release));
  } else if (data.syncTwice !== undefined) {
    // requestSync of data.syncTwice inside its own requestSync: a wait that
    // can never end; answers the error it throws.
    try {
      sabmutex.locks.requestSync(data.syncTwice, () => sabmutex.locks.requestSync(data.syncTwice, () => {}));
      postMessage("returned");
    } catch (e) {
      postMessage(e.message);
    }
  } else if (data.syncNames !== undefined) {
    // requestSync of data.syncNames distinct names, one after another.
    let n = 0;
    for (let i = 0; i < data.syncNames; i++) n += sabmutex.locks.requestSync(`${data.prefix}${i}`, (l) => (l.name === `${data.prefix}${i}` ? 1 : 0));
    postMessage(n);
  } else if (data.pendMark !== undefined) {
    // As pend, and the callback takes the next ticket of slot 0 of data.sab:
    // {outcome} answers the ticket.
    const i32 = new Int32Array(data.sab);
    outcomes.set(data.pendMark, locks.request(data.pendMark, () => Atomics.add(i32, 0, 1)));
    postMessage("queued");
  } else if (data.outcome !== undefined) {
    postMessage(await outcomes.get(data.outcome));
  } else if (data.steal !== undefined) {
    postMessage(await locks.request(data.steal, { steal: true }, () => "stole").catch((e) => e.name));
  } else if (data.sync !== undefined) {
    // requestSync data.n times, adding 1 to slot 0 of data.sab as a separate load and store, some work apart.
    // The workers start together, as in names.js's namedHammer: slot 1
    // counts them in, the last wakes the others, 5 s at most (a worker that
    // began alone finished before the other began, in Firefox beside a busy
    // loop, and the twin lost nothing three times).
    const i32 = new Int32Array(data.sab);
    if (Atomics.add(i32, 1, 1) + 1 === data.workers) Atomics.notify(i32, 1);
    for (const end = performance.now() + 5000; Atomics.load(i32, 1) < data.workers && performance.now() < end; ) Atomics.wait(i32, 1, Atomics.load(i32, 1), 100);
    let x = 0;
    for (let k = 0; k < data.n; k++) {
      sabmutex.locks.requestSync(data.sync, () => {
        const v = Atomics.load(i32, 0);
        for (let s = 0; s < 20; s++) x += Math.sqrt(s + k); // (a wider window between the load and the store)
        Atomics.store(i32, 0, v + 1);
      });
    }
    if (x < 0) console.log(x);
    postMessage("done");
  }
};
