import type {
  Counter,
  Histogram,
  Meter,
  MetricAttributes,
  MetricOptions,
  ObservableCallback,
  ObservableCounter,
  ObservableGauge,
  ObservableResult,
  UpDownCounter,
} from "./meter.ts";

/**
 * The `Content-Type` of {@linkcode MetricsRegistry.render}'s text: the
 * Prometheus text exposition format, version 0.0.4.
 *
 * @example Serving the registry
 * ```ts
 * import { MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from "@haptic/k8s-watcher/metrics";
 *
 * const registry = new MetricsRegistry();
 * const response = new Response(registry.render(), {
 *   headers: { "content-type": PROMETHEUS_CONTENT_TYPE },
 * });
 * console.log(response.headers.get("content-type"));
 * ```
 */
export const PROMETHEUS_CONTENT_TYPE =
  "text/plain; version=0.0.4; charset=utf-8";

/**
 * Prometheus' default histogram buckets (client_golang's `DefBuckets`), in
 * seconds: what a histogram gets without `advice.explicitBucketBoundaries`.
 *
 * @example The bounds
 * ```ts
 * import { DEFAULT_BUCKETS } from "@haptic/k8s-watcher/metrics";
 *
 * console.log(DEFAULT_BUCKETS.join(", ")); // 0.005, 0.01, … 10
 * ```
 */
export const DEFAULT_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
]);

type Kind =
  | "counter"
  | "upDownCounter"
  | "histogram"
  | "observableGauge"
  | "observableCounter";

/** One labelled series: its rendered label set and its state. */
interface Series {
  readonly labels: string;
  value: number;
  /** A histogram's counts per bucket (not cumulative), `+Inf` last. */
  readonly buckets?: number[];
}

/**
 * A zero-dependency {@linkcode Meter} that keeps every series in memory
 * and renders them in the Prometheus text exposition format (0.0.4), for
 * users without OpenTelemetry: give it as `meter` to the watchers, the
 * tracker, `DebounceGroup`, `LeaderElector` and `FetchClient`, and serve
 * {@linkcode MetricsRegistry.render} on `/metrics` with
 * {@linkcode PROMETHEUS_CONTENT_TYPE}.
 *
 * - Counters and observable counters render with `_total` (added unless
 *   the name has it), up-down counters and observable gauges as gauges,
 *   histograms as `_bucket{le}` (cumulative, `+Inf` last), `_sum` and
 *   `_count`.
 * - Names and label names are rendered as given, with characters
 *   Prometheus does not allow replaced by `_`; label values are escaped.
 *   What would make the text unparsable is refused with a `TypeError`
 *   naming it, since one bad family fails a whole scrape: two names (or
 *   two attributes of one series) that render alike, a label starting with
 *   `__`, `le` on a histogram. (An observable gauge's callback that
 *   observes such a set is skipped, as a throwing one is.)
 * - Creating an instrument twice under one name gives the same instrument
 *   (as OpenTelemetry does); under another kind, it throws.
 * - Observable gauges and counters call their callbacks at each
 *   `render()`; for one label set the last observation wins. A callback
 *   that throws is skipped; a callback's promise is not awaited (observe
 *   synchronously).
 * - Series are kept until the registry goes: label values must be bounded
 *   (this package never labels with object names).
 *
 * @example Counting, then rendering
 * ```ts
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricsRegistry();
 * const events = registry.createCounter("demo_events", { description: "Events seen" });
 * events.add(2, { type: "ADDED" });
 * assert.equal(
 *   registry.render(),
 *   '# HELP demo_events_total Events seen\n' +
 *     '# TYPE demo_events_total counter\n' +
 *     'demo_events_total{type="ADDED"} 2\n',
 * );
 * ```
 */
export class MetricsRegistry implements Meter {
  #instruments = new Map<string, Instrument>();

  /**
   * A monotonic sum (a negative or non-finite add is ignored, as
   * OpenTelemetry's SDK does).
   *
   * @example Requests by code
   * ```ts
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   *
   * const requests = new MetricsRegistry().createCounter("demo_requests");
   * requests.add(1, { code: "200" });
   * ```
   *
   * @param name The metric's name (`_total` is added when rendered).
   * @param options The `# HELP` text (`description`).
   * @throws {TypeError} When `name` names an instrument of another kind.
   */
  createCounter(name: string, options?: MetricOptions): Counter {
    return this.#instrument("counter", name, options);
  }

