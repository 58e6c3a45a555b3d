// `using` with lock handles: cells whose TypeScript (5.2+) and lib
// (esnext, or esnext.disposable) know Symbol.dispose.
import * as sabmutex from "sabmutex";

export async function page(m: sabmutex.Mutex): Promise<void> {
  using h = await m.acquireAsync({ timeoutMs: 1000 });
  const done: boolean = h.released;
  void done;
}

export function worker(m: sabmutex.Mutex): void {
  using h = m.acquire(10);
  void h;
}
