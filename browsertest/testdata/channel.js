// Page side of browsertest's channel_test.go: the Channel between workers
// and the page (jsglue/channel.js, internal/core/chan.go). Workers come from
// harness.js and join the page's registry (recovery.js's workers()).
"use strict";

// Message k of producer p: its bytes (or, every third, a string) of a
// length drawn from (p, k), carrying p and k and a filler that the
// receiver checks, so that a torn or mixed-up message is seen.
function messageOf(p, k, maxBytes) {
  const length = 8 + ((p * 7919 + k * 104729) % (maxBytes - 7));
  if (k % 3 === 0) return `${p}:${k}:`.padEnd(length - 1, String.fromCharCode(97 + ((p + k) % 26))) + "$";
  const b = new Uint8Array(length);
  new DataView(b.buffer).setUint32(0, p);
  new DataView(b.buffer).setUint32(4, k);
  for (let i = 8; i < length; i++) b[i] = (p * 31 + k * 7 + i) & 255;
  return b;
}

// [p, k] of a message, or null if it is not one messageOf made.
function parseMessage(m, maxBytes) {
  let p, k;
  if (typeof m === "string") [p, k] = m.split(":").map(Number);
  else if (m instanceof Uint8Array && m.length >= 8) [p, k] = [new DataView(m.buffer).getUint32(0), new DataView(m.buffer).getUint32(4)];
  else return null;
  if (!(Number.isInteger(p) && Number.isInteger(k) && p >= 0 && p < 1000 && k >= 1 && k < 1e7)) return null;
  const want = messageOf(p, k, maxBytes);
  if (typeof m !== typeof want || m.length !== want.length) return null;
  for (let i = 0; i < m.length; i++) if (m[i] !== want[i]) return null;
  return [p, k];
}

