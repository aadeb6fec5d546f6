import type {
  Gvr,
  IndexedStore,
  IndexKeyFunction,
  KubeObject,
  KubeObjectLike,
  Logger,
  ReadonlyFields,
  StoreReads,
} from "../types.ts";
// deno-lint-ignore no-unused-vars -- linked from the docs
import type { PartialObjectMetadata } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { LabelSelectorObject } from "../selection/label_selector.ts";
import type {
  InitialListMode,
  ListWatchTimeouts,
} from "../listwatch/list_watch_types.ts";
import type { ChangeBatch } from "./change_batch.ts";
import type { DebounceGroupMember } from "./debounce_group.ts";
import { type DebounceSettle, settleProblem } from "./debounce_settle.ts";
import { memoryStore, type StoreFactory } from "../store/memory_store.ts";
import type { ShardFilter } from "./shard_filter.ts";
import { Indexer, IndexerOptionsError } from "../selection/indexer.ts";
import { WatcherConfigError } from "../config_error.ts";
import { wrapConfigError as wrapOptionError } from "../_internal/_option_checks.ts";

// Declared at the root: `ListWatch`, below the watcher, throws it too.
export { WatcherConfigError } from "../config_error.ts";

// The checks the loop shares live at the root; the watchers import them here.
export {
  LOOP_TIMEOUT_NAMES,
  loopTimeoutsOf,
  validateDuration,
  validateGvr,
  validateInitialList,
  validateLoopTimeouts,
  validatePositive,
} from "../_internal/_option_checks.ts";

/**
 * Configuration of a bulk {@linkcode Watcher}, the TypeScript form of
 * `WatcherConfig` in haptic's Go package `pkg/k8s/watcher`: what to watch
 * and what to call. How the watcher runs (logger, clock, timeouts) goes in
 * the third argument, {@linkcode WatcherOptions}. An unknown name in either is a
 * {@linkcode WatcherConfigError}.
 *
 * `T` is the type of the stored objects: a user-defined type such as
 * `Ingress`, or what `transform` returns. `R` is how the store answers
 * reads, from the `store` backend: at once (`memoryStore()`, the default)
 * or with promises (`cachedStore()`). `I` is the `indexBy` paths as the
 * compiler sees them: a literal list types the key count of `store.get`.
 * The callbacks receive the objects as {@linkcode ReadonlyFields}.
 *
 * @example Typed ingresses, with the objects of each batch
 * ```ts
 * import type { KubeObject, WatcherConfig } from "@haptic/k8s-watcher";
 *
 * interface Ingress extends KubeObject {
 *   spec: { ingressClassName?: string; rules?: { host?: string }[] };
 * }
 *
 * const config: WatcherConfig<Ingress> = {
 *   gvr: { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   ignoreFields: ["metadata.managedFields"],
 *   onChange: (_store, batch) => {
 *     if (batch.isInitialSync) return;
 *     for (const ingress of batch.objects.created) {
 *       console.log("new hosts", ingress.spec.rules?.map((r) => r.host));
 *     }
 *   },
 * };
 * ```
 *
 * @typeParam T The stored objects.
 * @typeParam R How the store answers reads (from `store`).
 * @typeParam I The `indexBy` paths (a literal list types the key count).
 */
export interface WatcherConfig<
  T extends KubeObjectLike = KubeObject,
  R extends StoreReads = "sync",
  I extends readonly string[] = readonly string[],
