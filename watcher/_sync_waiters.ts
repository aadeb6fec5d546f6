import { WatcherSyncError } from "./sync_error.ts";

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * The "has the initial list arrived" latch both watchers share: resolves
 * every waiter once, and rejects a waiter whose signal aborts (or all of them
 * when the watcher stops) with the loop's last failure attached.
 */
export class SyncWaiters<T> {
  #resource: string;
  #lastError: () => { error: unknown } | undefined;
  #waiters = new Set<Waiter<T>>();
  #value: { value: T } | undefined;
  #failure: string | undefined;

  constructor(
    resource: string,
    lastError: () => { error: unknown } | undefined,
  ) {
    this.#resource = resource;
    this.#lastError = lastError;
  }

  get done(): boolean {
    return this.#value !== undefined;
  }

  resolve(value: T): void {
    if (this.#value) return;
    this.#value = { value };
    for (const w of this.#waiters) w.resolve(value);
    this.#waiters.clear();
  }

  /** Rejects current and future waiters (unless already resolved). */
  fail(why: string): void {
    if (this.#value) return;
    this.#failure = why;
    for (const w of this.#waiters) w.reject(this.#error(why));
    this.#waiters.clear();
  }

  wait(signal?: AbortSignal): Promise<T> {
    if (this.#value) return Promise.resolve(this.#value.value);
    if (this.#failure) return Promise.reject(this.#error(this.#failure));
    if (signal?.aborted) {
      return Promise.reject(this.#error("the wait was aborted"));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(this.#error("the wait was aborted"));
      };
      const waiter: Waiter<T> = {
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #error(why: string): WatcherSyncError {
    return new WatcherSyncError(this.#resource, why, this.#lastError()?.error);
  }
}
