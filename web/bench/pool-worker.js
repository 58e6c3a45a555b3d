// The pool section's worker (a module worker): a producer, a consumer or
// the collector of one run of the pool. The page side is pool.js.
import * as sabmutex from "/dist/sabmutex.mjs";
import api from "/dist/sabmutex.mjs";
import { JsQueue } from "./jsfamily.js";
import { POOL, STOP, job, hash } from "./pool.js";

const epochMs = () => performance.timeOrigin + performance.now();
const atomicsWait = Atomics.wait, atomicsNotify = Atomics.notify; // the engine's, whatever counting puts in their place
let ports = { ins: [], outs: [] }; // the MessagePorts the page sent (pool.js, wire: postMessage runs)

// A worker runs one implementation, as a user's workers use one queue
// (bench.js, workerPools): the Channel's pool that counts is one of its own.
let implOfWorker = null;
function mine(impl, count) {
  const as = count ? `${impl} counted` : impl;
  if ((implOfWorker ??= as) !== as) throw new Error(`bench: this worker runs ${implOfWorker}, not ${as}: give each implementation workers of its own`);
}

function started(sab) {
  if (atomicsWait(new Int32Array(sab), POOL.START, 0, 10000) === "timed-out") throw new Error("no start signal");
}

// The jobs' and the results' queues of impl: the Channels by name, or the
// textbook queues in the run's buffer.
function queuesOf(impl, sab) {
  if (impl === "batched") {
    // POOL.BATCH jobs (results) a message: put() gathers them and sends
    // each full batch, flush() the rest; take() hands them out one by one.
    const batchOf = (name, bytes) => {
      const ch = sabmutex.Channel.named(name), out = new Uint8Array(POOL.BATCH * bytes);
      let n = 0, inbox = null, next = 0;
      return {
        put(m) {
          out.set(m, n++ * bytes);
          if (n === POOL.BATCH) this.flush();
        },
        flush() {
          if (n > 0) ch.send(out.subarray(0, n * bytes));
          n = 0;
        },
        take() {
          if (this.drained()) (inbox = ch.recv()), (next = 0);
          return inbox.subarray(next * bytes, ++next * bytes);
        },
        // Whether the next take receives a message (and may wait for it).
        drained: () => inbox === null || next === inbox.length / bytes,
      };
    };
    return { jobs: batchOf(POOL.JOBS_BATCHED, POOL.JOB_BYTES), results: batchOf(POOL.RESULTS_BATCHED, POOL.RESULT_BYTES) };
  }
  if (impl === "js") {
    const jobs = new JsQueue(sab, POOL.Q_JOBS, POOL.CAP, POOL.JOB_BYTES), results = new JsQueue(sab, POOL.Q_RESULTS, POOL.CAP, POOL.RESULT_BYTES);
    return { jobs: { put: (m) => jobs.put(m), take: () => jobs.take() }, results: { put: (m) => results.put(m), take: () => results.take() } };
  }
  const jobs = sabmutex.Channel.named(POOL.JOBS), results = sabmutex.Channel.named(POOL.RESULTS);
  return { jobs: { put: (m) => jobs.send(m), take: () => jobs.recv() }, results: { put: (m) => results.send(m), take: () => results.recv() }, channels: [jobs, results] };
}

// Counting (the pool's counted runs): what a send or receive did beyond
// the glue's fast paths, through the glue's one door into Go for these
// calls (the Channel's _call: its claims, OP_CHAN_CLAIM_SEND and
// OP_CHAN_CLAIM_RECV, and its wakes, OP_CHAN_WAKE), and the sleeps and
// wake-ups of the Go core's waits (its imports call Atomics.wait and
// Atomics.notify, looked up at each call). What the fast paths do (their
// claims, the spins' looks) cannot be counted from outside the glue.
let counts = null;
const counted = new WeakSet();
function countCalls(channels) {
  const P = api[Symbol.for("sabmutex.internals")]().P; // the protocol's constants, as sabmutex's own tests read them
  if (typeof P.OP_CHAN_CLAIM_SEND !== "number" || typeof P.OP_CHAN_CLAIM_RECV !== "number" || typeof P.OP_CHAN_WAKE !== "number") throw new Error("bench: the protocol has no OP_CHAN_CLAIM_SEND, OP_CHAN_CLAIM_RECV or OP_CHAN_WAKE: update pool-worker.js's counting");
  for (const ch of channels) {
    if (counted.has(ch)) continue;
    counted.add(ch);
    const call = ch._call;
    if (typeof call !== "function") throw new Error("bench: the Channel has no _call: update pool-worker.js's counting");
    ch._call = function (op) {
      if (op === P.OP_CHAN_CLAIM_SEND || op === P.OP_CHAN_CLAIM_RECV) counts.claims++;
      else if (op === P.OP_CHAN_WAKE) counts.wakeCalls++;
      return call.apply(this, arguments);
    };
  }
}
// Runs f with Atomics.wait and Atomics.notify counting: sleeps (a wait that
// slept: woken, or timed out, as a watched wait's slices do), waits that
// found the word changed, notifies, and the agents they woke.
function counting(f) {
  counts = { claims: 0, wakeCalls: 0, sleeps: 0, timedOut: 0, notEqual: 0, notifies: 0, woken: 0 };
  Atomics.wait = function (ta, index, value, timeout) {
    const r = atomicsWait(ta, index, value, timeout);
    if (r === "not-equal") counts.notEqual++;
    else counts.sleeps++, r === "timed-out" && counts.timedOut++;
    return r;
  };
  Atomics.notify = function (ta, index, count) {
    const n = atomicsNotify(ta, index, count);
    counts.notifies++;
    counts.woken += n;
    return n;
  };
  try {
    return f();
  } finally {
    Atomics.wait = atomicsWait;
    Atomics.notify = atomicsNotify;
  }
}