  /**
   * A sum that goes up and down, rendered as a gauge.
   *
   * @example In flight
   * ```ts
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   *
   * const inFlight = new MetricsRegistry().createUpDownCounter("demo_in_flight");
   * inFlight.add(1);
   * inFlight.add(-1);
   * ```
   *
   * @param name The metric's name.
   * @param options The `# HELP` text (`description`).
   * @throws {TypeError} When `name` names an instrument of another kind.
   */
  createUpDownCounter(name: string, options?: MetricOptions): UpDownCounter {
    return this.#instrument("upDownCounter", name, options);
  }

  /**
   * A histogram: bucket bounds from `options.advice.explicitBucketBoundaries`,
   * else {@linkcode DEFAULT_BUCKETS}.
   *
   * @example Durations in seconds
   * ```ts
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   *
   * const seconds = new MetricsRegistry().createHistogram("demo_seconds", {
   *   advice: { explicitBucketBoundaries: [0.1, 1, 10] },
   * });
   * seconds.record(0.3);
   * ```
   *
   * @param name The metric's name (`_bucket`, `_sum`, `_count` are added).
   * @param options The `# HELP` text and the bucket bounds.
   * @throws {TypeError} When `name` names an instrument of another kind, or
   * the bounds are not ascending finite numbers.
   */
  createHistogram(name: string, options?: MetricOptions): Histogram {
    return this.#instrument("histogram", name, options);
  }

  /**
   * A gauge read by callbacks at each {@linkcode MetricsRegistry.render}.
   *
   * @example The time of the scrape
   * ```ts
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   *
   * const registry = new MetricsRegistry();
   * registry.createObservableGauge("demo_now_seconds")
   *   .addCallback((result) => result.observe(Date.now() / 1000));
   * console.log(registry.render());
   * ```
   *
   * @param name The metric's name.
   * @param options The `# HELP` text (`description`).
   * @throws {TypeError} When `name` names an instrument of another kind.
   */
  createObservableGauge(
    name: string,
    options?: MetricOptions,
  ): ObservableGauge {
    return this.#instrument("observableGauge", name, options);
  }

  /**
   * A counter read by callbacks at each {@linkcode MetricsRegistry.render}:
   * they observe its running total, rendered with `_total` (added unless
   * the name has it) as a counter.
   *
   * @example The CPU seconds of this process
   * ```ts
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   * import process from "node:process";
   *
   * const registry = new MetricsRegistry();
   * registry.createObservableCounter("demo_cpu_seconds", { unit: "s" })
   *   .addCallback((result) => {
   *     const { user, system } = process.cpuUsage();
   *     result.observe((user + system) / 1e6);
   *   });
   * console.log(registry.render()); // demo_cpu_seconds_total 0.042
   * ```
   *
   * @param name The metric's name (`_total` is added when rendered).
   * @param options The `# HELP` text (`description`).
   * @throws {TypeError} When `name` names an instrument of another kind.
   */
  createObservableCounter(
    name: string,
    options?: MetricOptions,
  ): ObservableCounter {
    return this.#instrument("observableCounter", name, options);
  }

  /**
   * Every series in the Prometheus text exposition format (0.0.4): the
   * families sorted by name, each with `# HELP` and `# TYPE`, its series
   * sorted by label set. A family without series is left out.
   *
   * @example What a scrape returns
   * ```ts
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   * import assert from "node:assert/strict";
   *
   * const registry = new MetricsRegistry();
   * registry.createHistogram("demo_seconds", {
   *   description: "Durations",
   *   advice: { explicitBucketBoundaries: [1] },
   * }).record(0.5);
   * assert.equal(
   *   registry.render(),
   *   [
   *     "# HELP demo_seconds Durations",
   *     "# TYPE demo_seconds histogram",
   *     'demo_seconds_bucket{le="1"} 1',
   *     'demo_seconds_bucket{le="+Inf"} 1',
   *     "demo_seconds_sum 0.5",
   *     "demo_seconds_count 1",
   *     "",
   *   ].join("\n"),
   * );
   * ```
   */
  render(): string {
    const families = [...this.#instruments.values()].sort((a, b) =>
      a.family < b.family ? -1 : a.family > b.family ? 1 : 0
    );
    let out = "";
    for (const instrument of families) out += instrument.render();
    return out;
  }

