// Go's wasm_exec.js sets globalThis.Go, and also globalThis.fs, .process and
// .path where they are missing (polyfills for Go's os package). Left on the
// page's global they would mislead other code: many libraries take a global
// `process` to mean Node.js. So wasm_exec.js runs here against a private
// global: a proxy that reads through to the real global and keeps every write
// to itself.
export function makeGoRuntime() {
  const realGlobal = globalThis;
  const own = Object.create(null);
  const privateGlobal = new Proxy(own, {
    get: (target, key) => (key in target ? target[key] : realGlobal[key]),
    has: (target, key) => key in target || key in realGlobal,
  });
  // wasm_exec.js also names these bare; they must resolve to what it set up.
  let fs, process, path; // eslint-disable-line no-unused-vars
  (function (globalThis) {
/*@wasm_exec.js@*/
  })(privateGlobal);
  ({ fs, process, path } = privateGlobal);
  return { Go: own.Go };
}