// producers workers send perProducer messages each into one Channel
// (capacity, maxBytes), consumers workers and the page receive until the
// page closes it once every producer has finished. With use false, the
// same traffic goes through a hand-made ring with no lock (the can-fail
// twin: messages must be lost, doubled or torn). Returns { sent, received,
// missing, doubled, torn, outOfOrder, byPage, byWorkers, ms }.
async function channelTraffic({ producers = 4, consumers = 2, perProducer, capacity = 64, maxBytes = 64, use = true }) {
  const names = [...Array.from({ length: producers }, (_, i) => `producer ${i}`), ...Array.from({ length: consumers }, (_, i) => `consumer ${i}`)];
  const ws = await workers(names);
  const slots = sabmutex.Channel.slotsFor(capacity, maxBytes);
  const sab = new SharedArrayBuffer((slots + 8) * 4);
  const done = new Int32Array(sab, slots * 4, 8); // [producers finished, ring head, ring tail, ring lock-free flag]
  const lib = `${messageOf}\n${parseMessage}`; // declared in each worker by an indirect eval
  const t0 = performance.now();
  const sending = ws.slice(0, producers).map((w, p) =>
    w.run(
      (sabmutex, { sab, p, perProducer, capacity, maxBytes, slots, use, lib }) => {
        (0, eval)(lib);
        const done = new Int32Array(sab, slots * 4, 8);
        if (use) {
          const ch = new sabmutex.Channel(sab, 0, capacity, maxBytes);
          for (let k = 1; k <= perProducer; k++) if (!ch.send(messageOf(p, k, maxBytes), 20000)) throw new Error(`send ${k} timed out; the channel's first slots: ${new Int32Array(sab, 0, 8)}`);
        } else {
          // A ring of strings' and bytes' lengths and bytes, no lock: read
          // the tail, copy, store tail+1 (as people first write it; the
          // loads are atomic, so that a spin is not compiled into one read).
          const i32 = new Int32Array(sab), u8 = new Uint8Array(sab), cell = 1 + Math.ceil(maxBytes / 4);
          const until = performance.now() + 10000;
          for (let k = 1; k <= perProducer && performance.now() < until; k++) {
            const m = messageOf(p, k, maxBytes), bytes = typeof m === "string" ? new TextEncoder().encode(m) : m;
            let t;
            while ((t = Atomics.load(i32, slots + 2)) - Atomics.load(i32, slots + 1) >= capacity) if (performance.now() > until) break;
            const at = 8 + (t % capacity) * cell;
            i32[at] = bytes.length | (typeof m === "string" ? 1 << 30 : 0);
            u8.set(bytes, (at + 1) * 4);
            Atomics.store(i32, slots + 2, t + 1);
          }
        }
        Atomics.add(done, 0, 1);
        return true;
      },
      { sab, p, perProducer, capacity, maxBytes, slots, use, lib },
    ),
  );
  // A consumer's loop: returns the [p, k] pairs it got, in order, and how many were torn.
  const consume = (sabmutex, { sab, capacity, maxBytes, slots, use, producers, lib }) => {
    (0, eval)(lib);
    const got = [];
    let torn = 0;
    const take = (m) => {
      const pk = parseMessage(m, maxBytes);
      if (pk === null) torn++;
      else got.push(pk);
    };
    if (use) {
      for (const m of new sabmutex.Channel(sab, 0, capacity, maxBytes)) take(m);
    } else {
      const i32 = new Int32Array(sab), u8 = new Uint8Array(sab), cell = 1 + Math.ceil(maxBytes / 4);
      const done = new Int32Array(sab, slots * 4, 8);
      for (let idle = 0; idle < 1e6; ) {
        const h = Atomics.load(i32, slots + 1);
        if (h >= Atomics.load(i32, slots + 2)) {
          if (Atomics.load(done, 0) === producers) idle++;
          continue;
        }
        const at = 8 + (h % capacity) * cell, meta = i32[at], length = meta & ((1 << 30) - 1);
        const bytes = u8.slice((at + 1) * 4, (at + 1) * 4 + Math.min(length, maxBytes));
        Atomics.store(i32, slots + 1, h + 1);
        take(meta & (1 << 30) ? new TextDecoder().decode(bytes) : bytes);
      }
    }
    return { got, torn };
  };
  const args = { sab, capacity, maxBytes, slots, use, producers, lib };
  const receiving = ws.slice(producers).map((w) => w.run(consume, args));
  // The page receives too (with the Channel), and closes it once the producers are done.
  let pageGot = { got: [], torn: 0 };
  if (use) {
    const ch = new sabmutex.Channel(sab, 0, capacity, maxBytes);
    const closer = Promise.all(sending).then(() => ch.close());
    for await (const m of ch) {
      const pk = parseMessage(m, maxBytes);
      if (pk === null) pageGot.torn++;
      else pageGot.got.push(pk);
    }
    await closer;
  } else {
    await Promise.all(sending);
  }
  const results = [pageGot, ...(await within(Promise.all(receiving), 40000, "the consumers"))];
  const ms = performance.now() - t0;
  ws.forEach((w) => w.terminate());
  const seen = new Map();
  let outOfOrder = 0, doubled = 0;
  for (const { got } of results) {
    const last = new Map();
    for (const [p, k] of got) {
      const key = p * 1e7 + k;
      if (seen.has(key)) doubled++;
      seen.set(key, true);
      if ((last.get(p) ?? 0) >= k) outOfOrder++;
      last.set(p, k);
    }
  }
  const sent = producers * perProducer;
  return {
    sent,
    received: results.reduce((n, r) => n + r.got.length, 0),
    missing: sent - seen.size,
    doubled,
    torn: results.reduce((n, r) => n + r.torn, 0),
    outOfOrder,
    byPage: pageGot.got.length,
    byWorkers: results.slice(1).reduce((n, r) => n + r.got.length, 0),
    ms,
  };
}

// close() while a worker waits in send() on a full channel, another in
// recv() on an empty one, and the page in sendAsync() on the full one: the
// sends throw "sabmutex: send on a closed channel", the receive returns
// undefined with closed true. With close false (the twin), the waits end
// at their 1 s timeouts instead: false, and undefined with closed false.
async function channelClose(close) {
  const [sender, receiver] = await workers(["sender", "receiver"]);
  const slots = sabmutex.Channel.slotsFor(1, 16);
  const sab = new SharedArrayBuffer(slots * 8);
  const full = new sabmutex.Channel(sab, 0, 1, 16), empty = new sabmutex.Channel(sab, slots, 1, 16);
  full.trySend("first");
  const outcome = (p) => p.then((v) => ({ value: v === undefined ? "undefined" : v, error: null }), (e) => ({ value: null, error: e.message }));
  const sending = outcome(
    sender.run((sabmutex, { sab }) => new sabmutex.Channel(sab, 0, 1, 16).send("second", 1000), { sab }),
  );
  const receiving = outcome(
    receiver.run((sabmutex, { sab, slots }) => {
      const ch = new sabmutex.Channel(sab, slots, 1, 16);
      const m = ch.recv(1000);
      return { m: m === undefined ? "undefined" : m, closed: ch.closed };
    }, { sab, slots }),
  );
  const page = outcome(full.sendAsync("third", 1000));
  await sleep(200); // all three wait
  if (close) {
    full.close();
    empty.close();
  }
  const [s, r, p] = await within(Promise.all([sending, receiving, page]), 5000, "the waits");
  const left = full.tryRecv(); // what was in before the close is still there
  sender.terminate();
  receiver.terminate();
  return { sender: s, receiver: r, page: p, left: left === undefined ? "undefined" : left, closedAfter: full.closed };
}

