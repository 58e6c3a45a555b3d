// #region worker
import * as sabmutex from "sabmutex";
import workerpool from "workerpool";
import { threadId, workerData } from "node:worker_threads";
import { add, drain, hold } from "./tasks.mjs";

await sabmutex.init({ ...workerData, name: `workerpool ${threadId}` }); // before it says it is ready
workerpool.worker({ add, drain, hold });
// #endregion
