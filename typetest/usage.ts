// Compiled by `make types` in every cell of the type matrix (matrix.mjs):
// correct use must type-check, and every line marked @ts-expect-error must
// NOT (misuse is caught). Written for TypeScript 5.0 and lib es2020 + dom;
// what needs more is in using.ts and shared.ts.
import * as sabmutex from "sabmutex";
import wasmURL from "sabmutex/sabmutex.wasm";

export async function page(worker: Worker): Promise<number> {
  await sabmutex.init();
  await sabmutex.init({ wasm: new URL("sabmutex.wasm", "https://example.test/") });
  await sabmutex.init({ wasm: wasmURL });
  await sabmutex.init({ wasm: await fetch(wasmURL) });
  await sabmutex.init({ wasm: new Uint8Array(8) });
  const sab = new SharedArrayBuffer(64);
  const m = new sabmutex.Mutex(sab, 0);
  const m2 = new sabmutex.Mutex(new Int32Array(sab), sabmutex.Mutex.SLOTS);
  worker.postMessage({ sab, module: sabmutex.module });
  const forWorker: sabmutex.WorkerInit = sabmutex.forWorker();
  worker.postMessage({ sab, ...forWorker });
  await sabmutex.init({ ...forWorker, name: "decoder 2" });
  const s: sabmutex.Snapshot = sabmutex.snapshot();
  const waitsFor: number | null = s.agents[0].waitingFor?.holder ?? null;
  if (s.agents[0].alive && waitsFor !== s.agentId) console.log(s.agents[0].name);
  // @ts-expect-error a name is a string
  await sabmutex.init({ name: 2 });
  const got: boolean = await m.lockAsync(50);
  if (got) m.unlock();
  const ac = new AbortController();
  await m2.lockAsync({ timeoutMs: 10, signal: ac.signal });
  m2.unlock();
  const h = await m.acquireAsync({ timeout: 5 });
  const done: boolean = h.released;
  h.release();
  void done;
  const n: number = await m.withLockAsync(async () => 42);
  const who: number | null = m.holder();
  if (m.isLocked() && who !== null && m.releaseIfHeldBy(who)) worker.terminate();
  const died: boolean = m.previousHolderDied;
  const ended: boolean = sabmutex.agentEnded(7);
  void died, ended;
  return n + sabmutex.memoryBytes() + sabmutex.agentId;
}

export async function worker(module: WebAssembly.Module, sab: SharedArrayBuffer): Promise<void> {
  await sabmutex.init({ wasm: module });
  const m = new sabmutex.Mutex(sab);
  if (m.lock(10)) m.unlock();
  if (m.tryLock()) m.unlock();
  const s: string = m.withLock(() => "x");
  void s;
  const h: sabmutex.LockHandle = m.acquire();
  h.release();
}

export async function misuse(sab: SharedArrayBuffer): Promise<void> {
  // @ts-expect-error: memory must be shared
  new sabmutex.Mutex(new ArrayBuffer(8));
  // @ts-expect-error: an Int32Array, not a Uint8Array
  new sabmutex.Mutex(new Uint8Array(sab));
  // @ts-expect-error: the index is a number
  new sabmutex.Mutex(sab, "0");
  const m = new sabmutex.Mutex(sab);
  // @ts-expect-error: timeouts are numbers of milliseconds
  m.lock("10");
  // @ts-expect-error: lockAsync resolves later; it is not a boolean
  const b: boolean = m.lockAsync();
  void b;
  // @ts-expect-error: timeoutMs is a number
  await m.lockAsync({ timeoutMs: "5" });
  // @ts-expect-error: signal is an AbortSignal
  await m.lockAsync({ signal: true });
  // (init({ wasm: 42 }) cannot be caught here: lib.dom declares
  // WebAssembly.Module as an empty interface, which every value matches.)
  // @ts-expect-error: options is an object
  await sabmutex.init("sabmutex.wasm");
  // @ts-expect-error: unlock returns nothing
  const u: boolean = m.unlock();
  void u;
  // @ts-expect-error: SLOTS is read-only
  sabmutex.Mutex.SLOTS = 2;
  // @ts-expect-error: previousHolderDied is read-only
  m.previousHolderDied = false;
  // @ts-expect-error: an agent id is a number
  m.releaseIfHeldBy("worker-1");
  // @ts-expect-error: module is read-only (a live binding, set by init)
  sabmutex.module = null;
}

