import type { ChangeStats } from "../types.ts";

/**
 * The counts {@linkcode changeStats} builds a {@linkcode ChangeStats} from.
 * Missing counts are zero; `isInitialSync` defaults to `false`.
 *
 * @example The counts of an initial list
 * ```ts
 * import type { ChangeStatsInit } from "@haptic/k8s-watcher/watcher";
 *
 * const init: ChangeStatsInit = { created: 3, isInitialSync: true };
 * ```
 */
export interface ChangeStatsInit {
  /**
   * Objects added to the store.
   *
   * @default {0}
   */
  created?: number;
  /**
   * Objects replaced in the store.
   *
   * @default {0}
   */
  modified?: number;
  /**
   * Objects removed from the store.
   *
   * @default {0}
   */
  deleted?: number;
  /**
   * Whether the batch belongs to the initial list.
   *
   * @default {false}
   */
  isInitialSync?: boolean;
}

/**
 * Builds a frozen {@linkcode ChangeStats}, deriving `total` and `isEmpty`.
 *
 * @example Counts with a total
 * ```ts
 * import { changeStats } from "@haptic/k8s-watcher/watcher";
 * import assert from "node:assert/strict";
 *
 * const stats = changeStats({ created: 2, deleted: 1 });
 * assert.equal(stats.total, 3);
 * assert.equal(stats.isEmpty, false);
 * assert.equal(stats.isInitialSync, false);
 * assert.ok(Object.isFrozen(stats));
 * ```
 *
 * @param init The counts; each must be a non-negative integer.
 * @returns The frozen statistics.
 * @throws {RangeError} When a count is negative, fractional or not a number.
 */
export function changeStats(init?: ChangeStatsInit): ChangeStats {
  if (init === undefined) init = {};
  const created = count("created", init.created);
  const modified = count("modified", init.modified);
  const deleted = count("deleted", init.deleted);
  const total = created + modified + deleted;
  return Object.freeze({
    created,
    modified,
    deleted,
    isInitialSync: init.isInitialSync ?? false,
    total,
    isEmpty: total === 0,
  });
}

function count(field: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Change count "${field}" must be a non-negative integer, got ${value}`,
    );
  }
  return value;
}
