// A worker of the README's family examples (family.html): it produces items,
// reads the config, works under the semaphore and keeps the rounds.
import * as sabmutex from "./sabmutex.mjs";
import * as f from "./family.js";

onmessage = async ({ data: { sab, init, i, ITEMS, READS, ROUNDS } }) => {
  await sabmutex.init({ ...init, name: `family worker ${i}` });
  f.attach(sab);
  if (await f.setUpOnce(async () => f.count(0))) f.count(5);
  for (let k = 0; k < ITEMS; k++) f.produce(i * ITEMS + k);
  for (let k = 0; k < READS; k++) {
    if (f.readConfig() !== 0) f.count(1); // a torn read: half of a write
    f.count(6);
  }
  for (let k = 0; k < 200; k++) {
    f.limited(() => {
      if (f.count(2) + 1 > 2) f.count(3); // more than 2 inside
      for (let s = 0; s < 200; s++) Math.sqrt(s);
      f.count(2, -1);
      f.count(7);
    });
  }
  for (let r = 0; r < ROUNDS; r++) if (f.nextRound()) f.count(4);
  f.report(i, "done");
  f.finished();
};
