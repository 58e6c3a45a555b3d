// Finding, fetching and compiling sabmutex.wasm for init(), in pages,
// workers and Node.js. Nothing here runs when the bundle is imported: the
// default location is worked out inside init(), so that importing sabmutex
// never throws, even where it cannot know where it lives (an IIFE bundle).
import { describe } from "./errors.js";

const WASM_OPTIONS = "pass init({ wasm }) the URL of sabmutex.wasm, its bytes or a WebAssembly.Module";

// Node.js (and runtimes that present themselves as it), where fetch cannot
// read file: URLs and a string may be a path.
export function inNode() {
  const p = globalThis.process;
  return typeof p === "object" && p !== null && typeof p.versions === "object" && p.versions !== null && typeof p.versions.node === "string";
}

// node:fs/promises, reached without an import statement that a browser
// bundler would try to resolve: process.getBuiltinModule (Node 20.16+), else
// a dynamic import of a computed name that bundlers leave alone.
async function nodeFs() {
  const p = globalThis.process;
  if (typeof p.getBuiltinModule === "function") return p.getBuiltinModule("node:fs/promises");
  const name = ["node:fs", "promises"].join("/");
  return import(/* webpackIgnore: true */ /* @vite-ignore */ name);
}

// The URL of sabmutex.wasm beside this script, from a function that computes
// it (new URL("sabmutex.wasm", import.meta.url) and the like, which bundlers
// recognize); a sabmutex error where there is no such URL.
export function locateWasm(beside) {
  let url;
  try {
    url = beside();
  } catch {
    url = null;
  }
  if (url === null || url === undefined) {
    throw new Error(
      "sabmutex: cannot tell where sabmutex.wasm is: this copy of sabmutex does not know its own URL " +
        "(it was bundled into a script that is not an ES module, such as esbuild --format=iife, or loaded without a script URL); " +
        "pass init({ wasm }) the URL of sabmutex.wasm (copy it into your site, or import it as an asset: see the README's bundler recipes)",
    );
  }
  return url;
}

// A path or file: URL that Node.js should read from disk rather than fetch;
// null for what fetch should get.
function fileToRead(src) {
  if (!inNode()) return null;
  if (src instanceof URL) return src.protocol === "file:" ? src : null;
  if (/^[a-zA-Z]:[\\/]/.test(src)) return src; // a Windows path, not a URL with scheme "c:"
  let url;
  try {
    url = new URL(src);
  } catch {
    return src; // not an absolute URL: a path, relative to the working directory
  }
  return url.protocol === "file:" ? url : null;
}

// The first bytes of b, in hex.
function hexStart(b) {
  return Array.from(b.subarray(0, 4), (x) => x.toString(16).padStart(2, "0")).join(" ");
}

// Compiles bytes that should be sabmutex.wasm, explaining what they are when
// they are not: above all an HTML page that a server sent in its place.
async function compileBytes(bytes, what) {
  const b = bytes instanceof Uint8Array ? bytes : ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
  if (!(b[0] === 0x00 && b[1] === 0x61 && b[2] === 0x73 && b[3] === 0x6d)) {
    const text = new TextDecoder().decode(b.subarray(0, 64)).replace(/^\uFEFF/, "").trimStart();
    if (text.startsWith("<")) {
      const vite = /\/\.vite\//.test(what)
        ? "Vite's dev server pre-bundled sabmutex into node_modules/.vite/deps/, where sabmutex.wasm is not: add optimizeDeps: { exclude: [\"sabmutex\"] } to vite.config.js and restart it"
        : "check that sabmutex.wasm is served at that URL (copy it beside sabmutex.mjs / your bundle, or pass init({ wasm }) its URL); with Vite's dev server, add optimizeDeps: { exclude: [\"sabmutex\"] } to vite.config.js";
      throw new Error(
        `sabmutex: could not load ${what}: it is an HTML page, not sabmutex.wasm (it starts with ${hexStart(b)}, ${JSON.stringify(text.slice(0, 15))}): ` +
          `the server returned a page instead of the wasm, as servers that fall back to index.html do for files they do not have; ${vite}`,
      );
    }
    throw new Error(
      `sabmutex: could not load ${what}: it is not a WebAssembly module (it starts with ${b.length ? hexStart(b) : "nothing (it is empty)"}, not 00 61 73 6d); ${WASM_OPTIONS}`,
    );
  }
  try {
    return await WebAssembly.compile(b);
  } catch (e) {
    throw new Error(`sabmutex: could not compile ${what}: ${e.message}; is it the sabmutex.wasm that came with this script?`);
  }
}

// Compiles sabmutex.wasm from what init({ wasm }) was given: a URL or string
// (a path too, in Node.js), a Response, bytes, or a WebAssembly.Module as is.
// A response served as application/wasm compiles while it downloads
// (WebAssembly.compileStreaming); others are read first, then checked.
export async function compileWasm(src) {
  if (src instanceof WebAssembly.Module) return src;
  let what = describe(src);
  if (typeof src === "string" || src instanceof URL) {
    what = String(src);
    const file = fileToRead(src);
    if (file !== null) {
      let bytes;
      try {
        bytes = await (await nodeFs()).readFile(file);
      } catch (e) {
        throw new Error(`sabmutex: could not read ${what} (${e.message}); pass init({ wasm }) the path or file: URL of sabmutex.wasm, its bytes or a WebAssembly.Module`);
      }
      return compileBytes(bytes, what);
    }
    try {
      src = await fetch(src);
    } catch (e) {
      throw new Error(`sabmutex: could not fetch ${what} (${e.message}); ${WASM_OPTIONS}`);
    }
  }
  if (typeof Response !== "undefined" && src instanceof Response) {
    what = src.url || "the Response";
    if (!src.ok) throw new Error(`sabmutex: could not load ${what}: HTTP ${src.status}; ${WASM_OPTIONS}`);
    const type = (src.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
    if (type === "application/wasm" && typeof WebAssembly.compileStreaming === "function") {
      try {
        return await WebAssembly.compileStreaming(src);
      } catch (e) {
        throw new Error(`sabmutex: could not compile ${what}: ${e.message}; is it the sabmutex.wasm that came with this script?`);
      }
    }
    let bytes;
    try {
      bytes = await src.arrayBuffer();
    } catch (e) {
      throw new Error(`sabmutex: could not load ${what}: ${e.message}; ${WASM_OPTIONS}`);
    }
    return compileBytes(bytes, what);
  }
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src) || Object.prototype.toString.call(src) === "[object SharedArrayBuffer]") {
    return compileBytes(src, `the ${what} given to init({ wasm })`);
  }
  throw new TypeError(`sabmutex: init({ wasm }) takes a URL or string, a Response, bytes or a WebAssembly.Module; got ${what}`);
}
