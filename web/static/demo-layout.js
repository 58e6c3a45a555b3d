// The demo's shared memory, as the page (demo.js) and its workers
// (demo-worker.js) both read it.
export const SAB_MUTEX = 0; // sabmutex's slots (Mutex.SLOTS: 0 and 1)
export const JS_MUTEX = 2; // the plain-JS mutex's slot
export const COUNTER = 3;
export const RUNNING = 4; // 1 while the agents should keep going
export const MAX_AGENTS = 9; // the main thread (agent 0) and up to 8 workers
const AGENT = 16, AGENT_SLOTS = 24; // per agent: increments (= acquisitions), ring index, 16 wait buckets
export const INCREMENTS = 0, RING = 1, BUCKETS = 2;
export const agentSlot = (a, field) => AGENT + a * AGENT_SLOTS + field;
export const INTS = AGENT + MAX_AGENTS * AGENT_SLOTS;
export const RING_SIZE = 64; // hold intervals kept per agent: [start, end] in epoch ms
export const FLOATS = MAX_AGENTS * RING_SIZE * 2;

// One critical section: the counter's read, a few µs of work, its write, all
// timed and recorded for agent a.
export function criticalSection(ints, floats, a, waitMs, work) {
  const start = performance.timeOrigin + performance.now();
  const v = Atomics.load(ints, COUNTER);
  let x = 0;
  for (let i = 0; i < work; i++) x = (x * 31 + i) | 0;
  Atomics.store(ints, COUNTER, v + 1 + (x & 0));
  const end = performance.timeOrigin + performance.now();
  const k = Atomics.add(ints, agentSlot(a, RING), 1) % RING_SIZE;
  floats[(a * RING_SIZE + k) * 2] = start;
  floats[(a * RING_SIZE + k) * 2 + 1] = end;
  const bucket = Math.min(15, Math.max(0, Math.ceil(Math.log2(Math.max(1, waitMs * 1000)))));
  Atomics.add(ints, agentSlot(a, BUCKETS + bucket), 1);
  Atomics.add(ints, agentSlot(a, INCREMENTS), 1);
}
