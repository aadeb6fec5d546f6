/**
 * {@linkcode IndexSynchronizationTracker}: waits until every watched
 * resource has finished its initial sync, then resolves once with every
 * count. Any {@linkcode SyncSource} can be tracked (both watchers are
 * one); its errors say which resource is missing and why.
 *
 * The root module exports the tracker and {@linkcode SyncAbortedError};
 * import from here for `SyncSource`, the options and the other errors.
 *
 * @example Marking a resource synced by hand
 * ```ts
 * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
 *
 * const tracker = new IndexSynchronizationTracker(["ingresses"]);
 * tracker.markSynced("ingresses", 3);
 * console.log(await tracker.synchronized);
 * ```
 *
 * ## Files
 *
 * - `index_synchronization_tracker.ts`: one promise for "every named resource
 *   synced"; the tracker's errors, `TrackerConfigError` too.
 *
 * @module
 */
export * from "./index_synchronization_tracker.ts";
