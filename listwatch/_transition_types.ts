/**
 * The vocabulary of the list-then-watch state machine: its states, the
 * inputs it takes (results of I/O), the outputs it hands to the consumer,
 * and the commands (the next I/O) it asks for. Its typed reasons are in
 * `list_watch_types.ts`.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import type {
  InitialListMode,
  ListInfo,
  ListPage,
  ListWatchNote,
  WatchEventType,
} from "./list_watch_types.ts";

/**
 * What every state carries across phases.
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
 */
export interface IdleState extends ListWatchStateCommon {
  /** The phase. */
  readonly phase: "idle";
}

/**
 * Paging through a LIST. Pages go to the consumer as they arrive; the state
 * only counts them.
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
 */
export type RequestState = ListingState | StreamingInitialState | WatchingState;

/**
 * Every state of the list-then-watch loop.
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
   */
  random(): number;
  /**
   * The current time in milliseconds.
   */
  now(): number;
}
