// #region worker
import * as sabmutex from "sabmutex";
import { threadId, workerData } from "node:worker_threads";

await sabmutex.init({ ...workerData, name: `piscina ${threadId}` }); // before its first task
export { add, drain, hold } from "./tasks.mjs";
// #endregion
