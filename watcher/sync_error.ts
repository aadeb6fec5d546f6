/**
 * Rejects {@linkcode Watcher.waitForSync} (and the single watcher's) when
 * the wait was aborted or the watcher stopped first. When the loop had
 * failed, `cause` is that failure (a 403, a missing CRD, …), and the message
 * says so.
 *
 * @example A sync that did not come
 * ```ts
 * import { WatcherSyncError } from "@haptic/k8s-watcher";
 *
 * const err = new WatcherSyncError("ingresses", "the wait was aborted", new Error("403 Forbidden"));
 * console.log(err.message);
 * ```
 */
export class WatcherSyncError extends Error {
  /** The resource that did not sync. */
  readonly resource: string;

  /**
   * Creates the error; the message names the resource and the last failure.
   *
   * @example A timed-out wait with the loop's last failure
   * ```ts
   * import { WatcherSyncError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new WatcherSyncError("ingresses", "the wait was aborted", new Error("403 Forbidden"));
   * assert.equal(err.resource, "ingresses");
   * assert.match(err.message, /403 Forbidden/);
   * ```
   *
   * @param resource The resource that did not sync.
   * @param why Why the wait ended.
   * @param lastError The loop's last failure, if any.
   */
  constructor(resource: string, why: string, lastError?: unknown) {
    const last = lastError === undefined
      ? ""
      : `; last error: ${
        lastError instanceof Error ? lastError.message : String(lastError)
      }`;
    super(`Watcher for ${resource} did not sync: ${why}${last}`, {
      cause: lastError,
    });
    this.name = "WatcherSyncError";
    this.resource = resource;
  }
}
