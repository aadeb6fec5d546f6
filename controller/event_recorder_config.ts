/**
 * What an `EventRecorder` is made from (its config: who reports, the rate
 * limit; its options: clock, logger, meter) and what it takes: the object
 * an Event is about and the Event's fields.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { Logger } from "../types.ts";

/**
 * Who reports the Events of an `EventRecorder`, and how many it may write
 * about one object.
 *
 * @example A controller's recorder, named after its pod
 * ```ts
 * import type { EventRecorderConfig } from "@haptic/k8s-watcher/controller";
 *
 * const config: EventRecorderConfig = {
 *   reportingController: "example.com/widget-controller",
 *   reportingInstance: "widget-controller-7d9f-abcde",
 * };
 * ```
 */
export interface EventRecorderConfig {
  /**
   * The controller that reports (`reportingController` of every Event): a
   * qualified name, such as `example.com/widget-controller` (a name of at
   * most 63 characters, with an optional DNS subdomain prefix), as
   * kube-apiserver requires of `events.k8s.io/v1` Events.
   */
  reportingController: string;
  /**
   * This replica (`reportingInstance`), at most 128 characters [client-go's
   * `<reportingController>-<hostname>`, or `reportingController` alone
   * where the host name cannot be read].
   */
  reportingInstance?: string;
  /**
   * client-go's spam filter: a token bucket per object and Event type,
   * holding `burst` tokens and given one back every `refillMs` [25, and one
   * every 300,000 ms]. Each new Event takes a token, and so does the
   * update that starts a series; a new Event without one is dropped. A
   * repeat of an Event already written never is: it only counts.
   */
  rateLimit?: { burst?: number; refillMs?: number };
}

/**
 * An `EventRecorder`'s collaborators.
 *
 * @example On a fake clock, with a logger that keeps the lines
 * ```ts
 * import type { EventRecorderOptions } from "@haptic/k8s-watcher/controller";
 * import { FakeClock, RecordingLogger } from "@haptic/k8s-watcher/testing";
 *
 * const options: EventRecorderOptions = {
 *   clock: new FakeClock(),
 *   logger: new RecordingLogger(),
 * };
 * ```
 */
export interface EventRecorderOptions {
  /**
   * Timers and time: each Event's `eventTime`, a series' end and refresh
   * [the monotonic clock]. A `FakeClock` drives the recorder in tests.
   */
  clock?: Clock;
  /** Where failed writes and refused Events are logged [the console]. */
  logger?: Logger;
  /** Its `k8s_watcher_recorded_events_total` and `k8s_watcher_event_writes_total` [the client's meter]. */
  meter?: Meter;
}

/**
 * The object an Event is about (`regarding`) or refers to as well
 * (`related`): any object with `apiVersion`, `kind` and `metadata.name`,
 * as the server answers it (the items of a LIST of a built-in type lack
 * `apiVersion` and `kind`: add them). The Event names its `uid` and
 * `resourceVersion` as they are at the first of a series.
 *
 * @example A ConfigMap read from a watcher's store
 * ```ts
 * import type { EventObject } from "@haptic/k8s-watcher/controller";
 *
 * const stored = { metadata: { name: "settings", namespace: "shop", uid: "1b0e…" }, data: {} };
 * const regarding: EventObject = { apiVersion: "v1", kind: "ConfigMap", ...stored };
 * ```
 */
export interface EventObject {
  /** Its `group/version`, e.g. `apps/v1`. */
  readonly apiVersion?: string;
  /** Its kind, e.g. `Deployment`. */
  readonly kind?: string;
  /** Its name, namespace (none for a cluster-scoped object), uid and resourceVersion. */
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
}

/**
 * What happened, as an `events.k8s.io/v1` Event says it.
 *
 * @example A failed reconcile
 * ```ts
 * import type { EventInput } from "@haptic/k8s-watcher/controller";
 *
 * const failed: EventInput = {
 *   type: "Warning",
 *   reason: "ReconcileFailed",
 *   action: "Reconciling",
 *   note: "the ConfigMap widget-config could not be written: 409 Conflict",
 * };
 * ```
 */
export interface EventInput {
  /** `Normal`, or `Warning` for what someone should look at. */
  type: "Normal" | "Warning";
  /**
   * Why, in UpperCamelCase (`ReconcileFailed`), at most 128 characters:
   * what a program or a person filters Events by.
   */
  reason: string;
  /** What the controller did or failed to do (`Reconciling`), at most 128 characters. */
  action: string;
  /** For people, at most 1024 bytes of UTF-8 (a longer one is cut) [none]. */
  note?: string;
  /** A second object it concerns (the child that failed, say) [none]. */
  related?: EventObject;
}

/**
 * What an `EventRecorder` did since it was made: each call of `event()`
 * counts once, as new, aggregated, rate-limited or invalid.
 *
 * @example Reading them in a test
 * ```ts
 * import type { EventRecorderCounts } from "@haptic/k8s-watcher/controller";
 *
 * function quiet(counts: EventRecorderCounts): boolean {
 *   return counts.rateLimited === 0 && counts.writeFailures === 0;
 * }
 * quiet({ new: 1, aggregated: 4, rateLimited: 0, invalid: 0, writes: 2, writeFailures: 0 });
 * ```
 */
export interface EventRecorderCounts {
  /** Events that started a new Event (one not seen in the last 6 minutes). */
  readonly new: number;
  /** Repeats counted into the series of an Event already recorded. */
  readonly aggregated: number;
  /** New Events dropped by the per-object rate limit. */
  readonly rateLimited: number;
  /** Events refused before anything was sent (see the log line). */
  readonly invalid: number;
  /** Requests sent: creates, and updates of a series. */
  readonly writes: number;
  /**
   * Writes that failed, each logged (an update of an Event gone from the
   * server is followed by its create, and is not one of them).
   */
  readonly writeFailures: number;
}
