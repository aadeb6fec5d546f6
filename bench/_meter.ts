/**
 * The meter of the "flood with metrics" row: the package's zero-dependency
 * metrics registry, passed to the `Watcher` as `meter`.
 *
 * The one place to finish once `metrics/` is merged: replace the body of
 * {@linkcode benchMeter} with `return new MetricsRegistry();` (a static
 * import from `../metrics/mod.ts`), drop {@linkcode METRICS_MODULE} and
 * its check in `compare.ts`, and type the result as `Meter`.
 *
 * @module
 */

/** Where the metrics module will be. */
export const METRICS_MODULE: URL = new URL(
  "../metrics/mod.ts",
  import.meta.url,
);

/** Whether the metrics module is there (until it is, the row is skipped). */
export function hasMetricsModule(): boolean {
  try {
    return Deno.statSync(METRICS_MODULE).isFile;
  } catch {
    return false;
  }
}

/**
 * A fresh registry to pass as the watcher's `meter`, or `undefined` when
 * the metrics module is not there.
 */
export async function benchMeter(): Promise<unknown> {
  if (!hasMetricsModule()) return undefined;
  // Not a static import: this must compile before the module exists.
  const metrics = await import(METRICS_MODULE.href);
  return new metrics.MetricsRegistry();
}
