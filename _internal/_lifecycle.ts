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
