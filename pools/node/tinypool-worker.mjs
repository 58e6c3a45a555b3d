// #region worker
import * as sabmutex from "sabmutex";
import Tinypool, { workerId } from "tinypool";

await sabmutex.init({ ...Tinypool.workerData, name: `tinypool ${workerId}` }); // before its first task
export { add, drain, hold } from "./tasks.mjs";
// #endregion
