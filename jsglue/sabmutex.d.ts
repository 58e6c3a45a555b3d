// Types for sabmutex: mutexes over a SharedArrayBuffer, for pages and their
// workers. The same API is the ES module (sabmutex.mjs, typed by
// sabmutex.d.mts, which cmd/jsbundle/bundle.go writes from this file without the
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
  /** This agent's name in the messages that name it, such as "decoder 2" (at most 64 bytes of UTF-8 are kept). */
  name?: string;
  /** The registry to join: pass `forWorker()`'s object whole (`{ ...received, name }`). */
  registry?: SharedArrayBuffer;
  /**
   * Debug mode (README, "Debugging"), off by default: each acquisition and
   * wait records where it happened; lock-order inversions and, with
   * `heldMs` (a whole number of ms, 0: none), locks held longer than that
   * are reported (`onReport`). Set on the page, it holds for every worker
   * that joins its registry.
   */
  debug?: boolean | DebugOptions;
  /**
   * How many primitives by name (`Mutex.named`, ...) the registry this agent
   * makes holds: a whole number from 1 to 1048576, default 10000 (lock names
   * of `locks` take none of them). Only the registry's maker (the page) reads
   * it; a full table throws and says to raise it.
   */
  names?: number;
}

/** `init({ debug })`'s object form. */
export interface DebugOptions {
  /** Report a lock held longer than this many milliseconds, once (default 0: never). */
  heldMs?: number;
}

/** What debug mode reports to `onReport` (and to `console.error` in the agent that found it). */
export interface Report {
  /** "lock-order": locks taken in orders that can deadlock; "held-too-long": a lock held longer than `heldMs`. */
  kind: "lock-order" | "held-too-long";
  /** Starts with "sabmutex:"; names the agents, the locks and where (file:line:column) each was taken. */
  message: string;
  /** The ids of the agents involved (`sabmutex.agentId` there). */
  agents: readonly number[];
}

/**
 * After `init`, main thread too: calls `fn(report)` for every report that
 * any agent of this agent's registry finds in debug mode (within about a
 * second; those found before the call too, since `init` in an agent in debug
 * mode). Returns a function that stops it.
 *
 * @throws TypeError if fn is not a function; Error before `init`.
 */
export function onReport(fn: (report: Report) => void): () => void;

/** Options of the constructors of the locks (`Mutex`, `RWMutex`, `Once`). */
export interface LockOptions {
  /** How debug mode's reports name it, and what identifies it across agents (README, "Debugging"). */
  name?: string;
}

/** What `forWorker()` returns, to post to a worker and pass to its `init`. */
export interface WorkerInit {
  /** The compiled module: the worker neither fetches nor compiles it. */
  wasm: WebAssembly.Module;
  /** This agent's registry: the worker joins it (a unique id, and its name in messages). */
  registry: SharedArrayBuffer;
}

/**
 * Loads and starts the module in this agent (page or worker). Main thread too.
 * Calling it again returns the same promise.
 *
 * @throws Error (rejects) when the page is not cross-origin isolated, or the
 * module cannot be fetched or compiled; TypeError for options of the wrong type.
 */
export function init(options?: InitOptions): Promise<void>;

/**
 * After `init`, main thread too: what to post to a worker, which passes it
 * to its `init` (`await sabmutex.init({ ...received, name })`). Workers that
 * join this way get ids unique among them and are named in messages.
 *
 * @throws Error before `init`.
 */
export function forWorker(): WorkerInit;

/**
 * After `init`, main thread too: the agent `agentId` (another agent of this
 * registry: a worker's `sabmutex.agentId`) has ended. For the code that
 * ended a worker where the runtime does not tell (docs/pools.md): one call
 * frees all it held, as when the watch finds a holder dead (the next holder
 * is told, `previousHolderDied`). Browsers (Web Locks) and worker_threads
 * started by an agent's thread in Node.js, Deno and Bun (their `"exit"`)
 * need no call. Never name an agent that is still running.
 *
 * @returns true if it was a live agent of this registry, now ended; false
 *   if it is not one (it did not join, its end is known already, or it is
 *   the main thread of a server runtime).
 * @throws RangeError for an id that is not a whole number from 1 to 2^31-1;
 *   Error for this agent's own id, or before `init`.
 */
