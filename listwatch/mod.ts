/**
 * The list-then-watch loop both watchers run: {@linkcode ListWatch} (the
 * driver), the pure state table {@linkcode listWatchTransition} it is
 * driven by, its states, inputs, outputs, commands and typed reasons, and
 * {@linkcode Backoff}.
 *
 * @module
 */
export * from "./list_watch.ts";
export * from "./list_watch_options.ts";
export * from "./list_watch_state.ts";
export * from "./list_watch_types.ts";
export * from "./list_watch_notes.ts";
export * from "./list_watch_errors.ts";
export * from "./backoff.ts";
