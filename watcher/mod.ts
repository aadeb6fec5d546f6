/**
 * The watchers, what they share, their change batches, the debouncer and
 * debounce groups.
 *
 * @module
 */
export * from "./bulk.ts";
export * from "./single.ts";
export * from "./watcher_base.ts";
export * from "./watcher_health.ts";
export * from "./watcher_config.ts";
export * from "./sync_error.ts";
export * from "./debouncer.ts";
export * from "./change_stats.ts";
export * from "./change_batch.ts";
export * from "./watcher_stopped_error.ts";
export * from "./debounce_group.ts";