// Resolves once the registry knows agent id has ended (its life lock was
// released: jsglue/registry.js), not merely been asked to; rejects after 5 s.
async function untilEnded(id) {
  for (const t0 = performance.now(); performance.now() - t0 < 5000; await sleep(5)) {
    if (sabmutex.snapshot().agents.some((a) => a.agentId === id && !a.alive)) return;
  }
  throw new Error(`agent ${id} still alive 5 s after terminate()`);
}

// A worker ends while it sends. Two cases:
//   copying  it holds the cell at the head, as a sender does while it
//            copies its message in (its claim written here as chan.go's
//            makes it): the page's recvAsync waits for that message; once
//            the worker is terminated the watch voids the cell, and the
//            page gets the message that was sent behind it, and a later
//            send goes through
//   waiting  it waits in send() on a full channel: its message is never
//            sent; once the registry knows it ended, the page receives
//            what was in, then a send of its own
// With joined false (the twin) the worker did not join the registry: in
// "copying", nobody learns of its end and the page's receive times out.
// With select true, the page receives with selectAsync (whose watch turns
// free the lock as recvAsync's do). Returns { first, second, recoveryMs }.
async function channelSenderDies(mode, joined = true, select = false) {
  const [w] = await workers(["sender"], { join: joined });
  const capacity = mode === "copying" ? 2 : 1;
  const slots = sabmutex.Channel.slotsFor(capacity, 16);
  const sab = new SharedArrayBuffer(slots * 4);
  const ch = new sabmutex.Channel(sab, 0, capacity, 16);
  if (mode === "copying") {
    await w.run((sabmutex, { sab }) => {
      const ch = new sabmutex.Channel(sab, 0, 2, 16); // set up as a user's would be
      // A send's claim (internal/core/chan.go), left mid-copy: the stamp of
      // the cell at position 0 names this agent, then the tail 0 -> 1.
      const { P } = sabmutex[Symbol.for("sabmutex.internals")]();
      const i32 = new Int32Array(sab);
      Atomics.store(i32, P.CHAN_SLOTS, ch._mark);
      Atomics.store(i32, P.CHAN_TAIL, 1);
    }, { sab });
  }
  ch.trySend("before"); // behind the message being copied, when copying
  if (mode !== "copying") {
    w.run((sabmutex, { sab }) => new sabmutex.Channel(sab, 0, 1, 16).send("never"), { sab }).catch(() => {});
    await sleep(150); // it waits for room
  }
  let endedMs = performance.now();
  if (mode === "waiting") {
    w.terminate(); // before any room is made: its message must never arrive
    await untilEnded(w.id); // Chromium may run a worker on for a while after terminate()
  }
  const timeoutMs = joined ? 5000 : 1000;
  const received = select ? sabmutex.selectAsync([ch.recvCase()], timeoutMs).then((r) => r.value) : ch.recvAsync(timeoutMs);
  const receiving = received.then((m) => ({ m, atMs: performance.now() }));
  if (mode === "copying") {
    await sleep(150); // the receive waits for the message being copied
    endedMs = performance.now();
    w.terminate();
  }
  const first = await within(receiving, 6000, "the page's receive");
  let second = "undefined";
  if (first.m !== undefined) {
    await ch.sendAsync("after", 1000);
    second = ch.tryRecv() ?? "undefined";
  }
  return { first: first.m ?? "undefined", second, recoveryMs: first.atMs - endedMs, length: ch.length };
}

