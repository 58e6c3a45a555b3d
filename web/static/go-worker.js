// A Go worker: examples/gocounter (a Go program over sabsync), run by Go's
// own wasm_exec.js, adding to a counter under the same Mutex as the
// JavaScript workers and the page. Post it { sab, mutex, counter, n, lock,
// start, registry, name } (registry: sabmutex.forWorker()'s object, which
// the program joins under name); it posts back { id, worked } (its agent id) when done, or
// { error }. With start (a slot), it counts itself ready in slot start + 1
// and waits for slot start to become 1 before it begins, so that all the
// agents run at once.
importScripts("/dist/examples/wasm_exec.js");

onmessage = async ({ data: { sab, mutex, counter, n, lock, start, registry, name } }) => {
  try {
    globalThis.gocounter = { memory: sab, mutex, counter, n, lock, registry, name, done: (id, worked) => postMessage({ id, worked }) };
    const go = new Go();
    const response = fetch("/dist/examples/gocounter.wasm");
    const { instance } = await WebAssembly.instantiateStreaming(response, go.importObject);
    if (start !== undefined) {
      const i32 = new Int32Array(sab);
      Atomics.add(i32, start + 1, 1);
      Atomics.wait(i32, start, 0, 10000);
    }
    await go.run(instance);
  } catch (e) {
    postMessage({ error: String(e) });
  }
};
