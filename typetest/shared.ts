// Cells whose TypeScript (5.7+) tells typed arrays over a SharedArrayBuffer
// from those over an ArrayBuffer.
import * as sabmutex from "sabmutex";

export function misuse(sab: SharedArrayBuffer): void {
  new sabmutex.Mutex(new Int32Array(sab), 0);
  new sabmutex.Mutex(new Int32Array(sab, 8, 4), 0);
  // @ts-expect-error: an Int32Array over an ArrayBuffer is not shared
  new sabmutex.Mutex(new Int32Array(8));
}
