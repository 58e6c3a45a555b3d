// #region worker
importScripts("/lib/workerpool/dist/workerpool.js", "/dist/sabmutex.js", "tasks.js");

// Each task joins the page's registry first (init once; after, the same promise).
const joined = (task) => async (init, args) => (await sabmutex.init({ ...init, name: "workerpool" }), task(args));
workerpool.worker({ add: joined(add), drain: joined(drain), hold: joined(hold) });
// #endregion
