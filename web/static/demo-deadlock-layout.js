// The deadlock scene's names, shared by the page (demo-deadlock.js) and its
// two workers (demo-deadlock-worker.js): no SharedArrayBuffer to lay out,
// every primitive is one by name in the page's registry.
export const NAMES = ["worker left", "worker right"];
export const FORKS = ["left fork", "right fork"]; // each worker's own Mutex, by name
export const READY = "both forks held"; // a Barrier of the two workers, by name
