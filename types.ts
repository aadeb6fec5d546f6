/**
 * Shared public types: resources, objects, change statistics, stores and
 * loggers. Everything here is a type; behaviour lives in the folders.
 *
 * @module
 */

/**
 * A Kubernetes group/version/resource. The core group is the empty string.
 *
 * @example Ingresses and core Secrets
 * ```ts
 * import type { Gvr } from "@haptic/k8s-watcher";
 *
 * const ingresses: Gvr = { group: "networking.k8s.io", version: "v1", resource: "ingresses" };
 * const secrets: Gvr = { group: "", version: "v1", resource: "secrets" };
 * ```
 */
export interface Gvr {
  /** API group, `""` for the core group (`/api/v1`). */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Plural resource name, e.g. `ingresses`. */
  resource: string;
}

/**
 * The part of `metadata` the watchers read. Other fields pass through.
 *
 * @example The metadata the library reads
 * ```ts
 * import type { ObjectMeta } from "@haptic/k8s-watcher";
 *
 * const meta: ObjectMeta = { name: "web", namespace: "default", resourceVersion: "42" };
 * ```
 */
export interface ObjectMeta {
  /** Object name, unique within its namespace. */
  name?: string;
  /** Namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** Opaque version string set by the API server on every write. */
  resourceVersion?: string;
  /** Unique id of this incarnation of the object. */
  uid?: string;
  /** Bumped by the API server when the desired state (`spec`) changes. */
  generation?: number;
  /** Labels, matched by label selectors. */
  labels?: Record<string, string>;
  /** Annotations. */
  annotations?: Record<string, string>;
  /** Creation time in RFC 3339. */
  creationTimestamp?: string;
  /** Any other metadata field. */
  [field: string]: unknown;
}

/**
 * A Kubernetes object as decoded from JSON. Stored objects are shared, not
 * copied: callers must not mutate what a store returns.
 *
 * @example A ConfigMap
 * ```ts
 * import type { KubeObject } from "@haptic/k8s-watcher";
 *
 * const cm: KubeObject = {
 *   apiVersion: "v1",
 *   kind: "ConfigMap",
 *   metadata: { name: "settings", namespace: "default" },
 *   data: { mode: "fast" },
 * };
 * ```
 */
export interface KubeObject {
  /** `group/version`, or `v1` for the core group. */
  apiVersion?: string;
  /** Kind, e.g. `Ingress`. */
  kind?: string;
  /** Object metadata. */
  metadata: ObjectMeta;
  /** Any other top-level field (`spec`, `status`, `data`, …). */
  [field: string]: unknown;
}

/**
 * An object in the metadata-only form (`meta.k8s.io/v1`
 * `PartialObjectMetadata`): what a watcher with `metadataOnly: true`
 * stores, whatever the client fetched. Type such a watcher with it:
 * `new Watcher<PartialObjectMetadata>({ metadataOnly: true, … })`.
 *
 * @example Labels and owners of Pods, without their specs
 * ```ts
 * import type { PartialObjectMetadata } from "@haptic/k8s-watcher";
 *
 * function ownerKinds(pod: PartialObjectMetadata): string[] {
 *   const owners = pod.metadata.ownerReferences as { kind: string }[] | undefined;
 *   return owners?.map((o) => o.kind) ?? [];
 * }
 * ownerKinds({
 *   apiVersion: "meta.k8s.io/v1",
 *   kind: "PartialObjectMetadata",
 *   metadata: { name: "web-1", namespace: "shop", ownerReferences: [{ kind: "ReplicaSet" }] },
 * });
 * ```
 */
export interface PartialObjectMetadata extends KubeObject {
  /** `meta.k8s.io/v1`. */
  apiVersion: string;
  /** `PartialObjectMetadata`. */
  kind: string;
}

/**
 * A value now or later: `MemoryStore` answers synchronously, `CachedStore`
 * may need an API call.
 *
 * @example Accepting a value or a promise
 * ```ts
 * import type { Awaitable } from "@haptic/k8s-watcher/types";
 *
 * async function count(n: Awaitable<number>): Promise<number> {
 *   return await n;
 * }
 * ```
 */
export type Awaitable<T> = T | Promise<T>;

