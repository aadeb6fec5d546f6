/**
 * What a `Controller` watches, what it calls, and how it runs; then
 * `WorkQueueOptions`, how a `WorkQueue` runs (a controller's `queue` option
 * takes some of them).
 *
 * @module
 */
import type {
  IndexedStore,
  KubeObject,
  KubeObjectLike,
  Logger,
  ReadonlyFields,
} from "../types.ts";
import type {
  WatcherConfig,
  WatcherOptions,
} from "../watcher/watcher_config.ts";
import type {
  ShardFilter,
  ShardFilterMetadata,
} from "../watcher/shard_filter.ts";
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { EventRecorder } from "./event_recorder.ts";
import type { EventInput } from "./event_recorder_config.ts";

/**
 * The watcher fields a controller's resource takes: what to watch (`gvr`,
 * `namespace` or `namespaces`, `labelSelector`, `fieldSelector`,
 * `ignoreFields`, `transform`, `metadataOnly`, named `indexes`, `shared`,
 * `initialList`, `pageSize`), as {@linkcode WatcherConfig} has them. The
 * controller sets the rest: it indexes by namespace and name, takes every
 * batch at once, and keeps objects in memory. Its watchers share streams
 * with the client's other watchers of the same form, as any watcher does.
 *
 * @example ConfigMaps with a label, their managed fields dropped
 * ```ts
 * import type { WatchedResource } from "@haptic/k8s-watcher/controller";
 *
 * const children: WatchedResource = {
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   labelSelector: "app.kubernetes.io/managed-by=widgets",
 *   ignoreFields: ["metadata.managedFields"],
 * };
 * console.log(children.gvr.resource);
 * ```
 *
 * @typeParam T The objects, as stored.
 */
export type WatchedResource<T extends KubeObjectLike = KubeObject> =
  & Omit<
    WatcherConfig<T>,
    | "name"
    | "indexBy"
    | "onChange"
    | "onSyncComplete"
    | "group"
    | "debounceInterval"
    | "settle"
    | "callOnChangeDuringSync"
    | "store"
    | "namespacedWatch"
  >
  & {
    /**
     * The name its store goes by in {@linkcode ReconcileContext.store}, in
     * health and in log lines [the resource, e.g. `configmaps`].
     */
    name?: string;
    /**
     * The objects have no namespace (Namespaces, Nodes, cluster-scoped
     * custom resources): their keys are their names [false].
     */
    clusterScoped?: boolean;
  };

/**
 * The primary resource: each of its objects is a key the controller
 * reconciles (`namespace/name`, or `name` when cluster-scoped).
 *
 * @example Widgets, a custom resource
 * ```ts
 * import type { PrimaryResource } from "@haptic/k8s-watcher/controller";
 *
 * const widgets: PrimaryResource = {
 *   gvr: { group: "example.com", version: "v1", resource: "widgets" },
 *   kind: "Widget",
 * };
 * console.log(widgets.kind);
 * ```
 *
 * @typeParam T The primary objects.
 */
export type PrimaryResource<T extends KubeObjectLike = KubeObject> =
  & WatchedResource<T>
  & {
    /**
     * Its kind, as children's controller references name it. Required with
     * `owns` (the objects of a LIST carry no kind to learn it from).
     */
    kind?: string;
  };

/**
 * A resource whose changes map to keys of the primary resource.
 *
 * @example A Secret named by Widgets' `spec.secretName`
 * ```ts
 * import type { MappedResource } from "@haptic/k8s-watcher/controller";
 *
 * const secrets: MappedResource = {
 *   gvr: { group: "", version: "v1", resource: "secrets" },
 *   map: (secret) => [`${secret.metadata.namespace}/widget-of-${secret.metadata.name}`],
 * };
 * console.log(secrets.gvr.resource);
 * ```
 */
export type MappedResource = WatchedResource & {
  /**
   * The primary keys an object of this resource concerns. Called with the
   * object as stored for a create and a delete, and with both versions for
   * an update (a label that moved concerns the old key and the new).
   */
  map(obj: ReadonlyFields<KubeObject>): Iterable<string>;
};

