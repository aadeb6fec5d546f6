/**
 * The watchers, their list-then-watch loop, and the debouncer.
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
export * from "./list_watch.ts";
export * from "./list_watch_options.ts";
export * from "./list_watch_state.ts";
export * from "./list_watch_types.ts";
export * from "./list_watch_notes.ts";
export * from "./list_watch_errors.ts";
export * from "./backoff.ts";
export * from "./debounce_group.ts";