// An op's work, counted when asked for (impl "sabmutex" only): the result
// with the counts.
function run(impl, sab, count, f) {
  mine(impl, count);
  if (!count) return f(queuesOf(impl, sab));
  if (impl !== "sabmutex") throw new Error(`bench: the pool counts the Channel's runs only, not ${impl}'s`);
  const q = queuesOf(impl, sab);
  countCalls(q.channels);
  return { ...counting(() => f(q)), counts };
}

// A consumer's result for job m: its producer and k, the hash, and who did
// it (16 bytes).
function result(m, me) {
  const w = new Int32Array(m.buffer, m.byteOffset, 2), r = new Uint8Array(POOL.RESULT_BYTES), v = new Int32Array(r.buffer);
  v[0] = w[0];
  v[1] = w[1];
  v[2] = hash(m);
  v[3] = me;
  return r;
}
const kOf = (m) => new Int32Array(m.buffer, m.byteOffset, 2)[1];

// The collector's check of a result: the job's hash as the page computed
// it, and each job once (seen, checked by the page).
function checker(seen, expect, per) {
  const s = new Int32Array(seen), e = new Int32Array(expect);
  return (m) => {
    const v = new Int32Array(m.buffer, m.byteOffset, 4), at = v[0] * per + v[1];
    if (m.byteLength !== POOL.RESULT_BYTES || !(at >= 0 && at < e.length)) throw new Error(`bench: a result of ${m.byteLength} bytes for job ${v[0]}, ${v[1]}`);
    if (v[2] !== e[at]) throw new Error(`bench: job ${v[0]}, ${v[1]}: worker ${v[3]} hashed ${v[2]}, not ${e[at]}: the job did not arrive whole`);
    s[at]++;
  };
}

// Calls each(message) for the messages on any of the ports, and resolves
// with the first answer it gives other than undefined, or rejects with
// what it threw; the ports closed either way.
function onPorts(list, each) {
  return new Promise((resolve, reject) => {
    const end = (f, v) => {
      for (const p of list) p.onmessage = null, p.close();
      f(v);
    };
    for (const p of list) {
      p.onmessage = ({ data }) => {
        try {
          const r = each(data);
          if (r !== undefined) end(resolve, r);
        } catch (e) {
          end(reject, e);
        }
      };
    }
  });
}

const ops = {
  async init(received) {
    await sabmutex.init(received);
  },

  // Sends jobs 0..n-1 of producer id, from the start signal: through the
  // queue, or to the consumers in turn (from consumer id on), then a STOP
  // to each consumer.
  produce({ impl, sab, id, n, count }) {
    if (impl === "postMessage") {
      mine(impl, false);
      const outs = ports.outs, c = outs.length;
      started(sab);
      for (let k = 0; k < n; k++) outs[(k + id) % c].postMessage(job(id, k));
      for (const p of outs) p.postMessage(job(id, STOP));
      return {};
    }
    return run(impl, sab, count, ({ jobs }) => {
      started(sab);
      for (let k = 0; k < n; k++) jobs.put(job(id, k));
      jobs.flush?.();
      return {};
    });
  },

  // Takes jobs until a STOP, and sends each one's result to the collector
  // (postMessage: until a STOP from each producer).
  consume({ impl, sab, me, producers, count }) {
    if (impl === "postMessage") {
      mine(impl, false);
      const out = ports.outs[0];
      let done = 0, stops = 0;
      return onPorts(ports.ins, (m) => {
        if (kOf(m) === STOP) {
          return ++stops < producers ? undefined : { jobs: done };
        }
        out.postMessage(result(m, me));
        done++;
        return undefined;
      });
    }
    return run(impl, sab, count, ({ jobs, results }) => {
      let done = 0;
      for (let m; kOf((m = jobs.take())) !== STOP; done++) {
        results.put(result(m, me));
        if (jobs.drained?.()) results.flush(); // (the batch's results go before the next take, which may wait)
      }
      results.flush?.();
      return { jobs: done };
    });
  },

  // Takes total results and checks each; then (queues) a STOP job to each
  // consumer. endMs: when the last result came.
  collect({ impl, sab, total, per, seen, expect, count }) {
    const check = checker(seen, expect, per);
    if (impl === "postMessage") {
      mine(impl, false);
      let got = 0;
      return onPorts(ports.ins, (m) => {
        check(m);
        return ++got === total ? { endMs: epochMs() } : undefined;
      });
    }
    return run(impl, sab, count, ({ jobs, results }) => {
      for (let got = 0; got < total; got++) check(results.take());
      const endMs = epochMs();
      for (let i = 0; i < POOL.CONSUMERS; i++) {
        jobs.put(job(-1, STOP));
        jobs.flush?.(); // (a STOP a message: each consumer takes one)
      }
      return { endMs };
    });
  },
};

onmessage = async ({ data: { id, op, args } }) => {
  if (op === "ports") {
    // (No reply: pool.js sends them with a transfer.) The last run's
    // sending ports are closed now that it is over: closed after their
    // last message, that message might not have arrived.
    for (const p of ports.outs) p.close();
    return void (ports = { ins: args.ins ?? [], outs: args.outs ?? [] });
  }
  try {
    postMessage({ id, ok: await ops[op](args) });
  } catch (e) {
    postMessage({ id, err: `${e.name}: ${e.message}` });
  }
};
