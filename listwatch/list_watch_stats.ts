import type { ListWatchFailure } from "./list_watch_options.ts";

/**
 * What one list-then-watch loop has counted since it was built: the one
 * record `health()`, the metrics and the log lines read.
 *
 * @example Relists per list
 * ```ts
 * import type { ListWatchCounts } from "@haptic/k8s-watcher/listwatch";
 *
 * function relistShare(c: ListWatchCounts): number {
 *   return c.lists === 0 ? 0 : c.relists / c.lists;
 * }
 * ```
 */
export interface ListWatchCounts {
  /** Complete lists delivered, the first one included. */
  readonly lists: number;
  /** Lists after the first one (410 Gone, too large resourceVersion, …). */
  readonly relists: number;
  /** LIST pages received (a streamed initial list is one page). */
  readonly listPages: number;
  /** Watch requests the server answered with a stream. */
  readonly watches: number;
  /**
   * Watches resumed from an earlier resourceVersion (after a stream ended,
   * broke or went idle); watches started from a (re)list do not count.
   */
  readonly reconnects: number;
  /** ADDED, MODIFIED and DELETED events received (bookmarks not counted). */
  readonly events: number;
  /** BOOKMARK events received. */
  readonly bookmarks: number;
  /** Failed LIST and watch requests (410 Gone included). */
  readonly requestErrors: number;
  /** Waits before a retry. */
  readonly backoffs: number;
}

/**
 * A loop's counts and times, read by `ListWatch.stats`.
 *
 * @example Seconds since the loop last heard from the server
 * ```ts
 * import type { ListWatchStats } from "@haptic/k8s-watcher/listwatch";
 *
 * function silentFor(s: ListWatchStats, now: number): number | undefined {
 *   return s.lastActivityTime === undefined
 *     ? undefined
 *     : (now - s.lastActivityTime) / 1000;
 * }
 * ```
 */
export interface ListWatchStats extends ListWatchCounts {
  /** When the latest watch event (bookmarks included) arrived. */
  readonly lastEventTime: number | undefined;
  /**
   * When the loop last heard from the server: an event, a bookmark, a
   * complete list or a watch opened, on the loop's clock.
   */
  readonly lastActivityTime: number | undefined;
  /** The last failure that was retried, and when; kept after recovery. */
  readonly lastError: ListWatchFailure | undefined;
}
