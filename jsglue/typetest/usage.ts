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
  void died;
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
