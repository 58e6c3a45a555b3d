// The README's Vite recipe: the two headers for `vite` and `vite preview`,
// and sabmutex kept out of the dev server's pre-bundling, so that
// sabmutex.wasm stays beside sabmutex.mjs.
const headers = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };

export default {
  server: { headers },
  preview: { headers },
  optimizeDeps: { exclude: ["sabmutex"] },
  worker: { format: "es" },
  build: { outDir: "out" },
};