/**
 * What a reconcile asks for when it returns: nothing (done, forget its
 * backoff), `{ requeueAfter }` (look again in that many ms, not a failure)
 * or `{ requeue: true }` (again after the key's backoff, not a failure).
 *
 * @example Checking again in five minutes
 * ```ts
 * import type { ReconcileResult } from "@haptic/k8s-watcher/controller";
 *
 * const later: ReconcileResult = { requeueAfter: 5 * 60_000 };
 * console.log(later);
 * ```
 */
export type ReconcileResult =
  | { readonly requeueAfter: number; readonly requeue?: undefined }
  | { readonly requeue: true; readonly requeueAfter?: undefined };

/**
 * What a reconcile is given beside its key.
 *
 * @example Reading the primary object and a child
 * ```ts
 * import type { ReconcileContext } from "@haptic/k8s-watcher/controller";
 *
 * function reconcile(key: string, context: ReconcileContext) {
 *   const widget = context.get();
 *   if (widget === undefined) return; // deleted: its children go with it
 *   const [child] = context.store("configmaps").get(context.namespace!, context.name);
 *   context.logger.info("Reconciling", { child: child?.metadata.name });
 * }
 * console.log(typeof reconcile);
 * ```
 *
 * @typeParam T The primary objects.
 */
export interface ReconcileContext<T extends KubeObjectLike = KubeObject> {
  /** The key: `namespace/name`, or `name` for a cluster-scoped resource. */
  readonly key: string;
  /** The key's namespace; undefined for a cluster-scoped resource. */
  readonly namespace: string | undefined;
  /** The key's name. */
  readonly name: string;
  /** The primary object in the cache now; undefined when it is absent. */
  get(): ReadonlyFields<T> | undefined;
  /**
   * The store of a watched resource by its name (the primary's without a
   * name). Every store is synced before the first reconcile.
   *
   * @throws {RangeError} When no resource of the controller has that name.
   */
  store(name?: string): IndexedStore<ReadonlyFields<KubeObject>, "sync">;
  /**
   * Aborts when the reconcile should end: its `reconcileTimeoutMs` passed,
   * leadership was lost, its key left this replica's shard, or the
   * controller stops without draining. A reconcile cut short by a lost
   * lead or a key that left is looked at again (by the next term, the
   * key's new owner, or this replica when the key comes back), whether it
   * then throws or returns.
   */
  readonly signal: AbortSignal;
  /** 1 for the first try, 2 for the first retry after a failure, … */
  readonly attempt: number;
  /** The controller's logger, its lines naming the controller and the key. */
  readonly logger: Logger;
  /**
   * Says that this reconcile wrote `object` and got it back (with its new
   * `metadata.resourceVersion`): the key's next reconcile waits until the
   * store `store` (the primary's by default) holds that version or a newer
   * one, or saw the object deleted, for at most `readYourWritesTimeoutMs`.
   * So it does not act on the cache from before its own write. Call it for
   * each object written: the next reconcile waits for all of them.
   */
  wrote(object: KubeObjectLike, store?: string): void;
  /**
   * Records an `events.k8s.io/v1` Event regarding the key's object (as the
   * cache holds it now, with `for`'s apiVersion and `kind`) through the
   * controller's `recorder`; never throws for the write (see
   * `EventRecorder.event`), and records nothing once the object is absent.
   *
   * @throws {TypeError} When the controller was given no `recorder`.
   */
  event(event: EventInput): void;
}

/**
 * Follows a leader election: what a `Controller` needs of a
 * `LeaderElector` (which has it).
 *
 * @example An elector is one
 * ```ts
 * import type { Leadership } from "@haptic/k8s-watcher/controller";
 * import { LeaderElector } from "@haptic/k8s-watcher/leaderelection";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * const leadership: Leadership = new LeaderElector({
 *   lease: { namespace: "shop", name: "widgets" },
 *   identity: "replica-a",
 * }, client);
 * console.log(leadership.isLeader());
 * ```
 */