/**
 * How a store answers reads: `"sync"` at once (`MemoryStore`), `"async"`
 * with a promise (`CachedStore`, which may need a GET). A store typed with
 * both (the default) may answer either way, so that its reads need `await`.
 *
 * @example A function for stores that answer at once
 * ```ts
 * import { MemoryStore } from "@haptic/k8s-watcher";
 * import type { ReadableStore, StoreReads } from "@haptic/k8s-watcher/types";
 *
 * type Named = { metadata: { name: string } };
 * function count(store: ReadableStore<Named, "sync">): number {
 *   return store.list().length; // no await
 * }
 * const reads: StoreReads = "sync";
 * console.log(reads, count(new MemoryStore<Named>()));
 * ```
 */
export type StoreReads = "sync" | "async";

/**
 * What a read of a store answering `R` returns: `X` for `"sync"`, a promise
 * of it for `"async"`, either (`Awaitable`) for both.
 *
 * @example The three answers
 * ```ts
 * import type { Awaitable, StoreAnswer } from "@haptic/k8s-watcher/types";
 *
 * const now: StoreAnswer<"sync", number> = 1;
 * const later: StoreAnswer<"async", number> = Promise.resolve(1);
 * const either: StoreAnswer<"sync" | "async", number> = 1 as Awaitable<number>;
 * console.log(now, later, either);
 * ```
 *
 * @typeParam R How the store answers.
 * @typeParam X The answer.
 */
export type StoreAnswer<R extends StoreReads, X> = [R] extends ["sync"] ? X
  : [R] extends ["async"] ? Promise<X>
  : Awaitable<X>;

/**
 * The keys `get` takes on a store indexed by `N` keys: none up to `N` (a
 * prefix, or all of them). With `N` a literal (a literal `indexBy`, or a
 * literal `keyCount`), more keys do not compile; with `number`, any count
 * does and the store checks it at run time.
 *
 * @example Up to two keys
 * ```ts
 * import type { IndexKeys } from "@haptic/k8s-watcher/types";
 *
 * const all: IndexKeys<2> = ["shop", "web"];
 * const prefix: IndexKeys<2> = ["shop"];
 * // @ts-expect-error: three keys for a two-key index
 * const tooMany: IndexKeys<2> = ["shop", "web", "x"];
 * console.log(all, prefix, tooMany);
 * ```
 *
 * @typeParam N How many keys the store is indexed by.
 * @typeParam Prefix The keys counted so far (leave it out).
 */
export type IndexKeys<N extends number, Prefix extends string[] = []> =
  number extends N ? string[]
    : Prefix["length"] extends N ? Prefix
    : Prefix | IndexKeys<N, [...Prefix, string]>;

/**
 * How a watcher hands out the objects it stores: `T` with every field
 * read-only, at every depth, so that assigning to a field of a stored object
 * does not compile (it would change the object under every other reader and
 * under the store's index). Arrays keep their type, with read-only
 * elements: a read object stays assignable to `T` itself (a function taking
 * a `V1Ingress` takes it), which a read-only array would not be. Functions,
 * `Date` and `RegExp` are left as they are.
 *
 * Types only: at run time the objects are as stored. The `freezeObjects`
 * watcher option freezes them too, so that a mutation in code the compiler
 * does not see (an array's `push` or `sort`, a cast) throws in tests.
 *
 * @example Reading, not writing
 * ```ts
 * import type { ReadonlyFields } from "@haptic/k8s-watcher/types";
 *
 * interface Pod { metadata: { name: string; labels?: Record<string, string> } }
 * function label(pod: ReadonlyFields<Pod>): string | undefined {
 *   // @ts-expect-error: a stored object's fields are read-only
 *   pod.metadata.labels = {};
 *   const model: Pod = pod; // still a Pod where one is taken
 *   return model.metadata.labels?.app;
 * }
 * console.log(label({ metadata: { name: "web" } }));
 * ```
 *
 * @typeParam T The object type.
 */
export type ReadonlyFields<T> = unknown extends T ? T
  : T extends
    | ((...args: never[]) => unknown)
    | Date
    | RegExp
    | string
    | number
    | boolean
    | bigint
    | symbol
    | null
    | undefined ? T
  : T extends readonly (infer E)[] ? ReadonlyFields<E>[]
  : { readonly [K in keyof T]: ReadonlyFields<T[K]> };

