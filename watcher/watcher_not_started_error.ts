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
