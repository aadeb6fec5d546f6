/**
 * The start-once, stop-once bookkeeping both watchers share: `start` runs
 * the loop until stopped (or until the caller's signal aborts), `stop`
 * aborts it, waits for it to end, then runs the watcher's own shutdown.
 */
export class Lifecycle {
  #controller = new AbortController();
  #run: (signal: AbortSignal) => Promise<void>;
  #shutdown: () => Promise<void>;
  #loopDone: Promise<void> | undefined;
  #running: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  constructor(
    run: (signal: AbortSignal) => Promise<void>,
    shutdown: () => Promise<void>,
  ) {
    this.#run = run;
    this.#shutdown = shutdown;
  }

  start(signal?: AbortSignal): Promise<void> {
    if (this.#running) return this.#running;
    if (this.#stopping) return this.#stopping;
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