/**
 * What changed in one debounced batch.
 *
 * @example Describing a batch's counts
 * ```ts
 * import type { ChangeStats } from "@haptic/k8s-watcher";
 *
 * function describe(stats: ChangeStats): string {
 *   if (stats.isEmpty) return "nothing changed";
 *   return `${stats.created} created, ${stats.modified} modified, ${stats.deleted} deleted`;
 * }
 * ```
 */
export interface ChangeStats {
  /** Objects added to the store. */
  readonly created: number;
  /** Objects replaced in the store. */
  readonly modified: number;
  /** Objects removed from the store. */
  readonly deleted: number;
  /** True while the initial list is loading. */
  readonly isInitialSync: boolean;
  /** `created + modified + deleted`. */
  readonly total: number;
  /** True when `total` is zero. */
  readonly isEmpty: boolean;
}

/**
 * The read side of a store. `T` is the type of the stored objects (a
 * user-defined type such as `Ingress`; `KubeObject` when not given), `R` how
 * the store answers ({@linkcode StoreReads}: a `MemoryStore` at once, a
 * `CachedStore` with promises; either when not given), `N` how many index
 * keys it has (`number` when not known to the compiler).
 *
 * `get(...keys)` with every index key is an exact match; with fewer keys it
 * is a prefix match. Results come ordered by namespace, then name.
 *
 * @example Everything in one namespace
 * ```ts
 * import type { KubeObject, ReadableStore } from "@haptic/k8s-watcher";
 *
 * async function inNamespace(store: ReadableStore, ns: string): Promise<KubeObject[]> {
 *   return await store.get(ns);
 * }
 * ```
 *
 * @typeParam T The stored objects.
 * @typeParam R How reads answer: at once, with a promise, or either.
 * @typeParam N How many index keys `get` takes at most.
 */
export interface ReadableStore<
  T extends KubeObjectLike = KubeObject,
  R extends StoreReads = StoreReads,
  N extends number = number,
> {
  /**
   * Objects whose index keys equal (all keys) or start with (fewer keys) `keys`.
   *
   * @example Exact keys, a prefix, or everything
   * ```ts
   * import type { ReadableStore } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const memory = new MemoryStore();
   * memory.add({ metadata: { namespace: "shop", name: "web" } }, ["shop", "web"]);
   * memory.add({ metadata: { namespace: "shop", name: "api" } }, ["shop", "api"]);
   * memory.add({ metadata: { namespace: "blog", name: "web" } }, ["blog", "web"]);
   * const store: ReadableStore = memory;
   * assert.equal((await store.get("shop", "web")).length, 1); // all keys: exact
   * assert.equal((await store.get("shop")).length, 2); // fewer: a prefix
   * assert.equal((await store.get()).length, 3);
   * ```
   *
   * @param keys Leading index keys; none matches every object.
   * @returns The matching objects, shared with the store: do not mutate them.
   * @throws {StoreKeyError} More keys than the store is indexed by.
   */
  get(...keys: IndexKeys<N>): StoreAnswer<R, T[]>;
  /**
   * Every object, ordered by namespace, then name.
   *
   * @example Ordered by namespace, then name
   * ```ts
   * import type { ReadableStore } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const memory = new MemoryStore();
   * memory.add({ metadata: { namespace: "shop", name: "web" } }, ["shop", "web"]);
   * memory.add({ metadata: { namespace: "shop", name: "api" } }, ["shop", "api"]);
   * memory.add({ metadata: { namespace: "blog", name: "web" } }, ["blog", "web"]);
   * const store: ReadableStore = memory;
   * const names = (await store.list()).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
   * assert.deepEqual(names, ["blog/web", "shop/api", "shop/web"]);
   * ```
   */
  list(): StoreAnswer<R, T[]>;
  /** Number of objects held. */
  readonly size: number;
}

