// Runs testdata/goagent (a Go program over sabsync, built into
// dist/examples/goagent.wasm) with Go's own wasm_exec.js. Post it
// { module: the compiled goagent.wasm, noWaitAsync, ...the program's
// globalThis.goagent without report }; it posts back each report of the
// program, and { error } if the program fails, with the last lines it
// wrote (its panic).
importScripts("/dist/examples/wasm_exec.js");

const lines = [];
const log = console.log;
console.log = (...args) => {
  lines.push(args.join(" "));
  log(...args);
};

onmessage = async ({ data: { module, noWaitAsync, ...task } }) => {
  try {
    if (noWaitAsync) delete Atomics.waitAsync; // as on the page: sabsync sleeps on helper workers
    globalThis.goagent = { ...task, report: (m) => postMessage(m) };
    const go = new Go();
    go.exit = (code) => code !== 0 && postMessage({ error: `the Go program exited with code ${code}: ${lines.slice(-8).join("\n")}` });
    await go.run(await WebAssembly.instantiate(module, go.importObject));
  } catch (e) {
    postMessage({ error: String(e) });
  }
};
