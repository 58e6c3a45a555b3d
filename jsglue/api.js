// sabmutex's public API: init() and the primitives. The protocols themselves
// are Go (wasm/core/); each primitive's file here (mutex.js, rwmutex.js, ...)
// validates input, inlines what must be fast with the constants the Go module
// publishes, and drives Go's asynchronous wait loops with the machinery in
// wait.js, which Go cannot do itself.

// The protocol's text (wasm/core's ProtocolText) that this bundle was built
// with: jsglue/bundle.go writes it in place of the marker.
const BUILT_PROTOCOL = /*@protocol@*/ "";

function createSabmutex(goRuntime, wasmBeside) {
  // Set once by init, and handed to every primitive (see start below). An
  // object of a primitive cannot be made before, so its methods may rely on it.
  const env = {
    core: null, // the Go module's exports (wasm/core/exports.go)
    P: null, // the protocol constants, from Go (core.Protocol in wasm/core/publish.go)
    canBlock: false, // whether Atomics.wait may run here (false on a page's main thread)
    agentId: 0, // this agent's id: what holder slots record
    arrays: [], // memory handle -> Int32Array over a whole SharedArrayBuffer
    handles: new Map(), // SharedArrayBuffer -> memory handle
  };
  const primitives = [makeMutex(env), makeRWMutex(env), makeSemaphore(env), makeWaitGroup(env), makeBarrier(env), makeOnce(env), makeCond(env)];
  let wasmModule = null;
  let loading = null;

  // main thread too. Loads and starts the Go module; calling it again returns the same promise.
  function init(options = {}) {
    if (options === null || typeof options !== "object") {
      return Promise.reject(new TypeError(`sabmutex: init(options) takes an object such as { wasm: sabmutex.module }; got ${describe(options)}`));
    }
    if (!loading) {
      loading = load(options).catch((e) => {
        loading = null; // let the caller try again, e.g. with another URL
        throw e;
      });
    }
    return loading;
  }

  async function load(options) {
    if (globalThis.crossOriginIsolated === false) {
      throw new Error(`sabmutex: this page is not cross-origin isolated. ${NOT_ISOLATED}`);
    }
    if (typeof SharedArrayBuffer === "undefined") {
      throw new Error(
        "sabmutex: this browser does not expose SharedArrayBuffer here, although the page is cross-origin isolated " +
          "(WebKitGTK on Linux exposes it only with the environment variable JSC_useSharedArrayBuffer=1); run the page in a browser that does (Chrome 92+, Firefox 79+, Safari 15.2+)",
      );
    }
    // jsglue/load.js: the default URL is worked out only now, so that importing never throws.
    const module = await compileWasm(options.wasm === undefined ? locateWasm(wasmBeside) : options.wasm);
    const go = new goRuntime.Go();
    go.importObject.sabmutex = coreImports(env.arrays);
    let instance;
    try {
      instance = await WebAssembly.instantiate(module, go.importObject);
    } catch (e) {
      throw new Error(`sabmutex: could not start the module (${e.message}); is it the sabmutex.wasm that came with this script?`);
    }
    // run() runs Go's main, which parks at once: from then on the exports are live.
    go.run(instance).catch((e) => console.error(`sabmutex: the Go module stopped: ${e.message}`));
    if (go.exited) throw new Error("sabmutex: the Go module exited during start-up; see the console for its output");
    const P = Object.freeze(readProtocol(instance.exports));
    // Ids are random: agents share no memory until a primitive exists, so
    // they cannot count. Two of 8 agents draw the same id about once in 80
    // million page loads; the README says what that would confuse.
    const id = (crypto.getRandomValues(new Uint32Array(1))[0] % P.MAX_AGENT_ID) + 1;
    if (instance.exports.setAgent(id) !== P.RESULT_OK) throw new Error("sabmutex: internal error: the module refused its agent id");
    let canBlock;
    try {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
      canBlock = true;
    } catch {
      canBlock = false; // the browser's main thread
    }
    Object.assign(env, { core: instance.exports, P, canBlock, agentId: id });
    for (const p of primitives) p.start(env);
    wasmModule = module;
  }

  // The protocol's constants, as the module publishes them (wasm/core/publish.go:
  // NUL-terminated lines of NAME=value in its memory). The bundle was built
  // with the same text (jsglue/bundle.go wrote each constant of P that the
  // glue names as its value): a module of another build would not agree with
  // the glue's fast paths, so it is refused.
  function readProtocol(exports) {
    const bytes = new Uint8Array(exports.mem.buffer);
    const at = exports.protocol();
    const text = new TextDecoder().decode(bytes.subarray(at, bytes.indexOf(0, at)));
    if (text !== BUILT_PROTOCOL) {
      throw new Error(
        "sabmutex: this sabmutex.wasm comes from another build than the script that loaded it (their protocols differ); " +
          "serve the sabmutex.wasm of the same sabmutex version as sabmutex.js / sabmutex.mjs (an old copy cached or left behind?)",
      );
    }
    // Object.fromEntries, not a property added per line: V8 turns an object
    // that gains over ~20 properties one by one into a dictionary, whose
    // every property load is then a hash lookup (web/bench/README.md).
    const P = Object.fromEntries(
      text
        .split("\n")
        .filter((line) => line.indexOf("=") > 0)
        .map((line) => [line.slice(0, line.indexOf("=")), Number(line.slice(line.indexOf("=") + 1))]),
    );
    return P;
  }

  const api = {
    init,
    // The compiled WebAssembly.Module, after init: post it to workers, which
    // then call init({ wasm: module }) and skip fetching and compiling.
    get module() {
      return wasmModule;
    },
    // This agent's id (0 before init): what holder() reports, and what the
    // code that terminates this worker passes to releaseIfHeldBy.
    get agentId() {
      return env.agentId;
    },
    // Bytes of linear memory that this agent's Go instance holds (0 before init).
    memoryBytes() {
      return env.core ? env.core.mem.buffer.byteLength : 0;
    },
  };
  for (const p of primitives) api[p.name] = p.Class;
  // For sabmutex's own tests only (browsertest's TestGlueAgreesWithCore):
  // the Go exports and constants, so that the glue's inlined steps can be
  // compared with Go's. Not part of the API.
  Object.defineProperty(api, Symbol.for("sabmutex.internals"), {
    value: () => ({ core: env.core, P: env.P, agentId: env.agentId, handleOf: (buffer) => handleOf(env, buffer), lockTurn: primitives.find((p) => p.name === "Mutex").lockTurn }),
  });
  return api;
}
