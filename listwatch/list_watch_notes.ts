/**
 * Why the list-then-watch state machine does what it does: the typed
 * reasons it returns (no text: `ListWatch` words them), and the
 * classification of failures they carry.
 *
 * @module
 */

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