export function agentEnded(agentId: number): boolean;

/** The compiled module once `init` has resolved, else null: post it to workers. */
export const module: WebAssembly.Module | null;

/**
 * This agent's id once `init` has resolved (0 before): what `holder()`
 * reports, and what the code that terminates this worker passes to
 * `releaseIfHeldBy` or `agentEnded`.
 */
export const agentId: number;

/** Bytes of linear memory that this agent's Go instance holds (0 before init). */
export function memoryBytes(): number;

/** A wait that has lasted `WATCH_MS` (50 ms) or more, as `snapshot()` shows it. */
export interface WaitInfo {
  /** What it waits for: "Mutex", "RWMutex (read)", "RWMutex (write)", "Semaphore", "WaitGroup", "Barrier", "Once", "Cond", "Channel (send)", "Channel (receive)" or "Lock" (a request of `locks`). */
  kind: string;
  /** The primitive's name, for one made by name (`Mutex.named(name)`), or a lock's name for a wait of `locks`; null for one at an index. */
  name: string | null;
  /** The primitive's index (its first slot) in its memory (for one by name, in the registry's). */
  index: number;
  /** The agent whose release it needs (a mutex's holder, a writer, a Once's runner), where known. */
  holder: number | null;
  /** How long it has waited, in ms (to within 50 ms). */
  sinceMs: number;
  /**
   * True while its agent can run nothing else until the call returns: a
   * blocking call (`lock`, `wait`, ...) in a worker, with a timeout or
   * without; false for an async one. (Only a blocked wait without a
   * deadline can be in a deadlock.)
   */
  blocked: boolean;
  /** How long until the wait's deadline (its timeout), in ms (0 once it has passed); null for a wait without one. */
  deadlineInMs: number | null;
  /** In debug mode: where it waits (the caller's frames). */
  at?: string;
}

/** One agent of the registry, as `snapshot()` shows it. */
export interface AgentInfo {
  agentId: number;
  /** The name it gave `init` ("" if none). */
  name: string;
  /** False once the agent has ended (its worker terminated or closed). */
  alive: boolean;
  /** The wait it is in, if that has lasted 50 ms or more (of several async waits, the first). */
  waitingFor: WaitInfo | null;
  /** In debug mode: the locks it holds and where it took them. */
  holding?: HoldInfo[];
}

/** A lock an agent holds, as `snapshot()` shows it in debug mode. */
export interface HoldInfo {
  /** How messages name it: `the Mutex "accounts"`, `the Mutex at index 4`. */
  lock: string;
  /** True for a read lock of an RWMutex. */
  read: boolean;
  /** Where it was taken: the caller's frames, "fn (file:line:column) < file:line:column". */
  at: string;
  /** When it was taken, in ms on the registry's clock (from its maker's time origin). */
  sinceMs: number;
}

/** What `snapshot()` returns. */
export interface Snapshot {
  /** The id of the agent that took it. */
  agentId: number;
  /** Every agent that joined the registry, in the order they joined. */
  agents: AgentInfo[];
}

/**
 * After `init`, main thread too: who waits for whom, as the registry that
 * this agent joined says now (for debugging: it may be stale at once).
 *
 * @throws Error before `init`.
 */
export function snapshot(): Snapshot;

/** Options of `lockAsync`, `acquireAsync` and `withLockAsync`. */
export interface LockAsyncOptions {
  /** Give up after this many milliseconds (default Infinity; 0 tries once). */
  timeoutMs?: number;
  /** The same as `timeoutMs`; give one or the other. */
  timeout?: number;
  /**
   * Aborting it rejects the wait with the signal's reason, as is. A signal
   * aborted already wins over a ready primitive (a free mutex, a message in
   * the channel...): the call rejects and takes nothing. A call that took
   * something before the abort reached it (a Barrier's generation completed
   * with its arrival) resolves with it.
   */
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
   * Main thread too. The Mutex named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string): Mutex;

  /**
   * Main thread too.
   * @param memory a SharedArrayBuffer, or an Int32Array over one.
   * @param index the first of the `Mutex.SLOTS` int32 slots (of `memory`) it uses; default 0.
   * @param options `{ name }`: how debug mode's reports name it.
   * @throws TypeError for memory that is not shared or not an Int32Array;
   *   RangeError for an index that is negative, fractional or too close to the end;
   *   Error before `init`.
   */
  constructor(memory: SharedMemory, index?: number, options?: LockOptions);

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
   * True while this agent holds the mutex it took from a holder that died
   * (see `releaseIfHeldBy`): the data it guards may be half-written. False
   * once it unlocks, and after any other acquisition.
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
/** Options of every `...Async` wait after the mutex's: the same as `LockAsyncOptions`. */
export type WaitAsyncOptions = LockAsyncOptions;

