/**
 * A watcher's own metrics (the stream's are its loops', in
 * `listwatch/_loop_stats.ts`): batches delivered, the wait from a change's
 * arrival to the `onChange` that delivers it, callback durations and
 * failures and retries, objects held and whether it is synced. Also the
 * calls, delivery wait and callback metrics of a `DebounceGroup`.
 *
 * @module
 */
import type { Gvr } from "../types.ts";
import type { Clock } from "../clock.ts";
import type {
  Counter,
  Histogram,
  Meter,
  MetricAttributes,
  ObservableGauge,
  ObservableResult,
} from "../metrics/meter.ts";
import {
  instrumentsOf,
  LATENCY_BUCKETS,
  meterProblem,
  PREFIX,
  resourceAttributes,
  withAttributes,
} from "../_internal/_metrics.ts";
import { WatcherConfigError } from "../config_error.ts";

interface WatcherInstruments {
  batches: Counter;
  delivery: Histogram;
  callbackSeconds: Histogram;
  callbackErrors: Counter;
  callbackRetries: Counter;
  objects: ObservableGauge;
  synced: ObservableGauge;
  oldestUndelivered: ObservableGauge;
  shardServerSide: ObservableGauge;
}

function makeInstruments(meter: Meter): WatcherInstruments {
  const buckets = { explicitBucketBoundaries: [...LATENCY_BUCKETS] };
  return {
    batches: meter.createCounter(PREFIX + "batches", {
      description: "Calls of onChange with a batch (the initial one included)",
    }),
    delivery: meter.createHistogram(PREFIX + "event_delivery_seconds", {
      description:
        "Seconds from the arrival of the oldest change in a batch to the onChange that delivered it (initial batches not counted)",
      unit: "s",
      advice: buckets,
    }),
    callbackSeconds: meter.createHistogram(
      PREFIX + "callback_duration_seconds",
      {
        description:
          "Seconds a user callback ran (until its promise settled), by callback",
        unit: "s",
        advice: buckets,
      },
    ),
    callbackErrors: meter.createCounter(PREFIX + "callback_errors", {
      description: "User callbacks that threw or rejected, by callback",
    }),
    callbackRetries: meter.createCounter(PREFIX + "callback_retries", {
      description:
        "Calls of onChange that deliver again what a failed call did not (a retry, or the next batch carrying it), by callback",
    }),
    objects: meter.createObservableGauge(PREFIX + "store_objects", {
      description:
        "Objects the watcher holds (0 or 1 for a watcher of one named object)",
    }),
    synced: meter.createObservableGauge(PREFIX + "synced", {
      description: "1 once the initial list is in and the watcher runs, else 0",
    }),
    shardServerSide: meter.createObservableGauge(
      PREFIX + "shard_server_side",
      {
        description:
          "A sharded Watcher: 1 when the API server applies its shardSelector, 0 when it ignored it and the watcher drops the other shards' objects itself (absent until the first sharded LIST is answered)",
      },
    ),
    oldestUndelivered: meter.createObservableGauge(
      PREFIX + "oldest_undelivered_change_seconds",
      {
        description:
          "Seconds since the oldest change a Watcher has not delivered to its onChange yet (waiting, or in the call running) was recorded; 0 when none waits",
        unit: "s",
      },
    ),
  };
}

/** What the watcher's gauges read while it runs. */
export interface WatcherGaugeSource {
  objects(): number;
  synced(): boolean;
  /** A Watcher with its own `onChange`: see `oldest_undelivered_change_seconds`. */
  oldestUndeliveredSeconds?: () => number;
  /** A sharded Watcher: who filters (see `shard_server_side`). */
  shardServerSide?:
    | (() => "server" | "client" | "pending" | undefined)
    | undefined;
}

/** Times user callbacks on a clock, counting their failures and retries. */
export class CallbackTimer {
  readonly #clock: Clock;
  readonly #seconds: Histogram;
  readonly #errors: Counter;
  readonly #retries: Counter;
  readonly #base: MetricAttributes;
  readonly #byName = new Map<string, MetricAttributes>();

  constructor(
    clock: Clock,
    instruments: Pick<
      WatcherInstruments,
      "callbackSeconds" | "callbackErrors" | "callbackRetries"
    >,
    base: MetricAttributes,
  ) {
    this.#clock = clock;
    this.#seconds = instruments.callbackSeconds;
    this.#errors = instruments.callbackErrors;
    this.#retries = instruments.callbackRetries;
    this.#base = base;
  }

  /** A call of callback `name` carries again what a failed one did not deliver. */
  retrying(name: string): void {
    this.#retries.add(1, this.#labels(name));
  }

  /** Runs `callback` (named `name`), measured; its result or throw as is. */
  timed(name: string, callback: () => unknown): unknown {
    const labels = this.#labels(name);
    const started = this.#clock.now();
    const end = (failed: boolean) => {
      this.#seconds.record((this.#clock.now() - started) / 1000, labels);
      if (failed) this.#errors.add(1, labels);
    };
    let result: unknown;
    try {
      result = callback();
    } catch (error) {
      end(true);
      throw error;
    }
    if (result instanceof Promise) {
      return result.then((value) => {
        end(false);
        return value;
      }, (error) => {
        end(true);
        throw error;
      });
    }
    end(false);
    return result;
  }

  /** The series of callback `name`, made once. */
  #labels(name: string): MetricAttributes {
    let attributes = this.#byName.get(name);
    if (attributes === undefined) {
      attributes = withAttributes(this.#base, { callback: name });
      this.#byName.set(name, attributes);
    }
    return attributes;
  }
}

