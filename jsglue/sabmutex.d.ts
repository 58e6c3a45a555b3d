// Types for sabmutex: mutexes over a SharedArrayBuffer, for pages and their
// workers. The same API is the ES module (sabmutex.mjs, typed by
// sabmutex.d.mts, which jsglue/bundle.go writes from this file without the
// global), the CommonJS module (sabmutex.js) and, in a classic script or
// worker, the global `sabmutex` (sabmutex.js too).
//
// Written for every TypeScript from 5.0 and every `lib` from es2020 + dom up,
// with skipLibCheck off: nothing here names a global the user's lib may lack
// (Disposable, Symbol.dispose, generic typed arrays); what depends on the lib
// is worked out from it (DisposeMethod, SharedInt32Array).

/** Usable as the global `sabmutex` in scripts that load sabmutex.js. */
export as namespace sabmutex;

/** What `init` can load the module from. */
export type WasmSource = string | URL | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

export interface InitOptions {
  /**
   * Where sabmutex.wasm comes from: a URL, a `Response`, its bytes, or a
   * compiled `WebAssembly.Module` (in a worker, pass the page's
   * `sabmutex.module`: nothing is fetched or compiled). Default:
   * `sabmutex.wasm` beside the script.
   */
  wasm?: WasmSource;
}

/**
 * Loads and starts the module in this agent (page or worker). Main thread too.
 * Calling it again returns the same promise.
 *
 * @throws Error (rejects) when the page is not cross-origin isolated, or the
 * module cannot be fetched or compiled; TypeError for options of the wrong type.
 */
export function init(options?: InitOptions): Promise<void>;

/** The compiled module once `init` has resolved, else null: post it to workers. */
export const module: WebAssembly.Module | null;

/**
 * This agent's id once `init` has resolved (0 before): what `holder()`
 * reports, and what the code that terminates this worker passes to
 * `releaseIfHeldBy`.
 */
export const agentId: number;

/** Bytes of linear memory that this agent's Go instance holds (0 before init). */
export function memoryBytes(): number;

/** Options of `lockAsync`, `acquireAsync` and `withLockAsync`. */
export interface LockAsyncOptions {
  /** Give up after this many milliseconds (default Infinity; 0 tries once). */
  timeoutMs?: number;
  /** The same as `timeoutMs`; give one or the other. */
  timeout?: number;
  /** Aborting it rejects the wait with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * `[Symbol.dispose](): void` where the user's lib declares `Symbol.dispose`
 * (esnext.disposable, or a lib that includes it), so that `using` accepts a
 * LockHandle; nothing where it does not (and `using` is unavailable there).
 */
type DisposeMethod = SymbolConstructor extends { readonly dispose: infer S extends symbol } ? { [K in S]: () => void } : {};

/** What `acquire` and `acquireAsync` return; `using` releases it. */
export type LockHandle = DisposeMethod & {
  /** Unlocks. Main thread too. @throws Error on a second call. */
  release(): void;
  /** Whether `release` (or disposal) has happened. */
  readonly released: boolean;
};

/**
 * Typed arrays say over which buffer they are from TypeScript 5.7 on
 * (`Int32Array<SharedArrayBuffer>`); before, every `Int32Array` is alike.
 */
type TypedArraysKnowTheirBuffer = ArrayBufferLike extends ReturnType<Int32ArrayConstructor["of"]>["buffer"] ? false : true;

/**
 * An Int32Array over a SharedArrayBuffer, where TypeScript can tell (5.7+);
 * any Int32Array before that (the constructor still checks at run time).
 */
export type SharedInt32Array = TypedArraysKnowTheirBuffer extends true ? Int32Array & { readonly buffer: SharedArrayBuffer } : Int32Array;

/** Memory a mutex can live in. */
export type SharedMemory = SharedArrayBuffer | SharedInt32Array;

/**
 * A mutex whose state lives in `Mutex.SLOTS` int32 slots of a
 * SharedArrayBuffer, so that every agent that has the buffer shares it. A
 * zeroed slot is an unlocked mutex.
 */
export class Mutex {
  /** How many int32 slots one mutex uses. @throws Error before `init`. */
  static readonly SLOTS: number;

