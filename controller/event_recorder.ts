/**
 * `EventRecorder`: `events.k8s.io/v1` Events, with client-go's series for
 * repeats and its per-object rate limit; after the class, its metrics.
 *
 * @module
 */
import type { TimerHandle } from "../clock.ts";
import type { RestClient } from "../client/rest_client.ts";
import { ResourceClient } from "../client/resource_client.ts";
import { NotFoundError } from "../client/api_error.ts";
import { microTime } from "../_internal/_time.ts";
import {
  type EventRecorderPlan,
  planEventRecorder,
} from "./_event_recorder_plan.ts";
import {
  bucketKey,
  type EventBody,
  eventBody,
  eventName,
  eventProblem,
  referenceTo,
  seriesKey,
} from "./_event_body.ts";
import type {
  EventInput,
  EventObject,
  EventRecorderConfig,
  EventRecorderCounts,
  EventRecorderOptions,
} from "./event_recorder_config.ts";
import type { Counter, Meter, MetricAttributes } from "../metrics/meter.ts";
import { instrumentsOf, PREFIX } from "../_internal/_metrics.ts";

/** client-go's `finishTime`: a series ends this long after its last Event. */
const FINISH_MS = 6 * 60_000;
/** client-go's `refreshTime`: how often a series' count is written. */
const REFRESH_MS = 30 * 60_000;

const EVENTS = {
  group: "events.k8s.io",
  version: "v1",
  resource: "events",
} as const;

/** One Event and its repeats, while they go on. */
interface Series {
  readonly body: EventBody;
  readonly bucket: string;
  /** How many times it happened. */
  count: number;
  /** When it last happened. */
  lastAt: number;
  /** The count the server holds: 0 until the Event is created. */
  written: number;
  /** When a write of it was last sent (or first recorded). */
  writtenAt: number;
  /** Its writes, one after the other. */
  chain: Promise<void>;
}

type Counts = { -readonly [K in keyof EventRecorderCounts]: number };

/**
 * Records `events.k8s.io/v1` Events about objects, as a controller tells
 * people what it did: `kubectl describe` and `kubectl events` show them.
 *
 * - The first Event of its kind is created at once. Its repeats (the same
 *   type, reason and action about the same object, and the same related
 *   one) become one Event whose `series` counts them: client-go's
 *   aggregation. The second starts the series at once; later ones only
 *   count, and the count is written when the series ends (6 minutes
 *   without a repeat) and every 30 minutes while it goes on, so a crash
 *   loop costs two writes, then one per half hour. The note of the first
 *   is kept.
 * - Each object has client-go's spam filter: a token bucket per object and
 *   type, 25 at once, then one every 5 minutes (`rateLimit`). A new Event
 *   beyond it is dropped and counted; a repeat never is.
 * - `event()` never throws and never waits: the writes go on in the
 *   background, through a {@linkcode ResourceClient} on the given client. A
 *   write that fails, or an Event kube-apiserver would refuse, is logged and
 *   counted ({@linkcode EventRecorder.counts}, and the metrics
 *   `k8s_watcher_recorded_events_total{reporting_controller,result}` and
 *   `k8s_watcher_event_writes_total{reporting_controller,verb,result}`), and
 *   the reconcile goes on.
 * - Every timer runs on the `clock` option. `stop()` (or `await using`)
 *   writes the counts not yet written and waits for every write.
 *
 * @example A Warning, twice, becomes one Event with a series
 * ```ts
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import { EventRecorder } from "@haptic/k8s-watcher/controller";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * await using recorder = new EventRecorder({ reportingController: "example.com/widgets" }, client);
 * const widget = {
 *   apiVersion: "example.com/v1",
 *   kind: "Widget",
 *   metadata: { name: "w", namespace: "shop", uid: "7c1f" },
 * };
 * const failed = { type: "Warning", reason: "ConfigFailed", action: "Reconciling", note: "409 Conflict" } as const;
 * recorder.event(widget, failed);
 * recorder.event(widget, failed);
 * await recorder.drain();
 * const [event] = server.list({ group: "events.k8s.io", version: "v1", resource: "events" }, "shop");
 * assert.equal(event.reason, "ConfigFailed");
 * assert.equal((event.series as { count: number }).count, 2);
 * ```
 */
