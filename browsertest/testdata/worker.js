// A classic worker.
importScripts("/dist/sabmutex.js", "worker-ops.js");