/**
 * The keys of an object in one named index of a store (the `indexes`
 * option of `MemoryStore` and `CachedStore`), or `undefined` when it has
 * none: it is then in none of that index's answers, and stays in the
 * store. As many keys for every object of one index.
 *
 * @example Pods by node; unscheduled ones in no node's answers
 * ```ts
 * import type { IndexKeyFunction } from "@haptic/k8s-watcher/types";
 *
 * interface Pod { metadata: { name: string }; spec: { nodeName?: string } }
 * const byNode: IndexKeyFunction<Pod> = (pod) =>
 *   pod.spec.nodeName === undefined ? undefined : [pod.spec.nodeName];
 * console.log(byNode({ metadata: { name: "web" }, spec: { nodeName: "n1" } }));
 * ```
 *
 * @typeParam T The stored objects.
 */
export type IndexKeyFunction<T> = (obj: T) => readonly string[] | undefined;

/**
 * A {@linkcode ReadableStore} with named indexes besides the one `get`
 * reads, as a `Watcher` hands its store out (its `indexes` option) and the
 * stores are with their `indexes` option: each named index keys every
 * object again, by other fields (the node of a Pod, say), and is queried by
 * its name.
 *
 * @example Pods by node, beside the index by namespace and name
 * ```ts
 * import { MemoryStore } from "@haptic/k8s-watcher";
 * import type { IndexedStore } from "@haptic/k8s-watcher/types";
 * import assert from "node:assert/strict";
 *
 * interface Pod { metadata: { namespace: string; name: string }; spec: { nodeName?: string } }
 * const memory = new MemoryStore<Pod>({
 *   keyCount: 2,
 *   indexes: { byNode: (pod) => pod.spec.nodeName === undefined ? undefined : [pod.spec.nodeName] },
 * });
 * memory.add({ metadata: { namespace: "shop", name: "web" }, spec: { nodeName: "n1" } }, ["shop", "web"]);
 * memory.add({ metadata: { namespace: "shop", name: "new" }, spec: {} }, ["shop", "new"]);
 * const store: IndexedStore<Pod, "sync"> = memory;
 * assert.deepEqual(store.byIndex("byNode", "n1").map((p) => p.metadata.name), ["web"]);
 * assert.equal(store.get("shop").length, 2); // unscheduled: in no node's index
 * ```
 *
 * @typeParam T The stored objects.
 * @typeParam R How reads answer: at once, with a promise, or either.
 * @typeParam N How many index keys `get` takes at most.
 */
export interface IndexedStore<
  T extends KubeObjectLike = KubeObject,
  R extends StoreReads = StoreReads,
  N extends number = number,
> extends ReadableStore<T, R, N> {
  /**
   * Objects whose keys in the index `name` equal (all keys) or start with
   * (fewer keys) `keys`, ordered by namespace, then name, as `get` answers.
   * An object without keys in that index is in none of its answers.
   *
   * @example Exact keys, a prefix, or everything in the index
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore({
   *   indexes: { byZone: (o) => [String(o.metadata.labels?.zone), String(o.metadata.labels?.rack)] },
   * });
   * store.add({ metadata: { namespace: "a", name: "x", labels: { zone: "z1", rack: "r1" } } }, ["a"]);
   * store.add({ metadata: { namespace: "a", name: "y", labels: { zone: "z1", rack: "r2" } } }, ["a"]);
   * assert.equal(store.byIndex("byZone", "z1", "r2").length, 1);
   * assert.equal(store.byIndex("byZone", "z1").length, 2);
   * assert.equal(store.byIndex("byZone").length, 2);
   * ```
   *
   * @param name The index, as named in the `indexes` option.
   * @param keys Leading keys of that index; none matches every object in it.
   * @returns The matching objects, shared with the store: do not mutate them.
   * @throws {StoreKeyError} No index of that name, or more keys than it has.
   */
  byIndex(name: string, ...keys: string[]): StoreAnswer<R, T[]>;
}

/**
 * A store a watcher writes to. Objects are identified by namespace/name;
 * index keys need not be unique. Writes are synchronous so that a batch of
 * them (a relist) is atomic for readers.
 *
 * @example Adding or updating
 * ```ts
 * import type { KubeObject, Store } from "@haptic/k8s-watcher";
 *
 * function upsert(store: Store, obj: KubeObject, keys: string[]): void {
 *   const { namespace = "", name = "" } = obj.metadata;
 *   if (store.resourceVersionOf(namespace, name) === undefined) store.add(obj, keys);
 *   else store.update(obj, keys);
 * }
 * ```
 *
 * @typeParam T The stored objects.
 * @typeParam R How reads answer: at once, with a promise, or either.
 * @typeParam N How many index keys `get` takes at most.
 */