export interface Leadership {
  /** Calls `onTerm` with each term's signal (see `LeaderElector`). */
  whileLeading(onTerm: (signal: AbortSignal) => void): () => void;
  /** Whether this replica leads now. */
  isLeader(): boolean;
}

/**
 * A replica's share of the keys: what a `Controller` needs of a
 * `ShardRing` (which has it). Its primary watcher keeps the objects
 * `isAssigned` gives it (server-side or client-side, as the `Watcher`'s
 * `shard` option does); a key is reconciled only while `owns` gives it
 * its object.
 *
 * @example A ring is one
 * ```ts
 * import type { ControllerShard } from "@haptic/k8s-watcher/controller";
 * import { ShardRing } from "@haptic/k8s-watcher/sharding";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * const shard: ControllerShard = new ShardRing({
 *   name: "widgets",
 *   namespace: "shop",
 *   identity: "replica-a",
 * }, client);
 * console.log(shard.selector()); // "" until it holds a range
 * ```
 */
export interface ControllerShard extends ShardFilter {
  /** Whether this replica may work on `obj` now (see `ShardRing.owns`). */
  owns(obj: { readonly metadata?: ShardFilterMetadata }): boolean;
}

/**
 * A controller: the resources it watches and the reconcile it runs for
 * each key that changed.
 *
 * @example Widgets and the ConfigMaps they own
 * ```ts
 * import type { ControllerConfig } from "@haptic/k8s-watcher/controller";
 *
 * const config: ControllerConfig = {
 *   name: "widgets",
 *   for: {
 *     gvr: { group: "example.com", version: "v1", resource: "widgets" },
 *     kind: "Widget",
 *   },
 *   owns: [{ gvr: { group: "", version: "v1", resource: "configmaps" } }],
 *   reconcile: (key, { get }) => {
 *     console.log(key, get() ? "present" : "deleted");
 *   },
 * };
 * console.log(config.name);
 * ```
 *
 * @typeParam T The primary objects.
 */
export interface ControllerConfig<T extends KubeObjectLike = KubeObject> {
  /**
   * Its name: the `controller` label of its metrics, the `name` of its
   * queue's, and a field of its log lines. Unique per meter.
   */
  name: string;
  /** The primary resource. */
  for: PrimaryResource<T>;
  /**
   * Children: each change of one is a change of the primary object named
   * by its controller `ownerReference` (of the primary's group and kind).
   */
  owns?: readonly WatchedResource[];
  /** Other resources, each mapped to primary keys by its `map`. */
  watches?: readonly MappedResource[];
  /**
   * Resources whose every change (after the initial sync) reconciles every
   * primary object again: a shared configuration, say.
   */
  reconcileAllOn?: readonly WatchedResource[];
  /**
   * Brings the world in line with the key's object. Level-triggered: it is
   * called with the key, and reads the current state from the context; a
   * deleted object is reconciled once more, absent. Returns nothing or a
   * {@linkcode ReconcileResult}; a throw or rejection retries the key
   * after its backoff (`queue.backoff`), and success forgets that backoff.
   * One key is never reconciled twice at once.
   */
  reconcile(
    key: string,
    context: ReconcileContext<T>,
  ): void | ReconcileResult | Promise<void | ReconcileResult>;
  /**
   * How many keys are reconciled at once [4]. Reconciles mostly wait on
   * the API server: a few in flight hide that wait, and one slow key
   * cannot hold the others back (one, controller-runtime's default, can);
   * a bounded number keeps a relist of thousands of keys from sending
   * thousands of writes at once (no bound, kube-rs's default, does).
   */
  maxConcurrent?: number;
  /**
   * Abort a reconcile's signal after this long and count it as a failure
   * (its key is retried after its backoff) [none]. The key stays taken
   * until the reconcile returns.
   */
  reconcileTimeoutMs?: number;
  /**
   * Skip updates of a primary object whose `metadata.generation` did not
   * change (status writes, most metadata writes), as controller-runtime's
   * `GenerationChangedPredicate` does; a change of `deletionTimestamp` or
   * of the finalizers still goes through, so a deleting object is
   * reconciled until its finalizer is removed [false].
   */
  generationChangedOnly?: boolean;
  /** Reconcile every primary object again this often, at low priority [never]. */
  resyncEveryMs?: number;
  /**
   * With a leader election: this replica keeps its caches warm and its
   * queue filled, and reconciles only while it leads; a lost lead aborts
   * the reconciles in flight, and their keys wait for the next term.
   */
  leader?: Leadership;
  /**
   * Where `context.event()` records Events: an `EventRecorder` (its
   * aggregation and rate limit apply); the controller does not stop it.
   * Needs `for.kind`.
   */
  recorder?: Pick<EventRecorder, "event">;
  /**
   * Run as one shard of several replicas (a started `ShardRing`): the
   * primary watcher keeps only this replica's share (server-side where the
   * API server filters by `shardSelector`, client-side otherwise), and a
   * key is reconciled only while `shard.owns` gives it its object. When
   * the share changes, the reconciles of keys that left are aborted and
   * the ring's hand-off waits for them to return; keys that arrive are
   * queued once this replica owns them, their backoff fresh. The keys of
   * `owns` and `watches` whose primary object this replica does not hold
   * are not its own, and are left to the replica that holds it.
   */
  shard?: ControllerShard;
  /**
   * How long a key's next reconcile waits for the cache to reach what the
   * previous one `wrote()` [10,000 ms], counted from each write; then it
   * runs anyway, with a warning for each write not seen.
   */
  readYourWritesTimeoutMs?: number;
  /**
   * On `stop()`, let the reconciles in flight finish (`true`) or abort
   * their signals (`false`); either way `stop()` resolves once none runs
   * [true].
   */
  drainOnStop?: boolean;
  /** The queue's backoff, retry budget and aging (see `WorkQueueOptions`). */
  queue?: Pick<WorkQueueOptions, "backoff" | "retryRateLimit" | "agingMs">;
}

