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
