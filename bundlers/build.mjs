// `make test-bundlers`, first half: packs dist/ as npm would, installs the
// tarball into a copy of each app in bundlers/apps/ (under dist/bundlers/),
// and builds it as docs/bundlers.md's recipe says, with the bundlers pinned in
// bundlers/package-lock.json. browsertest/bundlers_test.go then loads each in
// Chromium (and runs Vite's dev and preview servers through serve-vite.mjs).
//
//	node bundlers/build.mjs [-dist dir]   (after `make dist` and npm ci in bundlers/)
//
// -dist packs another build of the package (an older one, to see the test fail).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const out = join(root, "dist", "bundlers");
const args = process.argv.slice(2);
const pkgDir = resolve(args.includes("-dist") ? args[args.indexOf("-dist") + 1] : join(root, "dist"));
const require = createRequire(import.meta.url);

if (!existsSync(join(pkgDir, "sabmutex.wasm"))) {
  console.error("test-bundlers: dist/sabmutex.wasm is missing: run `make dist` first (make test-bundlers does)");
  process.exit(2);
}
const versions = Object.fromEntries(["vite", "vite7", "esbuild", "webpack"].map((n) => [n, JSON.parse(readFileSync(join(here, "node_modules", n, "package.json"), "utf8")).version]));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// npm pack, as a user's install would get it.
const tarball = join(out, execFileSync("npm", ["pack", "--pack-destination", out, "--loglevel=error"], { cwd: pkgDir, encoding: "utf8" }).trim().split("\n").pop());

// A copy of bundlers/apps/<name> and apps/common, with the tarball unpacked
// as node_modules/sabmutex.
function app(name, type = "module") {
  const dir = join(out, name);
  cpSync(join(here, "apps", "common"), dir, { recursive: true });
  cpSync(join(here, "apps", name), dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `sabmutex-${name}-app`, private: true, ...(type && { type }) }));
  mkdirSync(join(dir, "node_modules"));
  execFileSync("tar", ["-xzf", tarball, "-C", join(dir, "node_modules")]);
  renameSync(join(dir, "node_modules", "package"), join(dir, "node_modules", "sabmutex"));
  return dir;
}

const built = {};
const t0 = Date.now();

// Vite: `vite build` (the dev and preview servers run in the browser test).
{
  const dir = app("vite");
  const vite = await import("vite");
  await vite.build({ root: dir, configFile: join(dir, "vite.config.js"), logLevel: "warn" });
  const wasm = readdirSync(join(dir, "out", "assets")).filter((f) => f.endsWith(".wasm"));
  if (wasm.length === 0) throw new Error("test-bundlers: vite build emitted no .wasm");
  built["vite-build"] = { dir: "vite/out", page: "/" };
  built["vite-dev"] = { vite: "vite", mode: "dev" };
  built["vite-preview"] = { vite: "vite", mode: "preview" };
}

// Vite 7's dev server without optimizeDeps.exclude: init() must reject,
// naming the fix.
{
  app("vite7-noexclude");
  built["vite7-dev-noexclude"] = { vite: "vite7-noexclude", mode: "dev", pkg: "vite7", expect: 'add optimizeDeps: { exclude: ["sabmutex"] } to vite.config.js' };
}

// esbuild: --bundle --format=esm --loader:.wasm=file, and the same as an IIFE.
{
  const dir = app("esbuild");
  const esbuild = await import("esbuild");
  const common = { absWorkingDir: dir, bundle: true, loader: { ".wasm": "file" }, logLevel: "error" };
  // esbuild main.js worker.js --bundle --format=esm --loader:.wasm=file --outdir=out/esm
  await esbuild.build({ ...common, entryPoints: ["main.js", "worker.js"], format: "esm", outdir: "out/esm" });
  cpSync(join(dir, "index.html"), join(dir, "out", "esm", "index.html"));
  // esbuild main-iife.js --bundle --format=iife --loader:.wasm=file --outfile=out/iife/main.js (and the worker as ESM)
  await esbuild.build({ ...common, entryPoints: ["main-iife.js"], format: "iife", outfile: "out/iife/main.js", logOverride: { "empty-import-meta": "silent" } });
  await esbuild.build({ ...common, entryPoints: ["worker.js"], format: "esm", outdir: "out/iife" });
  cpSync(join(dir, "index-iife.html"), join(dir, "out", "iife", "index.html"));
  built["esbuild-esm"] = { dir: "esbuild/out/esm", page: "/" };
  built["esbuild-iife"] = { dir: "esbuild/out/iife", page: "/" };
}

// webpack 5: `webpack` with the app's webpack.config.js (nothing for sabmutex).
{
  const dir = app("webpack", ""); // a package.json without "type", as webpack projects have
  const webpack = require("webpack");
  const config = { ...require(join(dir, "webpack.config.js")), context: dir };
  const stats = await new Promise((done, fail) => webpack(config, (err, s) => (err ? fail(err) : done(s))));
  if (stats.hasErrors()) throw new Error(`test-bundlers: webpack: ${stats.toString("errors-only")}`);
  cpSync(join(dir, "index.html"), join(dir, "out", "index.html"));
  if (!readdirSync(join(dir, "out")).some((f) => f.endsWith(".wasm"))) throw new Error("test-bundlers: webpack emitted no .wasm");
  built.webpack = { dir: "webpack/out", page: "/" };
}

// webpack 5 with require("sabmutex"), and a copy of sabmutex.wasm.
{
  const dir = app("webpack-require", "");
  const webpack = require("webpack");
  const config = { ...require(join(dir, "webpack.config.js")), context: dir };
  const stats = await new Promise((done, fail) => webpack(config, (err, s) => (err ? fail(err) : done(s))));
  if (stats.hasErrors()) throw new Error(`test-bundlers: webpack (require): ${stats.toString("errors-only")}`);
  cpSync(join(dir, "index.html"), join(dir, "out", "index.html"));
  cpSync(join(dir, "node_modules", "sabmutex", "sabmutex.wasm"), join(dir, "out", "sabmutex.wasm")); // the copy step
  built["webpack-require"] = { dir: "webpack-require/out", page: "/" };
}

// No bundler: an import map for the page; the module worker imports the file.
{
  const dir = app("importmap");
  const worker = join(dir, "worker.js");
  writeFileSync(worker, readFileSync(worker, "utf8").replace('from "sabmutex"', 'from "./node_modules/sabmutex/sabmutex.mjs"'));
  built.importmap = { dir: "importmap", page: "/" };
}

writeFileSync(join(out, "built.json"), JSON.stringify({ versions, apps: built }, null, 2));
console.log(`test-bundlers: built ${Object.keys(built).join(", ")} in ${((Date.now() - t0) / 1000).toFixed(1)} s with vite ${versions.vite}, esbuild ${versions.esbuild}, webpack ${versions.webpack} (dist/bundlers/)`);
