/**
 * Time as the watchers see it. Every timer in this package goes through a
 * {@linkcode Clock}, so tests can drive time with `FakeClock` from
 * `@haptic/k8s-watcher/testing` instead of sleeping.
 *
 * @module
 */

/**
 * An opaque timer handle returned by {@linkcode Clock.setTimeout}.
 *
 * @example
 * ```ts
 * import { systemClock, type TimerHandle } from "@haptic/k8s-watcher";
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
 * import { type Clock, systemClock } from "@haptic/k8s-watcher";
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
  /** Milliseconds since the epoch (or any fixed origin). */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The real clock: `Date.now()` and the global timers.
 *
 * @example
 * ```ts
 * import { systemClock } from "@haptic/k8s-watcher";
 *
 * const started = systemClock.now();
 * console.log(started > 0);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
};
