// sabmutex's start-up: init() loads and starts the Go module for this agent.
// The protocols themselves are Go (internal/core/); each primitive's module here
// (mutex.js, rwmutex.js, ...) validates input, inlines what must be fast with
// the constants of protocol.js, and drives Go's waits (wait.js). The entries
// (classic.js, module.js) make the API of these.
import * as P from "./protocol.js";
import { agentId, arrays, core, mustBeStarted, started } from "./runtime.js";
import { NOT_ISOLATED, handleOf } from "./slots.js";
import { describe } from "./errors.js";
import { compileWasm, locateWasm } from "./load.js";
import { joinRegistry, markEnded, registryBuffer, registryOf, requestLifeLock, watchAgents, shareRegistry, watchSleepMs, webLocks } from "./registry.js";
import { sleepUntilChanged, startHelperAhead } from "./wait.js";
import { startTicker, tickerStats } from "./ticker.js";
import { snapshot } from "./watch.js";
import { collectNow, onReport, startDebug } from "./debug.js";
import { coreImports } from "./imports.js";
import { makeGoRuntime } from "./go_runtime.js";
import { Mutex, lockTurn } from "./mutex.js";
import { RWMutex } from "./rwmutex.js";
import { Semaphore } from "./semaphore.js";
import { WaitGroup } from "./waitgroup.js";
import { Barrier, barrierTurn } from "./barrier.js";
import { Once } from "./once.js";
import { Cond } from "./cond.js";
import { Channel } from "./channel.js";
import { select, selectAsync } from "./select.js";
import { locks, fastTakeStep, fastLetGoStep, runAddStep, runNextStep } from "./locks.js";

// The protocol's text that this bundle was built with (protocol.js).
const BUILT_PROTOCOL = P.TEXT;

let loading = null;

// The compiled WebAssembly.Module, after init: post it to workers, which
// then call init({ wasm: module }) and skip fetching and compiling.
export let wasmModule = null;

// main thread too. Loads and starts the Go module; calling it again returns
// the same promise. wasmBeside() is the URL of sabmutex.wasm beside the
// entry script, worked out only when needed, so that importing never throws.
// The options are read once, here (initOptions), and load is given the
// record.
export function initAgent(options, wasmBeside) {
  let opts;
  try {
    opts = initOptions(options);
  } catch (e) {
    return Promise.reject(e);
  }
  if (!loading) {
    loading = load(opts, wasmBeside).catch((e) => {
      loading = null; // let the caller try again, e.g. with another URL
      throw e;
    });
  }
  return loading;
}

// init(options), checked and read into a plain record: { wasm (undefined:
// the file beside the entry script), registry (undefined: make one), name
// ("" when none), names (how many the registry made holds), debug (null:
// off, or { heldMs }) }.
function initOptions(options) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== "object") {
    throw new TypeError(`sabmutex: init(options) takes an object such as { wasm: sabmutex.module }; got ${describe(options)}`);
  }
  const name = options.name;
  if (name !== undefined && typeof name !== "string") {
    throw new TypeError(`sabmutex: init({ name }) takes a string that names this agent in messages, such as "decoder 2"; got ${describe(name)}`);
  }
  const registry = options.registry;
  if (registry !== undefined) registryOf(registry);
  const names = namesOption(options.names);
  const debug = debugOption(options.debug);
  return { wasm: options.wasm, registry, name: name === undefined ? "" : name, names, debug };
}

// How many names the registry this agent makes takes (init's names
// option; its name table: internal/core/names.go).
function namesOption(names) {
  if (names === undefined) return DEFAULT_NAMES;
  if (typeof names !== "number" || !Number.isInteger(names) || names < 1 || names > MAX_NAMES) {
    throw new RangeError(`sabmutex: init({ names }) takes how many names the registry holds, a whole number from 1 to ${MAX_NAMES} (default ${DEFAULT_NAMES}); got ${describe(names)}`);
  }
  return names;
}

const DEFAULT_NAMES = 10000;
const MAX_NAMES = 1 << 20;