  #instrument(kind: Kind, name: string, options?: MetricOptions): Instrument {
    const family = metricName(name, kind);
    const existing = this.#instruments.get(family);
    if (
      existing !== undefined && unsuffixed(existing.name) !== unsuffixed(name)
    ) {
      // Two instruments would be one family (one HELP, merged series).
      throw new TypeError(
        `Metric names ${existing.name} and ${name} both render as ${family}`,
      );
    }
    if (existing !== undefined) {
      if (existing.kind !== kind) {
        throw new TypeError(
          `Metric ${family} exists already as ${aKind(existing.kind)}, not ${
            aKind(kind)
          }`,
        );
      }
      return existing;
    }
    const instrument = new Instrument(kind, name, family, options);
    this.#instruments.set(family, instrument);
    return instrument;
  }
}

const KIND_WORDS: Record<Kind, string> = {
  counter: "counter",
  upDownCounter: "up-down counter",
  histogram: "histogram",
  observableGauge: "observable gauge",
  observableCounter: "observable counter",
};

/** The kind with its article: "a counter", "an observable gauge". */
function aKind(kind: Kind): string {
  const words = KIND_WORDS[kind];
  return `${/^[aeiou]/.test(words) ? "an" : "a"} ${words}`;
}

const TYPES: Record<Kind, string> = {
  counter: "counter",
  upDownCounter: "gauge",
  histogram: "histogram",
  observableGauge: "gauge",
  observableCounter: "counter",
};

/** `name` as Prometheus allows it, with `_total` for a counter. */
function metricName(name: string, kind: Kind): string {
  if (typeof name !== "string" || name === "") {
    throw new TypeError("A metric name must be a non-empty string");
  }
  let safe = name.replace(/[^a-zA-Z0-9_:]/g, "_");
  if (/^[0-9]/.test(safe)) safe = `_${safe}`;
  const counts = kind === "counter" || kind === "observableCounter";
  if (counts && !safe.endsWith("_total")) safe += "_total";
  return safe;
}

/** A name without the `_total` a counter's family gets either way. */
function unsuffixed(name: string): string {
  return name.endsWith("_total") ? name.slice(0, -"_total".length) : name;
}