/** One watcher's measurements, with attribute objects made once. */
export class WatcherMetrics extends CallbackTimer {
  readonly #instruments: WatcherInstruments;
  readonly #base: MetricAttributes;
  readonly #clock: Clock;
  #observe: ((result: ObservableResult) => void) | undefined;
  #observeSynced: ((result: ObservableResult) => void) | undefined;
  #observeOldest: ((result: ObservableResult) => void) | undefined;
  #observeShard: ((result: ObservableResult) => void) | undefined;

  constructor(
    meter: Meter,
    clock: Clock,
    gvr: Gvr,
    namespace: string,
    name: string | undefined,
  ) {
    const instruments = instrumentsOf(meter, "watcher", makeInstruments);
    const base = resourceAttributes(gvr, namespace, name);
    super(clock, instruments, base);
    this.#instruments = instruments;
    this.#base = base;
    this.#clock = clock;
    instruments.batches.add(0, base);
  }

  /**
   * A batch whose oldest change was recorded at `since` is being delivered
   * now: counted, and that wait recorded (not for an initial batch: that
   * wait is the list's).
   */
  delivering(initial: boolean, since: number | undefined): void {
    this.#instruments.batches.add(1, this.#base);
    if (!initial && since !== undefined) {
      this.#instruments.delivery.record(
        (this.#clock.now() - since) / 1000,
        this.#base,
      );
    }
  }

  /** A single change that arrived at `arrived` is being delivered now. */
  deliveringOne(arrived: number): void {
    this.#instruments.batches.add(1, this.#base);
    this.#instruments.delivery.record(
      (this.#clock.now() - arrived) / 1000,
      this.#base,
    );
  }

  /** The gauges read `source` from now on (while the watcher runs). */
  observe(source: WatcherGaugeSource): void {
    if (this.#observe !== undefined) return;
    const base = this.#base;
    this.#observe = (result) => result.observe(source.objects(), base);
    this.#observeSynced = (result) =>
      result.observe(source.synced() ? 1 : 0, base);
    this.#instruments.objects.addCallback(this.#observe);
    this.#instruments.synced.addCallback(this.#observeSynced);
    const oldest = source.oldestUndeliveredSeconds;
    if (oldest !== undefined) {
      this.#observeOldest = (result) => result.observe(oldest(), base);
      this.#instruments.oldestUndelivered.addCallback(this.#observeOldest);
    }
    const shard = source.shardServerSide;
    if (shard !== undefined) {
      this.#observeShard = (result) => {
        const mode = shard();
        if (mode === "server" || mode === "client") {
          result.observe(mode === "server" ? 1 : 0, base);
        }
      };
      this.#instruments.shardServerSide.addCallback(this.#observeShard);
    }
  }

  /** The gauges stop reading the watcher (it stopped). */
  unobserve(): void {
    if (this.#observe === undefined) return;
    this.#instruments.objects.removeCallback(this.#observe);
    this.#instruments.synced.removeCallback(this.#observeSynced!);
    if (this.#observeOldest !== undefined) {
      this.#instruments.oldestUndelivered.removeCallback(this.#observeOldest);
    }
    if (this.#observeShard !== undefined) {
      this.#instruments.shardServerSide.removeCallback(this.#observeShard);
    }
    this.#observe = this.#observeSynced = this.#observeOldest = undefined;
    this.#observeShard = undefined;
  }
}

/**
 * `meter`, checked to be a `Meter` (or absent); a problem names `field`
 * (`client.meter` for a client's).
 */
export function checkedMeter(
  meter: unknown,
  field = "meter",
): Meter | undefined {
  if (meter === undefined) return undefined;
  const problem = meterProblem(meter);
  if (problem !== undefined) throw new WatcherConfigError(field, problem);
  return meter as Meter;
}

/** A `DebounceGroup`'s measurements. */
export interface GroupMetrics {
  /**
   * A call starts: counted, and the wait of its oldest change (recorded at
   * `since`) recorded unless it carries initial-sync batches only.
   */
  delivering(since: number | undefined, initialOnly: boolean): void;
  /** Runs the call of `onChange`, timed. */
  timed<R>(call: () => R): R;
  /** The call starting carries again what a failed one did not deliver. */
  retrying(): void;
}

/** The callback's name in a group's series. */
const GROUP_CALLBACK = "DebounceGroup.onChange";

/**
 * The measurements of a `DebounceGroup` named `name` on `meter`: its series
 * carry the resource labels empty (a group watches no resource) and
 * `name`.
 */
export function groupMetrics(
  meter: Meter,
  clock: Clock,
  name: string,
): GroupMetrics {
  const watcher = instrumentsOf(meter, "watcher", makeInstruments);
  const batches = instrumentsOf(
    meter,
    "group",
    (m) =>
      m.createCounter(PREFIX + "group_batches", {
        description: "Calls of a DebounceGroup's onChange, by group name",
      }),
  );
  const attributes = withAttributes(GROUP_ATTRIBUTES, { name });
  const named = Object.freeze({ name });
  const timer = new CallbackTimer(clock, watcher, attributes);
  return {
    delivering(since, initialOnly) {
      batches.add(1, named);
      if (!initialOnly && since !== undefined) {
        watcher.delivery.record((clock.now() - since) / 1000, attributes);
      }
    },
    timed: <R>(call: () => R): R => timer.timed(GROUP_CALLBACK, call) as R,
    retrying: () => timer.retrying(GROUP_CALLBACK),
  };
}

/** A group watches no resource: its series leave those labels empty. */
const GROUP_ATTRIBUTES: MetricAttributes = resourceAttributes(
  { group: "", version: "", resource: "" },
  "",
  undefined,
);