// init's option debug: undefined or false (off), true, or { heldMs }.
// Returns null (off) or { heldMs }, what debug.js's startDebug takes.
function debugOption(debug) {
  if (debug === undefined || debug === false) return null;
  if (debug === true) return { heldMs: 0 };
  if (debug === null || typeof debug !== "object") {
    throw new TypeError(`sabmutex: init({ debug }) takes true, false or { heldMs }; got ${describe(debug)}`);
  }
  const heldMs = debug.heldMs ?? 0;
  if (typeof heldMs !== "number" || !(heldMs >= 0) || heldMs > 2 ** 31 - 1 || !Number.isInteger(heldMs)) {
    throw new RangeError(`sabmutex: init({ debug: { heldMs } }) takes a whole number of milliseconds from 0 (0: no limit) to 2147483647; got ${describe(heldMs)}`);
  }
  return { heldMs };
}

async function load(opts, wasmBeside) {
  if (globalThis.crossOriginIsolated === false) {
    throw new Error(`sabmutex: this page is not cross-origin isolated. ${NOT_ISOLATED}`);
  }
  if (typeof SharedArrayBuffer === "undefined") {
    throw new Error(
      "sabmutex: this browser does not expose SharedArrayBuffer here, although the page is cross-origin isolated " +
        "(WebKitGTK on Linux exposes it only with the environment variable JSC_useSharedArrayBuffer=1); run the page in a browser that does (Chrome 92+, Firefox 79+, Safari 15.2+)",
    );
  }
  const lifeLock = requestLifeLock(); // granted while the module loads (registry.js)
  const module = await compileWasm(opts.wasm === undefined ? locateWasm(wasmBeside) : opts.wasm);
  const go = new (makeGoRuntime().Go)();
  go.importObject.sabmutex = coreImports(arrays);
  let instance;
  try {
    instance = await WebAssembly.instantiate(module, go.importObject);
  } catch (e) {
    throw new Error(`sabmutex: could not start the module (${e.message}); is it the sabmutex.wasm that came with this script?`);
  }
  // run() runs Go's main, which parks at once: from then on the exports are live.
  go.run(instance).catch((e) => console.error(`sabmutex: the Go module stopped: ${e.message}`));
  if (go.exited) throw new Error("sabmutex: the Go module exited during start-up; see the console for its output");
  checkProtocol(instance.exports);
  // The id: the next of the registry this agent joins (registry.js), which
  // makes ids unique among the agents that joined one.
  const { id, made } = await joinRegistry(instance.exports, opts.registry, opts.name, lifeLock, opts.debug, opts.names);
  if (instance.exports.call(P.OP_SET_AGENT, 0, 0, id, watchSleepMs() === P.WATCH_MS ? 1 : 0) !== P.RESULT_OK) throw new Error("sabmutex: internal error: the module refused its agent id");
  if (made && webLocks) watchAgents(sleepUntilChanged);
  startHelperAhead(); // where Atomics.waitAsync is missing (the watch above keeps one of its own)
  const canBlock = canBlockHere();
  started(instance.exports, canBlock, id);
  startDebug(opts.debug, new Int32Array(registryBuffer()), id, made);
  wasmModule = module;
  // A watched worker's ticker (ticker.js) starts once init is done: starting
  // it costs this worker time, which init leaves out
  // (docs/decisions/start-up.md).
  if (canBlock && watchSleepMs() === P.WATCH_MS) setTimeout(startTicker, 0);
}

