// The type matrix of `make types`: the built package (dist/) installed into
// scratch projects and type-checked, with skipLibCheck off and strict on, by
// every TypeScript in the root package.json (typescript-5.0 ... and
// typescript, the newest), under each module setting and lib below. A cell
// fails on any error, including an @ts-expect-error line that is not an error
// (misuse that type-checks). Prints a table; exits 1 if any cell failed.
// (TypeScript 5.x/6.x skip checking TypeScript's own lib files, as
// skipDefaultLibCheck does, and check all their cells in one process,
// check-cells.cjs; TypeScript 7 runs its tsc on each and checks the libs too.)
//
//	node typetest/matrix.mjs [-dist dist] [-keep]
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const args = process.argv.slice(2);
const dist = resolve(args.includes("-dist") ? args[args.indexOf("-dist") + 1] : join(root, "dist"));
const keep = args.includes("-keep");
const TIMEOUT_MS = 120_000; // per tsc run

if (!existsSync(join(dist, "package.json"))) {
  console.error(`types: ${dist}/package.json is missing: run \`make dist\` first (make types does)`);
  process.exit(2);
}

// The compilers: every "typescript" or "typescript-X.Y" dev dependency, installed by npm ci.
const devDeps = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies;
const compilers = Object.keys(devDeps)
  .filter((n) => n === "typescript" || /^typescript-\d/.test(n))
  .map((name) => {
    const pkg = JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8"));
    return { name, version: pkg.version, tsc: join(root, "node_modules", name, "bin", "tsc") };
  })
  .sort((a, b) => cmp(a.version, b.version));

function cmp(a, b) {
  const [x, y] = [a, b].map((v) => v.split(/[.-]/).map(Number));
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}
const atLeast = (version, min) => cmp(version, min) >= 0;

// Module settings: [name, package.json type, compilerOptions].
const modes = [
  ["bundler", "module", { module: "esnext", moduleResolution: "bundler" }],
  ["node16-esm", "module", { module: "node16", moduleResolution: "node16" }],
  ["node16-cjs", "commonjs", { module: "node16", moduleResolution: "node16" }],
  ["nodenext-esm", "module", { module: "nodenext", moduleResolution: "nodenext" }],
  ["nodenext-cjs", "commonjs", { module: "nodenext", moduleResolution: "nodenext" }],
  // Classic scripts (<script src="sabmutex.js">, importScripts): files without
  // import or export, which see the global `sabmutex`.
  ["script", "commonjs", { module: "node16", moduleResolution: "node16", moduleDetection: "legacy" }],
];
const libs = [
  ["es2020+dom", ["es2020", "dom"]],
  ["es2022+dom.iterable", ["es2022", "dom", "dom.iterable"]],
  ["esnext+dom", ["esnext", "dom"]],
];

// The test files of a cell: what its compiler, lib and module format can express.
function filesFor(mode, version, lib, format) {
  if (mode === "script") return ["global.ts"];
  const files = ["usage.ts", format === "module" ? "esm.ts" : "cjs.ts"];
  if (atLeast(version, "5.7.0")) files.push("shared.ts"); // typed arrays know their buffer
  if (atLeast(version, "5.2.0") && lib.includes("esnext")) files.push("using.ts"); // Symbol.dispose, `using`
  return files;
}