> {
  /** The resource to watch. `resource` is required. */
  gvr: Gvr;
  /**
   * A name for this watcher in its log lines (the `watcher` field), beside
   * the `resource` and `namespace` (or `namespaces`) every line of a
   * watcher carries: to tell two watchers of one resource apart. The lines
   * of a stream that watchers of one form may share (`shared`) name no
   * watcher.
   */
  name?: string;
  /** JSONPath expressions whose values form each object's index keys. */
  indexBy: I;
  /**
   * Named indexes besides `indexBy`, as client-go's informers take several
   * indexers: each name with the JSONPath expressions of its keys (read from
   * the stored copy, as `indexBy`'s are), queried with
   * `store.byIndex(name, ...keys)` (exact keys or a prefix, as `get`). An
   * object lacking one of an index's paths is stored, and is in none of
   * that index's answers. Each index costs a key extraction and an index
   * update per change (bench/ANALYSIS.md). Watchers share a store only with
   * the same `indexes`; the store backend must keep them (`memoryStore()`
   * and `cachedStore()` do).
   *
   * @example Pods by namespace and name, and by node
   * ```ts
   * import type { WatcherConfig } from "@haptic/k8s-watcher";
   *
   * const config: WatcherConfig = {
   *   gvr: { group: "", version: "v1", resource: "pods" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   indexes: { byNode: ["spec.nodeName"] },
   *   onChange: (store) => console.log(store.byIndex("byNode", "node-1").length),
   * };
   * console.log(config.indexes);
   * ```
   *
   * @default {{}}
   */
  indexes?: Readonly<Record<string, readonly string[]>>;
  /**
   * JSONPath expressions removed from objects before they are stored.
   *
   * @default {[]}
   */
  ignoreFields?: readonly string[];
  /**
   * Reshapes (or drops) each object before it is stored: runs after
   * `ignoreFields` and before the index keys are taken, on list items and
   * watch events alike, with the client-side `fieldSelector` already
   * applied. Returning `undefined` drops the object (a stored version of
   * it is deleted, and counted so). A throw skips that object with one
   * error log naming it; its stored version, if any, stays. The result
   * must keep the object's `metadata.namespace` and `metadata.name`; do
   * not mutate the argument (it may share parts with other versions).
   * With `store: cachedStore()`, objects fetched on read go through it too.
   */
  transform?: (obj: KubeObject) => T | undefined;
  /** Client-side field selector over JSONPath (`path=value`, `==`, `!=`, comma = and). */
  fieldSelector?: string;
  /** Server-side label selector, as a string or a `metav1.LabelSelector` object. */
  labelSelector?: string | LabelSelectorObject;
  /**
   * Namespace to watch; `""` or absent watches all namespaces.
   *
   * @default {""}
   */
  namespace?: string;
  /**
   * Several namespaces, each with its own list-then-watch (its own
   * resourceVersion, backoff and relists) into one store; the watcher is
   * synced when every one has listed. A namespace that fails (403, say)
   * keeps retrying without disturbing the others; `health().namespaces`
   * says which. Not allowed with `namespace` or `namespacedWatch`.
   */
  namespaces?: readonly string[];
  /**
   * Fetch and keep only `apiVersion`, `kind` and `metadata` (a
   * {@linkcode PartialObjectMetadata}): LIST asks for
   * `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`,
   * WATCH for `…as=PartialObjectMetadata…`, each falling back to
   * `application/json`. Only metadata crosses the wire and is stored: for
   * controllers that need labels, annotations, owners or finalizers of
   * many objects but not their spec or status. The store holds the same
   * whatever the client does with the header: a client or server that
   * ignores it sends full objects, which the watcher reduces itself; a
   * client that cannot send it at all and says so
   * (`@cloudydeno/kubernetes-client`'s `KubectlRawRestClient`, the last
   * resort of its `autoDetectClient()`, throws "cannot include arbitrary
   * Accept header") is asked again without it, with one warning, and its
   * full objects are reduced too (only the bytes on the wire differ). That
   * package's kubeconfig-based client (in-cluster, kubeconfig, `kubectl
   * proxy`) sends the header. Type the watcher with it:
   * `new Watcher<PartialObjectMetadata>(…)`; the field selector and
   * `transform` see the reduced object.
   *
   * @default {false}
   */
  metadataOnly?: boolean;
  /**
   * Share one LIST+WATCH and one stored copy of each object with the other
   * watchers on the same client object that ask for the same objects in
   * the same form, as client-go's shared informers do. The form is: `gvr`,
   * the namespace(s), `labelSelector`, `metadataOnly`, `ignoreFields`,
   * `transform` (the same function), and what decides how the one loop
   * runs: `pageSize`, `initialList`, and the `WatcherOptions` `clock`,
   * `logger`, `random` (the same objects), `idleTimeoutMs`,
   * `firstByteTimeoutMs` and `freezeObjects`, and the field selector when the stored copies
   * may not answer it as the objects sent would (with a `transform`, or an
   * `ignoreFields` path above or below a selector path). Each watcher keeps
   * its own field selector, index, debounce or group, and callbacks, and
   * sees what it would see alone: the same batches, `onSyncComplete`
   * count and store; watchers with the same `indexBy`, `indexes` and field
   * selector share one store and index. The stream opens with the first watcher's
   * `start()` and closes with the last one's `stop()`; one started after
   * the stream synced gets the current state as its initial sync, and
   * nothing else until its `onSyncComplete` settles; a stopped watcher
   * keeps the store it had while others go on. `false` keeps a watcher to
   * itself; a `store` whose factory is not shareable (`cachedStore()`) never
   * shares. `health().shared` says whether and with how many.
   *
   * @default {true}
   */
  shared?: boolean;
  /**
   * Watch only one replica's share of the objects: a `ShardRing` from
   * `./sharding` (or any {@linkcode ShardFilter}). The same option works two
   * ways, chosen by what the API server answers:
   *
   * - **server-side**: each LIST and WATCH carries the shard's
   *   `shardSelector` (KEP-5866). A kube-apiserver with the
   *   `ShardedListAndWatch` gate applies it and says so in the LIST's
   *   `metadata.shardInfo`: this replica receives only its share.
   * - **client-side**: a server without the gate ignores the parameter;
   *   every object still arrives, and the watcher drops the others' before
   *   it prepares, stores, indexes or batches them. Memory is divided, the
   *   network and parse are not.
   *
   * `health().shard.mode` (`"server"`, `"client"`, `"pending"` before the
   * first sharded LIST answer), the `k8s_watcher_shard_server_side` gauge
   * and one log line say which. The loops start once the shard holds
   * something (a ring member that joined). When the shard changes, what it
   * lost leaves the store and the pending batch without a deletion being
   * reported (`health().shard.released` counts them), and the watcher
   * lists again for what it gained, which arrives as created. The store
   * must answer `peek` with every object (a shareable one, as
   * `memoryStore()`), and the stored copies must keep the hashed field
   * (`metadata.uid` or `metadata.namespace`).
   */
  shard?: ShardFilter;
  /**
   * Watch the client's `defaultNamespace` (ignored when `namespace` is set).
   *
   * @default {false}
   */
  namespacedWatch?: boolean;
  /**
   * Called with each debounced batch: the counts and the objects created,
   * modified (with their previous version) and deleted (see
   * {@linkcode ChangeBatch}; the initial-sync batch carries counts only,
   * and comes once the list is in even when it is empty). A throw or
   * rejection is logged, and the batch's changes go out again with the
   * next batch, or without one after 1 s, 2 s, … 60 s.
   * Required, unless `group` is given: then it is not allowed, since the
   * group's `onChange` receives this watcher's batches.
   */
  onChange?: (
    store: IndexedStore<ReadonlyFields<T>, R, PathCount<I>>,
    batch: ChangeBatch<ReadonlyFields<T>>,
  ) => void | Promise<void>;
  /**
   * Feeds this watcher's batches to a {@linkcode DebounceGroup} instead of
   * an own `onChange`: the group's one callback receives them under the
   * member's name, with every other member's, one call per burst. The
   * group's interval or settle applies (`debounceInterval` and `settle`
   * are not allowed). The
   * initial-sync batch (empty ones too) is delivered at once once no
   * member watcher of the group is loading its initial list, in one call
   * with theirs, and `stop()` delivers what this watcher has pending
   * through the group. One watcher per member.
   */
  group?: DebounceGroupMember<ChangeBatch<T>>;
  /**
   * Called once when the initial list is in the store, with its size, after
   * the `onChange` of the initial batch has returned (or settled); in a
   * `group` that still waits for another member's list, before the group's
   * call. A throw or rejection is logged, and not retried.
   */
  onSyncComplete?: (
    store: IndexedStore<ReadonlyFields<T>, R, PathCount<I>>,
    count: number,
  ) => void | Promise<void>;
  /**
   * Refractory period of the debouncer in ms, at most 2³¹−1 (the longest a
   * timer can wait). 0 delivers every change at once, with only what
   * arrived in the same turn of the event loop (one chunk of a watch
   * stream) in one batch: for a consumer that de-duplicates by itself, as
   * a `Controller`'s queue does.
   *
   * @default {2000}
   */
  debounceInterval?: number;
  /**
   * Deliver a batch once changes settle instead of on the leading edge:
   * `quietMs` after the latest change, at the latest `maxWaitMs` after the
   * first change of the batch (see {@linkcode DebounceSettle}). One
   * `kubectl apply` of several objects then reaches `onChange` as one
   * batch, where the leading edge delivers the first object alone at once.
   * Replaces `debounceInterval` (not allowed with it, nor with `group`:
   * give the group `settle`). The initial-sync batch is still delivered at
   * once, and `forceSync()` and `stop()` deliver at once.
   *
   * @example Wait for 300 ms of quiet, never more than 5 s
   * ```ts
   * import type { WatcherConfig } from "@haptic/k8s-watcher";
   *
   * const config: WatcherConfig = {
   *   gvr: { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   settle: { quietMs: 300, maxWaitMs: 5_000 },
   *   onChange: (_store, batch) => console.log(batch.objects.created.length),
   * };
   * console.log(config.settle);
   * ```
   */
  settle?: DebounceSettle;
  /**
   * Deliver batches while the initial list loads (with `isInitialSync`).
   *
   * @default {false}
   */
  callOnChangeDuringSync?: boolean;
  /**
   * The store backend: `memoryStore()` keeps objects, `cachedStore({ ttl })`
   * keeps references and GETs on read (both from
   * `@haptic/k8s-watcher/store`), or any {@linkcode StoreFactory}. Its
   * type says how the store answers reads (`R`): `cachedStore()` makes them
   * promises.
   *
   * @default {memoryStore()}
   */
  store?: StoreFactory<R>;
  /**
   * How the first state is loaded.
   *
   * @default {"list"}
   */
  initialList?: InitialListMode;
  /**
   * Objects per LIST page. Larger pages sync a large collection in fewer
   * round trips and raise the sync's peak memory with the page: 100k
   * ConfigMaps of 4 KB from a real kube-apiserver synced in 0.73x the time
   * with 5000, at 2.0x the steady heap against 1.2x with 500
   * (bench/ANALYSIS.md).
   *
   * @default {500}
   */
  pageSize?: number;
}

