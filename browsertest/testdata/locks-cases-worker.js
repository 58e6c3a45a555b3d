// locks.html's cases (locks-cases.js) in a worker: joins the page's
// registry (its forWorker()), runs them, and answers with their rows.
import * as sabmutex from "/dist/sabmutex.mjs";
import { runCases } from "./locks-cases.js";

onmessage = async ({ data }) => {
  await sabmutex.init(data.init);
  postMessage(await runCases(data.only, "worker ", data.impls, data.skip));
};