/**
 * Many readers or one writer, over `RWMutex.SLOTS` int32 slots (zeroed:
 * free). A waiting writer blocks new readers; the readers that arrived while
 * a writer held it get in before the next writer. Locks are held by agents
 * (page or worker), as `Mutex`'s are.
 */
export class RWMutex {
  /** How many int32 slots one RWMutex uses. */
  static readonly SLOTS: number;
  /**
   * Main thread too. The RWMutex named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string): RWMutex;
  /** Main thread too. `index`: the first of `RWMutex.SLOTS` slots of `memory`; `options`: as `Mutex`'s. */
  constructor(memory: SharedMemory, index?: number, options?: LockOptions);
  /** Workers only. Takes the write lock, waiting at most `timeoutMs` (default Infinity); false if it timed out. @throws Error on the main thread, or a deadlock. */
  lock(timeoutMs?: number): boolean;
  /** Main thread too. Resolves true once it holds the write lock, false after the timeout; rejects with the signal's reason on abort. */
  lockAsync(options?: number | WaitAsyncOptions): Promise<boolean>;
  /** Main thread too. Takes the write lock if nobody reads or writes; never waits. */
  tryLock(): boolean;
  /** Main thread too. Releases the write lock. @throws Error, changing nothing, if this agent does not hold it. */
  unlock(): void;
  /** Workers only. Takes a read lock, waiting at most `timeoutMs`; false if it timed out. */
  readLock(timeoutMs?: number): boolean;
  /** Main thread too. Resolves true once it holds a read lock, false after the timeout. */
  readLockAsync(options?: number | WaitAsyncOptions): Promise<boolean>;
  /** Main thread too. Takes a read lock if no writer holds or waits for it; never waits. */
  tryReadLock(): boolean;
  /** Main thread too. Releases a read lock. @throws Error, changing nothing, if no reader holds one. */
  readUnlock(): void;
  /**
   * True after this agent took the lock (write or read, any call) while the
   * last writer's death was not yet told: sabmutex released the write lock
   * of an agent that ended holding it, and no writer has held it since, so
   * the data may be half-written. The next writer is told, and clears it.
   */
  readonly previousHolderDied: boolean;
  /** Workers only. Runs `fn` holding the write lock; always unlocks. */
  withLock<T>(fn: () => T): T;
  /** Main thread too. Awaits `fn` holding the write lock; rejects with a `TimeoutError` if not had in time. */
  withLockAsync<T>(fn: () => T | PromiseLike<T>, options?: number | WaitAsyncOptions): Promise<T>;
  /** Workers only. Runs `fn` holding a read lock; always unlocks. */
  withReadLock<T>(fn: () => T): T;
  /** Main thread too. Awaits `fn` holding a read lock; rejects with a `TimeoutError` if not had in time. */
  withReadLockAsync<T>(fn: () => T | PromiseLike<T>, options?: number | WaitAsyncOptions): Promise<T>;
}

/**
 * A counting semaphore of `permits`, over `Semaphore.SLOTS` int32 slots
 * (zeroed: every permit free). A waiter for many permits reserves them, so a
 * stream of small requests cannot starve it.
 */
