/**
 * A component's one life (start once, stop once: the watchers, the elector)
 * and the user callbacks it runs: marked with their owner, so that a
 * `stop()` from inside one is recognised, and guarded, so that none throws
 * into its caller.
 *
 * Which owners' user callbacks (a watcher's, a group's, an elector's) the
 * running code is inside of, across `await`s: a `stop()` called from inside one of its own
 * callbacks cannot wait for that callback (it is waiting for the stop), so
 * it must know it is there.
 *
 * The context rides on the runtime's `AsyncLocalStorage` (`node:
 * async_hooks`, on Deno, Node 22.3+ and Bun alike), which follows a
 * callback through its awaits, timers and I/O. A runtime without it gets a
 * stack of the callbacks running synchronously: a `stop()` before the
 * callback's first `await` is still recognised.
 *
 * @module
 */
import { failureFields } from "./_logging.ts";
import type { Logger } from "../types.ts";

/**
 * How a lifecycle knows a `stop()` comes from inside one of its watcher's
 * callbacks, and makes the watcher fall silent at once for it.
 */
export interface InsideCallback {
  /** Whether the running code is inside one of the watcher's callbacks. */
  now(): boolean;
  /** No callback may start from now on; pending changes are dropped. */
  silence(): void;
}

const done: Promise<void> = Promise.resolve();

/** For an owner with no callbacks that could call its `stop()`. */
const neverInside: InsideCallback = { now: () => false, silence() {} };

/** Where a watcher is in its one life. */
export type LifecycleState = "idle" | "running" | "stopped";

/**
 * The start-once, stop-once bookkeeping both watchers share: `start` runs
 * the loop until stopped (or until the caller's signal aborts), `stop`
 * aborts it, waits for it to end, then runs the watcher's own shutdown.
 * A stopped lifecycle does not start again: `start` throws what
 * `stoppedError` makes.
 */
export class Lifecycle {
  #controller = new AbortController();
  #run: (signal: AbortSignal) => Promise<void>;
  #shutdown: () => Promise<void>;
  #loopDone: Promise<void> | undefined;
  #running: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  #stoppedError: () => Error;
  #inside: InsideCallback;

  constructor(
    run: (signal: AbortSignal) => Promise<void>,
    shutdown: () => Promise<void>,
    stoppedError: () => Error,
    inside: InsideCallback = neverInside,
  ) {
    this.#run = run;
    this.#shutdown = shutdown;
    this.#stoppedError = stoppedError;
    this.#inside = inside;
  }

  /** `idle` before `start`, `running` until `stop`, then `stopped`. */
  get state(): LifecycleState {
    if (this.#stopping) return "stopped";
    return this.#running ? "running" : "idle";
  }

  start(signal?: AbortSignal): Promise<void> {
    if (this.#stopping) throw this.#stoppedError();
    if (this.#running) return this.#running;
    const onAbort = () => void this.stop();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    this.#loopDone = this.#run(this.#controller.signal).finally(() =>
      signal?.removeEventListener("abort", onAbort)
    );
    // The loop only ends by being stopped; finish the stop it began.
    this.#running = this.#loopDone.then(() => this.stop());
    return this.#running;
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#controller.abort();
      await this.#loopDone;
      await this.#shutdown();
    })();
    if (!this.#inside.now()) return this.#stopping;
    // Called from inside one of the watcher's callbacks, which the stop
    // would wait for: nothing may start from now on, and the rest of the
    // stop completes once that callback has returned.
    this.#inside.silence();
    return done;
  }
}

/**
 * One callback running inside another's (or at the top). Work the callback
 * starts (a timer, a loop, a server) inherits the frame for good, so the
 * frame says when the callback itself has settled: from then on, that work
 * is outside it.
 */
interface Frame {
  readonly owner: object;
  readonly parent: Frame | undefined;
  settled: boolean;
}

interface FrameStorage {
  run<R>(frame: Frame, fn: () => R): R;
  getStore(): Frame | undefined;
}

const storage: FrameStorage = asyncStorage() ?? stackStorage();

/**
 * Runs `fn`, a user callback of `owner`, marked as such until it returns
 * or, when it returns a promise, until that settles.
 */
export function runAsCallbackOf<R>(owner: object, fn: () => R): R {
  const frame: Frame = { owner, parent: storage.getStore(), settled: false };
  let result: R;
  try {
    result = storage.run(frame, fn);
  } catch (error) {
    frame.settled = true;
    throw error;
  }
  if (result instanceof Promise) {
    const end = () => void (frame.settled = true);
    result.then(end, end);
  } else frame.settled = true;
  return result;
}

/** Whether the running code is inside a running callback of one of `owners`. */
export function insideCallbackOf(...owners: readonly object[]): boolean {
  for (let frame = storage.getStore(); frame; frame = frame.parent) {
    if (!frame.settled && owners.includes(frame.owner)) return true;
  }
  return false;
}

function asyncStorage(): FrameStorage | undefined {
  const process = (globalThis as {
    process?: { getBuiltinModule?: (id: string) => unknown };
  }).process;
  try {
    const hooks = process?.getBuiltinModule?.("node:async_hooks") as
      | { AsyncLocalStorage?: new () => FrameStorage }
      | undefined;
    return hooks?.AsyncLocalStorage ? new hooks.AsyncLocalStorage() : undefined;
  } catch {
    return undefined;
  }
}

function stackStorage(): FrameStorage {
  let current: Frame | undefined;
  return {
    run(frame, fn) {
      const outer = current;
      current = frame;
      try {
        return fn();
      } finally {
        current = outer;
      }
    },
    getStore: () => current,
  };
}

/**
 * Runs a user callback so that neither a throw nor a rejection escapes:
 * both are logged at error level and the caller goes on. Says whether the
 * callback succeeded: at once when it returned no promise, else by a
 * promise that never rejects.
 */
export function runGuarded(
  callback: () => unknown,
  logger: Logger,
  what: string,
): boolean | Promise<boolean> {
  let result: unknown;
  try {
    result = callback();
  } catch (error) {
    logger.error(what, failureFields(error));
    return false;
  }
  if (result instanceof Promise) {
    return result.then(
      () => true,
      (error) => {
        logger.error(what, failureFields(error));
        return false;
      },
    );
  }
  return true;
}
