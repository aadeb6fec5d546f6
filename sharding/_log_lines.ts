/**
 * Every log line of a shard ring: level, wording, fields; its ranges as
 * people read them, `0x0000…-0x8000…`.
 *
 * @module
 */
import type { Logger } from "../types.ts";
import type { ShardRange } from "./shard_range.ts";
import type { ShardRingState } from "./shard_ring_config.ts";

/** The ring's lines, one function each. */
export const ringLines = {
  changed(logger: Logger, state: ShardRingState): void {
    logger.info("Shard ring changed", {
      members: state.members.join(","),
      assigned: rangesText(state.assigned),
      permitted: rangesText(state.permitted),
    });
  },
  handOffWaiting(logger: Logger, members: readonly string[]): void {
    logger.debug("Shard ring hand-off: waiting for the work on moved keys", {
      members: members.join(","),
    });
  },
  renewFailed(logger: Logger, error: unknown): void {
    logger.warn("Shard Lease renewal failed", { error });
  },
  listFailed(logger: Logger, error: unknown): void {
    logger.warn("Shard ring read failed", { error });
  },
  deadlinePassed(logger: Logger, ms: number): void {
    logger.warn(
      "Shard Lease not renewed within renewDeadlineMs: working on nothing until it is",
      { renewDeadlineMs: ms },
    );
  },
  hookFailed(logger: Logger, error: unknown): void {
    logger.error("Shard ring onChange failed", { error });
  },
  leaveFailed(logger: Logger, error: unknown): void {
    logger.warn(
      "Shard Lease not deleted on stop: the others take its ranges when it expires",
      { error },
    );
  },
};

/** `[start, end)` ranges as `0x…-0x…` joined by commas; `none` for none. */
function rangesText(ranges: readonly ShardRange[]): string {
  if (ranges.length === 0) return "none";
  const hex = (v: bigint) => "0x" + v.toString(16).padStart(16, "0");
  return ranges.map((r) => `${hex(r.start)}-${hex(r.end)}`).join(",");
}
