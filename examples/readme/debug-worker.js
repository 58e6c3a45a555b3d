// debug.html's worker: takes A then B, or B then A.
import * as sabmutex from "./sabmutex.mjs";

onmessage = async ({ data: { sab, order, init } }) => {
  await sabmutex.init(init);
  // #region debug-worker
  const a = new sabmutex.Mutex(sab, 0, { name: "A" });   // names for the reports
  const b = new sabmutex.Mutex(sab, 2, { name: "B" });
  const [first, second] = order === "ab" ? [a, b] : [b, a];
  first.lock();
  second.lock();   // B while holding A here, A while holding B in the other worker: reported
  second.unlock();
  first.unlock();
  // #endregion
  postMessage("done");
};
