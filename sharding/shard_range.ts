/**
 * Hash ranges: what a shard owns, and how the API server is asked for it.
 *
 * @module
 */

/**
 * A half-open range `[start, end)` of the 64-bit FNV-1a hash space
 * `[0, 2⁶⁴)`, as KEP-5866's `shardRange()` reads it.
 *
 * @example The lower half
 * ```ts
 * import type { ShardRange } from "@haptic/k8s-watcher/sharding";
 *
 * const lower: ShardRange = { start: 0n, end: 1n << 63n };
 * ```
 */
export interface ShardRange {
  /** The first hash in the range. */
  readonly start: bigint;
  /** The first hash after it (at most 2⁶⁴). */
  readonly end: bigint;
}

/**
 * Which field an object is hashed by: its `metadata.uid` (objects spread
 * evenly; the default) or its `metadata.namespace` (a namespace's objects
 * stay together, and a cluster-scoped object hashes the empty string).
 *
 * @example By namespace
 * ```ts
 * import type { ShardBy } from "@haptic/k8s-watcher/sharding";
 *
 * const by: ShardBy = "namespace";
 * ```
 */
export type ShardBy = "uid" | "namespace";

/** 2⁶⁴: the end of the hash space. */
export const HASH_SPACE_END: bigint = 1n << 64n;

function hex(value: bigint): string {
  return "0x" + value.toString(16).padStart(16, "0");
}

/**
 * The `shardSelector` query parameter asking kube-apiserver (1.36 and
 * later, with the `ShardedListAndWatch` feature gate) for the objects whose
 * hash is in `ranges`: `shardRange(object.metadata.uid, '0x…', '0x…')`,
 * joined by ` || `. Bounds are written with 16 hex digits, which the server
 * requires; the end of the space is `0x10000000000000000`.
 *
 * @example A replica's half, as a query parameter
 * ```ts
 * import { shardSelector } from "@haptic/k8s-watcher/sharding";
 *
 * const selector = shardSelector([{ start: 0n, end: 1n << 63n }], "uid");
 * // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 * new URLSearchParams({ shardSelector: selector });
 * ```
 *
 * @param ranges The ranges, each non-empty.
 * @param by The field hashed.
 * @returns The selector, or `""` for no ranges (nothing to ask for).
 */
export function shardSelector(
  ranges: readonly ShardRange[],
  by: ShardBy,
): string {
  return ranges.map((r) =>
    `shardRange(object.metadata.${by}, '${hex(r.start)}', '${hex(r.end)}')`
  ).join(" || ");
}
