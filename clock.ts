/**
 * Time as the watchers see it. Every timer in this package goes through a
 * {@linkcode Clock}, so tests can drive time with `FakeClock` from
 * `@haptic/k8s-watcher/testing` instead of sleeping.
 *
 * @module
 */
import { MAX_TIMER_MS } from "./_internal/_option_checks.ts";

/**
 * An opaque timer handle returned by {@linkcode Clock.setTimeout}.
 *
 * @example Cancelling a timer
 * ```ts
 * import { systemClock, type TimerHandle } from "@haptic/k8s-watcher/clock";
 *
 * const handle: TimerHandle = systemClock.setTimeout(() => {}, 10);
 * systemClock.clearTimeout(handle);
 * ```
 */
export type TimerHandle = unknown;

/**
 * A source of time and one-shot timers.
 *
 * @example A clock that logs every timer
 * ```ts
 * import { type Clock, systemClock } from "@haptic/k8s-watcher/clock";
 *
 * const logging: Clock = {
 *   now: () => systemClock.now(),
 *   setTimeout: (fn, ms) => {
 *     console.log(`timer in ${ms} ms`);
 *     return systemClock.setTimeout(fn, ms);
 *   },
 *   clearTimeout: (handle) => systemClock.clearTimeout(handle),
 * };
 * logging.clearTimeout(logging.setTimeout(() => {}, 5));
 * ```
 */
export interface Clock {
  /**
   * Milliseconds since the epoch (or any fixed origin).
   *
   * @example Measuring elapsed time
   * ```ts
   * import { systemClock } from "@haptic/k8s-watcher/clock";
   *
   * const started = systemClock.now();
   * console.log(`${systemClock.now() - started} ms`);
   * ```
   *
   * @returns The current time in milliseconds.
   */
  now(): number;
  /**
   * Calls `fn` once after `ms` milliseconds.
   *
   * @example Firing after a fake delay
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * let fired = false;
   * clock.setTimeout(() => fired = true, 100);
   * await clock.tick(100);
   * assert.equal(fired, true);
   * ```
   *
   * @param fn What to call.
   * @param ms The delay in milliseconds. It may be longer than the global
   * `setTimeout` can wait (2³¹−1 ms, which it fires after 1 ms): a server's
   * `Retry-After`, another replica's lease duration. `systemClock` waits it
   * whole; a clock of your own must too.
   * @returns A handle for {@linkcode Clock.clearTimeout}.
   */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /**
   * Cancels a timer; unknown or fired handles are ignored.
   *
   * @example Cancelling before it fires
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const handle = clock.setTimeout(() => assert.fail("cancelled"), 100);
   * clock.clearTimeout(handle);
   * await clock.tick(1_000);
   * ```
   *
   * @param handle What {@linkcode Clock.setTimeout} returned.
   */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The real clock: `Date.now()` and the global timers.
 *
 * @example Reading the time
 * ```ts
 * import { systemClock } from "@haptic/k8s-watcher/clock";
 *
 * const started = systemClock.now();
 * console.log(started > 0);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) =>
    ms > MAX_TIMER_MS ? new LongTimer(fn, ms) : setTimeout(fn, ms),
  clearTimeout: (handle) => {
    if (handle instanceof LongTimer) handle.clear();
    else clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/**
 * A delay longer than the global timers can wait, waited in steps of at
 * most `MAX_TIMER_MS`: past it, `setTimeout` fires after 1 ms (Deno, Node
 * and Bun keep the delay in 32 bits).
 */
class LongTimer {
  #id: ReturnType<typeof setTimeout> | undefined;

  constructor(fn: () => void, ms: number) {
    let left = ms;
    const step = () => {
      const wait = Math.min(left, MAX_TIMER_MS);
      left -= wait;
      this.#id = setTimeout(left > 0 ? step : fn, wait);
    };
    step();
  }

  clear(): void {
    clearTimeout(this.#id);
  }
}
