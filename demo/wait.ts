/**
 * Resolves after `ms` (never for `Infinity`), or early (without error) when
 * `signal` aborts.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    // setTimeout would treat Infinity (or anything past 2^31 ms) as 0.
    const timer = Number.isFinite(ms) && ms < 2 ** 31
      ? setTimeout(done, ms)
      : undefined;
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Polls `predicate` every 20 ms until it holds (true), `timeoutMs` passes
 * or `signal` aborts (false).
 */
export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return true;
    if (signal.aborted || performance.now() >= deadline) return false;
    await sleep(20, signal);
  }
}