export interface Store<
  T extends KubeObjectLike = KubeObject,
  R extends StoreReads = StoreReads,
  N extends number = number,
> extends ReadableStore<T, R, N> {
  /**
   * Adds an object under `keys` (replaces an object of the same identity).
   *
   * @example Two objects under the same key
   * ```ts
   * import type { Store } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store: Store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "a" }, spec: { host: "x" } }, ["x"]);
   * store.add({ metadata: { namespace: "shop", name: "b" }, spec: { host: "x" } }, ["x"]);
   * assert.equal((await store.get("x")).length, 2); // keys need not be unique
   * ```
   *
   * @param obj The object; the store may keep it, so do not mutate it after.
   * @param keys Its index keys, as many as every other object's.
   * @throws {StoreObjectError} The object has no usable namespace/name.
   * @throws {StoreKeyError} The keys are empty, not strings, or of the wrong count.
   */
  add(obj: T, keys: string[]): void;
  /**
   * Replaces the object of the same identity, moving it when `keys` changed;
   * adds it when absent.
   *
   * @example Keys that changed move the object
   * ```ts
   * import type { Store } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store: Store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "a" } }, ["old-host"]);
   * store.update({ metadata: { namespace: "shop", name: "a" } }, ["new-host"]);
   * assert.equal((await store.get("old-host")).length, 0);
   * assert.equal((await store.get("new-host")).length, 1);
   * ```
   *
   * @param obj The new version; the store may keep it.
   * @param keys Its index keys now.
   * @throws {StoreObjectError} The object has no usable namespace/name.
   * @throws {StoreKeyError} The keys are empty, not strings, or of the wrong count.
   */
  update(obj: T, keys: string[]): void;
  /**
   * Removes exactly the object with this identity; returns whether it was there.
   *
   * @example Exactly one object
   * ```ts
   * import type { Store } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store: Store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "a" } }, ["x"]);
   * store.add({ metadata: { namespace: "shop", name: "b" } }, ["x"]);
   * assert.equal(store.delete("shop", "a"), true);
   * assert.equal(store.delete("shop", "a"), false);
   * assert.equal(store.size, 1); // b, under the same key, stays
   * ```
   *
   * @param namespace The object's namespace, `""` when cluster-scoped.
   * @param name The object's name.
   */
  delete(namespace: string, name: string): boolean;
  /**
   * The stored resourceVersion of an object, or `undefined` when absent.
   *
   * @example Skipping an event already applied
   * ```ts
   * import type { Store } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store: Store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "a", resourceVersion: "7" } }, ["a"]);
   * assert.equal(store.resourceVersionOf("shop", "a"), "7");
   * assert.equal(store.resourceVersionOf("shop", "zzz"), undefined);
   * ```
   */
  resourceVersionOf(namespace: string, name: string): string | undefined;
  /**
   * The stored object, synchronously and without I/O, when the store holds
   * it in memory: always for a `MemoryStore`, only while cached for a
   * `CachedStore`; `undefined` otherwise. The watcher reads previous
   * versions for its change batches here.
   *
   * @example The stored object, without I/O
   * ```ts
   * import type { Store } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store: Store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "a" }, data: { k: "v" } }, ["a"]);
   * assert.deepEqual(store.peek("shop", "a")?.data, { k: "v" });
   * assert.equal(store.peek("shop", "b"), undefined);
   * ```
   */
  peek(namespace: string, name: string): T | undefined;
  /**
   * Every stored identity as `[namespace, name]`, in store order.
   *
   * @example Every namespace/name
   * ```ts
   * import type { Store } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store: Store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "a" } }, ["a"]);
   * store.add({ metadata: { namespace: "blog", name: "b" } }, ["b"]);
   * assert.equal([...store.identities()].length, 2);
   * ```
   */
  identities(): Iterable<[namespace: string, name: string]>;
  /**
   * Removes everything.
   *
   * @example Emptying a store
   * ```ts
   * import type { Store } from "@haptic/k8s-watcher";
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store: Store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "a" } }, ["a"]);
   * store.clear();
   * assert.equal(store.size, 0);
   * ```
   */
  clear(): void;
  /** Incremented by every write; cheap change detection for readers. */
  readonly modificationCount: number;
}

