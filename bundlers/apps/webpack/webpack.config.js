// The README's webpack 5 recipe: nothing for sabmutex. webpack sees
// new URL("sabmutex.wasm", import.meta.url) in sabmutex.mjs, emits the wasm
// as an asset, and bundles the worker from new Worker(new URL(...)).
module.exports = {
  mode: "production",
  entry: "./main.js",
  output: { filename: "main.js", path: __dirname + "/out", clean: true },
};