/**
 * How many keys `indexBy` paths `I` make: the literal length of a literal
 * list, `number` otherwise.
 *
 * @example Two paths, two keys
 * ```ts
 * import type { PathCount } from "@haptic/k8s-watcher/watcher";
 *
 * const two: PathCount<["metadata.namespace", "metadata.name"]> = 2;
 * const any: PathCount<string[]> = 7;
 * console.log(two, any);
 * ```
 *
 * @typeParam I The paths.
 */
export type PathCount<I extends readonly string[]> = number extends I["length"]
  ? number
  : I["length"];

/**
 * How a watcher runs, shared by both watchers: where logs go, how time and
 * chance are measured (tests inject both), and timing plumbing: the
 * loop's {@linkcode ListWatchTimeouts}, documented there and handed to its
 * loops as they are: `idleTimeoutMs` (default 180000: a request silent
 * this long is retried, a silent watch resumed) and `firstByteTimeoutMs`
 * (default 30000: a request the server has not answered this long is
 * aborted, logged with its URL and retried with backoff).
 *
 * Why a third argument instead of more config fields: the config says
 * *what* to watch and *what to call* — it reads as the controller's
 * intent and differs per watcher — while these options are the
 * environment, usually the same object for every watcher of a program
 * (one logger, one clock in tests). Keeping them apart lets that object be
 * shared as is, and keeps the config free of fields no reader of the
 * controller needs. A name put in the wrong one is not ignored: the
 * constructor throws a {@linkcode WatcherConfigError} saying where it
 * belongs (`idleTimeoutMs belongs in the third argument (WatcherOptions)`).
 *
 * @example One set of options for every watcher
 * ```ts
 * import { consoleLogger, type WatcherOptions } from "@haptic/k8s-watcher";
 *
 * const options: WatcherOptions = { logger: consoleLogger({ level: "debug" }) };
 * ```
 */
