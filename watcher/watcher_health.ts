import type { ListWatchFailure } from "./list_watch_options.ts";

/**
 * A snapshot of a watcher's state, for health endpoints: the same for the
 * bulk `Watcher` and the `SingleWatcher`.
 *
 * @example
 * ```ts
 * import type { WatcherHealth } from "@haptic/k8s-watcher";
 *
 * function healthy(h: WatcherHealth, now: number): boolean {
 *   return h.synced && (h.lastError === undefined || now - h.lastError.time > 60_000);
 * }
 * ```
 */
export interface WatcherHealth {
  /** The initial list is in. */
  readonly synced: boolean;
  /** The last resourceVersion seen (list, event or bookmark). */
  readonly resourceVersion: string | undefined;
  /** Objects held: in the store, or 0 or 1 for a `SingleWatcher`. */
  readonly objects: number;
  /** Lists after the first one (410 Gone, too large resourceVersion, …). */
  readonly relists: number;
  /**
   * Watches resumed from an earlier resourceVersion (after a stream ended,
   * broke or went idle); watches started from a (re)list do not count.
   */
  readonly reconnects: number;
  /** ADDED, MODIFIED and DELETED events received (bookmarks not counted). */
  readonly events: number;
  /** When the last watch event arrived, on the watcher's clock. */
  readonly lastEventTime: number | undefined;
  /** The last failure the loop retried, and when. */
  readonly lastError: ListWatchFailure | undefined;
}
