/**
 * When a failed `onChange` is called again although nothing new came: 1 s
 * after the failure, doubling with each failure in a row to at most 60 s,
 * from 1 s again once a call succeeds. On the watcher's (or group's)
 * clock, so a test's `FakeClock` drives it. Not jittered: one process
 * retries its own callback, no crowd of clients hits one server.
 *
 * @module
 */
import type { Clock, TimerHandle } from "../clock.ts";

/** The first wait after a failure, in milliseconds. */
export const RETRY_FIRST_MS = 1_000;
/** The longest wait between two attempts, in milliseconds. */
export const RETRY_MAX_MS = 60_000;

/** One callback's retry timer and the wait it is at. */
export class CallbackRetry {
  readonly #clock: Clock;
  readonly #fire: () => void;
  #next = RETRY_FIRST_MS;
  #last = RETRY_FIRST_MS;
  #timer: TimerHandle | undefined;

  /**
   * @param clock Where the timer runs.
   * @param fire What a retry does, once its wait is over.
   */
  constructor(clock: Clock, fire: () => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Whether a retry waits for its time. */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  /** A call failed: retry after the next wait (replacing one armed). */
  failed(): void {
    const wait = this.#next;
    this.#next = Math.min(wait * 2, RETRY_MAX_MS);
    this.#arm(wait);
  }

  /** The retry could not fire when due: wait as long as last time again. */
  again(): void {
    this.#arm(this.#last);
  }

  /** A call succeeded: nothing to retry, and the next failure waits 1 s. */
  succeeded(): void {
    this.cancel();
    this.#next = RETRY_FIRST_MS;
  }

  #arm(wait: number): void {
    this.cancel();
    this.#last = wait;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#fire();
    }, wait);
  }

  /** Drops the armed retry, if any; the wait stays where it is. */
  cancel(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
