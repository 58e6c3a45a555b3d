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
  await init({ debug: { heldMs: 500 } });
  const stop: () => void = sabmutex.onReport((r) => {
    const kind: "lock-order" | "held-too-long" = r.kind;
    void [kind, r.message, r.agents[0]];
  });
  stop();
  // @ts-expect-error: a report's kind is one of two
  sabmutex.onReport((r) => r.kind === "deadlock");
  void new Mutex(sab, 0, { name: "accounts" });
  // @ts-expect-error: a name is a string
  void new Mutex(sab, 0, { name: 7 });
  return new sabmutex.Mutex(sab).acquire() && new Mutex(sab).acquire();
}
