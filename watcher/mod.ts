/**
 * The watchers and what they deliver: {@linkcode Watcher} (every object of
 * a resource, in an indexed store, with debounced change batches),
 * {@linkcode SingleWatcher} (one named object, every change at once),
 * their shared {@linkcode WatcherBase}, configs, options and errors,
 * {@linkcode ChangeBatch} and {@linkcode DebounceGroup} (one callback
 * across watchers), and the counting {@linkcode Debouncer} with
 * {@linkcode changeStats}, for batching changes of your own.
 *
 * The root module exports everything here except `Debouncer`,
 * `DebouncerOptions`, `DebounceGroupOptions`, `DebounceGroupMember`,
 * `DebounceGroupMembers`, `DebounceGroupBatch`, `DebounceGroupBatches`,
 * `DebounceSettle`, `changeStats`, `ChangeStatsInit` and the `shard`
 * option's types (`ShardFilter`, `ShardFilterMetadata`, `ShardHealth`,
 * `ShardMode`).
 *
 * @example Debouncing changes of your own
 * ```ts
 * import { Debouncer } from "@haptic/k8s-watcher/watcher";
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const renders: number[] = [];
 * const debouncer = new Debouncer({
 *   interval: 2_000,
 *   clock,
 *   onChange: (stats) => {
 *     renders.push(stats.total);
 *   },
 * });
 * debouncer.recordUpdate(); // at once
 * await clock.tick(0);
 * debouncer.recordUpdate(); // these two wait for the interval
 * debouncer.recordUpdate();
 * await clock.tick(2_000);
 * assert.deepEqual(renders, [1, 2]);
 * await debouncer.stop();
 * ```
 *
 * @module
 */
export * from "./watcher.ts";
export * from "./single.ts";
export * from "./watcher_base.ts";
export * from "./watcher_health.ts";
export * from "./watcher_config.ts";
export * from "./sync_error.ts";
export * from "./debouncer.ts";
export * from "./change_stats.ts";
export * from "./change_batch.ts";
export * from "./merge_change_batches.ts";
export * from "./watcher_not_started_error.ts";
export * from "./watcher_stopped_error.ts";
export * from "./debounce_group.ts";
export * from "./debounce_settle.ts";
export * from "./shard_filter.ts";
