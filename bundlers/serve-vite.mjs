// Runs the Vite app that bundlers/build.mjs laid out with `vite` (dev) or
// `vite preview`, as `npx vite` / `npx vite preview` would with its
// vite.config.js, on 127.0.0.1:<port>. Prints "ready <url>" once it listens,
// and exits when its standard input closes (browsertest/bundlers_test.go,
// which started it, is done) or after -timeout seconds. package is the
// Vite to use: "vite" (default) or "vite7" (see package.json).
//
//	node bundlers/serve-vite.mjs dev|preview <app dir> <port> [timeout seconds] [package]
import { join, resolve } from "node:path";

const [mode, dirArg, portArg, timeoutArg, pkg = "vite"] = process.argv.slice(2);
const { createServer, preview } = await import(pkg === "vite7" ? "vite7" : "vite");
if (!["dev", "preview"].includes(mode) || !dirArg || !portArg) {
  console.error("usage: node bundlers/serve-vite.mjs dev|preview <app dir> <port> [timeout seconds] [vite|vite7]");
  process.exit(2);
}
const root = resolve(dirArg);
const port = Number(portArg);
setTimeout(() => {
  console.error(`serve-vite: stopping after ${timeoutArg || 120} s`);
  process.exit(1);
}, 1000 * Number(timeoutArg || 120)).unref();

const inline = { root, configFile: join(root, "vite.config.js"), logLevel: "warn" };
const server =
  mode === "dev"
    ? await (await createServer({ ...inline, server: { host: "127.0.0.1", port, strictPort: true } })).listen()
    : await preview({ ...inline, preview: { host: "127.0.0.1", port, strictPort: true } });
console.log(`ready http://127.0.0.1:${port}/`);
process.stdin.resume();
process.stdin.on("end", async () => {
  await server.close();
  process.exit(0);
});
