// Types for the subpath "sabmutex/sabmutex.wasm" (the compiled module, for
// init({ wasm })). Importing a .wasm file means what your bundler makes it
// mean; this is what an asset import gives (esbuild's file loader, webpack's
// asset/resource, Parcel's url: scheme): its URL, to pass to init({ wasm }).
// In Node.js, use import.meta.resolve("sabmutex/sabmutex.wasm") or
// require.resolve instead; with Vite, import "sabmutex/sabmutex.wasm?url".

/** The URL of sabmutex.wasm, as your bundler emits it. */
declare const sabmutexWasmURL: string;
export = sabmutexWasmURL;
