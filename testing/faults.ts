import type { ReactorHandle } from "./reactor.ts";
import type { ResourceRef } from "./resources.ts";

/**
 * Which requests a fault applies to. `any` covers every request, discovery
 * included, unless a `resource` narrows it.
 *
 * @example Matching watches only
 * ```ts
 * import type { FaultVerb } from "@haptic/k8s-watcher/testing";
 *
 * const verb: FaultVerb = "watch";
 * ```
 */
export type FaultVerb =
  | "list"
  | "watch"
  | "get"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "any";

/**
 * What a fault does to a matching request:
 *
 * - `status`: answer with this HTTP code and a Kubernetes `Status`
 *   (reason derived from the code: 429 `TooManyRequests`, 500
 *   `InternalError`, 503 `ServiceUnavailable`, …), with a `Retry-After`
 *   header when `retryAfterSeconds` is set.
 * - `drop`: a watch closes cleanly after `afterEvents` lines (default 0); any
 *   other request gets its headers, then a body that fails like a reset
 *   connection.
 * - `truncate`: a watch sends `afterEvents` lines (default 0), then half a
 *   line and closes; any other request gets half of its JSON body.
 * - `stall`: headers, then nothing until the client aborts or the server
 *   closes.
 *
 * @example Throttling, and a dropped stream
 * ```ts
 * import type { FaultAction } from "@haptic/k8s-watcher/testing";
 *
 * const busy: FaultAction = { kind: "status", code: 429, retryAfterSeconds: 2 };
 * const cut: FaultAction = { kind: "drop", afterEvents: 3 };
 * ```
 */
export type FaultAction =
  | {
    kind: "status";
    /** HTTP code, e.g. 500, 503 or 429. */
    code: number;
    /** Sets `Retry-After` and `details.retryAfterSeconds`. */
    retryAfterSeconds?: number;
    /** Overrides the `Status` message. */
    message?: string;
    /** Overrides the `Status` reason. */
    reason?: string;
  }
  | {
    kind: "drop";
    /**
     * Watch lines sent before the stream closes.
     *
     * @default {0}
     */
    afterEvents?: number;
  }
  | {
    kind: "truncate";
    /**
     * Whole watch lines sent before the broken one.
     *
     * @default {0}
     */
    afterEvents?: number;
  }
  | { kind: "stall" };

/**
 * Which requests a fault matches and for how long it stays armed. Without
 * `times` or `forMs` a fault applies once. With `forMs` it applies to every
 * matching request until that much time has passed on the server's clock;
 * with both, until either runs out; with `times: Infinity`, until it is
 * cancelled.
 *
 * @example The first two LISTs of configmaps
 * ```ts
 * import type { FaultMatch } from "@haptic/k8s-watcher/testing";
 *
 * const match: FaultMatch = { verb: "list", resource: "configmaps", times: 2 };
 * ```
 */
export interface FaultMatch {
  /**
   * The kind of request.
   *
   * @default {"any"}
   */
  verb?: FaultVerb;
  /** Only requests for this resource. */
  resource?: ResourceRef;
  /** Only requests whose path names this namespace. */
  namespace?: string;
  /**
   * How many matching requests it applies to (once, unless `forMs` is
   * given): a positive integer, or `Infinity`.
   *
   * @default {1}
   */
  times?: number;
  /** How long it stays armed, in milliseconds of the server clock. */
  forMs?: number;
}

/**
 * A fault to inject with `FakeApiServer.injectFault`: which requests it
 * matches and what it does to them. (Named `Fault` in 0.2; the loop's
 * classification of what went wrong is `Fault` in `./listwatch`.)
 *
 * @example Two 503s on LIST
 * ```ts
 * import { type FakeApiFault, FakeApiServer } from "@haptic/k8s-watcher/testing";
 *
 * using server = new FakeApiServer();
 * const fault: FakeApiFault = { verb: "list", kind: "status", code: 503, retryAfterSeconds: 1, times: 2 };
 * server.injectFault(fault);
 * ```
 */
export type FakeApiFault = FaultMatch & FaultAction;

/**
 * An armed fault: how often it fired, whether it is still armed, and a way
 * to disarm it (a fault is a reactor: see {@linkcode ReactorHandle}).
 *
 * @example Cancelling a fault
 * ```ts
 * import { FakeApiServer, type FaultHandle } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * const handle: FaultHandle = server.injectFault({ verb: "get", kind: "status", code: 500 });
 * assert.equal(handle.hits, 0);
 * handle.cancel();
 * assert.equal(handle.active, false);
 * ```
 */
export type FaultHandle = ReactorHandle;