export class Semaphore {
  /** How many int32 slots one Semaphore uses. */
  static readonly SLOTS: number;
  /**
   * Main thread too. The Semaphore named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * `permits`: its size, given by the agent that creates it; optional after (then the same).
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string, permits?: number): Semaphore;
  /**
   * Main thread too. `permits`: its size, the same in every agent.
   * @throws Error if the slots were set up with another size; RangeError for a size out of range.
   */
  constructor(memory: SharedMemory, index: number, permits: number);
  /** Workers only. Takes `n` permits (default 1), waiting at most `timeoutMs`; false if it timed out. */
  acquire(n?: number, timeoutMs?: number): boolean;
  /** Main thread too. Resolves true once it holds `n` permits, false after the timeout. */
  acquireAsync(n?: number, options?: number | WaitAsyncOptions): Promise<boolean>;
  /** Main thread too. Takes `n` permits if they are free now; never waits. */
  tryAcquire(n?: number): boolean;
  /** Main thread too. Gives back `n` permits. @throws Error, changing nothing, if fewer are taken. */
  release(n?: number): void;
  /** Main thread too. The permits free now (may be stale at once). */
  available(): number;
}

/** Waits for a count of tasks to finish, over `WaitGroup.SLOTS` int32 slots (zeroed: a count of 0). */
export class WaitGroup {
  /** How many int32 slots one WaitGroup uses. */
  static readonly SLOTS: number;
  /**
   * Main thread too. The WaitGroup named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string): WaitGroup;
  /** Main thread too. */
  constructor(memory: SharedMemory, index?: number);
  /** Main thread too. Adds `delta` to the count. @throws Error, changing nothing, if it would go below 0. */
  add(delta: number): void;
  /** Main thread too. `add(-1)`. */
  done(): void;
  /** Main thread too. The count now (may be stale at once). */
  count(): number;
  /** Workers only. Waits until the count is 0, at most `timeoutMs`; false if it timed out. */
  wait(timeoutMs?: number): boolean;
  /** Main thread too. Resolves true once the count is 0, false after the timeout. */
  waitAsync(options?: number | WaitAsyncOptions): Promise<boolean>;
}

/**
 * How a party left a Barrier: `"last"` for the one arrival per generation
 * that completed it, `"passed"` for the others, `"timed-out"` if it gave up
 * (its arrival is withdrawn: the others still wait for a full set).
 */
export type BarrierResult = "last" | "passed" | "timed-out";

/** `parties` agents or tasks wait for each other, generation after generation, over `Barrier.SLOTS` int32 slots. */
export class Barrier {
  /** How many int32 slots one Barrier uses. */
  static readonly SLOTS: number;
  /**
   * Main thread too. The Barrier named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * `parties`: given by the agent that creates it; optional after (then the same).
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string, parties?: number): Barrier;
  /** Main thread too. `parties`: arrivals per generation, the same in every agent. */
  constructor(memory: SharedMemory, index: number, parties: number);
  /** Workers only. Arrives and waits for the others, at most `timeoutMs`. */
  wait(timeoutMs?: number): BarrierResult;
  /**
   * Main thread too. Arrives and waits; an abort withdraws the arrival and
   * rejects with the signal's reason (unless the generation completed with
   * it first: then it resolves, as the arrival counted).
   */
  waitAsync(options?: number | WaitAsyncOptions): Promise<BarrierResult>;
}

/**
 * Runs a function once across all agents, over `Once.SLOTS` int32 slots
 * (zeroed: not run). While one runs it, the others wait; if it throws, the
 * Once is left as if never called, and the next caller runs its own.
 */
export class Once {
  /** How many int32 slots one Once uses. */
  static readonly SLOTS: number;
  /**
   * Main thread too. The Once named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string): Once;
  /** Main thread too. `options`: as `Mutex`'s. */
  constructor(memory: SharedMemory, index?: number, options?: LockOptions);
  /**
   * Workers only. Runs `fn` unless some agent's has run; returns true if it ran here.
   * @throws TimeoutError if another agent's `fn` did not finish within `timeoutMs`; whatever `fn` throws.
   */
  do(fn: () => unknown, timeoutMs?: number): boolean;
  /** Main thread too. Like `do`, awaiting `fn`; resolves true if it ran here. */
  doAsync(fn: () => unknown, options?: number | WaitAsyncOptions): Promise<boolean>;
  /** Main thread too. Whether some agent's `fn` has run to the end. */
  isDone(): boolean;
  /**
   * True while and after this agent runs `fn` because the agent that last
   * ran its own ended while it ran it (its run was ended as if `fn` had
   * thrown): what it set up may be half done. False after any other `do`.
   */
  readonly previousHolderDied: boolean;
}

