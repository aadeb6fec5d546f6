/**
 * The loop's public vocabulary: what a {@linkcode ListWatch} is built from
 * (its options and its consumer), what it reports (its phase, its last
 * failure, its counts), why the state machine does what it does (the typed
 * reasons it returns, no text: `ListWatch` words them, and the
 * classification of failures they carry), and the loop's own errors.
 *
 * @module
 */
import type { Meter } from "../metrics/meter.ts";
import type { Gvr, KubeObject, Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { BackoffOptions } from "./backoff.ts";

// --- Options, sink and phases -----------------------------------------------

/**
 * How the initial list (and every relist) is obtained: paginated LIST
 * requests, or one watch with `sendInitialEvents=true`.
 *
 * @example Streaming the initial list
 * ```ts
 * import type { InitialListMode } from "@haptic/k8s-watcher/listwatch";
 *
 * const mode: InitialListMode = "stream";
 * ```
 */
export type InitialListMode = "list" | "stream";

/**
 * The watch event types handed to the consumer. `BOOKMARK` and `ERROR`
 * events are handled by the loop itself.
 *
 * @example Naming an event type
 * ```ts
 * import type { WatchEventType } from "@haptic/k8s-watcher/listwatch";
 *
 * const type: WatchEventType = "MODIFIED";
 * ```
 */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/**
 * One page of a (re)list, as handed to the consumer.
 *
 * @example The first, empty page
 * ```ts
 * import type { ListPage } from "@haptic/k8s-watcher/listwatch";
 *
 * const page: ListPage = { type: "page", items: [], first: true, listedSoFar: 0 };
 * ```
 */
export interface ListPage {
  /** The output type. */
  readonly type: "page";
  /** The page's objects (each has `metadata`); the array is the consumer's. */
  readonly items: KubeObject[];
  /** Whether this page starts a new list. */
  readonly first: boolean;
  /** Objects received so far in this list, this page included. */
  readonly listedSoFar: number;
}

/**
 * What comes with every complete list.
 *
 * @example The end of the initial list
 * ```ts
 * import type { ListInfo } from "@haptic/k8s-watcher/listwatch";
 *
 * const info: ListInfo = { resourceVersion: "4711", initial: true };
 * ```
 */
export interface ListInfo {
  /** The resourceVersion of the list; watching continues from it. */
  readonly resourceVersion: string;
  /** True for the first list this loop delivers, false for relists. */
  readonly initial: boolean;
  /**
   * The shard selector the server says it applied to the list
   * (`metadata.shardInfo.selector`, kube-apiserver with the
   * `ShardedListAndWatch` gate); `undefined` when the list was not sharded
   * by the server (none asked for, the server ignored it, or a streamed
   * initial list).
   */
  readonly shardSelector?: string | undefined;
  /**
   * True when the list came as a watch's initial events
   * (`initialList: "stream"`): such a list says nothing of a shard selector
   * (kube-apiserver 1.37.2's end bookmark carries no `shardInfo`, though it
   * applies the selector).
   */
  readonly streamed?: boolean;
}

/**
 * The consumer of a {@linkcode ListWatch}: the watchers' store writer.
 *
 * Calls come one at a time, in server order, never overlapping. A method
 * may return a promise to apply back-pressure: the loop stops reading until
 * it settles. Returning nothing keeps the hot path synchronous, which is
 * what a watch flood wants. A method that throws (or rejects) is logged at
 * error level and the loop goes on; handle your own errors.
 *
 * After `run()` has resolved, no method is called any more.
 *
 * @example A sink that mirrors the collection in a Map
 * ```ts
 * import type { KubeObject } from "@haptic/k8s-watcher";
 * import type { ListWatchSink } from "@haptic/k8s-watcher/listwatch";
 *
 * const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
 * const objects = new Map<string, KubeObject>();
 * let listing = new Map<string, KubeObject>();
 * const sink: ListWatchSink = {
 *   onListPage(page) {
 *     if (page.first) listing = new Map();
 *     for (const o of page.items) listing.set(key(o), o);
 *   },
 *   onListEnd() {
 *     objects.clear();
 *     for (const [k, o] of listing) objects.set(k, o);
 *     listing = new Map();
 *   },
 *   onEvent(type, o) {
 *     if (type === "DELETED") objects.delete(key(o));
 *     else objects.set(key(o), o);
 *   },
 * };
 * ```
 */
export interface ListWatchSink {
  /**
   * One page of a list (the initial one, or a relist after 410 Gone, a
   * too-large resourceVersion, …), as it arrives. `first` starts a new
   * list: forget the pages of an unfinished one. The array is yours.
   *
   * @example Collecting pages until the list ends
   * ```ts
   * import type { ListWatchSink } from "@haptic/k8s-watcher/listwatch";
   *
   * let pending: string[] = [];
   * const sink: Pick<ListWatchSink, "onListPage"> = {
   *   onListPage(page) {
   *     if (page.first) pending = []; // a new list: drop an unfinished one
   *     pending.push(...page.items.map((o) => o.metadata.name!));
   *   },
   * };
   * ```
   */
  onListPage(page: ListPage): void | Promise<void>;
  /**
   * The list whose pages came is complete. Replace what you hold with it in
   * one step: objects missing from it were deleted while the loop was not
   * watching.
   *
   * @example Swapping in the complete list
   * ```ts
   * import type { ListWatchSink } from "@haptic/k8s-watcher/listwatch";
   *
   * let current = new Set<string>();
   * const listing = new Set<string>();
   * const sink: Pick<ListWatchSink, "onListEnd"> = {
   *   onListEnd(info) {
   *     current = new Set(listing); // objects missing now were deleted
   *     listing.clear();
   *     console.log(`listed at ${info.resourceVersion}`, current.size);
   *   },
   * };
   * ```
   */
  onListEnd(info: ListInfo): void | Promise<void>;
  /**
   * One watch event, after the list it follows.
   *
   * @example Applying an event
   * ```ts
   * import type { ListWatchSink } from "@haptic/k8s-watcher/listwatch";
   *
   * const names = new Set<string>();
   * const sink: Pick<ListWatchSink, "onEvent"> = {
   *   onEvent(type, object) {
   *     if (type === "DELETED") names.delete(object.metadata.name!);
   *     else names.add(object.metadata.name!);
   *   },
   * };
   * ```
   */
  onEvent(type: WatchEventType, object: KubeObject): void | Promise<void>;
  /**
   * A failure the loop is about to retry in `retryInMs`.
   *
   * @example Counting retries for a metric
   * ```ts
   * import type { ListWatchSink } from "@haptic/k8s-watcher/listwatch";
   *
   * let retries = 0;
   * const sink: Pick<ListWatchSink, "onError"> = {
   *   onError(error, retryInMs) {
   *     retries++;
   *     console.log(`retrying in ${retryInMs} ms after`, error);
   *   },
   * };
   * ```
   */
  onError?(error: unknown, retryInMs: number): void;
}

/**
 * The loop's timeouts: options of {@linkcode ListWatchOptions}, and of a
 * watcher's `WatcherOptions`, which hands them to its loops as they are.
 *
 * @example A server that must answer within 5 s
 * ```ts
 * import type { ListWatchTimeouts } from "@haptic/k8s-watcher/listwatch";
 *
 * const timeouts: ListWatchTimeouts = { firstByteTimeoutMs: 5_000 };
 * ```
 */
export interface ListWatchTimeouts {
  /**
   * A request that receives no bytes for this long is aborted and retried, in
   * milliseconds: a silent watch (bookmarks count) is resumed, a LIST page
   * whose body stops for this long is requested again.
   *
   * @default {180000}
   */
  idleTimeoutMs?: number;
  /**
   * A LIST or watch request not answered (no status, no headers) within
   * this long is aborted, logged with its URL and retried with backoff, in
   * milliseconds: a server that accepts the connection and never answers
   * shows in the log and in `lastError()` after this, not after
   * `idleTimeoutMs`. It counts from when the request is sent: with a
   * `FetchClient`, an exec credential plugin's run comes before that (see
   * `RestClient.callsOnSent`).
   *
   * @default {30000}
   */
  firstByteTimeoutMs?: number;
}

/**
 * Options for {@linkcode ListWatch}.
 *
 * @example One Secret by field selector
 * ```ts
 * import type { ListWatchOptions } from "@haptic/k8s-watcher/listwatch";
 *
 * const options: ListWatchOptions = {
 *   gvr: { group: "", version: "v1", resource: "secrets" },
 *   namespace: "haptic",
 *   fieldSelector: "metadata.name=credentials",
 * };
 * ```
 */
export interface ListWatchOptions extends ListWatchTimeouts {
  /** The resource to list and watch. */
  gvr: Gvr;
  /**
   * One namespace, or `""`/absent for all namespaces (and cluster scope).
   *
   * @default {""}
   */
  namespace?: string;
  /** Server-side label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** Server-side field selector, e.g. `metadata.name=web`. */
  fieldSelector?: string;
  /**
   * The server-side shard selector (KEP-5866, kube-apiserver with the
   * `ShardedListAndWatch` gate), called as each LIST and WATCH request is
   * built: its answer goes out as the `shardSelector` parameter (none when
   * empty or `undefined`). A server without the gate ignores it; the end of
   * a list says whether the server applied it ({@linkcode ListInfo.shardSelector}).
   * When its answer changes, call {@linkcode ListWatch.relist}.
   */
  shardSelector?: () => string | undefined;
  /**
   * Objects per LIST page (`limit`).
   *
   * @default {500}
   */
  pageSize?: number;
  /**
   * Ask for the metadata-only form (`PartialObjectMetadata`): LIST sends
   * `Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`,
   * WATCH the same with `as=PartialObjectMetadata`. A server or client that
   * ignores the header answers full objects (the trailing
   * `application/json`), and a client that throws because it cannot send
   * the header (its message naming the `Accept header`) is asked again
   * without it, for good: the loop hands on what it got, so a sink must
   * reduce objects itself when it relies on the form (the watchers do).
   *
   * @default {false}
   */
  metadataOnly?: boolean;
  /**
   * `"list"` pages through LIST requests; `"stream"` gets the initial
   * list as watch events (`sendInitialEvents=true`) and falls back to
   * `"list"` for good when the server does not support it.
   *
   * @default {"list"}
   */
  initialList?: InitialListMode;
  /**
   * How long a `"stream"` initial list may go without a new object before
   * its end bookmark, then falls back to LIST, in milliseconds: a server
   * that ignores `sendInitialEvents` sends the objects and no end bookmark.
   * It counts from the request and from each object: a long stream that
   * keeps bringing objects (a large collection) is not cut.
   *
   * @default {60000}
   */
  initialStreamDeadlineMs?: number;
  /**
   * Retry delays.
   *
   * @default {800 ms doubling to 30 s, jittered; see BackoffOptions}
   */
  backoff?: BackoffOptions;
  /**
   * The longest watch line accepted, in bytes (64 MiB).
   *
   * @default {67108864}
   */
  maxLineBytes?: number;
  /**
   * Paths no object reaches the sink with, as a watcher's `ignoreFields`
   * (JSONPath-lite, e.g. `metadata.managedFields`): removed from every
   * listed object and from the object of every ADDED, MODIFIED and DELETED
   * event (a BOOKMARK's and an ERROR's are the loop's to read). A path of
   * field names only is cut out of the text before it is parsed, where
   * that can be done exactly, so that what is dropped is never built.
   * Paths that would remove `metadata.name`, `metadata.namespace` or
   * `metadata.resourceVersion` are refused.
   *
   * @default {[]}
   */
  ignoreFields?: readonly string[];
  /**
   * Time source for every timer, and for the times the loop records
   * (`lastActivityTime`, `retryAt`). The default's `now()` is monotonic
   * (the epoch time at process start advanced by `performance.now()`), so
   * a step of the wall clock does not make a quiet watch look wedged.
   *
   * @default {the system timers with a monotonic now()}
   */
  clock?: Clock;
  /**
   * Where to log.
   *
   * @default {silentLogger}
   */
  logger?: Logger;
  /**
   * Numbers in `[0, 1)` for timeouts and jitter.
   *
   * @default {Math.random}
   */
  random?: () => number;
  /**
   * Where the loop's metrics go (see `@haptic/k8s-watcher/metrics`): lists,
   * pages, watches, events, bookmarks, failures, backoffs, the
   * resourceVersion and the seconds since the server was last heard from.
   * Without one (here or on the client), the loop measures nothing beyond
   * its `stats`.
   *
   * @default {the client's `meter` (`RestClient.meter`), if it has one}
   */
  meter?: Meter;
  /**
   * The loop's `watcher` label in metrics, to tell apart loops of the same
   * resource and namespace.
   *
   * @default {""}
   */
  name?: string;
}

/**
 * The last failure a {@linkcode ListWatch} retried.
 *
 * `error` is what was thrown, as it was. Through `JSON.stringify` (a
 * health endpoint that answers JSON, a structured log), a failure the loop
 * recorded writes an `Error` as its `name`, `message` and own fields (an
 * `ApiError`'s `code`, `status`, `method`, `path`), then its `cause` in the
 * same form, where `JSON.stringify` of the error alone would drop all
 * three.
 *
 * @example Describing the last failure
 * ```ts
 * import type { ListWatchFailure } from "@haptic/k8s-watcher/listwatch";
 *
 * function describe(failure: ListWatchFailure | undefined): string {
 *   return failure ? `${new Date(failure.time).toISOString()}: ${failure.error}` : "healthy";
 * }
 * ```
 *
 * @example A watcher's health as JSON
 * ```ts
 * import { FetchClient, silentLogger, Watcher } from "@haptic/k8s-watcher";
 * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * await using server = new FakeApiServer({ clock });
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * server.injectFault({ verb: "list", kind: "status", code: 503 });
 * const watcher = new Watcher({
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   onChange: () => {},
 * }, client, { clock, logger: silentLogger });
 * const running = watcher.start();
 * await waitFor(() => watcher.lastError() !== undefined);
 * const { lastError } = JSON.parse(JSON.stringify(watcher.health()));
 * assert.equal(lastError.error.name, "ApiError");
 * assert.match(lastError.error.message, /^Kubernetes API answered 503 ServiceUnavailable/);
 * assert.equal(lastError.error.code, 503);
 * await watcher.stop();
 * await running;
 * ```
 */
export interface ListWatchFailure {
  /** What was thrown (an `ApiError` for HTTP answers and ERROR events). */
  readonly error: unknown;
  /** When, on the loop's clock. */
  readonly time: number;
}

/**
 * Where a {@linkcode ListWatch} is: `idle` before `run()`, the state
 * machine's phase while running, `stopped` after.
 *
 * @example Naming a phase
 * ```ts
 * import type { ListWatchPhase } from "@haptic/k8s-watcher/listwatch";
 *
 * const phase: ListWatchPhase = "watching";
 * ```
 */
export type ListWatchPhase =
  | "idle"
  | "listing"
  | "streamingInitial"
  | "watching"
  | "backingOff"
  | "stopped";

// --- Counts -----------------------------------------------------------------

/**
 * What one list-then-watch loop has counted since it was built: the one
 * record `health()`, the metrics and the log lines read.
 *
 * @example Relists per list
 * ```ts
 * import type { ListWatchCounts } from "@haptic/k8s-watcher/listwatch";
 *
 * function relistShare(c: ListWatchCounts): number {
 *   return c.lists === 0 ? 0 : c.relists / c.lists;
 * }
 * ```
 */
export interface ListWatchCounts {
  /** Complete lists delivered, the first one included. */
  readonly lists: number;
  /** Lists after the first one (410 Gone, too large resourceVersion, …). */
  readonly relists: number;
  /** LIST pages received (a streamed initial list is one page). */
  readonly listPages: number;
  /** Watch requests the server answered with a stream. */
  readonly watches: number;
  /**
   * Watches resumed from an earlier resourceVersion (after a stream ended,
   * broke or went idle); watches started from a (re)list do not count.
   */
  readonly reconnects: number;
  /** ADDED, MODIFIED and DELETED events received (bookmarks not counted). */
  readonly events: number;
  /** BOOKMARK events received. */
  readonly bookmarks: number;
  /** Failed LIST and watch requests (410 Gone included). */
  readonly requestErrors: number;
  /** Waits before a retry. */
  readonly backoffs: number;
}

/**
 * A loop's counts and times, read by `ListWatch.stats`.
 *
 * @example Seconds since the loop last heard from the server
 * ```ts
 * import type { ListWatchStats } from "@haptic/k8s-watcher/listwatch";
 *
 * function silentFor(s: ListWatchStats, now: number): number | undefined {
 *   return s.lastActivityTime === undefined
 *     ? undefined
 *     : (now - s.lastActivityTime) / 1000;
 * }
 * ```
 */
export interface ListWatchStats extends ListWatchCounts {
  /** When the latest watch event (bookmarks included) arrived. */
  readonly lastEventTime: number | undefined;
  /**
   * When the loop last heard from the server: an event, a bookmark, a
   * chunk of a LIST body or a watch opened, on the loop's clock.
   */
  readonly lastActivityTime: number | undefined;
  /**
   * When the latest wait before a retry ends (or ended), on the loop's
   * clock: a loop waiting out a backoff or a `Retry-After` is not silent.
   */
  readonly retryAt?: number | undefined;
  /** The last failure that was retried, and when; kept after recovery. */
  readonly lastError: ListWatchFailure | undefined;
}

/** Every count at zero; typed so that a count missing here does not compile. */
const ZERO_COUNTS: Readonly<Record<keyof ListWatchCounts, 0>> = Object
  .freeze({
    lists: 0,
    relists: 0,
    listPages: 0,
    watches: 0,
    reconnects: 0,
    events: 0,
    bookmarks: 0,
    requestErrors: 0,
    backoffs: 0,
  });

const COUNT_NAMES = Object.keys(ZERO_COUNTS) as (keyof ListWatchCounts)[];

/**
 * The counts of several loops' records added up, and their latest times:
 * what a watcher with `namespaces` reports for its loops together.
 *
 * @example Two loops' records as one
 * ```ts
 * import { sumListWatchStats, type ListWatchStats } from "@haptic/k8s-watcher/listwatch";
 * import assert from "node:assert/strict";
 *
 * const zero = sumListWatchStats([]);
 * const a: ListWatchStats = { ...zero, events: 2, lastActivityTime: 10, lastError: undefined };
 * const b: ListWatchStats = { ...zero, events: 3, lastActivityTime: 20, retryAt: 25, lastError: undefined };
 * const sum = sumListWatchStats([a, b]);
 * assert.equal(sum.events, 5);
 * assert.equal(sum.lastActivityTime, 20);
 * ```
 *
 * @param records The loops' records (`ListWatch.stats`).
 * @returns Their counts summed, the latest of their times.
 */
export function sumListWatchStats(
  records: readonly ListWatchStats[],
): Omit<ListWatchStats, "lastError"> {
  const sum: Record<keyof ListWatchCounts, number> = { ...ZERO_COUNTS };
  let lastEventTime: number | undefined;
  let lastActivityTime: number | undefined;
  let retryAt: number | undefined;
  for (const record of records) {
    for (const name of COUNT_NAMES) sum[name] += record[name];
    lastEventTime = latest(lastEventTime, record.lastEventTime);
    lastActivityTime = latest(lastActivityTime, record.lastActivityTime);
    retryAt = latest(retryAt, record.retryAt);
  }
  return { ...sum, lastEventTime, lastActivityTime, retryAt };
}

function latest(
  a: number | undefined,
  b: number | undefined,
): number | undefined {
  return a === undefined || (b !== undefined && b > a) ? b : a;
}

// --- Reasons and faults -----------------------------------------------------

/**
 * What a failure is, as far as the loop is concerned:
 *
 * - `expired`: 410 Gone/Expired (watch history or continue token too old).
 * - `tooLarge`: the server has not caught up with the resourceVersion.
 * - `throttled`: 429 Too Many Requests.
 * - `unauthorized`: 401 or 403.
 * - `rejected`: another 4xx (a bad selector, a path that is not served).
 * - `undecodable`: a watch line that is not JSON, or a cut one.
 * - `retryable`: anything else (5xx, connection errors, …).
 *
 * @example Naming a fault kind
 * ```ts
 * import type { FaultKind } from "@haptic/k8s-watcher/listwatch";
 *
 * const kind: FaultKind = "expired";
 * ```
 */
export type FaultKind =
  | "expired"
  | "tooLarge"
  | "throttled"
  | "unauthorized"
  | "rejected"
  | "undecodable"
  | "retryable";

/**
 * A classified failure: its kind, and what the answer said.
 *
 * @example A 429 with Retry-After
 * ```ts
 * import type { Fault } from "@haptic/k8s-watcher/listwatch";
 *
 * const fault: Fault = { kind: "throttled", code: 429, reason: "TooManyRequests", retryAfterMs: 2_000 };
 * ```
 */
export interface Fault {
  /** What the loop makes of it. */
  readonly kind: FaultKind;
  /** The HTTP (or `Status`) code, when there was one. */
  readonly code: number | undefined;
  /** The `Status` reason, e.g. `Expired`. */
  readonly reason: string | undefined;
  /** How long the server asked us to wait. */
  readonly retryAfterMs: number | undefined;
}

/**
 * Why the state machine did what it did: typed, without text. The driver
 * turns each into one log line (level, message, hint and fields), so all
 * of the loop's wording lives in one place.
 *
 * - `itemsWithoutMetadata`: a LIST page held `count` objects without
 *   `metadata`, skipped.
 * - `eventSkipped`: a watch line was skipped (`problem` says why).
 * - `continueExpired`: the continue token expired while paging; one full
 *   list follows.
 * - `requestFailed`: a LIST (`url`), watch or initial stream failed with
 *   `fault`; retried after a backoff.
 * - `relist`: the watch's history expired or its resourceVersion was too
 *   large; `paused` when the relist waits for a backoff first.
 * - `closedAtOnce`: the watch closed without any event; retried after a
 *   backoff.
 * - `watchEnded`: the watch ended cleanly and is resumed.
 * - `idle`: no bytes for `idleMs`; the watch (or initial stream) restarts.
 * - `streamUnsupported`: the initial list will come from LIST from now on.
 *
 * @example A watch that ended normally
 * ```ts
 * import type { ListWatchNote } from "@haptic/k8s-watcher/listwatch";
 *
 * const note: ListWatchNote = { kind: "watchEnded", resourceVersion: "42" };
 * ```
 */
export type ListWatchNote =
  | { readonly kind: "itemsWithoutMetadata"; readonly count: number }
  | {
    readonly kind: "eventSkipped";
    readonly problem:
      | "noMetadata"
      | "unknownType"
      | "notAnEvent"
      | "endBookmarkWithoutVersion";
    readonly eventType: unknown;
  }
  | { readonly kind: "continueExpired"; readonly url: string }
  | {
    readonly kind: "requestFailed";
    readonly request: "list" | "watch" | "stream";
    readonly fault: Fault;
    readonly error: unknown;
    /** The URL of a failed LIST, query included. */
    readonly url: string | undefined;
    /** Where a watch resumes. */
    readonly resourceVersion: string | undefined;
  }
  | {
    readonly kind: "relist";
    readonly fault: Fault;
    readonly resourceVersion: string;
    readonly paused: boolean;
  }
  | {
    readonly kind: "closedAtOnce";
    readonly afterMs: number;
    readonly resourceVersion: string;
  }
  | { readonly kind: "watchEnded"; readonly resourceVersion: string }
  | {
    readonly kind: "relistRequested";
    /** The phase the request found the loop in. */
    readonly phase: "listing" | "streamingInitial" | "watching";
  }
  | {
    readonly kind: "idle";
    readonly request: "watch" | "stream";
    readonly idleMs: number;
    readonly resourceVersion: string | undefined;
  }
  | {
    readonly kind: "streamUnsupported";
    readonly why: "endedEarly" | "deadline" | "rejected";
    /** The deadline that passed. */
    readonly afterMs?: number;
    /** The code the server rejected the stream with, and its error. */
    readonly code?: number | undefined;
    readonly error?: unknown;
  };

// --- Errors -----------------------------------------------------------------

/**
 * A LIST answer that is not a Kubernetes list (no `items` array or no
 * `metadata.resourceVersion`).
 *
 * @example A LIST answer without a resourceVersion
 * ```ts
 * import { MalformedListError } from "@haptic/k8s-watcher/listwatch";
 * import assert from "node:assert/strict";
 *
 * const err = new MalformedListError("/api/v1/pods", "it has no metadata.resourceVersion");
 * assert.equal(err.name, "MalformedListError");
 * assert.match(err.message, /not a Kubernetes list/);
 * ```
 */
export class MalformedListError extends Error {
  /** The collection path listed. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @example A LIST without items
   * ```ts
   * import { MalformedListError } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const err = new MalformedListError("/api/v1/pods", "it has no items");
   * assert.match(err.message, /it has no items/);
   * ```
   *
   * @param path The collection path listed.
   * @param problem What is wrong with the answer.
   */
  constructor(path: string, problem: string) {
    super(`List answer for ${path} is not a Kubernetes list: ${problem}`);
    this.name = "MalformedListError";
    this.path = path;
  }
}

/**
 * A watch that the server closed at once, before sending any event: retried
 * with backoff, since re-watching at once could spin.
 *
 * @example A watch closed before its first event
 * ```ts
 * import { WatchClosedError } from "@haptic/k8s-watcher/listwatch";
 * import assert from "node:assert/strict";
 *
 * const err = new WatchClosedError("/api/v1/pods", 12);
 * assert.equal(err.name, "WatchClosedError");
 * assert.match(err.message, /closed after 12 ms without any event/);
 * ```
 */
export class WatchClosedError extends Error {
  /** The collection path watched. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @example A watch closed at once
   * ```ts
   * import { WatchClosedError } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const err = new WatchClosedError("/api/v1/pods", 3);
   * assert.match(err.message, /\/api\/v1\/pods/);
   * ```
   *
   * @param path The collection path watched.
   * @param afterMs How long the watch was open.
   */
  constructor(path: string, afterMs: number) {
    super(`Watch of ${path} closed after ${afterMs} ms without any event`);
    this.name = "WatchClosedError";
    this.path = path;
  }
}

/**
 * A LIST request whose answer stopped coming: no bytes for the loop's idle
 * timeout (a half-open connection must not hang a (re)list). A body that
 * keeps arriving, however slowly, is not cut. Retried with backoff.
 *
 * @example A LIST body that stopped arriving
 * ```ts
 * import { ListTimeoutError } from "@haptic/k8s-watcher/listwatch";
 * import assert from "node:assert/strict";
 *
 * const err = new ListTimeoutError("/api/v1/pods", 180_000);
 * assert.match(err.message, /received no bytes for 180000 ms/);
 * ```
 */
export class ListTimeoutError extends Error {
  /** The collection path listed. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @example Three silent minutes
   * ```ts
   * import { ListTimeoutError } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const err = new ListTimeoutError("/api/v1/pods", 180_000);
   * assert.match(err.message, /180000 ms/);
   * ```
   *
   * @param path The collection path listed.
   * @param idleMs How long no bytes came.
   */
  constructor(path: string, idleMs: number) {
    super(`List of ${path} received no bytes for ${idleMs} ms`);
    this.name = "ListTimeoutError";
    this.path = path;
  }
}

/**
 * A request of the loop that got no answer (no status, no headers) within
 * `firstByteTimeoutMs`: the server accepted the connection and said
 * nothing. Retried with backoff; what `lastError()` reports meanwhile. The
 * message names the server when the client knows it
 * (`RestClient.server`, as `FetchClient` does), since a silent server is
 * what to look at.
 *
 * @example A LIST nobody answered
 * ```ts
 * import { FirstByteTimeoutError } from "@haptic/k8s-watcher/listwatch";
 * import assert from "node:assert/strict";
 *
 * const err = new FirstByteTimeoutError("/api/v1/pods", 30_000, {
 *   server: "https://10.0.0.1:6443",
 * });
 * assert.equal(err.name, "FirstByteTimeoutError");
 * assert.equal(
 *   err.message,
 *   "No answer from https://10.0.0.1:6443/api/v1/pods within 30000 ms (firstByteTimeoutMs)",
 * );
 * ```
 */
export class FirstByteTimeoutError extends Error {
  /** The collection path requested. */
  readonly path: string;
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;
  /** The API server's base URL, when the client knows it. */
  readonly server: string | undefined;

  /**
   * Creates the error.
   *
   * @example Without a server, the path alone
   * ```ts
   * import { FirstByteTimeoutError } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const err = new FirstByteTimeoutError("/api/v1/pods", 5);
   * assert.equal(err.timeoutMs, 5);
   * assert.equal(err.message, "No answer from /api/v1/pods within 5 ms (firstByteTimeoutMs)");
   * ```
   *
   * @param path The collection path requested.
   * @param timeoutMs The deadline that passed, in milliseconds.
   * @param options The `server` the request went to, when known.
   */
  constructor(
    path: string,
    timeoutMs: number,
    options?: { readonly server?: string | undefined },
  ) {
    const server = options?.server;
    super(
      `No answer from ${
        server ?? ""
      }${path} within ${timeoutMs} ms (firstByteTimeoutMs)`,
    );
    this.name = "FirstByteTimeoutError";
    this.path = path;
    this.timeoutMs = timeoutMs;
    this.server = server;
  }
}
