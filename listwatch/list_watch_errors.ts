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