/**
 * Structured logger. Each method takes a message and optional fields.
 * `console` fits after a wrapper; see `consoleLogger`.
 *
 * @example A logger that keeps lines
 * ```ts
 * import type { Logger } from "@haptic/k8s-watcher";
 *
 * const lines: string[] = [];
 * const logger: Logger = {
 *   debug: () => {},
 *   info: (msg) => lines.push(msg),
 *   warn: (msg) => lines.push(msg),
 *   error: (msg) => lines.push(msg),
 * };
 * logger.info("started");
 * ```
 */
export interface Logger {
  /**
   * Detail for debugging.
   *
   * @example Detail with fields
   * ```ts
   * import { consoleLogger, type Logger } from "@haptic/k8s-watcher";
   *
   * const logger: Logger = consoleLogger({ level: "debug" });
   * logger.debug("LIST page received", { items: 500, continue: true });
   * ```
   */
  debug(message: string, fields?: Record<string, unknown>): void;
  /**
   * Normal operation.
   *
   * @example Normal operation
   * ```ts
   * import { consoleLogger, type Logger } from "@haptic/k8s-watcher";
   *
   * const logger: Logger = consoleLogger({ level: "debug" });
   * logger.info("Watching ingresses", { namespace: "shop" });
   * ```
   */
  info(message: string, fields?: Record<string, unknown>): void;
  /**
   * Something unexpected that the watcher handled.
   *
   * @example Something handled
   * ```ts
   * import { consoleLogger, type Logger } from "@haptic/k8s-watcher";
   *
   * const logger: Logger = consoleLogger({ level: "debug" });
   * logger.warn("Watch stream ended; resuming", { resourceVersion: "42" });
   * ```
   */
  warn(message: string, fields?: Record<string, unknown>): void;
  /**
   * Something a human should fix (RBAC, a missing CRD).
   *
   * @example Something to fix, with the error
   * ```ts
   * import { consoleLogger, type Logger } from "@haptic/k8s-watcher";
   *
   * const logger: Logger = consoleLogger({ level: "debug" });
   * logger.error("LIST forbidden: check the RBAC rules", { error: new Error("403 Forbidden") });
   * ```
   */
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What every object type given as a type parameter (`Watcher<T>`,
 * `SingleWatcher<T>`, stores, `ChangeBatch<T>`) must be: an object whose
 * `metadata`, if declared, has the fields the library reads. `metadata` is
 * optional and there is no index signature, so the ecosystem's typed models
 * fit as they are: `V1Ingress` of `@kubernetes/client-node`, `IIngress` of
 * `kubernetes-models`, or an interface of your own. `KubeObject` is the
 * default. The objects themselves always have `metadata`: the watchers
 * refuse an object without it.
 *
 * @example A helper generic over any model type
 * ```ts
 * import { MemoryStore, type ReadableStore } from "@haptic/k8s-watcher";
 * import type { KubeObjectLike } from "@haptic/k8s-watcher/types";
 * import assert from "node:assert/strict";
 *
 * // Shaped like `V1Ingress` of @kubernetes/client-node: `metadata` is optional.
 * interface Ingress {
 *   metadata?: { name?: string; namespace?: string; creationTimestamp?: Date };
 *   spec?: { ingressClassName?: string };
 * }
 *
 * async function names<T extends KubeObjectLike>(store: ReadableStore<T>): Promise<string[]> {
 *   return (await store.list()).map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);
 * }
 * const ingresses = new MemoryStore<Ingress>();
 * ingresses.add({ metadata: { namespace: "shop", name: "web" } }, ["web"]);
 * assert.deepEqual(await names(ingresses), ["shop/web"]);
 * ```
 */
export interface KubeObjectLike {
  /** The fields of `metadata` the library reads; others pass through. */
  metadata?: {
    /** Object name. */
    name?: string;
    /** Namespace; absent for cluster-scoped objects. */
    namespace?: string;
    /** Opaque version string set by the API server on every write. */
    resourceVersion?: string;
    /** Unique id of this incarnation of the object. */
    uid?: string;
  };
}
