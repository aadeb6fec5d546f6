/**
 * `@haptic/k8s-watcher` keeps an indexed, in-memory view of Kubernetes
 * resources through list-then-watch loops over the raw watch stream, and
 * tells its user about changes in debounced batches.
 *
 * @module
 */
export type {
  ChangeStats,
  Gvr,
  KubeObject,
  Logger,
  ObjectMeta,
  ReadableStore,
  Store,
} from "./types.ts";
export { consoleLogger, silentLogger } from "./logger.ts";
export {
  ApiConnectionError,
  ApiError,
  FetchClient,
  KubeConfigError,
  NoKubeConfigError,
  type RestClient,
} from "./client/mod.ts";
export { CachedStore, MemoryStore, StoreFetchError } from "./store/mod.ts";
export {
  IndexSynchronizationTracker,
  SyncAbortedError,
} from "./indextracker/mod.ts";
export {
  type ChangeBatch,
  type ChangedObjects,
  DebounceGroup,
  mergeChangeBatches,
  type ModifiedObject,
  SingleWatcher,
  type SingleWatcherConfig,
  Watcher,
  WatcherBase,
  type WatcherConfig,
  WatcherConfigError,
  type WatcherHealth,
  type WatcherOptions,
  WatcherStoppedError,
  WatcherSyncError,
} from "./watcher/mod.ts";
export {
  LeaderElector,
  type LeaderElectorConfig,
} from "./leaderelection/mod.ts";