// select across 3 channels (A, B, C: capacity 2). Producers 0 and 1 send
// perProducer messages each with select([A.sendCase(m), B.sendCase(m)],
// 1000), whichever has room; producer 2 sends its own to C. A worker
// receives with select over the three recvCases, timed (20 ms); the page
// with selectAsync, timed, every third one aborted after 1 ms. Once a
// channel is closed and drained, its case is dropped. With greedy true (the
// twin), producers 0 and 1 put each message in every channel with room,
// as a select that takes two cases would: messages arrive twice.
// Returns { sent, received, missing, doubled, timeouts, aborts }.
async function channelSelect({ perProducer = 2000, greedy = false } = {}) {
  const ws = await workers(["producer 0", "producer 1", "producer 2", "selector"]);
  const slots = sabmutex.Channel.slotsFor(2, 16);
  const sab = new SharedArrayBuffer(slots * 4 * 3 + 16);
  const chans = (s, sab, slots) => [0, 1, 2].map((i) => new s.Channel(sab, i * slots, 2, 16));
  const lib = `${chans}`;
  const done = new Int32Array(sab, slots * 12, 4);
  const sending = ws.slice(0, 3).map((w, p) =>
    w.run(
      (sabmutex, { sab, slots, p, perProducer, greedy, lib }) => {
        const [A, B, C] = (0, eval)(`(${lib})`)(sabmutex, sab, slots);
        const done = new Int32Array(sab, slots * 12, 4);
        for (let k = 1; k <= perProducer; k++) {
          const m = `${p}:${k}`;
          if (p === 2) C.send(m);
          else if (greedy) while (!(A.trySend(m) | B.trySend(m)));
          else while (sabmutex.select([A.sendCase(m), B.sendCase(m)], 1000).index === -1);
        }
        if (p === 2) C.close();
        else if (Atomics.add(done, 0, 1) === 1) (A.close(), B.close());
        return true;
      },
      { sab, slots, p, perProducer, greedy, lib },
    ),
  );
  const receive = async (pick) => {
    const got = [];
    let timeouts = 0, aborts = 0;
    const cs = chans(sabmutex, sab, slots);
    for (let open = [...cs]; open.length > 0; ) {
      const r = await pick(open.map((c) => c.recvCase()));
      if (r === "aborted") aborts++;
      else if (r.index === -1) timeouts++;
      else if (r.value === undefined) open.splice(r.index, 1); // closed and drained
      else got.push(r.value);
    }
    return { got, timeouts, aborts };
  };
  // One abort for sure: a selectAsync on an empty and a full channel that
  // nobody else uses; after it, both are as they were.
  const side = new SharedArrayBuffer(slots * 8), ac = new AbortController();
  const empty = new sabmutex.Channel(side, 0, 2, 16), full = new sabmutex.Channel(side, slots, 2, 16);
  full.trySend("a");
  full.trySend("b");
  setTimeout(() => ac.abort(), 5);
  const idleAbort = sabmutex.selectAsync([empty.recvCase(), full.sendCase("x")], { signal: ac.signal }).then(
    (r) => r,
    (e) => (e === ac.signal.reason ? "aborted" : Promise.reject(e)),
  );
  const selector = ws[3].run(
    (sabmutex, { sab, slots, lib, side }) => {
      const open = (0, eval)(`(${lib})`)(sabmutex, sab, slots);
      const got = [];
      // A timeout for sure: the empty and the full channel (below).
      const [empty, full] = [0, slots].map((at) => new sabmutex.Channel(side, at, 2, 16));
      let timeouts = sabmutex.select([empty.recvCase(), full.sendCase("w")], 30).index === -1 ? 1 : -1000;
      while (open.length > 0) {
        const r = sabmutex.select(open.map((c) => c.recvCase()), 20);
        if (r.index === -1) timeouts++;
        else if (r.value === undefined) open.splice(r.index, 1);
        else got.push(r.value);
      }
      return { got, timeouts, aborts: 0 };
    },
    { sab, slots, lib, side },
  );
  let n = 0;
  const page = receive(async (cases) => {
    const ac = new AbortController();
    if (n++ % 3 === 0) setTimeout(() => ac.abort(), 1);
    try {
      return await sabmutex.selectAsync(cases, { timeoutMs: 20, signal: ac.signal });
    } catch (e) {
      if (e !== ac.signal.reason) throw e;
      return "aborted";
    }
  });
  const idleOutcome = await idleAbort;
  const pageTimeout = (await sabmutex.selectAsync([empty.recvCase(), full.sendCase("x")], 30)).index === -1 ? 1 : -1000;
  await within(Promise.all(sending), 30000, "the producers");
  const results = await within(Promise.all([selector, page]), 30000, "the receivers");
  ws.forEach((w) => w.terminate());
  const count = new Map();
  for (const r of results) for (const m of r.got) count.set(m, (count.get(m) ?? 0) + 1);
  const sent = 3 * perProducer;
  let missing = 0, doubled = 0;
  for (let p = 0; p < 3; p++)
    for (let k = 1; k <= perProducer; k++) {
      const c = count.get(`${p}:${k}`) ?? 0;
      if (c === 0) missing++;
      if (c > 1) doubled += c - 1;
    }
  return {
    sent,
    received: results.reduce((a, r) => a + r.got.length, 0),
    missing,
    doubled,
    timeouts: results.reduce((a, r) => a + r.timeouts, pageTimeout),
    aborts: results[1].aborts + (idleOutcome === "aborted" ? 1 : 0),
    idleLength: empty.length * 10 + full.length,
    byPage: results[1].got.length,
  };
}

