/**
 * The longest delay a timer can wait, in ms (2³¹−1, about 24.8 days).
 * Deno, Node and Bun keep a timer's delay in a signed 32-bit integer: asked
 * for more, `setTimeout` warns (`TimeoutOverflowWarning`) and fires after
 * 1 ms, so a debounce interval of 3e9 ms would fire at every change.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The idle timeout of a loop not given one: 3 minutes, in ms. Here because
 * the watcher, above the loop, names it too (in its form and its health).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;

/**
 * What is wrong with a duration option that sets a timer, worded to follow
 * the option's name ("must be …"); undefined when it is a positive finite
 * number of milliseconds no longer than {@linkcode MAX_TIMER_MS}. Every
 * component words its own error around it (its own error type).
 */
export function durationProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    return `must be a positive number of milliseconds, got ${String(value)}`;
  }
  if (value > MAX_TIMER_MS) {
    return `must be at most ${MAX_TIMER_MS} ms (2³¹−1), got ${value}`;
  }
  return undefined;
}

/**
 * What is wrong with a count option (a burst, a limit, a concurrency),
 * worded as {@linkcode durationProblem}'s; undefined when it is a whole
 * number of at least 1.
 */
export function countProblem(value: unknown): string | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 1
    ? undefined
    : `must be a positive whole number, got ${String(value)}`;
}
