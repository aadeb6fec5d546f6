/**
 * The vocabulary of the list-then-watch state machine: its states, the
 * inputs it takes (results of I/O), the outputs it hands to the consumer,
 * and the commands (the next I/O) it asks for. Its typed reasons are in
 * `list_watch_notes.ts`.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import type { ListWatchNote } from "./list_watch_notes.ts";

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
 * What every state carries across phases.
 *
 * @example What every state carries
 * ```ts
 * import type { ListWatchStateCommon } from "@haptic/k8s-watcher/listwatch";
 *
 * const common: ListWatchStateCommon = { synced: false, initialList: "list", resourceVersion: undefined };
 * ```
 */
export interface ListWatchStateCommon {
  /** Whether a first complete list has been delivered. */
  readonly synced: boolean;
  /**
   * How lists are obtained; turns from `"stream"` to `"list"` for good when
   * the server does not support streaming the initial list.
   */
  readonly initialList: InitialListMode;
  /**
   * The resourceVersion the loop is at: of the latest list, event or
   * bookmark; kept through relists and backoffs.
   */
  readonly resourceVersion: string | undefined;
}

/**
 * Before the first step: nothing requested yet.
 *
 * @example A new loop is idle
 * ```ts
 * import { initialListWatchState } from "@haptic/k8s-watcher/listwatch";
 * import assert from "node:assert/strict";
 *
 * assert.equal(initialListWatchState().phase, "idle");
 * ```
 */
export interface IdleState extends ListWatchStateCommon {
  /** The phase. */
  readonly phase: "idle";
}

/**
 * Paging through a LIST. Pages go to the consumer as they arrive; the state
 * only counts them.
 *
 * @example Halfway through a paged list
 * ```ts
 * import type { ListingState } from "@haptic/k8s-watcher/listwatch";
 *
 * const state: ListingState = {
 *   phase: "listing",
 *   synced: false,
 *   initialList: "list",
 *   resourceVersion: undefined,
 *   continueToken: "page-2",
 *   listed: 500,
 *   paginate: true,
 * };
 * ```
 */
export interface ListingState extends ListWatchStateCommon {
  /** The phase. */
  readonly phase: "listing";
  /** The token of the page requested next, `undefined` for the first. */
  readonly continueToken: string | undefined;
  /** Objects received on earlier pages of this list. */
  readonly listed: number;
  /**
   * Whether pages are requested with `limit`; false for the one full list
   * made after a continue token expired.
   */
  readonly paginate: boolean;
}

/**
 * Receiving the initial list as watch events (`sendInitialEvents=true`),
 * until the bookmark annotated `k8s.io/initial-events-end`.
 *
 * @example A stream not yet opened
 * ```ts
 * import type { StreamingInitialState } from "@haptic/k8s-watcher/listwatch";
 *
 * const state: StreamingInitialState = {
 *   phase: "streamingInitial",
 *   synced: false,
 *   initialList: "stream",
 *   resourceVersion: undefined,
 *   opened: false,
 *   items: new Map(),
 *   streamedVersion: undefined,
 * };
 * ```
 */
export interface StreamingInitialState extends ListWatchStateCommon {
  /** The phase. */
  readonly phase: "streamingInitial";
  /** Whether the server has answered the watch request. */
  readonly opened: boolean;
  /** Objects received so far, by `namespace/name`; updated in place. */
  readonly items: Map<string, KubeObject>;
  /** The resourceVersion of the latest event of this stream. */
  readonly streamedVersion: string | undefined;
}

/**
 * Watching from a resourceVersion.
 *
 * @example Watching from the list's version
 * ```ts
 * import type { WatchingState } from "@haptic/k8s-watcher/listwatch";
 *
 * const state: WatchingState = {
 *   phase: "watching",
 *   synced: true,
 *   initialList: "list",
 *   resourceVersion: "42",
 *   opened: true,
 *   openedAt: 0,
 *   eventCount: 0,
 *   fromList: true,
 * };
 * ```
 */
export interface WatchingState extends ListWatchStateCommon {
  /** The phase. */
  readonly phase: "watching";
  /** The resourceVersion of the latest event (or list) seen. */
  readonly resourceVersion: string;
  /** Whether the server has answered the watch request. */
  readonly opened: boolean;
  /** When it answered, on the context's clock. */
  readonly openedAt: number | undefined;
  /** Events (bookmarks included) received on this connection. */
  readonly eventCount: number;
  /** Whether this watch started straight from a list result. */
  readonly fromList: boolean;
}

