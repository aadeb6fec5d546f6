/**
 * What a {@linkcode ListWatch} is built from (its options and its consumer)
 * and what it reports (its phase, its last failure).
 *
 * @module
 */
import type { Meter } from "../metrics/meter.ts";
import type { Gvr, KubeObject, Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { BackoffOptions } from "./backoff.ts";

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
