// The Node.js recipes of docs/pools.md, run as a user would: dist/ and the
// pools of pools/package-lock.json (workerpool, piscina, tinypool)
// installed into a scratch project, each recipe (pools/node/<pool>.mjs and
// its worker) a child process bounded by a timeout. Each must: count
// exactly under a lock shared by name by 6 tasks on 3 workers, and lose
// updates without it (so the check can fail); carry 3,000 jobs over a
// Channel to 3 tasks, each job once; and, once the pool has ended a worker
// holding Mutex.named("db") and the lock "db", give both to the main thread
// within the watch's bound, told (previousHolderDied), and go on counting.
//
//	node pools/node.mjs [-dist dist]   (make test-pools-node)
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const dist = resolve(args.includes("-dist") ? args[args.indexOf("-dist") + 1] : join(here, "..", "dist"));
const TIMEOUT_MS = 60_000;

const app = mkdtempSync(join(tmpdir(), "sabmutex-pools-"));
mkdirSync(join(app, "node_modules", "sabmutex"), { recursive: true });
for (const f of readdirSync(dist, { withFileTypes: true })) if (f.isFile()) cpSync(join(dist, f.name), join(app, "node_modules", "sabmutex", f.name));
for (const dep of readdirSync(join(here, "node_modules"))) if (!dep.startsWith(".")) symlinkSync(join(here, "node_modules", dep), join(app, "node_modules", dep));
cpSync(join(here, "node"), app, { recursive: true });
writeFileSync(join(app, "package.json"), JSON.stringify({ name: "pools-app", private: true, type: "module" }));

function run(file) {
  return new Promise((done, fail) => {
    execFile(process.execPath, [file], { cwd: app, timeout: TIMEOUT_MS }, (err, stdout, stderr) => {
      if (err) return fail(new Error(`${file}: ${err.killed ? `timed out after ${TIMEOUT_MS} ms` : err.message}\n${stderr}`));
      try {
        done(JSON.parse(stdout.trim().split("\n").pop()));
      } catch {
        fail(new Error(`${file}: unexpected output:\n${stdout}\n${stderr}`));
      }
    });
  });
}

let passed = 0, failed = 0;
function check(name, ok, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? `: ${detail}` : ""}`);
  ok ? passed++ : failed++;
}

console.log(`node ${process.version}, package from ${dist}`);
const t0 = performance.now();
for (const pool of ["workerpool", "piscina", "tinypool"]) {
  try {
    const r = await run(`${pool}.mjs`);
    check(`${pool}: 6 tasks on 3 workers count exactly under locks.requestSync("counter")`, r.locked.count === r.locked.expected && r.locked.agents > 1, `${r.locked.count} of ${r.locked.expected}, on ${r.locked.agents} workers`);
    check(`${pool}: without the lock, updates are lost (so the check can fail)`, r.unlocked.count < r.unlocked.expected, `${r.unlocked.count} of ${r.unlocked.expected}`);
    check(`${pool}: 3,000 jobs over Channel.named("jobs") to 3 tasks, each once`, r.jobs.n === r.jobs.expected[0] && r.jobs.sum === r.jobs.expected[1], JSON.stringify(r.jobs));
    check(`${pool}: a worker the pool ended holding Mutex.named("db") and the lock "db": both freed within the watch's bound, the next holder told`, r.mutex && r.told && r.lock === true && r.freedMs < 1000, `task ${r.ended}, freed in ${r.freedMs} ms`);
    check(`${pool}: the pool goes on`, r.after.count === r.after.expected, `${r.after.count} of ${r.after.expected}`);
  } catch (e) {
    check(`${pool}: the recipe ran`, false, e.message);
  }
}
rmSync(app, { recursive: true, force: true });
console.log(`\npools (Node.js): ${passed} passed, ${failed} failed in ${Math.round((performance.now() - t0) / 1000)} s`);
process.exit(failed ? 1 : 0);
