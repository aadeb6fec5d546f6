/**
 * The shape checks of what the server sends the list-then-watch machine: a
 * LIST answer's parts, a watch event's type, an object's metadata.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function hasMetadata(value: unknown): value is KubeObject {
  return typeof value === "object" && value !== null &&
    typeof (value as { metadata?: unknown }).metadata === "object" &&
    (value as { metadata?: unknown }).metadata !== null;
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
