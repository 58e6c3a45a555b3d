// The pipeline scene's shared memory, as the page (demo-pipeline.js) and its
// producers (demo-pipeline-worker.js) both read it: a Channel of CAP items in
// a buffer of its own, and the counts the page shows in another.
export const CAP = 32;
export const ITEM_BYTES = 8; // an item: producer, sequence number (two int32)
export const PAGE_WAITING = 0; // 1 while the page waits for items
export const MAX_PRODUCERS = 8;
const PRODUCER = 1; // per producer: items sent, waiting for space
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