/**
 * A condition variable for a `Mutex`, over `Cond.SLOTS` int32 slots. No
 * notify sent after a wait began is lost; check the condition in a loop.
 */
export class Cond {
  /** How many int32 slots one Cond uses. */
  static readonly SLOTS: number;
  /**
   * Main thread too. The Cond named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string): Cond;
  /** Main thread too. */
  constructor(memory: SharedMemory, index?: number);
  /**
   * Workers only. Unlocks `mutex` (held by this agent), sleeps until notified
   * or `timeoutMs`, and locks it again: true if notified, false if timed out.
   * @throws Error if this agent does not hold `mutex`.
   */
  wait(mutex: Mutex, timeoutMs?: number): boolean;
  /** Main thread too. Like `wait`; settles only once `mutex` is held again, also on abort. */
  waitAsync(mutex: Mutex, options?: number | WaitAsyncOptions): Promise<boolean>;
  /** Main thread too. Wakes one waiter; returns how many it woke. */
  notifyOne(): number;
  /** Main thread too. Wakes every waiter; returns how many it woke. */
  notifyAll(): number;
}

/** What a Channel carries: a string arrives as a string, any other message as a `Uint8Array` of its bytes. */
export type Message = string | Uint8Array;

/**
 * A bounded queue of messages between agents, over
 * `Channel.slotsFor(capacity, maxMessageBytes)` int32 slots (zeroed: an
 * empty open channel). Every message sent is received exactly once; the
 * messages of one sender arrive in the order it sent them. Messages are
 * copied in and out: a string, or an `ArrayBufferView` (sent as its bytes,
 * received as a fresh `Uint8Array`). Send other data as
 * `JSON.stringify(data)`.
 */
export class Channel implements Iterable<Message>, AsyncIterable<Message> {
  /** Main thread too. How many int32 slots a Channel of these sizes uses, from its index on: `96 + capacity * (2 + Math.ceil(maxMessageBytes / 4))`. */
  static slotsFor(capacity: number, maxMessageBytes: number): number;
  /**
   * Main thread too. The Channel named `name` in this agent's registry: every agent
   * of the registry (the page, the workers given its `forWorker()`, Go programs
   * that joined) gets the same one, with no memory to lay out.
   * `options`: given by the agent that creates it; optional after (then the same).
   * @throws Error naming what the name already is, when it is another kind (or
   *   has other parameters); RangeError when the registry's name table is full (`init({ names })`).
   */
  static named(name: string, options?: { capacity: number; maxMessageBytes: number }): Channel;
  /**
   * Main thread too. `capacity`: how many messages it holds;
   * `maxMessageBytes`: the longest message in bytes (a string's in UTF-8).
   * Every agent passes the same two.
   */
  constructor(memory: SharedMemory, index: number, capacity: number, maxMessageBytes: number);
  /** Main thread too. The messages it can hold. */
  readonly capacity: number;
  /** Main thread too. How many messages are in it now. */
  readonly length: number;
  /** Main thread too. Whether `close()` was called. */
  readonly closed: boolean;
  /**
   * Workers only. Puts `msg` in, waiting for room at most `timeoutMs` (none:
   * forever); false if it timed out.
   * @throws RangeError, sending nothing, if `msg` is longer than maxMessageBytes.
   * @throws Error "sabmutex: send on a closed channel" if it is closed, or closes while it waits.
   */
  send(msg: string | ArrayBufferView, timeoutMs?: number): boolean;
  /** Main thread too. Like `send`; resolves false after the timeout, rejects as `send` throws. */
  sendAsync(msg: string | ArrayBufferView, options?: number | WaitAsyncOptions): Promise<boolean>;
  /** Main thread too. Puts `msg` in if there is room now; never waits. Throws as `send`. */
  trySend(msg: string | ArrayBufferView): boolean;
  /**
   * Workers only. The next message, waiting at most `timeoutMs` (none:
   * forever); undefined if none came in time, or if the channel is closed
   * and drained (`closed` tells which).
   */
  recv(timeoutMs?: number): Message | undefined;
  /** Main thread too. Like `recv`. */
  recvAsync(options?: number | WaitAsyncOptions): Promise<Message | undefined>;
  /** Main thread too. The next message if one is in now, else undefined. */
  tryRecv(): Message | undefined;
  /**
   * Main thread too. Closes it: sends throw from then on (also those
   * waiting); receivers get what is left, then undefined.
   * @throws Error if it was closed already.
   */
  close(): void;
  /** Main thread too. A case of `select`: a receive from this channel. */
  recvCase(): SelectCase;
  /** Main thread too. A case of `select`: a send of `msg` (checked now, as `send` checks it). */
  sendCase(msg: string | ArrayBufferView): SelectCase;
  /** Workers only: `for (const msg of ch)` until it is closed and drained. */
  [Symbol.iterator](): Iterator<Message>;
  /** Main thread too: `for await (const msg of ch)` until it is closed and drained. */
  [Symbol.asyncIterator](): AsyncIterator<Message>;
}

