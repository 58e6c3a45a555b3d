import { exercise } from "./check.mjs";
// #region main
import * as sabmutex from "sabmutex";
import Tinypool from "tinypool";

await sabmutex.init({ name: "main" });
const pool = new Tinypool({
  filename: new URL("./tinypool-worker.mjs", import.meta.url).href,
  workerData: sabmutex.forWorker(), // each worker joins this registry as it starts
  maxThreads: 3,
});
// #endregion

await exercise(
  (name, args, signal) => pool.run(args, { name, signal }),
  // #region end
  async (run, held) => {
    const abort = new AbortController();
    const task = run("hold", {}, abort.signal);
    await held; // the task holds Mutex.named("db") and the lock "db"
    abort.abort(); // tinypool ends its worker: what it held is freed, the next holder told
    return await task.catch((e) => e.name);
  },
  // #endregion
);
await pool.destroy();