/** A label name as Prometheus allows it. */
function labelName(name: string): string {
  let safe = name.replace(/[^a-zA-Z0-9_]/g, "_");
  if (/^[0-9]/.test(safe)) safe = `_${safe}`;
  return safe;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(
    /"/g,
    '\\"',
  );
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** A sample value as the format writes it. */
function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/**
 * The rendered label set of `attributes` (`a="x",b="y"`, sorted), for the
 * instrument `family` of `kind`. A set whose text one bad series would make
 * unparsable, failing the whole scrape, is refused: two attributes that
 * render as one label, a `__` label (Prometheus's own), `le` on a histogram.
 * Made once per label set (series are found by the attribute object after).
 */
function labelsOf(
  attributes: MetricAttributes | undefined,
  family: string,
  kind: Kind,
): string {
  if (attributes === undefined) return "";
  const names = Object.keys(attributes).sort();
  const rendered = new Map<string, string>();
  let out = "";
  for (const name of names) {
    const value = attributes[name];
    if (value === undefined) continue;
    const label = labelName(name);
    const problem = label.startsWith("__")
      ? `the attribute ${name}: label names starting with __ are reserved for Prometheus`
      : kind === "histogram" && label === "le"
      ? `the attribute ${name}: is a histogram's bucket label`
      : rendered.has(label)
      ? `the attributes ${
        rendered.get(label)
      } and ${name} both render as the label ${label}`
      : undefined;
    if (problem !== undefined) {
      throw new TypeError(`Metric ${family}: ${problem}`);
    }
    rendered.set(label, name);
    if (out !== "") out += ",";
    out += `${label}="${escapeLabelValue(String(value))}"`;
  }
  return out;
}

function checkedBounds(options: MetricOptions | undefined): readonly number[] {
  const bounds = options?.advice?.explicitBucketBoundaries;
  if (bounds === undefined) return DEFAULT_BUCKETS;
  for (let i = 0; i < bounds.length; i++) {
    if (!Number.isFinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
      throw new TypeError(
        `Histogram bucket boundaries must be ascending finite numbers, got ${
          JSON.stringify(bounds)
        }`,
      );
    }
  }
  return Object.freeze([...bounds]);
}

/**
 * One instrument of any kind: its series by label set, found by the
 * attribute object itself first (callers on the hot path pass the same
 * preallocated object each time), then by the rendered label set.
 */
class Instrument
  implements
    Counter,
    UpDownCounter,
    Histogram,
    ObservableGauge,
    ObservableCounter {
  readonly kind: Kind;
  /** The name it was created with. */
  readonly name: string;
  readonly family: string;
  readonly #help: string;
  readonly #bounds: readonly number[];
  #series = new Map<string, Series>();
  #byObject = new WeakMap<MetricAttributes, Series>();
  #lastAttributes: MetricAttributes | undefined;
  #lastSeries: Series | undefined;
  #callbacks: ObservableCallback[] = [];

  constructor(
    kind: Kind,
    name: string,
    family: string,
    options: MetricOptions | undefined,
  ) {
    this.kind = kind;
    this.name = name;
    this.family = family;
    this.#help = options?.description ?? family;
    this.#bounds = kind === "histogram" ? checkedBounds(options) : [];
  }

  add(value: number, attributes?: MetricAttributes): void {
    if (!Number.isFinite(value)) return;
    if (this.kind === "counter" && value < 0) return;
    this.#seriesOf(attributes).value += value;
  }

  record(value: number, attributes?: MetricAttributes): void {
    if (Number.isNaN(value)) return;
    const series = this.#seriesOf(attributes);
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    series.buckets![i]++;
    series.value += value;
  }

  addCallback(callback: ObservableCallback): void {
    if (!this.#callbacks.includes(callback)) this.#callbacks.push(callback);
  }

  removeCallback(callback: ObservableCallback): void {
    const i = this.#callbacks.indexOf(callback);
    if (i !== -1) this.#callbacks.splice(i, 1);
  }

  render(): string {
    const samples =
      this.kind === "observableGauge" || this.kind === "observableCounter"
        ? this.#observe()
        : this.#series;
    if (samples.size === 0) return "";
    const name = this.family;
    let out = `# HELP ${name} ${escapeHelp(this.#help)}\n# TYPE ${name} ${
      TYPES[this.kind]
    }\n`;
    const keys = [...samples.keys()].sort();
    for (const key of keys) {
      const series = samples.get(key)!;
      if (this.kind !== "histogram") {
        out += `${name}${key === "" ? "" : `{${key}}`} ${
          formatValue(series.value)
        }\n`;
        continue;
      }
      const sep = key === "" ? "" : ",";
      let cumulative = 0;
      const buckets = series.buckets!;
      for (let i = 0; i <= this.#bounds.length; i++) {
        cumulative += buckets[i];
        const le = i < this.#bounds.length
          ? formatValue(this.#bounds[i])
          : "+Inf";
        out += `${name}_bucket{${key}${sep}le="${le}"} ${cumulative}\n`;
      }
      const labels = key === "" ? "" : `{${key}}`;
      out += `${name}_sum${labels} ${formatValue(series.value)}\n`;
      out += `${name}_count${labels} ${cumulative}\n`;
    }
    return out;
  }

  /** The callbacks' observations now; the last one per label set wins. */
  #observe(): Map<string, Series> {
    const observed = new Map<string, Series>();
    const { family, kind } = this;
    const result: ObservableResult = {
      observe(value, attributes) {
        if (typeof value !== "number") return;
        const labels = labelsOf(attributes, family, kind);
        observed.set(labels, { labels, value });
      },
    };
    for (const callback of [...this.#callbacks]) {
      try {
        const pending = callback(result);
        // Not awaited: render() is synchronous. Its rejection is dropped.
        if (pending instanceof Promise) pending.catch(() => {});
      } catch {
        // One failing callback does not break the scrape.
      }
    }
    return observed;
  }

  #seriesOf(attributes: MetricAttributes | undefined): Series {
    if (attributes === this.#lastAttributes && this.#lastSeries !== undefined) {
      return this.#lastSeries;
    }
    let series = attributes === undefined
      ? undefined
      : this.#byObject.get(attributes);
    if (series === undefined) {
      const labels = labelsOf(attributes, this.family, this.kind);
      series = this.#series.get(labels);
      if (series === undefined) {
        series = {
          labels,
          value: 0,
          buckets: this.kind === "histogram"
            ? new Array<number>(this.#bounds.length + 1).fill(0)
            : undefined,
        };
        this.#series.set(labels, series);
      }
      // A frozen or shared object may be passed again: remember it. One
      // mutated in place would keep its first label set, so only objects
      // that are frozen are remembered.
      if (attributes !== undefined && Object.isFrozen(attributes)) {
        this.#byObject.set(attributes, series);
      }
    }
    if (attributes === undefined || Object.isFrozen(attributes)) {
      this.#lastAttributes = attributes;
      this.#lastSeries = series;
    }
    return series;
  }
}