export class EventRecorder implements AsyncDisposable {
  readonly #plan: EventRecorderPlan;
  readonly #events: ResourceClient<EventBody>;
  readonly #filter: EventSpamFilter;
  readonly #metrics: EventRecorderMetrics | undefined;
  readonly #series = new Map<string, Series>();
  readonly #pending = new Set<Promise<void>>();
  readonly #counts: Counts = {
    new: 0,
    aggregated: 0,
    rateLimited: 0,
    invalid: 0,
    writes: 0,
    writeFailures: 0,
  };
  #timer: { handle: TimerHandle; due: number } | undefined;
  #unique = Math.floor(Math.random() * 1_000_000);
  #stopped: Promise<void> | undefined;

  /**
   * Checks the config and options; nothing is sent until an Event is
   * recorded.
   *
   * @example On a fake clock
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { EventRecorder } from "@haptic/k8s-watcher/controller";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * await using recorder = new EventRecorder(
   *   { reportingController: "example.com/widgets", reportingInstance: "widgets-0" },
   *   client,
   *   { clock: new FakeClock() },
   * );
   * ```
   *
   * @param config Who reports; the rate limit.
   * @param client Where the Events are written (the watchers' client).
   * @param options Clock, logger, meter.
   * @throws {ControllerConfigError} For the first wrong option.
   */
  constructor(
    config: EventRecorderConfig,
    client: RestClient,
    options?: EventRecorderOptions,
  ) {
    const plan = this.#plan = planEventRecorder(config, client, options);
    this.#events = new ResourceClient<EventBody>({ client, gvr: EVENTS });
    this.#filter = new EventSpamFilter(plan.burst, plan.refillMs);
    this.#metrics = plan.meter &&
      new EventRecorderMetrics(plan.meter, plan.reportingController);
  }

  /**
   * The `reportingInstance` of its Events: the config's, or the default.
   *
   * @example The default names the host
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { EventRecorder } from "@haptic/k8s-watcher/controller";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * await using recorder = new EventRecorder({ reportingController: "example.com/widgets" }, client);
   * console.log(recorder.reportingInstance); // "example.com/widgets-<host name>"
   * ```
   *
   * @returns The instance.
   */
  get reportingInstance(): string {
    return this.#plan.reportingInstance;
  }

  /**
   * What it did so far: Events new, aggregated, rate-limited, refused;
   * requests sent and failed.
   *
   * @example A refused Event is counted
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { EventRecorder } from "@haptic/k8s-watcher/controller";
   * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * const logger = new RecordingLogger();
   * await using recorder = new EventRecorder({ reportingController: "example.com/widgets" }, client, { logger });
   * // A store's object without apiVersion and kind: nothing is sent.
   * recorder.event({ metadata: { name: "w" } }, { type: "Normal", reason: "Synced", action: "Reconciling" });
   * assert.equal(recorder.counts.invalid, 1);
   * assert.equal(logger.records[0].level, "error");
   * ```
   *
   * @returns A snapshot of the counts.
   */
  get counts(): EventRecorderCounts {
    return Object.freeze({ ...this.#counts });
  }

  /**
   * Records that `event` happened to `regarding`. Never throws, never
   * waits: the write goes on in the background (see the class).
   *
   * @example A Normal Event about a Deployment
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { EventRecorder } from "@haptic/k8s-watcher/controller";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using recorder = new EventRecorder({ reportingController: "example.com/scaler" }, client);
   * const web = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" } };
   * recorder.event(web, { type: "Normal", reason: "Scaled", action: "Scaling", note: "from 1 to 3 replicas" });
   * await recorder.drain();
   * const [event] = server.list({ group: "events.k8s.io", version: "v1", resource: "events" }, "shop");
   * assert.deepEqual(event.regarding, { apiVersion: "apps/v1", kind: "Deployment", name: "web", namespace: "shop" });
   * ```
   *
   * @param regarding The object it is about, with `apiVersion`, `kind` and
   * `metadata.name`.
   * @param event Its type, reason, action, note and related object.
   */
  event(regarding: EventObject, event: EventInput): void {
    try {
      this.#record(regarding, event);
    } catch (error) {
      // A bug of this file must not fail a reconcile either.
      this.#plan.logger.error("Event not recorded", { error });
    }
  }

  /**
   * Resolves once every write sent so far has been answered (and those it
   * led to): for a test, or before reading what the server holds.
   *
   * @example Waiting for the create
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { EventRecorder } from "@haptic/k8s-watcher/controller";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using recorder = new EventRecorder({ reportingController: "example.com/nodes" }, client);
   * const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } };
   * recorder.event(node, { type: "Warning", reason: "DiskFull", action: "Checking" });
   * await recorder.drain();
   * // A cluster-scoped object's Events live in "default".
   * assert.equal(server.list({ group: "events.k8s.io", version: "v1", resource: "events" }, "default").length, 1);
   * ```
   *
   * @returns When no write is in flight.
   */
  async drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  /**
   * Stops: no timer is left, the counts of series not yet written are
   * written, and it resolves when every write is answered. An Event
   * recorded after it is ignored (a debug line). Calling it again returns
   * the same promise.
   *
   * @example The last count is written on stop
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { EventRecorder } from "@haptic/k8s-watcher/controller";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const recorder = new EventRecorder({ reportingController: "example.com/widgets" }, client);
   * const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "shop" } };
   * for (let i = 0; i < 5; i++) {
   *   recorder.event(widget, { type: "Warning", reason: "Failed", action: "Reconciling" });
   * }
   * await recorder.stop();
   * const [event] = server.list({ group: "events.k8s.io", version: "v1", resource: "events" }, "shop");
   * assert.equal((event.series as { count: number }).count, 5);
   * ```
   *
   * @returns When it has stopped.
   */
  stop(): Promise<void> {
    if (this.#stopped === undefined) {
      if (this.#timer) this.#plan.clock.clearTimeout(this.#timer.handle);
      this.#timer = undefined;
      for (const series of this.#series.values()) {
        if (series.count > series.written) this.#write(series);
      }
      this.#series.clear();
      this.#stopped = this.drain();
    }
    return this.#stopped;
  }

  /**
   * `stop()`, for `await using`.
   *
   * @example Scoped
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { EventRecorder } from "@haptic/k8s-watcher/controller";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * {
   *   await using _recorder = new EventRecorder({ reportingController: "example.com/widgets" }, client);
   * } // stopped here
   * ```
   *
   * @returns When it has stopped.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  #record(regarding: EventObject, event: EventInput): void {
    const { logger, clock } = this.#plan;
    if (this.#stopped !== undefined) {
      logger.debug("Event recorder stopped, event not recorded", {
        reason: event?.reason,
      });
      return;
    }
    const problem = eventProblem(regarding, event);
    if (problem !== undefined) {
      this.#count("invalid");
      logger.error(`Event not recorded: ${problem}`, {
        reason: event?.reason,
      });
      return;
    }
    const now = clock.now();
    const ref = referenceTo(regarding);
    const related = event.related && referenceTo(event.related);
    const key = seriesKey(event, ref, related);
    const series = this.#series.get(key);
    if (series !== undefined) {
      this.#count("aggregated");
      series.count += 1;
      series.lastAt = now;
      // The second starts the series now; later ones wait for the timer.
      if (series.count === 2 && this.#filter.take(series.bucket, now)) {
        this.#write(series);
      }
      return;
    }
    const bucket = bucketKey(event.type, ref);
    if (!this.#filter.take(bucket, now)) {
      this.#count("rateLimited");
      logger.debug("Event dropped: its object's rate limit is spent", {
        reason: event.reason,
        regarding: objectName(ref),
      });
      return;
    }
    this.#count("new");
    const name = eventName(ref.name, now, this.#unique++);
    const created: Series = {
      body: eventBody(this.#plan, event, ref, related, name, now),
      bucket,
      count: 1,
      lastAt: now,
      written: 0,
      writtenAt: now,
      chain: Promise.resolve(),
    };
    this.#series.set(key, created);
    this.#write(created);
    this.#arm(now + FINISH_MS);
  }

  #count(result: keyof typeof RESULT): void {
    this.#counts[result] += 1;
    this.#metrics?.recorded(RESULT[result]);
  }

  /** Queues a write of `series` as it will be when the write's turn comes. */
  #write(series: Series): void {
    const write: Promise<void> = series.chain
      .then(() => this.#send(series))
      .catch((error) => {
        // A bug of this file must not leave a rejection behind.
        this.#plan.logger.error("Event not written", { error });
      })
      .finally(() => this.#pending.delete(write));
    series.chain = write;
    this.#pending.add(write);
  }

  /** Writes what the server does not hold yet; never rejects. */
  async #send(series: Series): Promise<void> {
    const count = series.count;
    if (count === series.written) return;
    series.writtenAt = this.#plan.clock.now();
    const { body } = series;
    const seriesField = count > 1
      ? { count, lastObservedTime: microTime(series.lastAt) }
      : undefined;
    const namespace = body.metadata.namespace;
    if (series.written > 0) {
      try {
        this.#counts.writes += 1;
        await this.#events.patch(body.metadata.name, { series: seriesField }, {
          namespace,
        });
        this.#metrics?.wrote("patch", true);
        series.written = count;
        return;
      } catch (error) {
        this.#metrics?.wrote("patch", false);
        // Deleted, or gone with its TTL (an hour by default): anew.
        if (!(error instanceof NotFoundError)) {
          this.#failed("patch", body, error);
          return;
        }
      }
    }
    try {
      this.#counts.writes += 1;
      await this.#events.create(
        seriesField ? { ...body, series: seriesField } : body,
        { namespace },
      );
      this.#metrics?.wrote("create", true);
      series.written = count;
    } catch (error) {
      this.#metrics?.wrote("create", false);
      this.#failed("create", body, error);
    }
  }

  #failed(verb: string, body: EventBody, error: unknown): void {
    this.#counts.writeFailures += 1;
    this.#plan.logger.warn("Event not written", {
      verb,
      event: `${body.metadata.namespace}/${body.metadata.name}`,
      reason: body.reason,
      regarding: objectName(body.regarding),
      error: error instanceof Error ? error.message : String(error),
    });
  }

  /** Makes sure the timer fires at `due` or before. */
  #arm(due: number): void {
    if (this.#timer !== undefined && this.#timer.due <= due) return;
    const { clock } = this.#plan;
    if (this.#timer !== undefined) clock.clearTimeout(this.#timer.handle);
    const handle = clock.setTimeout(
      () => this.#tick(),
      Math.max(0, due - clock.now()),
    );
    this.#timer = { handle, due };
  }

  /** Ends the series that are over; writes those due for a refresh. */
  #tick(): void {
    this.#timer = undefined;
    const now = this.#plan.clock.now();
    let next = Infinity;
    for (const [key, series] of this.#series) {
      const dirty = series.count > series.written;
      if (now >= series.lastAt + FINISH_MS) {
        this.#series.delete(key);
        if (dirty) this.#write(series);
        continue;
      }
      if (dirty && now >= series.writtenAt + REFRESH_MS) {
        this.#write(series);
        series.writtenAt = now;
      }
      next = Math.min(
        next,
        series.lastAt + FINISH_MS,
        series.count > series.written
          ? series.writtenAt + REFRESH_MS
          : Infinity,
      );
    }
    this.#filter.prune(now);
    if (next < Infinity) this.#arm(next);
  }
}

