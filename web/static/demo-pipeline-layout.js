// The pipeline scene's shared memory, as the page (demo-pipeline.js) and its
// producers (demo-pipeline-worker.js) both read it. Each primitive gets 4
// slots, more than it uses (Mutex.SLOTS is 2, Cond.SLOTS 1).
export const MUTEX = 0;
export const NOT_EMPTY = 4; // Cond: the page waits on it for items
export const NOT_FULL = 8; // Cond: producers wait on it for space
export const RUNNING = 12; // 1 while producers should go on
export const PAGE_WAITING = 13; // 1 while the page waits for items
export const HEAD = 14, TAIL = 15, COUNT = 16; // the queue, under MUTEX
export const CAP = 32;
export const ITEMS = 20; // CAP items of two slots: producer, sequence number
export const MAX_PRODUCERS = 8;
const PRODUCER = ITEMS + 2 * CAP; // per producer: items pushed, waiting for space
export const PRODUCED = 0, WAITING = 1;
export const producerSlot = (p, field) => PRODUCER + p * 2 + field;
export const INTS = PRODUCER + MAX_PRODUCERS * 2;
export const FLOATS = MAX_PRODUCERS; // per producer: ms spent waiting for space

// Busy work of about us microseconds (producing or handling an item).
export function work(us) {
  if (us <= 0) return;
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}
