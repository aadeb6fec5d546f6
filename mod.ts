/**
 * An indexed, in-memory view of Kubernetes resources for controllers, with
 * no dependencies, on Deno, Node (22.18 or later) and Bun.
 *
 * A {@linkcode Watcher} runs a hand-written list-then-watch loop over the
 * raw watch stream (resourceVersion resumption, bookmarks, relists after
 * 410 Gone, backoff with `Retry-After`, idle timeouts), keeps every object
 * of a resource in a store you query by index keys, and calls you with
 * debounced batches that say which objects were created, modified and
 * deleted. A {@linkcode SingleWatcher} follows one named object, an
 * {@linkcode IndexSynchronizationTracker} says when every watched resource
 * has loaded, a {@linkcode DebounceGroup} gives one call per burst across
 * watchers, and a {@linkcode LeaderElector} lets one of several replicas
 * act.
 *
 * ## Install
 *
 * ```sh
 * deno add jsr:@haptic/k8s-watcher
 * npx jsr add @haptic/k8s-watcher    # Node 22.18 or later
 * bunx jsr add @haptic/k8s-watcher   # Bun
 * ```
 *
 * On Deno, {@linkcode FetchClient.fromEnv} needs `--allow-env --allow-read
 * --allow-net` (and `--allow-run` for an exec credential plugin).
 *
 * ## Quick start
 *
 * ```ts
 * import {
 *   FetchClient,
 *   IndexSynchronizationTracker,
 *   type KubeObject,
 *   type RestClient,
 *   Watcher,
 * } from "@haptic/k8s-watcher";
 *
 * interface Ingress extends KubeObject {
 *   spec: { ingressClassName?: string; rules?: { host?: string }[] };
 * }
 *
 * async function controller(client: RestClient, signal: AbortSignal) {
 *   const ingresses = new Watcher<Ingress>({
 *     gvr: { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
 *     indexBy: ["metadata.namespace", "metadata.name"],
 *     fieldSelector: "spec.ingressClassName=haproxy", // client-side, any path
 *     onChange: async (store, batch) => {
 *       if (batch.isInitialSync) return; // counts only; the objects are in the store
 *       for (const ingress of batch.objects.created) {
 *         console.log("new", ingress.spec.rules?.map((r) => r.host));
 *       }
 *       console.log(`${batch.total} changed, ${store.size} in all`);
 *       console.log(await store.get("shop")); // by index key prefix
 *     },
 *   }, client);
 *
 *   const tracker = new IndexSynchronizationTracker(["ingresses"]);
 *   void tracker.track("ingresses", ingresses);
 *   const running = ingresses.start(signal);
 *   console.log("synced", await tracker.synchronized);
 *   await running; // until the signal aborts
 * }
 *
 * // In a program (KUBECONFIG, ~/.kube/config or in-cluster):
 * // await controller(FetchClient.fromEnv(), signal);
 * ```
 *
 * ## What the root exports
 *
 * What a controller uses: the watchers ({@linkcode Watcher},
 * {@linkcode SingleWatcher}, their configs, {@linkcode WatcherOptions},
 * {@linkcode WatcherHealth}, the shared {@linkcode WatcherBase}), change
 * batches ({@linkcode ChangeBatch}, {@linkcode DebounceGroup},
 * {@linkcode mergeChangeBatches}), the sync tracker, the stores and the
 * {@linkcode Store} types, the clients ({@linkcode FetchClient},
 * {@linkcode RestClient}), the errors worth catching, the objects' types
 * and the loggers.
 *
 * ## Subpath modules
 *
 * Each folder is also a module of its own, with everything it exports
 * (the root's names included):
 *
 * | module | what |
 * | --- | --- |
 * | [`@haptic/k8s-watcher/watcher`](https://jsr.io/@haptic/k8s-watcher/doc/watcher) | the watchers, batches, `DebounceGroup`, and the `Debouncer` they are built on |
 * | [`@haptic/k8s-watcher/listwatch`](https://jsr.io/@haptic/k8s-watcher/doc/listwatch) | the list-then-watch loop `ListWatch`, its pure state table, `Backoff` |
 * | [`@haptic/k8s-watcher/client`](https://jsr.io/@haptic/k8s-watcher/doc/client) | `FetchClient` and its options, URL paths, `httpStatusOf`, `readJsonLines` |
 * | [`@haptic/k8s-watcher/selection`](https://jsr.io/@haptic/k8s-watcher/doc/selection) | JSONPath-lite, `Indexer`, field and label selectors |
 * | [`@haptic/k8s-watcher/store`](https://jsr.io/@haptic/k8s-watcher/doc/store) | `MemoryStore`, `CachedStore`, their options and errors |
 * | [`@haptic/k8s-watcher/indextracker`](https://jsr.io/@haptic/k8s-watcher/doc/indextracker) | `IndexSynchronizationTracker`, `SyncSource`, its errors |
 * | [`@haptic/k8s-watcher/leaderelection`](https://jsr.io/@haptic/k8s-watcher/doc/leaderelection) | `LeaderElector`, its options and health |
 * | [`@haptic/k8s-watcher/types`](https://jsr.io/@haptic/k8s-watcher/doc/types), [`/clock`](https://jsr.io/@haptic/k8s-watcher/doc/clock), [`/logger`](https://jsr.io/@haptic/k8s-watcher/doc/logger) | shared types, the injectable `Clock`, loggers |
 * | [`@haptic/k8s-watcher/testing`](https://jsr.io/@haptic/k8s-watcher/doc/testing) | `FakeApiServer`, `mockFetch`, `FakeClock`, `RecordingLogger`: tests without a cluster |
 *
 * The README covers the rest: connecting to a cluster (kubeconfig
 * features, exec plugins, in-cluster), testing a controller with the fake
 * API server, the behaviour under every fault, running several replicas,
 * and performance.
 *
 * ## Files
 *
 * The root's own files, below every folder but `metrics/`; what several folders
 * share sits here, its private helpers in `_internal/`:
 * - `types.ts`, `clock.ts`, `logger.ts`: one-file modules: the shared public
 *   types (objects, stores, `ChangeStats`), the injectable `Clock`, the
 *   loggers.
 * - `config_error.ts`: `WatcherConfigError`, thrown by the loop, the watchers
 *   and the debouncers (exported by `./watcher` and here).
 * - `_internal/_option_checks.ts`: the checks options go through: the names an
 *   options object does not take, in one wording; the longest delay a timer
 *   can wait (2³¹−1 ms), the checks every duration and count option goes
 *   through, the default idle timeout; the option checks the loop and the
 *   watchers share (`gvr`, sizes, durations, `initialList`); the loop's
 *   timeouts, one list of names (`LOOP_TIMEOUTS`) the watchers check, copy
 *   and compare them by.
 * - `_internal/_time.ts`: timers on a clock the wall clock cannot move (the
 *   default of the loop, the elector and the health endpoints), a
 *   clock-driven delay; the timing rules of every Lease holder (the elector,
 *   the shard ring's members: client-go's, one check) and the MicroTime it
 *   writes.
 * - `_internal/_logging.ts`: who speaks: the fields a watcher or the elector
 *   adds to each of its lines, a failure's stack; a logger wrapper that
 *   swallows the logger's own failures; a log line as data (level, message,
 *   fields) and writing it (each module words its own lines).
 * - `_internal/_lifecycle.ts`: start once, stop once (the watchers, the
 *   elector), a `stop()` from inside an own callback; which callbacks (a
 *   watcher's, a group's, an elector's) the running code is inside of, on
 *   `AsyncLocalStorage`; running a user callback without letting it throw.
 * - `_internal/_metrics.ts`: what every component's metrics share: instruments
 *   made once per meter, labels, buckets, the client's meter as the default.
 * - `_internal/_objects.ts`: the metadata-only `Accept` headers and the
 *   reduction of an object to its metadata (the loop, the watchers, the
 *   fake); freezing an object and all it holds (`MemoryStore`'s `freeze`, the
 *   watchers' `freezeObjects`); a field value as selectors and index keys
 *   compare it; KEP-5866's hash (FNV-1a 64, in 16-bit limbs): the shard
 *   ring's ranges and the fake's `shardSelector`.
 * - `_internal/_json.ts`: from a body's bytes to a value: its chunks copied as they come;
 *   `JSON.parse` that keeps resourceVersions out of V8's string table; cutting
 *   ignored members out of a watch line or LIST body before `JSON.parse`,
 *   exactly, or not at all (see the file).
 * - `_internal/_node_builtin.ts`: loading a `node:` built-in at run time.
 *
 * @module
 */
export type {
  ChangeStats,
  Gvr,
  KubeObject,
  Logger,
  ObjectMeta,
  PartialObjectMetadata,
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