const RESULT: Record<
  "new" | "aggregated" | "rateLimited" | "invalid",
  EventResult
> = {
  new: "new",
  aggregated: "aggregated",
  rateLimited: "rate_limited",
  invalid: "invalid",
};

function objectName(ref: { namespace?: string; name: string }): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

/** client-go's LRU size for its spam filter and its Event caches. */
const MAX_BUCKETS = 4096;

/**
 * client-go's spam filter for Events, the buckets of one recorder: a token
 * bucket per key (the reporter, the object and the Event's type), full at
 * first, holding `burst` tokens and refilled by one every `refillMs`. The
 * buckets are kept in use order and at most {@linkcode MAX_BUCKETS} of
 * them, as client-go keeps 4096 in an LRU cache: a bucket forgotten is a
 * full one again.
 */
class EventSpamFilter {
  readonly #burst: number;
  readonly #refillMs: number;
  /**
   * Each bucket as the time it is full again: at `now` it lacks
   * `(fullAt - now) / refillMs` tokens. Exact in whole milliseconds, where
   * adding fractions of a token would not be.
   */
  readonly #fullAt = new Map<string, number>();

  constructor(burst: number, refillMs: number) {
    this.#burst = burst;
    this.#refillMs = refillMs;
  }

  /** How many buckets are kept. */
  get size(): number {
    return this.#fullAt.size;
  }