/**
 * How a controller runs: {@linkcode WatcherOptions}, given to each of its
 * watchers; its `logger`, `clock` and `meter` are the controller's and its
 * queue's too (the meter defaults to the client's).
 *
 * @example On a fake clock, quiet
 * ```ts
 * import type { ControllerOptions } from "@haptic/k8s-watcher/controller";
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 * import { silentLogger } from "@haptic/k8s-watcher/logger";
 *
 * const options: ControllerOptions = { clock: new FakeClock(), logger: silentLogger };
 * console.log(options.clock !== undefined);
 * ```
 */
export type ControllerOptions = WatcherOptions;

/**
 * How a `WorkQueue` runs. Every field is optional.
 *
 * @example A named queue with a retry budget
 * ```ts
 * import { type WorkQueueOptions, WorkQueue } from "@haptic/k8s-watcher/controller";
 *
 * const options: WorkQueueOptions = {
 *   name: "widgets",
 *   backoff: { baseMs: 10, maxMs: 60_000 },
 *   retryRateLimit: { perSecond: 10, burst: 100 },
 * };
 * await using _queue = new WorkQueue<string>(options);
 * ```
 */
export interface WorkQueueOptions {
  /** The queue's `name` label on its metrics and its name in errors [`""`]. */
  name?: string;
  /**
   * Timers and `now()` [the system's timers, a monotonic `now()`]; a
   * `FakeClock` drives the whole queue in tests.
   */
  clock?: Clock;
  /** Where its `workqueue_*` metrics go [none]. */
  meter?: Meter;
  /**
   * A failed key's retry delay (`addRateLimited`): `baseMs` doubling per
   * failure up to `maxMs` [5 ms to 1,000,000 ms, client-go's], reset by
   * `forget`.
   */
  backoff?: { baseMs?: number; maxMs?: number };
  /**
   * A budget shared by every retry of the queue, as a token bucket: at most
   * `burst` at once, refilled at `perSecond` [none: only each key's own
   * backoff]. A retry waits for the longer of the two.
   */
  retryRateLimit?: { perSecond: number; burst: number };
  /**
   * How long a low-priority key (an initial list's, a resync's) waits behind
   * live ones before it takes turns with them [5000 ms].
   */
  agingMs?: number;
}
