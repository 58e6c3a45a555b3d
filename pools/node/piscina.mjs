import { exercise } from "./check.mjs";
// #region main
import * as sabmutex from "sabmutex";
import { Piscina } from "piscina";

await sabmutex.init({ name: "main" });
const pool = new Piscina({
  filename: new URL("./piscina-worker.mjs", import.meta.url).href,
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
    abort.abort(); // piscina ends its worker: what it held is freed, the next holder told
    return await task.catch((e) => e.name);
  },
  // #endregion
);
await pool.destroy();
