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
   * chunk of a LIST body or a watch opened, on the loop's clock.
   */
  readonly lastActivityTime: number | undefined;
  /**
   * When the latest wait before a retry ends (or ended), on the loop's
   * clock: a loop waiting out a backoff or a `Retry-After` is not silent.
   */
  readonly retryAt?: number | undefined;
  /** The last failure that was retried, and when; kept after recovery. */
  readonly lastError: ListWatchFailure | undefined;
}

/** Every count at zero; typed so that a count missing here does not compile. */
const ZERO_COUNTS: Readonly<Record<keyof ListWatchCounts, 0>> = Object
  .freeze({
    lists: 0,
    relists: 0,
    listPages: 0,
    watches: 0,
    reconnects: 0,
    events: 0,
    bookmarks: 0,
    requestErrors: 0,
    backoffs: 0,
  });

const COUNT_NAMES = Object.keys(ZERO_COUNTS) as (keyof ListWatchCounts)[];

/**
 * The counts of several loops' records added up, and their latest times:
 * what a watcher with `namespaces` reports for its loops together.
 *
 * @example Two loops' records as one
 * ```ts
 * import { sumListWatchStats, type ListWatchStats } from "@haptic/k8s-watcher/listwatch";
 * import assert from "node:assert/strict";
 *
 * const zero = sumListWatchStats([]);
 * const a: ListWatchStats = { ...zero, events: 2, lastActivityTime: 10, lastError: undefined };
 * const b: ListWatchStats = { ...zero, events: 3, lastActivityTime: 20, retryAt: 25, lastError: undefined };
 * const sum = sumListWatchStats([a, b]);
 * assert.equal(sum.events, 5);
 * assert.equal(sum.lastActivityTime, 20);
 * ```
 *
 * @param records The loops' records (`ListWatch.stats`).
 * @returns Their counts summed, the latest of their times.
 */
export function sumListWatchStats(
  records: readonly ListWatchStats[],
): Omit<ListWatchStats, "lastError"> {
  const sum: Record<keyof ListWatchCounts, number> = { ...ZERO_COUNTS };
  let lastEventTime: number | undefined;
  let lastActivityTime: number | undefined;
  let retryAt: number | undefined;
  for (const record of records) {
    for (const name of COUNT_NAMES) sum[name] += record[name];
    lastEventTime = latest(lastEventTime, record.lastEventTime);
    lastActivityTime = latest(lastActivityTime, record.lastActivityTime);
    retryAt = latest(retryAt, record.retryAt);
  }
  return { ...sum, lastEventTime, lastActivityTime, retryAt };
}

function latest(
  a: number | undefined,
  b: number | undefined,
): number | undefined {
  return a === undefined || (b !== undefined && b > a) ? b : a;
}
