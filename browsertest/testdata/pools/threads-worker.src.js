// The threads recipe's worker: pools/build.mjs bundles it (with
// threads/worker) into /dist/pools/threads-worker.js.
// #region worker
import { expose } from "threads/worker";
importScripts("/dist/sabmutex.js", "/pools/tasks.js");

expose({ join: (init, name) => sabmutex.init({ ...init, name }), add, drain, hold });
// #endregion
