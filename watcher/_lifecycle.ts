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

  constructor(
    run: (signal: AbortSignal) => Promise<void>,
    shutdown: () => Promise<void>,
    stoppedError: () => Error,
  ) {
    this.#run = run;
    this.#shutdown = shutdown;
    this.#stoppedError = stoppedError;
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
    return this.#stopping;
  }
}
