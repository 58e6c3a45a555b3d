import { exercise } from "./check.mjs";
// #region main
import * as sabmutex from "sabmutex";
import workerpool from "workerpool";

await sabmutex.init({ name: "main" });
const pool = workerpool.pool(new URL("./workerpool-worker.mjs", import.meta.url).pathname, {
  workerType: "thread",
  workerThreadOpts: { workerData: sabmutex.forWorker() }, // each worker joins this registry as it starts
  maxWorkers: 3,
  workerTerminateTimeout: 100, // a worker busy in a task never answers workerpool's cleanup: end it after 100 ms, not 1 s
});
// #endregion

await exercise(
  (name, args) => pool.exec(name, [args]),
  // #region end
  async (run, held) => {
    const task = run("hold", {}).timeout(1000); // past it, workerpool ends the worker (as task.cancel() and pool.terminate(true) do)
    await held; // the task holds Mutex.named("db") and the lock "db"
    return await task.catch((e) => e.name); // ended: what it held is freed, the next holder told
  },
  // #endregion
);
await pool.terminate();