// Whether Atomics.wait may run here (not on a browser's main thread).
function canBlockHere() {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

// main thread too. After init: what to post to a worker, whose init takes
// it whole ({ ...received, name }): the compiled module, so that the worker
// neither fetches nor compiles it, and this agent's registry, which the
// worker joins (a unique id, and its name in messages).
export function forWorker() {
  mustBeStarted("sabmutex.forWorker()");
  if (shareRegistry()) core.call(P.OP_SET_AGENT, 0, 0, agentId, 1);
  return { wasm: wasmModule, registry: registryBuffer() };
}

// main thread too. After init: agent id (another agent of this agent's
// registry, a worker's sabmutex.agentId) has ended, for the code that ended
// it where the runtime does not tell (docs/pools.md): one call frees all it
// held, as the watch frees a dead holder's (the next holder is told),
// within WATCH_MS of a wait for it. True if it was a live agent of the
// registry, false if it is not (it did not join, its end is known already,
// or it is a server runtime's main thread, whose end nothing can see). An agent that is still running must not be named.
export function agentEnded(id) {
  mustBeStarted("sabmutex.agentEnded(agentId)");
  if (typeof id !== "number" || !Number.isInteger(id) || id < 1 || id > P.MAX_AGENT_ID) {
    throw new RangeError(`sabmutex: agentEnded takes an agent id (the ended worker's sabmutex.agentId, 1 to ${P.MAX_AGENT_ID}); got ${describe(id)}`);
  }
  if (id === agentId) throw new Error("sabmutex: agentEnded(agentId) names this agent, which is running: pass the id of another agent, one that has ended");
  return markEnded(id);
}

// The protocol's constants, as the module publishes them (internal/core/publish.go:
// their values, NUL-terminated lines of one each in its memory), must be those this
// bundle was built with (protocol.js): a module of another build would not
// agree with the glue's fast paths, so it is refused.
function checkProtocol(exports) {
  const bytes = new Uint8Array(exports.mem.buffer);
  const at = exports.protocol();
  const text = new TextDecoder().decode(bytes.subarray(at, bytes.indexOf(0, at)));
  if (text !== BUILT_PROTOCOL) {
    throw new Error(
      "sabmutex: this sabmutex.wasm comes from another build than the script that loaded it (their protocols differ); " +
        "serve the sabmutex.wasm of the same sabmutex version as sabmutex.js / sabmutex.mjs (an old copy cached or left behind?)",
    );
  }
}

// The API as one object (the classic script's global, the ES module's
// default export): init as the entry makes it, and module and agentId read
// through moduleOf and agentIdOf.
export function apiObject(init, moduleOf, agentIdOf) {
  const api = {
    init,
    Mutex,
    RWMutex,
    Semaphore,
    WaitGroup,
    Barrier,
    Once,
    Cond,
    Channel,
    select,
    selectAsync,
    locks,
    memoryBytes,
    forWorker,
    agentEnded,
    snapshot: snapshotAfterInit,
    onReport: onReportAfterInit,
    // The compiled WebAssembly.Module, after init: post it to workers.
    get module() {
      return moduleOf();
    },
    // This agent's id (0 before init): what holder() reports, and what the
    // code that terminates this worker passes to releaseIfHeldBy.
    get agentId() {
      return agentIdOf();
    },
  };
  // For sabmutex's own tests (internals); not part of the API.
  Object.defineProperty(api, Symbol.for("sabmutex.internals"), { value: internals });
  return api;
}

// main thread too. Who waits for whom (watch.js), after init.
export function snapshotAfterInit() {
  mustBeStarted("sabmutex.snapshot()");
  return snapshot();
}

// main thread too. Calls fn(report) for each report of debug mode found by
// any agent of this agent's registry (debug.js), after init.
export function onReportAfterInit(fn) {
  mustBeStarted("sabmutex.onReport(fn)");
  return onReport(fn, new Int32Array(registryBuffer()));
}

// Bytes of linear memory that this agent's Go instance holds (0 before init).
export function memoryBytes() {
  return core ? core.mem.buffer.byteLength : 0;
}

// For sabmutex's own tests only (browsertest's agreement tests): the Go
// exports and constants, so that the glue's inlined steps can be compared
// with Go's. Not part of the API.
export function internals() {
  return { core, P: protocolObject(), agentId, handleOf, lockTurn, barrierTurn, fastTakeStep, fastLetGoStep, runAddStep, runNextStep, tickerStats, collectNow };
}

function protocolObject() {
  return Object.fromEntries(
    P.NAMED.split("\n")
      .filter((line) => line.indexOf("=") > 0)
      .map((line) => [line.slice(0, line.indexOf("=")), Number(line.slice(line.indexOf("=") + 1))]),
  );
}