/**
 * Waiting after a failure; `next` is entered when the wait is over.
 *
 * @example Waiting before the next watch
 * ```ts
 * import type {
 *   BackingOffState,
 *   WatchingState,
 * } from "@haptic/k8s-watcher/listwatch";
 *
 * const next: WatchingState = {
 *   phase: "watching",
 *   synced: true,
 *   initialList: "list",
 *   resourceVersion: "42",
 *   opened: false,
 *   openedAt: undefined,
 *   eventCount: 0,
 *   fromList: false,
 * };
 * const state: BackingOffState = { ...next, phase: "backingOff", next };
 * ```
 */
export interface BackingOffState extends ListWatchStateCommon {
  /** The phase. */
  readonly phase: "backingOff";
  /** What to do once the wait is over. */
  readonly next: RequestState;
}

/**
 * A state entered with a request: paging through a LIST, streaming the
 * initial list, or watching.
 *
 * @example Which request a state makes
 * ```ts
 * import type { RequestState } from "@haptic/k8s-watcher/listwatch";
 *
 * function requests(state: RequestState): string {
 *   return state.phase === "listing" ? "LIST" : "WATCH";
 * }
 * ```
 */
export type RequestState = ListingState | StreamingInitialState | WatchingState;

/**
 * Every state of the list-then-watch loop.
 *
 * @example Describing any state
 * ```ts
 * import type { ListWatchState } from "@haptic/k8s-watcher/listwatch";
 *
 * function describe(state: ListWatchState): string {
 *   return state.phase === "watching" ? `at ${state.resourceVersion}` : state.phase;
 * }
 * ```
 */
export type ListWatchState = IdleState | RequestState | BackingOffState;

/**
 * The result of one piece of I/O, fed into `listWatchTransition`.
 *
 * - `start`: begin (only from `idle`).
 * - `listPage` / `listFailed`: a LIST request answered (the parsed JSON) or
 *   failed (the thrown error).
 * - `watchOpened`: the server answered a watch request with a stream.
 * - `watchEvent`: one decoded line of that stream.
 * - `watchEnded`: the stream ended cleanly.
 * - `watchFailed`: the request failed, or the stream broke or could not be
 *   decoded.
 * - `idleTimeout`: no bytes arrived for `idleMs`; the stream was aborted.
 * - `initialStreamDeadline`: the initial-events-end bookmark did not come
 *   within `afterMs`.
 * - `backoffElapsed`: the wait asked for by a `backoff` command is over.
 * - `relist`: the consumer asked for a complete list again (a shard's
 *   ranges changed, say); any request under way was aborted for it.
 *
 * @example A bookmark arrives
 * ```ts
 * import type { ListWatchInput } from "@haptic/k8s-watcher/listwatch";
 *
 * const input: ListWatchInput = {
 *   type: "watchEvent",
 *   event: { type: "BOOKMARK", object: { metadata: { resourceVersion: "7" } } },
 * };
 * ```
 */
export type ListWatchInput =
  | { readonly type: "start" }
  | { readonly type: "listPage"; readonly list: unknown }
  | { readonly type: "listFailed"; readonly error: unknown }
  | { readonly type: "watchOpened" }
  | { readonly type: "watchEvent"; readonly event: unknown }
  | { readonly type: "watchEnded" }
  | { readonly type: "watchFailed"; readonly error: unknown }
  | { readonly type: "idleTimeout"; readonly idleMs: number }
  | { readonly type: "initialStreamDeadline"; readonly afterMs: number }
  | { readonly type: "backoffElapsed" }
  | { readonly type: "relist" };

/**
 * Something to hand over without I/O, in order, before the step's command:
 *
 * - `page`: objects of a (re)list, one LIST page at a time (a streamed
 *   initial list comes as one page). `first` starts a new list: drop what
 *   earlier pages of an unfinished list gave.
 * - `listed`: the list whose pages came is complete; apply it as one
 *   atomic diff.
 * - `event`: one watch event.
 * - `note`: a reason for the log.
 *
 * @example An object was added
 * ```ts
 * import type { ListWatchOutput } from "@haptic/k8s-watcher/listwatch";
 *
 * const output: ListWatchOutput = {
 *   type: "event",
 *   eventType: "ADDED",
 *   object: { metadata: { name: "web", namespace: "default" } },
 * };
 * ```
 */
