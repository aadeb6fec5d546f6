/**
 * A `WorkQueue`'s metrics under client-go's `workqueue_*` names and
 * meanings, labelled with the queue's `name`, so that dashboards built for
 * client-go and controller-runtime read them as they are: depth, adds (a key
 * already waiting is not counted), time waited, time worked, the work still
 * running and its longest, and retries.
 *
 * @module
 */
import type {
  Counter,
  Histogram,
  Meter,
  MetricAttributes,
  ObservableGauge,
  ObservableResult,
} from "../metrics/meter.ts";
import { claimName, instrumentsOf } from "../_internal/_metrics.ts";
import { ControllerConfigError } from "./errors.ts";

/**
 * The names of the queues reporting on each meter: a gauge keeps one value
 * per label set, so two queues of one name would overwrite each other.
 */

/** client-go's buckets for both durations: 10 ns to 10 s, tenfold. */
const QUEUE_BUCKETS: readonly number[] = Object.freeze(
  Array.from({ length: 10 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1))),
);

interface QueueInstruments {
  depth: ObservableGauge;
  adds: Counter;
  queueDuration: Histogram;
  workDuration: Histogram;
  unfinished: ObservableGauge;
  longest: ObservableGauge;
  retries: Counter;
}

function makeInstruments(meter: Meter): QueueInstruments {
  const seconds = (description: string) => ({
    description,
    unit: "s",
    advice: { explicitBucketBoundaries: [...QUEUE_BUCKETS] },
  });
  return {
    depth: meter.createObservableGauge("workqueue_depth", {
      description: "Current depth of workqueue",
    }),
    adds: meter.createCounter("workqueue_adds", {
      description: "Total number of adds handled by workqueue",
    }),
    queueDuration: meter.createHistogram(
      "workqueue_queue_duration_seconds",
      seconds(
        "How long in seconds an item stays in workqueue before being requested",
      ),
    ),
    workDuration: meter.createHistogram(
      "workqueue_work_duration_seconds",
      seconds("How long in seconds processing an item from workqueue takes"),
    ),
    unfinished: meter.createObservableGauge(
      "workqueue_unfinished_work_seconds",
      {
        description:
          "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
        unit: "s",
      },
    ),
    longest: meter.createObservableGauge(
      "workqueue_longest_running_processor_seconds",
      {
        description:
          "How many seconds has the longest running processor for workqueue been running",
        unit: "s",
      },
    ),
    retries: meter.createCounter("workqueue_retries", {
      description: "Total number of retries handled by workqueue",
    }),
  };
}

/** What the gauges read from the queue when scraped. */
export interface QueueReadings {
  depth(): number;
  /** When each key being processed was handed out (the queue's clock). */
  startTimes(): Iterable<number>;
  now(): number;
}

/** One queue's measurements. */
export class QueueMetrics {
  readonly #instruments: QueueInstruments;
  readonly #attributes: MetricAttributes;
  readonly #observeDepth: (result: ObservableResult) => void;
  readonly #observeUnfinished: (result: ObservableResult) => void;
  readonly #observeLongest: (result: ObservableResult) => void;
  readonly #release: () => void;
  #open = true;

  /**
   * @throws {ControllerConfigError} When a queue of that name reports on
   * this meter already.
   */
  constructor(meter: Meter, name: string, readings: QueueReadings) {
    this.#release = claimName(
      meter,
      "workqueue",
      name,
      () =>
        new ControllerConfigError(
          "WorkQueue",
          "name",
          `another WorkQueue that is not shut down reports on this meter as ${
            JSON.stringify(name)
          }; give each queue its own name`,
        ),
    );
    const instruments = this.#instruments = instrumentsOf(
      meter,
      "workqueue",
      makeInstruments,
    );
    const attributes = this.#attributes = Object.freeze({ name });
    this.#observeDepth = (result) =>
      result.observe(readings.depth(), attributes);
    const running = () => {
      const now = readings.now();
      let total = 0;
      let longest = 0;
      for (const start of readings.startTimes()) {
        total += now - start;
        longest = Math.max(longest, now - start);
      }
      return { total: total / 1000, longest: longest / 1000 };
    };
    this.#observeUnfinished = (result) =>
      result.observe(running().total, attributes);
    this.#observeLongest = (result) =>
      result.observe(running().longest, attributes);
    instruments.depth.addCallback(this.#observeDepth);
    instruments.unfinished.addCallback(this.#observeUnfinished);
    instruments.longest.addCallback(this.#observeLongest);
    instruments.adds.add(0, attributes);
    instruments.retries.add(0, attributes);
  }

  /** A key was added that was not already waiting. */
  added(): void {
    this.#instruments.adds.add(1, this.#attributes);
  }

  /** A key was handed out after waiting `ms`. */
  waited(ms: number): void {
    this.#instruments.queueDuration.record(ms / 1000, this.#attributes);
  }

  /** A key was done after `ms` of work. */
  worked(ms: number): void {
    this.#instruments.workDuration.record(ms / 1000, this.#attributes);
  }

  /** A key was added with a delay (`addAfter`, `addRateLimited`), as client-go counts. */
  retried(): void {
    this.#instruments.retries.add(1, this.#attributes);
  }

  /** The queue is shut down and its work done: its gauges stop reporting. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#release();
    this.#instruments.depth.removeCallback(this.#observeDepth);
    this.#instruments.unfinished.removeCallback(this.#observeUnfinished);
    this.#instruments.longest.removeCallback(this.#observeLongest);
  }
}
