/**
 * `@haptic/k8s-watcher` keeps an indexed, in-memory view of Kubernetes
 * resources through list-then-watch loops over the raw watch stream, and
 * tells its user about changes in debounced batches.
 *
 * @module
 */
export * from "./types.ts";
export * from "./clock.ts";
export * from "./logger.ts";
export * from "./client/mod.ts";
export * from "./indexer/mod.ts";
export * from "./store/mod.ts";
export * from "./indextracker/mod.ts";
export * from "./watcher/mod.ts";
export * from "./leaderelection/mod.ts";