export async function family(sab: SharedArrayBuffer, signal: AbortSignal): Promise<number> {
  const m = new sabmutex.Mutex(sab, 0);
  const cond = new sabmutex.Cond(sab, sabmutex.Mutex.SLOTS);
  await m.lockAsync();
  const notified: boolean = await cond.waitAsync(m, { timeoutMs: 10, signal });
  if (cond.wait(m, 5)) m.unlock();
  const woken: number = cond.notifyOne() + cond.notifyAll();
  const rw = new sabmutex.RWMutex(new Int32Array(sab), 4);
  const r: string = await rw.withReadLockAsync(async () => "read", 5);
  const w: number = rw.withLock(() => 1);
  if (rw.tryReadLock()) rw.readUnlock();
  const writerDied: boolean = rw.previousHolderDied;
  if (await rw.readLockAsync({ signal })) rw.readUnlock();
  const sem = new sabmutex.Semaphore(sab, 8, 3);
  if (await sem.acquireAsync(2, { timeoutMs: 5 })) sem.release(2);
  if (sem.acquire() && sem.tryAcquire(1)) sem.release(2);
  const wg = new sabmutex.WaitGroup(sab, 11);
  wg.add(2);
  wg.done();
  const zero: boolean = await wg.waitAsync(10);
  const barrier = new sabmutex.Barrier(sab, 12, 4);
  const how: sabmutex.BarrierResult = await barrier.waitAsync({ signal });
  if (barrier.wait(10) === "last") void how;
  const once = new sabmutex.Once(sab, 14);
  const ran: boolean = (await once.doAsync(async () => {})) || once.do(() => {}) || once.previousHolderDied;
  const ch = new sabmutex.Channel(sab, 16, 4, 64);
  const slots: number = sabmutex.Channel.slotsFor(4, 64) + ch.capacity + ch.length;
  if (ch.trySend("hi") && ch.send(new Uint8Array(2), 5)) await ch.sendAsync(new Float64Array(1), { timeoutMs: 5, signal });
  const msg: sabmutex.Message | undefined = ch.tryRecv() ?? ch.recv(5) ?? (await ch.recvAsync({ signal }));
  const size: number = typeof msg === "string" ? msg.length : msg ? msg.byteLength : 0;
  for await (const m of ch) void m;
  for (const m of ch) void m;
  const picked: sabmutex.SelectResult = sabmutex.select([ch.recvCase(), ch.sendCase("x")], 5);
  const pickedAsync = await sabmutex.selectAsync([ch.recvCase()], { timeoutMs: 5, signal });
  if (picked.index === 0 && typeof picked.value === "string" && pickedAsync.index !== -1) void pickedAsync.value;
  if (!ch.closed) ch.close();
  // @ts-expect-error a message is a string or bytes: objects go as JSON
  ch.trySend({ a: 1 });
  void [notified, r, w, zero, ran, writerDied, slots, size];
  return woken + sem.available() + wg.count() + sabmutex.Semaphore.SLOTS + sabmutex.RWMutex.SLOTS;
}

export function familyMisuse(sab: SharedArrayBuffer, m: sabmutex.Mutex): void {
  // @ts-expect-error: a Semaphore needs its permits
  new sabmutex.Semaphore(sab, 0);
  // @ts-expect-error: a Barrier needs its parties
  new sabmutex.Barrier(sab, 0);
  const cond = new sabmutex.Cond(sab);
  // @ts-expect-error: wait needs the Mutex
  cond.wait(10);
  // @ts-expect-error: a Cond's mutex is a sabmutex.Mutex, not an RWMutex
  cond.wait(new sabmutex.RWMutex(sab, 4));
  // @ts-expect-error: a Barrier's result is a string
  const b: boolean = new sabmutex.Barrier(sab, 8, 2).wait();
  void [b, m];
}

// Names (#44): primitives by name, and the Web Locks API over them.
export async function byName(signal: AbortSignal): Promise<number> {
  const m: sabmutex.Mutex = sabmutex.Mutex.named("db");
  const s: sabmutex.Semaphore = sabmutex.Semaphore.named("pool", 4);
  const ch: sabmutex.Channel = sabmutex.Channel.named("jobs", { capacity: 16, maxMessageBytes: 256 });
  void [m, s, ch, sabmutex.Barrier.named("b", 2), sabmutex.Once.named("o"), sabmutex.Cond.named("c"), sabmutex.WaitGroup.named("wg"), sabmutex.RWMutex.named("rw")];
  const n: number = await sabmutex.locks.request("db", async (lock) => (lock === null ? 0 : lock.name.length));
  const shared: string = await sabmutex.locks.request("db", { mode: "shared", signal }, (lock) => (lock ? lock.mode : "none"));
  const held = (await sabmutex.locks.query()).held.map((l) => l.clientId);
  const sync: number = sabmutex.locks.requestSync("db", () => 1);
  // @ts-expect-error: mode is "exclusive" or "shared"
  sabmutex.locks.request("db", { mode: "write" }, () => 0);
  // @ts-expect-error: a Channel's options are an object
  sabmutex.Channel.named("jobs", 16);
  return n + shared.length + held.length + sync;
}
