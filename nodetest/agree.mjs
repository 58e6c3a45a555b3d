// `make nodetest`: the glue's inlined fast paths against Go's own steps, in
// Node.js, beside the browsers (browsertest's TestGlueAgreesWithCore and
// TestFamilyGlueAgreesWithCore run the same checks in each engine): the
// checks of browsertest/testdata/harness.js (the Mutex and its lockTurn) and
// family.js (the RWMutex, Semaphore, WaitGroup, Cond, the Barrier's
// barrierTurn and the Channel), run against the built
// classic script as require() gives it. Each check runs every call once
// through the glue and once straight to Go's export, from the same slots,
// and lists where the result, the slots after or the wake-ups differ.
//
//	node nodetest/agree.mjs [-dist dist]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const dist = resolve(args.includes("-dist") ? args[args.indexOf("-dist") + 1] : join(root, "dist"));
const TIMEOUT_MS = 60_000;

globalThis.sabmutex = createRequire(import.meta.url)(join(dist, "sabmutex.js"));
for (const f of ["harness.js", "family.js"]) {
  const file = join(root, "browsertest", "testdata", f);
  vm.runInThisContext(readFileSync(file, "utf8"), { filename: file }); // function declarations only
}

const checks = [
  // name, the check (a global of the files above), the fewest cases it must compare
  ["the Mutex", "glueCoreAgreement", 80],
  ["the family", "familyGlueCoreAgreement", 2400],
];
let failed = false;
for (const [name, fn, fewest] of checks) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no result in ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS)));
  try {
    const { cases, differences } = await Promise.race([globalThis[fn](), late]);
    const ok = differences.length === 0 && cases >= fewest;
    failed ||= !ok;
    console.log(`${ok ? "ok  " : "FAIL"} glue = core, ${name}: ${cases} cases, ${differences.length} differences${cases < fewest ? ` (want at least ${fewest} cases)` : ""}`);
    for (const d of differences) console.log(`     ${d}`);
  } catch (e) {
    failed = true;
    console.log(`FAIL glue = core, ${name}: ${e.stack || e}`);
  } finally {
    clearTimeout(timer);
  }
}
process.exit(failed ? 1 : 0);
