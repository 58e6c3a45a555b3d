// ES module consumers (bundler, node16/nodenext with "type": "module"): the
// named exports, the subpath, and the default export (the same API as one
// object, which every bundler and Node give: TypeScript 5.0-5.5 in bundler
// mode would accept a default import even if there were none).
import sabmutex from "sabmutex";
import * as esm from "sabmutex/sabmutex.mjs";
import { init, Mutex, type LockHandle } from "sabmutex";

export async function f(sab: SharedArrayBuffer): Promise<LockHandle> {
  await sabmutex.init();
  const m: WebAssembly.Module | null = sabmutex.module;
  void m;
  // @ts-expect-error: module is read-only (set by init)
  sabmutex.module = null;
  // @ts-expect-error: the default export has no default
  void sabmutex.default;
  await esm.init();
  await init();
  return new sabmutex.Mutex(sab).acquire() && new Mutex(sab).acquire();
}