  /** Takes a token of `key`'s bucket at `now`; false when it has none. */
  take(key: string, now: number): boolean {
    const lacking = Math.max(0, (this.#fullAt.get(key) ?? now) - now);
    // Most recently used last: the first one is the one to forget.
    this.#fullAt.delete(key);
    const allowed = lacking <= (this.#burst - 1) * this.#refillMs;
    this.#fullAt.set(key, now + lacking + (allowed ? this.#refillMs : 0));
    if (this.#fullAt.size > MAX_BUCKETS) {
      this.#fullAt.delete(this.#fullAt.keys().next().value!);
    }
    return allowed;
  }

  /** Forgets the buckets that are full again: they hold nothing to keep. */
  prune(now: number): void {
    for (const [key, fullAt] of this.#fullAt) {
      if (fullAt <= now) this.#fullAt.delete(key);
    }
  }
}

// An `EventRecorder`'s metrics, labelled with its `reporting_controller`:
// what became of each recorded Event (`result`: new, aggregated,
// rate_limited, invalid), and the requests it sent (`verb`: create, patch;
// `result`: success, failure).

interface RecorderInstruments {
  events: Counter;
  writes: Counter;
}

function makeInstruments(meter: Meter): RecorderInstruments {
  return {
    events: meter.createCounter(PREFIX + "recorded_events", {
      description:
        "Events recorded, by what became of them: new, aggregated into a series, rate_limited, invalid",
    }),
    writes: meter.createCounter(PREFIX + "event_writes", {
      description:
        "Requests an event recorder sent (create, patch of a series), by result",
    }),
  };
}

/** What became of one call of `event()`. */
type EventResult = "new" | "aggregated" | "rate_limited" | "invalid";

const RESULTS: readonly EventResult[] = [
  "new",
  "aggregated",
  "rate_limited",
  "invalid",
];

/** One recorder's measurements. */
class EventRecorderMetrics {
  readonly #instruments: RecorderInstruments;
  readonly #events: Readonly<Record<EventResult, MetricAttributes>>;
  readonly #writes: Readonly<Record<string, MetricAttributes>>;

  constructor(meter: Meter, reportingController: string) {
    const i = this.#instruments = instrumentsOf(
      meter,
      "event-recorder",
      makeInstruments,
    );
    const label = { reporting_controller: reportingController };
    const events = {} as Record<EventResult, MetricAttributes>;
    for (const result of RESULTS) {
      events[result] = Object.freeze({ ...label, result });
    }
    this.#events = events;
    const writes: Record<string, MetricAttributes> = {};
    for (const verb of ["create", "patch"]) {
      for (const result of ["success", "failure"]) {
        writes[`${verb} ${result}`] = Object.freeze({ ...label, verb, result });
      }
    }
    this.#writes = writes;
    // Every series from the start: a rate over a series that appears late
    // misses its first increase.
    for (const attributes of Object.values(this.#events)) {
      i.events.add(0, attributes);
    }
    for (const attributes of Object.values(writes)) i.writes.add(0, attributes);
  }

  /** An Event was recorded with this result. */
  recorded(result: EventResult): void {
    this.#instruments.events.add(1, this.#events[result]);
  }

  /** A request was sent and answered so. */
  wrote(verb: "create" | "patch", ok: boolean): void {
    this.#instruments.writes.add(
      1,
      this.#writes[`${verb} ${ok ? "success" : "failure"}`],
    );
  }
}