export type ListWatchOutput =
  | ListPage
  | ListInfo & { readonly type: "listed" }
  | {
    readonly type: "event";
    readonly eventType: WatchEventType;
    readonly object: KubeObject;
  }
  | { readonly type: "note"; readonly note: ListWatchNote };

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
 * The next piece of I/O. A command issued while a watch stream is open ends
 * that stream first.
 *
 * - `list`: GET the collection with `query`; answer with `listPage` or
 *   `listFailed`.
 * - `watch`: GET the collection with `query` as a stream; answer with
 *   `watchOpened`, then `watchEvent`s, then `watchEnded` or `watchFailed`
 *   (or `idleTimeout`, and `initialStreamDeadline` when `initialStream`).
 *   `reconnect` marks a watch resumed from an earlier resourceVersion.
 * - `backoff`: log `reason`, report `error`, wait for the next backoff
 *   delay (at least `retryAfterMs`), then answer `backoffElapsed`.
 *
 * @example Requesting a LIST page
 * ```ts
 * import type { ListWatchCommand } from "@haptic/k8s-watcher/listwatch";
 *
 * const command: ListWatchCommand = {
 *   type: "list",
 *   query: new URLSearchParams({ limit: "500" }),
 * };
 * ```
 */
export type ListWatchCommand =
  | { readonly type: "list"; readonly query: URLSearchParams }
  | {
    readonly type: "watch";
    readonly query: URLSearchParams;
    readonly initialStream: boolean;
    readonly reconnect: boolean;
  }
  | {
    readonly type: "backoff";
    readonly error: unknown;
    readonly retryAfterMs: number | undefined;
    readonly reason: ListWatchNote;
  };

/**
 * What `listWatchTransition` returns.
 *
 * @example A step with nothing to do
 * ```ts
 * import type { ListWatchStep } from "@haptic/k8s-watcher/listwatch";
 *
 * function isQuiet(step: ListWatchStep): boolean {
 *   return step.outputs.length === 0 && step.command === undefined;
 * }
 * ```
 */
export interface ListWatchStep {
  /** The next state. */
  readonly state: ListWatchState;
  /** What to hand over, in order, before the command. */
  readonly outputs: readonly ListWatchOutput[];
  /** The next I/O, or `undefined` to keep reading the open watch stream. */
  readonly command: ListWatchCommand | undefined;
}

/**
 * The fixed parameters of one list-then-watch loop, and its only sources of
 * time and randomness.
 *
 * @example A context for tests of the state table
 * ```ts
 * import type { ListWatchContext } from "@haptic/k8s-watcher/listwatch";
 *
 * const context: ListWatchContext = {
 *   path: "/api/v1/namespaces/default/configmaps",
 *   pageSize: 500,
 *   labelSelector: "app=web",
 *   random: () => 0.5,
 *   now: () => 0,
 * };
 * ```
 */
export interface ListWatchContext {
  /** The collection path. */
  readonly path: string;
  /** The `limit` of each LIST page. */
  readonly pageSize: number;
  /** The server-side label selector. */
  readonly labelSelector?: string | undefined;
  /** The server-side field selector, e.g. `metadata.name=web`. */
  readonly fieldSelector?: string | undefined;
  /**
   * The `shardSelector` of each LIST and WATCH (KEP-5866), read when the
   * request is built; empty or `undefined`: none sent.
   */
  readonly shardSelector?: string | undefined;
  /**
   * Numbers in `[0, 1)`, for the watch `timeoutSeconds`.
   *
   * @example A fixed jitter for a deterministic test
   * ```ts
   * import { initialListWatchState, listWatchTransition } from "@haptic/k8s-watcher/listwatch";
   *
   * const context = { path: "/api/v1/pods", pageSize: 500, random: () => 0, now: () => 0 };
   * const step = listWatchTransition(initialListWatchState(), { type: "start" }, context);
   * console.log(step.command?.type); // "list"
   * ```
   */
  random(): number;
  /**
   * The current time in milliseconds.
   *
   * @example Time from a fake clock
   * ```ts
   * import type { ListWatchContext } from "@haptic/k8s-watcher/listwatch";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   *
   * const clock = new FakeClock();
   * const context: ListWatchContext = {
   *   path: "/api/v1/pods",
   *   pageSize: 500,
   *   random: Math.random,
   *   now: () => clock.now(),
   * };
   * ```
   */
  now(): number;
}