export interface WatcherOptions extends ListWatchTimeouts {
  /**
   * Where the watcher logs.
   *
   * @default {consoleLogger()}
   */
  logger?: Logger;
  /**
   * Time source for every timer; tests pass a `FakeClock`.
   *
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Source of jitter in [0, 1).
   *
   * @default {Math.random}
   */
  random?: () => number;
  /**
   * Where the watcher's metrics go: an OpenTelemetry `Meter`
   * (`metrics.getMeter("k8s-watcher")`) or a `MetricsRegistry` from
   * `@haptic/k8s-watcher/metrics`. Series are labelled with the gvr, the
   * namespace (`""` for all) and `watcher`: the config's `name` (`""`
   * without one; a `SingleWatcher`'s is its object's name). With a meter,
   * watchers share a stream only with watchers of the same `name` and
   * meter, so that a stream's series carry one name. Without one here, in
   * the `group` or on the client, nothing is measured beyond `health()`.
   *
   * @default {the `group`'s meter, else the client's (`RestClient.meter`)}
   */
  meter?: Meter;
  /**
   * Deep-freeze every object when it is stored (a `Watcher`'s stored
   * copies, including those its cached store fetches; a `SingleWatcher`'s
   * current object), so that code mutating an object the watcher hands out
   * throws a `TypeError` where it would silently change it under every
   * other reader. Read-only types (`ReadonlyFields`) catch assignments at
   * compile time; this catches the rest (an array's `push` or `sort`, a
   * cast) at run time. A debug aid for tests and development: it walks
   * every stored object once (about 3 µs more per 3 KB Pod than making its
   * stored copy, bench/freeze_bench.ts), so it is off unless asked for.
   * Watchers share a stream only with watchers that freeze alike.
   *
   * @default {false}
   */
  freezeObjects?: boolean;
}