const work = mkdtempSync(join(tmpdir(), "sabmutex-types-"));
const cells = [];
for (const [mode, format, options] of modes) {
  for (const [libName, lib] of libs) {
    const dir = join(work, `${mode}.${libName}`);
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    // The package as npm installs it (the files of dist/ but the wasm, which
    // types do not read; not dist/bundlers/).
    for (const f of readdirSync(dist, { withFileTypes: true })) {
      if (f.isFile() && !f.name.endsWith(".wasm")) cpSync(join(dist, f.name), join(dir, "node_modules", "sabmutex", f.name));
    }
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: format }));
    for (const f of readdirSync(here)) if (f.endsWith(".ts")) cpSync(join(here, f), join(dir, f));
    for (const c of compilers) {
      const config = `tsconfig.${c.name}.json`;
      const compilerOptions = { strict: true, noEmit: true, skipLibCheck: false, target: "es2020", lib, ...options };
      // TypeScript's own lib files take half of each run of the compilers
      // written in JavaScript; they still check sabmutex's .d.ts files, and
      // TypeScript 7 (native, fast) checks the libs too.
      if (!atLeast(c.version, "7.0.0")) compilerOptions.skipDefaultLibCheck = true;
      writeFileSync(join(dir, config), JSON.stringify({ compilerOptions, files: filesFor(mode, c.version, lib, format) }, null, 2));
      cells.push({ compiler: c, cell: `${mode} ${libName}`, dir, config });
    }
  }
}

// A job: TypeScript 7 (native) checks one cell per run of its tsc; each
// TypeScript written in JavaScript checks all its cells in one process
// (check-cells.cjs), which parses its lib files once.
function runTsc(cell) {
  return new Promise((done) => {
    execFile(process.execPath, [cell.compiler.tsc, "-p", join(cell.dir, cell.config), "--pretty", "false"], { cwd: cell.dir, timeout: TIMEOUT_MS, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      cell.ok = !err;
      cell.output = (stdout + stderr).trim() || (err ? String(err.message) : "");
      if (err && err.killed) cell.output = `timed out after ${TIMEOUT_MS} ms\n${cell.output}`;
      done();
    });
  });
}

function runInProcess(compiler, group) {
  return new Promise((done) => {
    const argv = [join(here, "check-cells.cjs"), dirname(dirname(compiler.tsc)), ...group.map((c) => join(c.dir, c.config))];
    execFile(process.execPath, argv, { timeout: TIMEOUT_MS * 3, maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      let results = null;
      try {
        results = JSON.parse(stdout);
      } catch {
        results = null;
      }
      for (const [i, cell] of group.entries()) {
        const r = results && results[i];
        cell.ok = !err && !!r && r.ok;
        cell.output = r ? r.output.trim() : `check-cells.cjs failed: ${err ? (err.killed ? "timed out" : err.message) : "no result"}\n${stderr}`;
      }
      done();
    });
  });
}

const jobs = [];
for (const compiler of compilers) {
  const group = cells.filter((c) => c.compiler === compiler);
  if (atLeast(compiler.version, "7.0.0")) for (const cell of group) jobs.push(() => runTsc(cell));
  else jobs.push(() => runInProcess(compiler, group));
}

const started = Date.now();
await Promise.all(
  Array.from({ length: Math.max(2, availableParallelism()) }, async () => {
    while (jobs.length) await jobs.shift()();
  }),
);

// The table: one row per cell, one column per compiler.
const names = [...new Set(cells.map((c) => c.cell))];
const head = ["cell", ...compilers.map((c) => `TS ${c.version}`)];
const rows = names.map((n) => [n, ...compilers.map((c) => (cells.find((x) => x.cell === n && x.compiler === c).ok ? "ok" : "FAIL"))]);
const width = head.map((_, i) => Math.max(...[head, ...rows].map((r) => r[i].length)));
for (const r of [head, ...rows]) console.log(r.map((s, i) => s.padEnd(width[i])).join("  "));
const failed = cells.filter((c) => !c.ok);
for (const c of failed) console.log(`\n--- TS ${c.compiler.version}, ${c.cell} (${c.dir}/${c.config}):\n${c.output}`);
console.log(`\n${cells.length - failed.length}/${cells.length} cells type-check (${compilers.length} compilers x ${names.length} settings) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (!keep && failed.length === 0) rmSync(work, { recursive: true, force: true });
else console.log(`scratch projects kept in ${work}`);
process.exit(failed.length ? 1 : 0);
