// The deadlock scene's slots in its SharedArrayBuffer, shared by the page
// (demo-deadlock.js) and its two workers (demo-deadlock-worker.js).
export const MUTEX = [0, 4]; // each worker's own Mutex (Mutex.SLOTS = 2 each, room to spare)
export const READY = 8; // how many workers hold their own mutex
export const INTS = 12;
export const NAMES = ["worker left", "worker right"];
