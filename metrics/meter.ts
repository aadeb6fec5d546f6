/**
 * The metrics hook: the subset of OpenTelemetry's `Meter` this package
 * calls, typed here so that no dependency is needed. A `Meter` from
 * `@opentelemetry/api` (`metrics.getMeter("k8s-watcher")`) or Deno's
 * built-in OpenTelemetry fits it as it is; so does the
 * {@linkcode MetricsRegistry} of this module, for users without
 * OpenTelemetry.
 *
 * @module
 */

/**
 * One attribute (Prometheus: label) value.
 *
 * @example A label value
 * ```ts
 * import type { MetricAttributeValue } from "@haptic/k8s-watcher/metrics";
 *
 * const value: MetricAttributeValue = "configmaps";
 * ```
 */
export type MetricAttributeValue = string | number | boolean;

/**
 * The attributes (Prometheus: labels) of one measurement. An `undefined`
 * value is no attribute.
 *
 * @example The attributes of a watch event
 * ```ts
 * import type { MetricAttributes } from "@haptic/k8s-watcher/metrics";
 *
 * const attributes: MetricAttributes = { resource: "pods", type: "ADDED" };
 * ```
 */
export type MetricAttributes = {
  readonly [name: string]: MetricAttributeValue | undefined;
};

/**
 * How an instrument is described, as OpenTelemetry's `MetricOptions`.
 *
 * @example A histogram in seconds with its own buckets
 * ```ts
 * import type { MetricOptions } from "@haptic/k8s-watcher/metrics";
 *
 * const options: MetricOptions = {
 *   description: "How long a request took",
 *   unit: "s",
 *   advice: { explicitBucketBoundaries: [0.01, 0.1, 1, 10] },
 * };
 * ```
 */
export interface MetricOptions {
  /** What the instrument measures (Prometheus: the `# HELP` text). */
  description?: string;
  /** The unit, in UCUM: `s`, `By`, `1`. */
  unit?: string;
  /** Hints to the SDK. */
  advice?: {
    /** A histogram's bucket upper bounds, ascending. */
    explicitBucketBoundaries?: number[];
  };
}

/**
 * A monotonic sum: adds only go up (Prometheus: a `counter`, `_total`).
 *
 * @example Counting one event
 * ```ts
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 *
 * const counter = new MetricsRegistry().createCounter("demo_events");
 * counter.add(1, { type: "ADDED" });
 * ```
 */
export interface Counter {
  /** Adds `value` (not negative) to the series of `attributes`. */
  add(value: number, attributes?: MetricAttributes): void;
}

/**
 * A sum that goes up and down (Prometheus: a `gauge`).
 *
 * @example One more, one less
 * ```ts
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 *
 * const open = new MetricsRegistry().createUpDownCounter("demo_open");
 * open.add(1);
 * open.add(-1);
 * ```
 */
export interface UpDownCounter {
  /** Adds `value` (any sign) to the series of `attributes`. */
  add(value: number, attributes?: MetricAttributes): void;
}

/**
 * A distribution of measurements (Prometheus: a `histogram`).
 *
 * @example Recording a duration in seconds
 * ```ts
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 *
 * const seconds = new MetricsRegistry().createHistogram("demo_seconds", { unit: "s" });
 * seconds.record(0.042);
 * ```
 */
export interface Histogram {
  /** Records `value` in the series of `attributes`. */
  record(value: number, attributes?: MetricAttributes): void;
}

/**
 * What an observable instrument's callback reports its values to.
 *
 * @example Observing two series
 * ```ts
 * import type { ObservableResult } from "@haptic/k8s-watcher/metrics";
 *
 * function report(result: ObservableResult): void {
 *   result.observe(3, { state: "synced" });
 *   result.observe(1, { state: "unsynced" });
 * }
 * ```
 */
export interface ObservableResult {
  /** The current value of the series of `attributes`. */
  observe(value: number, attributes?: MetricAttributes): void;
}

/**
 * Called at each collection (a scrape) to observe current values.
 *
 * @example A callback
 * ```ts
 * import type { ObservableCallback } from "@haptic/k8s-watcher/metrics";
 *
 * const callback: ObservableCallback = (result) => result.observe(Date.now() / 1000);
 * ```
 */
export type ObservableCallback = (
  result: ObservableResult,
) => void | Promise<void>;

/**
 * A value read when collected (Prometheus: a `gauge`), from callbacks.
 *
 * @example Adding and removing a callback
 * ```ts
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 *
 * const registry = new MetricsRegistry();
 * const gauge = registry.createObservableGauge("demo_objects");
 * const callback = (result: { observe(value: number): void }) => result.observe(12);
 * gauge.addCallback(callback);
 * console.log(registry.render());
 * gauge.removeCallback(callback);
 * ```
 */
export interface ObservableGauge {
  /** Calls `callback` at each collection from now on. */
  addCallback(callback: ObservableCallback): void;
  /** Stops calling `callback`. */
  removeCallback(callback: ObservableCallback): void;
}

/**
 * A sum read when collected, that only goes up (Prometheus: a `counter`,
 * `_total`), from callbacks that observe its running total: CPU seconds,
 * say.
 *
 * @example The total so far, at each collection
 * ```ts
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 *
 * const registry = new MetricsRegistry();
 * let handled = 0;
 * registry.createObservableCounter("demo_handled")
 *   .addCallback((result) => result.observe(handled));
 * handled += 3;
 * console.log(registry.render()); // demo_handled_total 3
 * ```
 */
export interface ObservableCounter {
  /** Calls `callback` at each collection from now on. */
  addCallback(callback: ObservableCallback): void;
  /** Stops calling `callback`. */
  removeCallback(callback: ObservableCallback): void;
}

/**
 * The metrics hook the watchers, the tracker, `DebounceGroup`,
 * `LeaderElector` and `FetchClient` take as `meter`: the subset of
 * OpenTelemetry's `Meter` they call. Each component creates its
 * instruments once, at construction; measurements on the hot path (each
 * watch event) go to preallocated instruments with preallocated
 * attribute objects.
 *
 * @example OpenTelemetry's meter, or the built-in registry
 * ```ts
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { type Meter, MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 *
 * // With OpenTelemetry: `const meter: Meter = metrics.getMeter("k8s-watcher");`
 * const meter: Meter = new MetricsRegistry();
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" }, { meter });
 * const watcher = new Watcher({
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   onChange: () => {},
 * }, client, { meter });
 * ```
 */
export interface Meter {
  /** A monotonic sum. */
  createCounter(name: string, options?: MetricOptions): Counter;
  /** A sum that goes up and down. */
  createUpDownCounter(name: string, options?: MetricOptions): UpDownCounter;
  /** A distribution (bucket bounds from `options.advice`). */
  createHistogram(name: string, options?: MetricOptions): Histogram;
  /** A value read by callbacks at each collection. */
  createObservableGauge(
    name: string,
    options?: MetricOptions,
  ): ObservableGauge;
  /**
   * A running total read by callbacks at each collection. Optional: only
   * `ProcessMetrics` (from `@haptic/k8s-watcher/health`) uses it, for CPU
   * seconds, and reports a gauge on a meter without it.
   */
  createObservableCounter?(
    name: string,
    options?: MetricOptions,
  ): ObservableCounter;
}
