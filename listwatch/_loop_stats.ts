/**
 * The one record of what a loop counted (`ListWatchStats`) and the metrics
 * fed from the same counting calls. Adding a count: a field in
 * `ListWatchCounts` and its zero (`list_watch_types.ts`), its counting
 * method below, and the call in the driver.
 *
 * A retried failure is recorded (`lastError`) as the error as it was
 * thrown, for code that reads it, and a JSON form for whoever serializes a
 * health snapshot. `JSON.stringify` of an `Error` is `{}` but for its own
 * enumerable fields: no name when the class does not set one, never the
 * message or the cause.
 *
 * @module
 */
import type { Gvr } from "../types.ts";
import type { Clock } from "../clock.ts";
import type {
  Counter,
  Meter,
  MetricAttributes,
  ObservableGauge,
  ObservableResult,
} from "../metrics/meter.ts";
import {
  instrumentsOf,
  PREFIX,
  resourceAttributes,
  resourceVersionNumber,
  withAttributes,
} from "../_internal/_metrics.ts";
import type {
  ListWatchFailure,
  ListWatchNote,
  ListWatchStats,
  WatchEventType,
} from "./list_watch_types.ts";
import { type RelistReason, relistReasonOf } from "./_fault.ts";

/** Why a list was made: the `reason` label of `k8s_watcher_lists_total`. */
export type ListReason =
  | "initial"
  | RelistReason
  | "expired_continue"
  | "stream_unsupported"
  | "requested"
  | "restart";

/** The loop instruments of one meter. */
interface LoopInstruments {
  lists: Counter;
  listPages: Counter;
  watches: Counter;
  reconnects: Counter;
  events: Counter;
  bookmarks: Counter;
  requestErrors: Counter;
  backoffs: Counter;
  resourceVersion: ObservableGauge;
  sinceEvent: ObservableGauge;
}

function makeInstruments(meter: Meter): LoopInstruments {
  const counter = (name: string, description: string) =>
    meter.createCounter(PREFIX + name, { description });
  return {
    lists: counter(
      "lists",
      "Complete lists delivered, by reason: initial, gone (410), too_large, expired_continue, stream_unsupported, requested, restart",
    ),
    listPages: counter("list_pages", "LIST pages received"),
    watches: counter("watches", "Watch requests answered with a stream"),
    reconnects: counter(
      "reconnects",
      "Watches resumed from an earlier resourceVersion",
    ),
    events: counter("watch_events", "Watch events received, by type"),
    bookmarks: counter("bookmarks", "BOOKMARK events received"),
    requestErrors: counter(
      "request_errors",
      "Failed LIST and watch requests, by HTTP code (none: no answer)",
    ),
    backoffs: counter("backoffs", "Waits before a retry"),
    resourceVersion: meter.createObservableGauge(
      PREFIX + "resource_version",
      {
        description:
          "The last resourceVersion seen (list, event or bookmark), where it is a number",
      },
    ),
    sinceEvent: meter.createObservableGauge(
      PREFIX + "seconds_since_last_event",
      {
        description:
          "Seconds since the last watch event or bookmark (before the first, since the loop started)",
        unit: "s",
      },
    ),
  };
}

/** A loop's measurements to a meter, with attribute objects made once. */
class LoopMetrics {
  readonly instruments: LoopInstruments;
  readonly base: MetricAttributes;
  readonly #byType: Record<WatchEventType, MetricAttributes>;
  readonly #byReason = new Map<ListReason, MetricAttributes>();
  readonly #byCode = new Map<string, MetricAttributes>();

  constructor(meter: Meter, base: MetricAttributes) {
    this.instruments = instrumentsOf(meter, "loop", makeInstruments);
    this.base = base;
    this.#byType = {
      ADDED: withAttributes(base, { type: "ADDED" }),
      MODIFIED: withAttributes(base, { type: "MODIFIED" }),
      DELETED: withAttributes(base, { type: "DELETED" }),
    };
    // Series that exist from the start, at 0: a rate over them is 0, not
    // absent, until the first event.
    const { instruments } = this;
    for (const type of ["ADDED", "MODIFIED", "DELETED"] as const) {
      instruments.events.add(0, this.#byType[type]);
    }
    for (
      const counter of [
        instruments.listPages,
        instruments.watches,
        instruments.reconnects,
        instruments.bookmarks,
        instruments.backoffs,
      ]
    ) counter.add(0, base);
  }