/** A case of `select`, from `ch.recvCase()` or `ch.sendCase(msg)`. */
export interface SelectCase {
  readonly channel: Channel;
  readonly send: boolean;
}

/**
 * What `select` returns: the case that happened (`value`: a receive's
 * message, or undefined if its channel is closed and drained; undefined for
 * a send), or `{ index: -1 }` at the timeout.
 */
export type SelectResult = { index: number; value: Message | undefined } | { index: -1; value?: undefined };

/**
 * Workers only. Waits at most `timeoutMs` (none: forever) until one of
 * `cases` can happen, on one or several channels, and does exactly that
 * one.
 * @throws Error "sabmutex: send on a closed channel" if the case that happens is a send on a closed channel.
 */
export function select(cases: SelectCase[], timeoutMs?: number): SelectResult;
/** Main thread too. Like `select`; an abort rejects with the signal's reason, and no case has happened. */
export function selectAsync(cases: SelectCase[], options?: number | WaitAsyncOptions): Promise<SelectResult>;

/** Web Locks' options (`navigator.locks.request`'s). */
export interface LockRequestOptions {
  /** "exclusive" (the default) or "shared". */
  mode?: "exclusive" | "shared";
  /** Grant it only if it can be granted now; else the callback gets null. */
  ifAvailable?: boolean;
  /** Take it at once, at the head of the name's queue, from its holders, whose requests reject with an AbortError. */
  steal?: boolean;
  /** Aborting it while the request waits rejects the request with the signal's reason. */
  signal?: AbortSignal;
}

/** The lock a callback gets (Web Locks' `Lock`). */
export interface NamedLock {
  readonly name: string;
  readonly mode: "exclusive" | "shared";
}

/** An entry of `locks.query()`. */
export interface LockInfo {
  name: string;
  mode: "exclusive" | "shared";
  /** The agent's id, as a string. */
  clientId: string;
}

/**
 * The Web Locks API (`navigator.locks`) for every agent of this registry
 * (the page, the workers given its `forWorker()`, Go programs that joined),
 * over one lock request queue per name in its shared memory: requests are
 * granted in the order made, whichever agent made them. Names of at most 128
 * UTF-16 code units; a lock name is not a primitive's (`RWMutex.named`).
 */
export const locks: {
  /**
   * Main thread too. Web Locks' `request`: runs `callback` with the lock once it
   * is granted, holds it until the callback's promise settles, and resolves with its value.
   * Mistakes reject with Web Locks' TypeError or DOMException.
   */
  request<T>(name: string, callback: (lock: NamedLock | null) => T | PromiseLike<T>): Promise<T>;
  request<T>(name: string, options: LockRequestOptions, callback: (lock: NamedLock | null) => T | PromiseLike<T>): Promise<T>;
  /**
   * Workers only. Blocks until granted, runs `callback` with the lock, releases it
   * and returns what `callback` returned (options: `mode`, `ifAvailable`).
   * @throws Error on the main thread (use `request`).
   */
  requestSync<T>(name: string, callback: (lock: NamedLock | null) => T): T;
  requestSync<T>(name: string, options: LockRequestOptions, callback: (lock: NamedLock | null) => T): T;
  /** Main thread too. Every agent's held and pending requests, read from shared memory; each name's pending ones in request order. */
  query(): Promise<{ held: LockInfo[]; pending: LockInfo[] }>;
};

export {};