// The watchers' own option checks.

/** Default debounce interval of the bulk watcher, as in haptic's Go watcher. */
export const DEFAULT_DEBOUNCE_INTERVAL = 2_000;

/**
 * Checks an optional `settle` option: an object of two durations, the
 * quiet period no longer than the maximum wait.
 */
export function validateSettle(value: unknown): void {
  if (value === undefined) return;
  const problem = settleProblem(value);
  if (problem !== undefined) {
    throw new WatcherConfigError(problem.field, problem.message);
  }
}

/** Checks an optional `skip` option of the single watcher. */
export function validateSkip(value: unknown): void {
  if (value === undefined || value === "statusOnly" || value === "none") return;
  throw new WatcherConfigError(
    "skip",
    `must be "statusOnly" or "none", got ${String(value)}`,
  );
}

/**
 * Checks the single watcher's optional `namespace`: absent for a
 * cluster-scoped object, else a non-empty string. `""` is refused rather
 * than read as "none", so that a namespace computed as empty by mistake is
 * not taken for a cluster-scoped object.
 */
export function validateSingleNamespace(value: unknown): void {
  if (value === undefined || (typeof value === "string" && value !== "")) {
    return;
  }
  throw new WatcherConfigError(
    "namespace",
    `must be a non-empty string, got ${
      typeof value === "string" ? '""' : String(value)
    }; omit it for a cluster-scoped object`,
  );
}

