/**
 * The errors of a watcher's run: a call made before `start()`
 * ({@linkcode WatcherNotStartedError}), a call on a stopped watcher
 * ({@linkcode WatcherStoppedError}), a sync wait that ended first
 * ({@linkcode WatcherSyncError}). A config a watcher refuses is a
 * `WatcherConfigError`.
 *
 * @module
 */

/**
 * Rejects a call that needs a running watcher, made before `start()`:
 * `forceSync()` has nothing to deliver then.
 *
 * @example forceSync() before start()
 * ```ts
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { WatcherNotStartedError } from "@haptic/k8s-watcher/watcher";
 * import assert from "node:assert/strict";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * const watcher = new Watcher({
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   indexBy: ["metadata.name"],
 *   onChange: () => {},
 * }, client);
 * await assert.rejects(watcher.forceSync(), WatcherNotStartedError);
 * ```
 */
export class WatcherNotStartedError extends Error {
  /** The watched resource, e.g. `ingresses.networking.k8s.io`. */
  readonly resource: string;
  /** The call that needed a running watcher, e.g. `forceSync()`. */
  readonly call: string;

  /**
   * Creates the error; the message names the call and the resource.
   *
   * @example Naming the call
   * ```ts
   * import { WatcherNotStartedError } from "@haptic/k8s-watcher/watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new WatcherNotStartedError("configmaps", "forceSync()");
   * assert.equal(err.call, "forceSync()");
   * ```
   *
   * @param resource The watched resource.
   * @param call The call that needed a running watcher.
   */
  constructor(resource: string, call: string) {
    super(
      `${call} on the watcher for ${resource}, which was not started: call start() first`,
    );
    this.name = "WatcherNotStartedError";
    this.resource = resource;
    this.call = call;
  }
}

/**
 * Thrown by `start()` on a watcher that was stopped: a stopped watcher
 * cannot be restarted (its store, batches and sync state belong to the run
 * that ended); create a new watcher instead. `waitForSync()` and
 * `forceSync()` called after `stop()` reject with it too.
 *
 * @example Restarting means a new watcher
 * ```ts
 * import { Watcher, WatcherStoppedError } from "@haptic/k8s-watcher";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * const config = {
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   indexBy: ["metadata.name"],
 *   onChange: () => {},
 * };
 * const client = new FetchClient({ server: server.url });
 * const watcher = new Watcher(config, client);
 * watcher.start();
 * await watcher.stop();
 * assert.throws(() => watcher.start(), WatcherStoppedError);
 * const again = new Watcher(config, client); // what to do instead
 * again.start();
 * await again.stop();
 * ```
 */
export class WatcherStoppedError extends Error {
  /** The watched resource, e.g. `ingresses.networking.k8s.io`. */
  readonly resource: string;

  /**
   * Creates the error; the message names the resource.
   *
   * @example Naming the resource
   * ```ts
   * import { WatcherStoppedError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new WatcherStoppedError("ingresses.networking.k8s.io");
   * assert.equal(err.resource, "ingresses.networking.k8s.io");
   * ```
   *
   * @param resource The watched resource.
   * @param call What was asked of the stopped watcher, when not `start()`:
   * `waitForSync()` (no sync to wait for) or `forceSync()` (nothing to
   * deliver).
   */
  constructor(
    resource: string,
    call?: "waitForSync()" | "forceSync()",
  ) {
    super(
      call === "waitForSync()"
        ? `Watcher for ${resource} was stopped: waitForSync() has no sync to wait for; create a new watcher`
        : call === "forceSync()"
        ? `Watcher for ${resource} was stopped: forceSync() has nothing to deliver; create a new watcher`
        : `Watcher for ${resource} was stopped and cannot be restarted; create a new watcher`,
    );
    this.name = "WatcherStoppedError";
    this.resource = resource;
  }
}

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