  event(type: WatchEventType): void {
    this.instruments.events.add(1, this.#byType[type]);
  }

  listed(reason: ListReason): void {
    let attributes = this.#byReason.get(reason);
    if (attributes === undefined) {
      attributes = withAttributes(this.base, { reason });
      this.#byReason.set(reason, attributes);
    }
    this.instruments.lists.add(1, attributes);
  }

  failed(code: number | undefined): void {
    const label = code === undefined ? "none" : String(code);
    let attributes = this.#byCode.get(label);
    if (attributes === undefined) {
      attributes = withAttributes(this.base, { code: label });
      this.#byCode.set(label, attributes);
    }
    this.instruments.requestErrors.add(1, attributes);
  }
}

/** What the gauges of a running loop read. */
export interface LoopGaugeSource {
  readonly resourceVersion: string | undefined;
}

/**
 * A loop's record: written by its driver only, through the methods below
 * (each counts, and measures when there is a meter).
 */
export class LoopStats implements ListWatchStats {
  lists = 0;
  relists = 0;
  listPages = 0;
  watches = 0;
  reconnects = 0;
  events = 0;
  bookmarks = 0;
  requestErrors = 0;
  backoffs = 0;
  lastEventTime: number | undefined = undefined;
  lastActivityTime: number | undefined = undefined;
  retryAt: number | undefined = undefined;
  lastError: ListWatchFailure | undefined = undefined;
  readonly #metrics: LoopMetrics | undefined;
  readonly #clock: Clock;
  /** Why the next list that is not the initial one is made. */
  #relistReason: ListReason | undefined;
  #observe: ((result: ObservableResult) => void) | undefined;
  #observeSince: ((result: ObservableResult) => void) | undefined;

  constructor(
    clock: Clock,
    meter?: { meter: Meter; gvr: Gvr; namespace: string; name?: string },
  ) {
    this.#clock = clock;
    this.#metrics = meter === undefined ? undefined : new LoopMetrics(
      meter.meter,
      resourceAttributes(meter.gvr, meter.namespace, meter.name),
    );
  }

  /** A line of a watch stream arrived at `at` (hot path: no meter, no cost). */
  line(bookmark: boolean, at: number = this.#clock.now()): void {
    this.lastEventTime = this.lastActivityTime = at;
    if (bookmark) {
      this.bookmarks++;
      this.#metrics?.instruments.bookmarks.add(1, this.#metrics.base);
    }
  }