/** Checks that the client looks like a `RestClient`. */
export function validateClient(client: unknown): void {
  const performRequest = (client as { performRequest?: unknown } | null)
    ?.performRequest;
  if (typeof performRequest !== "function") {
    throw new WatcherConfigError(
      "client",
      "must be a RestClient with a performRequest method",
    );
  }
}

/**
 * Rethrows an error of `build` as a config error naming `field`, or the
 * indexer option (`indexBy`, `ignoreFields`) the indexer says was at fault.
 */
export function wrapConfigError<T>(field: string, build: () => T): T {
  return wrapOptionError(field, build, (error) =>
    // The indexer knows whether indexBy or ignoreFields was at fault.
    error instanceof IndexerOptionsError ? error.option : undefined);
}

// Which store backend a `Watcher` uses: its `store` factory, or a memory
// store when it gives none, and the named `indexes` it must keep. The
// watcher asks the factory alone whether its stream may be shared.

/** A watcher's backend, and why its stream cannot be shared when it cannot. */
export interface StoreChoice {
  readonly factory: StoreFactory;
  /** As `health().notShared` says it; `undefined` for a shareable backend. */
  readonly notShared: `store: ${string}` | undefined;
}

/** The backend `config` asks for; a `WatcherConfigError` naming a bad one. */
export function chooseStore<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
): StoreChoice {
  const { store } = config;
  if (store === undefined) {
    return { factory: memoryStore(), notShared: undefined };
  }
  if (!isStoreFactory(store)) {
    throw new WatcherConfigError(
      "store",
      "must be a store factory (memoryStore(), cachedStore() or an object with name, shareable and create)",
    );
  }
  return {
    factory: store,
    notShared: store.shareable ? undefined : `store: ${store.name}`,
  };
}

function isStoreFactory(value: unknown): value is StoreFactory {
  if (value === null || typeof value !== "object") return false;
  const { name, shareable, create } = value as Record<string, unknown>;
  return typeof name === "string" && typeof shareable === "boolean" &&
    typeof create === "function";
}

/**
 * The watcher's `indexes`, checked: each name's key function (over the
 * stored copy, as `indexBy`'s keys are), and a key for the view.
 */
export interface NamedIndexPaths {
  readonly names: readonly string[];
  readonly keyFunctions: Readonly<
    Record<string, IndexKeyFunction<KubeObjectLike>>
  >;
  /** What watchers sharing a store must agree on. */
  readonly key: [string, readonly string[]][];
}

/** The `indexes` option, checked; a `WatcherConfigError` names the index. */
export function namedIndexes(
  indexes: unknown,
  ignoreFields: readonly string[] | undefined,
): NamedIndexPaths {
  if (indexes === undefined) return { names: [], keyFunctions: {}, key: [] };
  if (
    indexes === null || typeof indexes !== "object" || Array.isArray(indexes)
  ) {
    throw new WatcherConfigError(
      "indexes",
      "must map index names to lists of JSONPath expressions",
    );
  }
  const keyFunctions: Record<string, IndexKeyFunction<KubeObjectLike>> = {};
  const key: [string, readonly string[]][] = [];
  for (const [name, paths] of Object.entries(indexes)) {
    if (name === "") {
      throw new WatcherConfigError("indexes", "has an index with no name");
    }
    const field = `indexes.${name}`;
    if (!Array.isArray(paths) || paths.length === 0) {
      throw new WatcherConfigError(
        field,
        "must list at least one JSONPath expression",
      );
    }
    let indexer: Indexer;
    try {
      indexer = new Indexer({ indexBy: paths, ignoreFields });
    } catch (error) {
      // The indexer words its problems for indexBy; these paths are the
      // index's own.
      const message = error instanceof Error ? error.message : String(error);
      throw new WatcherConfigError(
        field,
        message.replaceAll("indexBy", field),
        { cause: error },
      );
    }
    keyFunctions[name] = (obj) => indexer.extractKeys(obj);
    key.push([name, indexer.indexBy]);
  }
  key.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return { names: Object.keys(keyFunctions), keyFunctions, key };
}
