// Runs testdata/goqueue (a Go program over sabsync, built into
// dist/examples/goqueue.wasm) with Go's own wasm_exec.js. Post it the
// program's globalThis.goqueue without done; it posts back { id } or { error }.
importScripts("/dist/examples/wasm_exec.js");

onmessage = async ({ data }) => {
  try {
    globalThis.goqueue = { ...data, done: (id) => postMessage({ id }) };
    const go = new Go();
    const { instance } = await WebAssembly.instantiateStreaming(fetch("/dist/examples/goqueue.wasm"), go.importObject);
    await go.run(instance);
  } catch (e) {
    postMessage({ error: String(e) });
  }
};