  /** An event went to the sink (hot path). */
  event(type: WatchEventType): void {
    this.events++;
    if (this.#metrics !== undefined) this.#metrics.event(type);
  }

  /** A chunk of a LIST body arrived: progress, while the page comes in. */
  listBytes(): void {
    this.lastActivityTime = this.#clock.now();
  }

  /** A LIST page arrived: progress, before its sink runs. */
  page(): void {
    this.listPages++;
    this.lastActivityTime = this.#clock.now();
    this.#metrics?.instruments.listPages.add(1, this.#metrics.base);
  }

  listed(initial: boolean): void {
    this.lists++;
    if (!initial) this.relists++;
    this.lastActivityTime = this.#clock.now();
    const reason = initial ? "initial" : this.#relistReason ?? "restart";
    this.#relistReason = undefined;
    this.#metrics?.listed(reason);
  }

  watchOpened(): void {
    this.watches++;
    this.lastActivityTime = this.#clock.now();
    this.#metrics?.instruments.watches.add(1, this.#metrics.base);
  }

  reconnect(): void {
    this.reconnects++;
    this.#metrics?.instruments.reconnects.add(1, this.#metrics.base);
  }

  /** A failure is retried after `retryInMs`. */
  backoff(error: unknown, retryInMs: number): void {
    this.backoffs++;
    const now = this.#clock.now();
    this.lastError = failureRecord(error, now);
    this.retryAt = now + retryInMs;
    this.#metrics?.instruments.backoffs.add(1, this.#metrics.base);
  }

  /**
   * What a reason (an output's, or a backoff's) counts: a failed request,
   * a 410 that relists included, and why the next list is made.
   */
  noted(note: ListWatchNote): void {
    switch (note.kind) {
      case "relist":
        this.#relistReason = relistReasonOf(note.fault);
        break;
      case "continueExpired":
        this.#relistReason = "expired_continue";
        return;
      case "streamUnsupported":
        this.#relistReason = "stream_unsupported";
        return;
      case "relistRequested":
        this.#relistReason = "requested";
        return;
      case "requestFailed":
        break;
      default:
        return;
    }
    this.requestErrors++;
    this.#metrics?.failed(note.fault.code);
  }

  /** The gauges read `loop` from now on (while it runs). */
  observe(loop: LoopGaugeSource): void {
    const metrics = this.#metrics;
    if (metrics === undefined || this.#observe !== undefined) return;
    const base = metrics.base;
    this.#observe = (result) => {
      const rv = resourceVersionNumber(loop.resourceVersion);
      if (rv !== undefined) result.observe(rv, base);
    };
    // Silence is what an alert wants: a reopened watch that brings nothing
    // is still silent, so only events and bookmarks end it.
    const started = this.#clock.now();
    this.#observeSince = (result) => {
      const at = this.lastEventTime ?? started;
      result.observe((this.#clock.now() - at) / 1000, base);
    };
    metrics.instruments.resourceVersion.addCallback(this.#observe);
    metrics.instruments.sinceEvent.addCallback(this.#observeSince);
  }

  /** The gauges stop reading the loop (it stopped). */
  unobserve(): void {
    const metrics = this.#metrics;
    if (metrics === undefined || this.#observe === undefined) return;
    metrics.instruments.resourceVersion.removeCallback(this.#observe);
    metrics.instruments.sinceEvent.removeCallback(this.#observeSince!);
    this.#observe = this.#observeSince = undefined;
  }
}

// --- lastError: a retried failure as the loop records it ---------------------

/** How deep a chain of causes is followed; deeper ones are left out. */
const MAX_CAUSE_DEPTH = 8;

/**
 * The record of `error`, thrown at `time`: `{ error, time }` as given,
 * with a `toJSON` (not enumerable, so the record compares and spreads as
 * the two fields alone) that writes `error` as {@linkcode errorJson} does.
 */
export function failureRecord(error: unknown, time: number): ListWatchFailure {
  const record = { error, time };
  Object.defineProperty(record, "toJSON", {
    value: () => ({ error: errorJson(error), time }),
  });
  return record;
}

/**
 * `value` as JSON shows it: an `Error` as its name, message and own
 * enumerable fields (those `JSON.stringify` writes anyway, such as an
 * `ApiError`'s `code`), then its cause in the same form; an `Error` among
 * its fields likewise. Anything else is left to `JSON.stringify`. A cause
 * chain that loops back, or goes deeper than {@linkcode MAX_CAUSE_DEPTH},
 * ends there.
 */
export function errorJson(value: unknown): unknown {
  return describe(value, 0, new Set());
}

function describe(value: unknown, depth: number, seen: Set<Error>): unknown {
  if (!(value instanceof Error)) return value;
  seen.add(value);
  const nested = (inner: unknown) =>
    inner instanceof Error && (seen.has(inner) || depth >= MAX_CAUSE_DEPTH)
      ? undefined
      : describe(inner, depth + 1, seen);
  const out: Record<string, unknown> = {
    name: value.name,
    message: value.message,
  };
  for (const [key, field] of Object.entries(value)) {
    if (key !== "cause") out[key] = nested(field);
  }
  if (value.cause !== undefined) out.cause = nested(value.cause);
  return out;
}
