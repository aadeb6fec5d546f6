import type { ListWatchFailure } from "../listwatch/list_watch_types.ts";
import type { WatcherHealth } from "./watcher_health.ts";
import { provideCoreSlot, type WatcherCore } from "./_watcher_core.ts";

/**
 * What the bulk `Watcher` and the `SingleWatcher` have in common: starting,
 * stopping, waiting for the initial sync, the last error and the health
 * snapshot. `Synced` is what the initial sync resolves with (the number of
 * objects: stored for a `Watcher`, 0 or 1 for a `SingleWatcher`). Code that only
 * starts, stops and checks watchers can take either as a `WatcherBase`.
 *
 * @example Checking every watcher of a controller alike
 * ```ts
 * import type { WatcherBase } from "@haptic/k8s-watcher";
 *
 * function unhealthy(watchers: WatcherBase<unknown>[]): number {
 *   return watchers.filter((w) => !w.isSynced() || w.lastError() !== undefined).length;
 * }
 * ```
 */
export abstract class WatcherBase<Synced> {
  /** Set once, by the core the subclass builds in its constructor. */
  #core: WatcherCore<Synced> | undefined;

  static {
    provideCoreSlot((watcher, core) => {
      (watcher as WatcherBase<unknown>).#core = core;
    });
  }

  /** The core of a watcher built with one. */
  #ready(): WatcherCore<Synced> {
    const core = this.#core;
    if (core === undefined) throw new Error("This watcher has no core");
    return core;
  }

  /**
   * Starts listing and watching. Resolves once the watcher is stopped (by
   * `stop()` or `signal`); it never rejects for transient faults, which are
   * retried. Calling it again while it runs returns the same promise. A
   * stopped watcher cannot be started again: create a new one.
   *
   * @example Running until a signal aborts
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * const controller = new AbortController();
   * const running = watcher.start(controller.signal);
   * await watcher.waitForSync();
   * controller.abort(); // e.g. on SIGTERM
   * await running; // resolves once stopped
   * assert.equal(watcher.health().state, "stopped");
   * ```
   *
   * @param signal Stops the watcher when aborted.
   * @returns A promise that settles when the watcher has stopped.
   * @throws {WatcherStoppedError} When the watcher was stopped (by `stop()`
   * or by the signal of an earlier `start`).
   */
  start(signal?: AbortSignal): Promise<void> {
    return this.#ready().start(signal);
  }

  /**
   * Resolves once the initial sync is done (and `onSyncComplete` ran for a
   * `SingleWatcher`): with the number of objects stored for a `Watcher`,
   * with 1 (the object exists) or 0 (it does not) for a `SingleWatcher`.
   * Rejects with a `WatcherSyncError` naming the last failure (a 403, a
   * missing CRD, …) when `signal` aborts or the watcher stops first.
   *
   * @example Waiting at most 30 seconds
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * const count = await watcher.waitForSync(AbortSignal.timeout(30_000));
   * assert.equal(count, 1);
   * await watcher.stop();
   * ```
   *
   * @param signal Gives up waiting, e.g. `AbortSignal.timeout(30_000)`.
   * @returns What the initial sync gives.
   */
  waitForSync(signal?: AbortSignal): Promise<Synced> {
    return this.#ready().waitForSync(signal);
  }

  /**
   * Whether the initial sync is done and the watcher still runs: `false`
   * once it was stopped (its view is no longer kept up to date).
   *
   * @example Before the sync, during it and after stop
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * assert.equal(watcher.isSynced(), false);
   * watcher.start();
   * await watcher.waitForSync();
   * assert.equal(watcher.isSynced(), true);
   * await watcher.stop();
   * assert.equal(watcher.isSynced(), false); // its view is no longer kept up to date
   * ```
   */
  isSynced(): boolean {
    return this.#ready().syncedAndRunning;
  }

  /**
   * Stops the loop, lets what is due be delivered, and then nothing fires
   * any more: no callback, timer or open stream remains. Idempotent.
   *
   * @example Stopping for good
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * await watcher.waitForSync();
   * await watcher.stop(); // nothing fires after this
   * await watcher.stop(); // idempotent
   * assert.throws(() => watcher.start()); // WatcherStoppedError: create a new one
   * ```
   *
   * @returns A promise that settles when everything has stopped.
   */
  stop(): Promise<void> {
    return this.#ready().stop();
  }

  /**
   * The loop's last failure (e.g. an `ApiError` with code 403) and when it
   * happened, on the watcher's clock; kept after recovery.
   *
   * @example The 403 a missing RBAC rule gives
   * ```ts
   * import { FetchClient, silentLogger, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * server.injectFault({ verb: "list", resource: "secrets", kind: "status", code: 403 });
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "secrets" },
   *   indexBy: ["metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }), { logger: silentLogger });
   * watcher.start();
   * await waitFor(() => watcher.lastError() !== undefined);
   * assert.match(String(watcher.lastError()?.error), /403/);
   * await watcher.stop();
   * ```
   */
  lastError(): ListWatchFailure | undefined {
    return this.#ready().lastError();
  }

  /**
   * A snapshot for health endpoints: sync, versions, counts, last error.
   *
   * @example A health endpoint
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * await watcher.waitForSync();
   * const health = watcher.health();
   * assert.equal(health.state, "running");
   * assert.equal(health.synced, true);
   * const body = JSON.stringify(health); // e.g. the answer of /healthz
   * assert.ok(body.length > 0);
   * await watcher.stop();
   * ```
   */
  health(): WatcherHealth {
    return this.#ready().health();
  }
}
