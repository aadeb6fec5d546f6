/**
 * What the state table (`_list_watch_transition.ts`) puts on the wire and
 * reads back, pure like the table: the query of each request it asks for (a
 * LIST page, a watch, the initial list streamed as events), and the checks
 * of what the server sent (a LIST answer's parts, an event's type, an
 * object's metadata).
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import type { ListingState, ListWatchContext } from "./_transition_types.ts";

/** Watch `timeoutSeconds` is drawn from this range, as client-go does. */
const MIN_WATCH_SECONDS = 300;
const MAX_WATCH_SECONDS = 600;

// --- Queries -----------------------------------------------------------------

export function listQuery(
  state: ListingState,
  context: ListWatchContext,
): URLSearchParams {
  const query = new URLSearchParams();
  if (state.paginate) query.set("limit", String(context.pageSize));
  if (state.continueToken !== undefined) {
    query.set("continue", state.continueToken);
  }
  addSelectors(query, context);
  return query;
}

/**
 * A watch from `resourceVersion`, or, when it is `undefined`, the initial
 * list streamed as events (`sendInitialEvents`) before the watch goes on.
 */
export function watchQuery(
  resourceVersion: string | undefined,
  context: ListWatchContext,
): URLSearchParams {
  const query = new URLSearchParams();
  query.set("watch", "1");
  if (resourceVersion === undefined) {
    query.set("sendInitialEvents", "true");
    query.set("resourceVersionMatch", "NotOlderThan");
  } else {
    query.set("resourceVersion", resourceVersion);
  }
  query.set("allowWatchBookmarks", "true");
  addSelectors(query, context);
  query.set("timeoutSeconds", String(watchSeconds(context)));
  return query;
}

function addSelectors(query: URLSearchParams, context: ListWatchContext): void {
  if (context.labelSelector) query.set("labelSelector", context.labelSelector);
  if (context.fieldSelector) query.set("fieldSelector", context.fieldSelector);
  const shard = context.shardSelector;
  if (shard) query.set("shardSelector", shard);
}

/** Random in [300, 600] so that many watchers do not reconnect in step. */
function watchSeconds(context: ListWatchContext): number {
  const span = MAX_WATCH_SECONDS - MIN_WATCH_SECONDS;
  return Math.min(
    MAX_WATCH_SECONDS,
    MIN_WATCH_SECONDS + Math.floor(context.random() * (span + 1)),
  );
}

export function urlOf(path: string, query: URLSearchParams): string {
  const qs = query.toString();
  return qs === "" ? path : `${path}?${qs}`;
}

// --- What the server sent: a LIST answer, an event's type, metadata ----------

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function hasMetadata(value: unknown): value is KubeObject {
  return isRecord(value) && isRecord(value.metadata);
}

/** Whether `type` is a watch event type (`ERROR` aside). */
export function isEventType(type: unknown): boolean {
  return type === "ADDED" || type === "MODIFIED" || type === "DELETED" ||
    type === "BOOKMARK";
}

/** `value` when it is a non-empty string, else `fallback`. */
export function stringOr<T extends string | undefined>(
  value: unknown,
  fallback: T,
): string | T {
  return typeof value === "string" && value !== "" ? value : fallback;
}

/** A LIST answer's parts, as the machine needs them. */
export interface ListAnswer {
  /** The items with metadata: the answer's own array when all have it. */
  items: KubeObject[];
  /** How many items had no metadata and were left out. */
  skipped: number;
  resourceVersion: string;
  /** The token of the next page, when there is one. */
  continueToken: string | undefined;
  /**
   * `metadata.shardInfo.selector`: the shard selector the server applied
   * (kube-apiserver with `ShardedListAndWatch`); absent from a server that
   * ignored the parameter.
   */
  shardSelector: string | undefined;
}

/** The parts of a LIST answer, or what is wrong with it. */
export function readListAnswer(list: unknown): ListAnswer | string {
  if (!isRecord(list)) return "it is not an object";
  const items = list.items ?? [];
  if (!Array.isArray(items)) return "its items are not an array";
  const meta = isRecord(list.metadata) ? list.metadata : {};
  const resourceVersion = stringOr(meta.resourceVersion, undefined);
  if (resourceVersion === undefined) {
    return "it has no metadata.resourceVersion";
  }
  let skipped = 0;
  for (const item of items) if (!hasMetadata(item)) skipped++;
  return {
    // The answer's array is ours: adopted rather than copied.
    items: skipped === 0 ? items : items.filter(hasMetadata),
    skipped,
    resourceVersion,
    continueToken: stringOr(meta.continue, undefined),
    shardSelector: isRecord(meta.shardInfo)
      ? stringOr(meta.shardInfo.selector, undefined)
      : undefined,
  };
}