// Messages at the edge of maxMessageBytes (16), sent with trySend and made
// into a sendCase: strings of 1- to 4-byte characters and lone surrogates
// (U+FFFD in UTF-8: 3 bytes), views other than a Uint8Array, then 2000
// random strings. Each that fits in UTF-8 is sent, and received as
// TextEncoder and TextDecoder give it back; each that does not is refused
// with a RangeError that starts "sabmutex:" and gives its length, and
// nothing is sent. Returns { cases, sent, refused, failures }.
async function channelMessageSizes() {
  await initPage();
  const max = 16, encoder = new TextEncoder(), decoder = new TextDecoder();
  const sab = new SharedArrayBuffer(4 * sabmutex.Channel.slotsFor(1, max));
  const ch = new sabmutex.Channel(sab, 0, 1, max);
  const r = { cases: 0, sent: 0, refused: 0, failures: [] };
  const shown = (m) => (typeof m === "string" ? JSON.stringify(m) : `${m.constructor.name}(${m.byteLength} bytes)`);
  const bytesOf = (m) => (typeof m === "string" ? encoder.encode(m) : new Uint8Array(m.buffer, m.byteOffset, m.byteLength));
  const one = (m) => {
    r.cases++;
    const bytes = bytesOf(m), fits = bytes.length <= max;
    for (const how of ["trySend", "sendCase"]) {
      let error = null;
      try {
        if (how === "sendCase") ch.sendCase(m);
        else if (!ch.trySend(m)) error = new Error("no room");
      } catch (e) {
        error = e;
      }
      if (!fits) {
        if (!(error instanceof RangeError) || !error.message.startsWith("sabmutex: ") || !error.message.includes(`the message is ${bytes.length} bytes`)) r.failures.push(`${how}(${shown(m)}), ${bytes.length} bytes: ${error ? `${error.name}: ${error.message}` : "accepted"}; want a RangeError naming ${bytes.length} bytes`);
        if (ch.length !== 0) r.failures.push(`${how}(${shown(m)}) refused, yet ${ch.length} message in the channel`), ch.tryRecv();
        if (how === "trySend") r.refused++;
        continue;
      }
      if (error) {
        r.failures.push(`${how}(${shown(m)}), ${bytes.length} bytes: ${error.name}: ${error.message}`);
        continue;
      }
      if (how === "sendCase") continue;
      r.sent++;
      const got = ch.tryRecv(), want = typeof m === "string" ? decoder.decode(bytes) : bytes;
      const same = typeof m === "string" ? got === want : got instanceof Uint8Array && got.length === want.length && got.every((b, i) => b === want[i]);
      if (!same) r.failures.push(`trySend(${shown(m)}): received ${typeof got === "string" ? JSON.stringify(got) : got}, want ${typeof want === "string" ? JSON.stringify(want) : want}`);
    }
  };
  const chars = ["a", "é", "€", "😀", "\ud800", "\udc00"]; // 1, 2, 3 and 4 bytes; lone surrogates (3)
  for (const c of chars) for (let n = 1; n <= 17; n++) for (const tail of ["", "a", "éa"]) one(c.repeat(n) + tail);
  one("");
  one(new Uint8Array(16)), one(new Uint8Array(17)), one(new DataView(new ArrayBuffer(16))), one(new Int32Array([1, 2, 3, 4, 5]));
  one(new Uint16Array(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).buffer, 2, 3)); // a view part-way into its buffer
  let seed = 12345;
  const random = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
  const ranges = [[0x20, 0x7f], [0x80, 0x800], [0x800, 0xd800], [0xe000, 0x10000], [0x10000, 0x110000], [0xd800, 0xe000]];
  for (let k = 0; k < 2000; k++) {
    let s = "";
    for (let n = random(18); n > 0; n--) {
      const [lo, hi] = ranges[random(ranges.length)];
      const cp = lo + random(hi - lo);
      s += cp >= 0xd800 && cp < 0xe000 ? String.fromCharCode(cp) : String.fromCodePoint(cp);
    }
    one(s);
  }
  try {
    ch.trySend({ not: "a message" });
    r.failures.push("trySend of an object: accepted");
  } catch (e) {
    if (!(e instanceof TypeError) || !e.message.startsWith("sabmutex: ")) r.failures.push(`trySend of an object: ${e.name}: ${e.message}; want a TypeError that starts "sabmutex: "`);
  }
  r.failures = r.failures.slice(0, 20);
  return r;
}
