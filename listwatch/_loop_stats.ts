/**
 * The one record of what a loop counted (`ListWatchStats`), and the sum of
 * several loops' (a watcher with `namespaces`). Adding a count: a field in
 * `ListWatchCounts`, its zero below, and the line that counts it.
 *
 * @module
 */
import type { ListWatchFailure } from "./list_watch_options.ts";
import type { ListWatchCounts, ListWatchStats } from "./list_watch_stats.ts";

/** Every count at zero; typed so that a count missing here does not compile. */
export const ZERO_COUNTS: Readonly<Record<keyof ListWatchCounts, 0>> = Object
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

/** A loop's record: written by its driver only. */
export class LoopStats implements ListWatchStats {
  lists = 0;
  relists = 0;
  listPages = 0;
  watches = 0;
  reconnects = 0;
  events = 0;
  bookmarks = 0;
  requestErrors = 0;
  backoffs = 0;
  lastEventTime: number | undefined = undefined;
  lastActivityTime: number | undefined = undefined;
  lastError: ListWatchFailure | undefined = undefined;
}

/** The counts of `records` added up, and their latest times. */
export function sumStats(
  records: readonly ListWatchStats[],
): Omit<ListWatchStats, "lastError"> {
  const sum: Record<keyof ListWatchCounts, number> = { ...ZERO_COUNTS };
  let lastEventTime: number | undefined;
  let lastActivityTime: number | undefined;
  for (const record of records) {
    for (const name of COUNT_NAMES) sum[name] += record[name];
    lastEventTime = latest(lastEventTime, record.lastEventTime);
    lastActivityTime = latest(lastActivityTime, record.lastActivityTime);
  }
  return { ...sum, lastEventTime, lastActivityTime };
}

function latest(a: number | undefined, b: number | undefined) {
  return a === undefined || (b !== undefined && b > a) ? b : a;
}
