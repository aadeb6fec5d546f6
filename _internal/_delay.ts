import type { Clock } from "../clock.ts";

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason when it
 * aborts first. The timer is always cleared, so nothing outlives an abort.
 */
export function delay(
  ms: number,
  options: { clock: Clock; signal?: AbortSignal },
): Promise<void> {
  const { clock, signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
