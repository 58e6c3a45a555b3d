// Vite 7's dev server WITHOUT the recipe's optimizeDeps.exclude: it
// pre-bundles sabmutex into node_modules/.vite/deps/ and answers the wasm's
// URL there with index.html. The test expects init() to reject with a
// sabmutex error that names the fix.
const headers = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };

export default {
  server: { headers },
  worker: { format: "es" },
};
