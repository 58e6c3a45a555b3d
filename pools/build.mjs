// Bundles threads.js (pools/node_modules) for browsertest's threads recipe
// (docs/pools.md), as its users must (its modules import bare names and
// extensionless paths): dist/pools/threads.mjs, what the page imports
// from "threads", and dist/pools/threads-worker.js, the recipe's worker
// (browsertest/testdata/pools/threads-worker.src.js) with threads/worker in
// it, a classic script. With esbuild, from bundlers/package-lock.json.
//
//	node pools/build.mjs   (make pools-build)
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const esbuild = createRequire(join(root, "bundlers", "package.json"))("esbuild");
const common = { bundle: true, platform: "browser", nodePaths: [join(root, "pools", "node_modules")], logLevel: "warning" };
await esbuild.build({
  ...common,
  stdin: { contents: `export { spawn, Pool, Worker, Thread } from "threads";`, resolveDir: join(root, "pools") },
  format: "esm",
  outfile: join(root, "dist", "pools", "threads.mjs"),
});
await esbuild.build({
  ...common,
  entryPoints: [join(root, "browsertest", "testdata", "pools", "threads-worker.src.js")],
  format: "iife",
  outfile: join(root, "dist", "pools", "threads-worker.js"),
});
console.log("pools: dist/pools/threads.mjs and threads-worker.js");
