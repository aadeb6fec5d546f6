/**
 * Ranges as people read them in logs and health: `0x0000…-0x8000…`, and
 * the share of the hash space they cover.
 *
 * @module
 */
import { HASH_SPACE_END, type ShardRange } from "./shard_range.ts";

/** `[start, end)` ranges as `0x…-0x…` joined by commas; `none` for none. */
export function rangesText(ranges: readonly ShardRange[]): string {
  if (ranges.length === 0) return "none";
  const hex = (v: bigint) => "0x" + v.toString(16).padStart(16, "0");
  return ranges.map((r) => `${hex(r.start)}-${hex(r.end)}`).join(",");
}

/** The share of the hash space `ranges` cover, in `[0, 1]`. */
export function shareOf(ranges: readonly ShardRange[]): number {
  let sum = 0n;
  for (const r of ranges) sum += r.end - r.start;
  return Number((sum * 1_000_000n) / HASH_SPACE_END) / 1_000_000;
}
