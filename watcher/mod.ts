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
 * ## Files
 *
 * The writer, between the loop and the store:
 * - `_store_writer.ts`: the one stored copy of an object (`ObjectPreparer`:
 *   checked, `ignoreFields` removed, `transform` applied, frozen with
 *   `freezeObjects`); then each consumer's half (`StoreWriter`): selects, keys,
 *   diffs a complete list, applies events, records old and new objects.
 * - `_shared_source.ts`: one stream per form and client (a loop per namespace,
 *   the prepared objects, the views); who shares what (the running sources by
 *   form key are `watcher.ts`'s).
 * - `_source_form.ts`: the form as one value (`SourceForm`): what the source
 *   runs with, its `LoopSettings` (the loop's timeouts by their one list), and
 *   its key, field by field; the selection rule: selection reads the object as
 *   sent, keys the stored copy; when a selector joins the form; the paths
 *   `metadataOnly` lacks; what the loop may cut.
 * - `shard_filter.ts`: the `shard` option's `ShardFilter` (a
 *   `ShardRing` fits it; defined here, below `sharding/`); a source's shard:
 *   the selector of each request, the mode read from the LIST's `shardInfo`,
 *   loops held until it holds something, its changes (release, then relist).
 * - `change_batch.ts`: `ChangeBatch` and the objects it carries;
 *   `changeStats()`, a batch's counts; `mergeChangeBatches`, two batches as
 *   one (a group's `merge`); the pending batch (`BatchBuilder`), one entry per
 *   object (coalesced), taken whole as a `ChangeBatch`, taken back before newer
 *   changes when its call failed.
 * - `_log_lines.ts`: every log line of the writer and the watchers: level,
 *   wording, fields.
 *
 * The watchers:
 * - `watcher_config.ts`: `WatcherConfig`, `WatcherOptions` (the loop's
 *   timeouts by extension); the watchers' own option checks; the `store`
 *   option's backend (a memory store when none is given) and whether it
 *   shares; the named `indexes` it must keep, checked.
 * - `_watcher_plan.ts`: a `Watcher`'s options checked once into one frozen
 *   plan (`planWatcher`): loop settings, form, store, delivery rules, log
 *   contexts; the first problem a `WatcherConfigError`. The checks every kind
 *   of watcher shares (names, loop, client, logger), for a kind's own plan.
 * - `watcher.ts`, `_batch_outlet.ts`: `Watcher`, assembled from its plan: loop,
 *   writer, store and batch; the batch goes to its own scheduler or to a
 *   `DebounceGroup`; how far its delivery has got (`DeliveryWatch`: the oldest
 *   change not delivered, a call running since; health, metrics).
 * - `watcher_base.ts`: what both watchers share: the loop's
 *   feed, lifecycle, the "initial list arrived" latch `waitForSync` waits on,
 *   guarded callbacks, `lastError`, `health`.
 * - `errors.ts`: the errors of a run: `WatcherNotStartedError`, a call that
 *   needs a running watcher (`forceSync()`) made before `start()`;
 *   `WatcherStoppedError` (no restart); `WatcherSyncError`, a sync wait that
 *   ended first.
 * - `watcher_health.ts`: `WatcherHealth`, a watcher's snapshot for health
 *   endpoints.
 * - `_watcher_metrics.ts`: a watcher's (and a group's) metrics: batches,
 *   delivery wait, callback time and failures, gauges.
 * - `_debounce_scheduler.ts`: when a debounced call fires (leading edge or
 *   settle, no overlap, sync mode), whatever the batch holds; a failed batch's
 *   retry (1 s doubling to 60 s).
 * - `debounce_settle.ts`: `DebounceSettle`, the trailing rule (quiet period,
 *   maximum wait); the one check of a `settle` option and of a debounced
 *   call's timing.
 * - `debouncer.ts`: `Debouncer`, counts over the scheduler.
 * - `debounce_group.ts`: `DebounceGroup`, named member batches over the
 *   scheduler, held while a member watcher loads its list; how a watcher feeds
 *   a member; which meter a group and its member watchers share when only one
 *   of them (or the client) has one.
 * - `single.ts`: a kind of watcher in one file:
 *   `SingleWatcher`, one named object, an immediate, ordered `onChange` with
 *   the object or `null` (a failed call retried with the latest); its config
 *   (`SingleWatcherConfig`), its plan and its loop's feed; what a status-only
 *   write is.
 *
 * @module
 */
export * from "./watcher.ts";
export { SingleWatcher, type SingleWatcherConfig } from "./single.ts";
export { WatcherBase } from "./watcher_base.ts";
export * from "./watcher_health.ts";
export {
  type PathCount,
  type WatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
} from "./watcher_config.ts";
// WatcherOptions extends it: its two timeouts are documented there.
export type { ListWatchTimeouts } from "../listwatch/list_watch_types.ts";
export * from "./errors.ts";
export * from "./debouncer.ts";
export {
  type ChangeBatch,
  type ChangedObjects,
  changeStats,
  type ChangeStatsInit,
  mergeChangeBatches,
  type ModifiedObject,
} from "./change_batch.ts";
export {
  DebounceGroup,
  type DebounceGroupBatch,
  type DebounceGroupBatches,
  type DebounceGroupMember,
  type DebounceGroupMembers,
  type DebounceGroupOptions,
} from "./debounce_group.ts";
export type { DebounceSettle } from "./debounce_settle.ts";
export type {
  ShardFilter,
  ShardFilterMetadata,
  ShardHealth,
  ShardMode,
} from "./shard_filter.ts";
