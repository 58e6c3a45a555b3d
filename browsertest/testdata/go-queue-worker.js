// Runs testdata/goqueue (a Go program over sabsync, built into
// dist/examples/goqueue.wasm) with Go's own wasm_exec.js. Post it the
// program's globalThis.goqueue without done; it posts back { id } or { error }.
// With start (a slot), it counts itself ready in slot start + 1 and waits for
// slot start to become 1 before the program runs, so that all agents run at once.
importScripts("/dist/examples/wasm_exec.js");

onmessage = async ({ data }) => {
  try {
    globalThis.goqueue = { ...data, done: (id) => postMessage({ id }) };
    const go = new Go();
    go.exit = (code) => code !== 0 && postMessage({ error: `the Go program exited with code ${code} (its panic is on the console)` });
    const { instance } = await WebAssembly.instantiateStreaming(fetch("/dist/examples/goqueue.wasm"), go.importObject);
    if (data.start !== undefined) {
      const i32 = new Int32Array(data.memory);
      Atomics.add(i32, data.start + 1, 1);
      Atomics.wait(i32, data.start, 0, 10000);
    }
    await go.run(instance);
  } catch (e) {
    postMessage({ error: String(e) });
  }
};
