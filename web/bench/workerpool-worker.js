// The workers of workerpool.js's row: workerpool's worker, a classic script
// over the global sabmutex; they join the page's registry with the task
// that needs it.
importScripts("/node_modules/workerpool/dist/workerpool.js", "/dist/sabmutex.js");

const f = (i) => ((i * 2654435761) >>> 16) % 1000;
workerpool.worker({
  join: (init) => sabmutex.init({ ...init, name: "workerpool" }).then(() => true),
  job: (i) => f(i),
  serve: async (init, name) => {
    await sabmutex.init({ ...init, name: "workerpool" });
    const jobs = sabmutex.Channel.named(name);
    let sum = 0;
    for (let m; (m = jobs.recv()) !== undefined; ) sum += f(Number(m));
    return sum;
  },
});