  /**
   * Main thread too.
   * @param memory a SharedArrayBuffer, or an Int32Array over one.
   * @param index the first of the `Mutex.SLOTS` int32 slots (of `memory`) it uses; default 0.
   * @throws TypeError for memory that is not shared or not an Int32Array;
   *   RangeError for an index that is negative, fractional or too close to the end;
   *   Error before `init`.
   */
  constructor(memory: SharedMemory, index?: number);

  /**
   * Workers only: blocks the calling thread. Takes the lock, waiting at most
   * `timeoutMs` milliseconds (default Infinity; 0 tries once).
   * @returns true when it holds the lock, false when the time ran out.
   * @throws Error on the browser's main thread (use `lockAsync`), or
   *   `sabmutex: deadlock` if this agent already holds it (taken by a blocking
   *   call or by an async task of this worker: nothing could unlock it while
   *   this thread sleeps); RangeError for a negative or NaN timeout.
   */
  lock(timeoutMs?: number): boolean;

  /**
   * Main thread too: never blocks the event loop. Resolves true when it holds
   * the lock, false when the time ran out. Tasks of one agent queue like
   * different agents (as with Web Locks): if another task of this page or
   * worker holds the lock, this waits for its `unlock()`. So a re-entrant
   * `await m.lockAsync()` inside its own critical section waits forever (or
   * until its timeout); use `acquireAsync`'s handle to keep track of who holds what.
   * @param options a timeout in milliseconds, or `{ timeoutMs, signal }`.
   * @throws (rejects) the signal's reason when aborted; RangeError for a bad timeout.
   */
  lockAsync(options?: number | LockAsyncOptions): Promise<boolean>;

  /** Main thread too. Takes the lock if it is free; never waits. */
  tryLock(): boolean;

  /**
   * Main thread too. Releases the lock.
   * @throws Error, changing nothing, if the mutex is not locked, or is held by
   *   another agent.
   */
  unlock(): void;

  /** Main thread too. Whether some agent holds it now (for debugging: may be stale at once). */
  isLocked(): boolean;

  /** Main thread too. The holder's agent id, or null when free (for debugging: may be stale at once). */
  holder(): number | null;

  /**
   * True after this agent took the mutex from a holder that died (see
   * `releaseIfHeldBy`): the data it guards may be half-written. False after
   * any other acquisition.
   */
  readonly previousHolderDied: boolean;

  /**
   * Main thread too. For the code that terminated a worker: if agent
   * `agentId` (that worker's `sabmutex.agentId`) holds this mutex, release it
   * so that others do not wait forever. Its next holder sees
   * `previousHolderDied`.
   * @returns whether it released it.
   * @throws RangeError for something that is not an agent id.
   */
  releaseIfHeldBy(agentId: number): boolean;

  /**
   * Workers only. Runs `fn` holding the lock and returns its result; always unlocks.
   */
  withLock<T>(fn: () => T): T;

  /**
   * Main thread too. Awaits `fn` holding the lock and returns its result;
   * always unlocks.
   * @throws (rejects) a TimeoutError if the lock is not had in time; fn does not run then.
   */
  withLockAsync<T>(fn: () => T | PromiseLike<T>, options?: number | LockAsyncOptions): Promise<T>;

  /**
   * Workers only. Like `lock`, but returns a handle for `using`.
   * @throws TimeoutError (an Error named so) if the time ran out.
   */
  acquire(timeoutMs?: number): LockHandle;

  /**
   * Main thread too. Like `lockAsync`, but resolves to a handle for `using`.
   * @throws (rejects) TimeoutError if the time ran out; the signal's reason when aborted.
   */
  acquireAsync(options?: number | LockAsyncOptions): Promise<LockHandle>;
}

// The declarations above that are not marked export stay private.
export {};
