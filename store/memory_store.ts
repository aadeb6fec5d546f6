import { assertOptionNames } from "../_internal/_option_checks.ts";
import { deepFreeze } from "../_internal/_objects.ts";
import type {
  Gvr,
  IndexedStore,
  IndexKeyFunction,
  IndexKeys,
  KubeObject,
  KubeObjectLike,
  Logger,
  Store,
  StoreReads,
} from "../types.ts";
import type { Clock } from "../clock.ts";
import type { RestClient } from "../client/rest_client.ts";
import { identityOf, KeyIndex, NamedIndexes, type Slot } from "./_key_index.ts";

/**
 * Options for {@linkcode MemoryStore}.
 *
 * @example Two index keys, frozen objects
 * ```ts
 * import type { MemoryStoreOptions } from "@haptic/k8s-watcher/store";
 *
 * const options: MemoryStoreOptions = { keyCount: 2, freeze: true };
 * ```
 *
 * @typeParam T The stored objects.
 * @typeParam N The key count, as the compiler sees it.
 */
export interface MemoryStoreOptions<
  T extends KubeObjectLike = KubeObject,
  N extends number = number,
> {
  /**
   * How many index keys every object has (the length of the watcher's
   * `indexBy`). When omitted, the first write decides; fixing it up front
   * lets `get` reject too many keys before anything is stored. A literal
   * here types `get`'s key count too.
   */
  keyCount?: N;
  /**
   * Named indexes besides the one `add`'s keys make: each name with the
   * function giving an object's keys in it (`undefined`: in none of that
   * index's answers). Queried with `byIndex(name, ...keys)`. Each costs a
   * call and an index update per write (bench/ANALYSIS.md).
   *
   * @default {{}}
   */
  indexes?: Readonly<Record<string, IndexKeyFunction<T>>>;
  /**
   * Deep-freeze every object when it is stored, so that a caller mutating a
   * shared object fails loudly. Costs a walk of each object: a debug aid.
   *
   * @default {false}
   */
  freeze?: boolean;
}

const NO_KEYS: readonly string[] = [];

/**
 * A {@linkcode Store} holding whole objects in memory, indexed by composite
 * keys that need not be unique. Its members are documented, with examples, on
 * {@linkcode Store} (and its read side, `ReadableStore`).
 *
 * - Identity is namespace/name (`""` for cluster-scoped objects); `add` of a
 *   known identity replaces it, like `update`, and `update` of an unknown one
 *   adds it. When an object's keys change it moves; nothing stays behind under
 *   the old keys. `delete` removes exactly one object.
 * - `get(...keys)` with every key is an exact match, with fewer a prefix
 *   match, with none everything. It walks a trie with one level per key and
 *   touches only the answer, so its cost grows with the answer, not with the
 *   store. Answers are sorted by namespace, then name.
 * - Reads are synchronous and return fresh arrays. The objects in them are
 *   shared with the store, not copied: do not mutate them (the `freeze`
 *   option makes attempts throw). The store keeps the objects it is given, so
 *   do not mutate those after writing them either.
 *
 * @example A non-unique index by namespace and ingress class
 * ```ts
 * import { MemoryStore } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const store = new MemoryStore({ keyCount: 2 });
 * const ingress = (namespace: string, name: string, cls: string) => ({
 *   metadata: { namespace, name, resourceVersion: "1" },
 *   spec: { ingressClassName: cls },
 * });
 * // Indexed by namespace and ingress class: several objects share keys.
 * store.add(ingress("web", "b", "haproxy"), ["web", "haproxy"]);
 * store.add(ingress("web", "a", "haproxy"), ["web", "haproxy"]);
 * store.add(ingress("api", "c", "nginx"), ["api", "nginx"]);
 *
 * assert.deepEqual(store.get("web", "haproxy").map((o) => o.metadata.name), ["a", "b"]);
 * assert.equal(store.get("web").length, 2); // prefix match
 * assert.equal(store.list().length, 3);
 *
 * store.delete("web", "a");
 * assert.deepEqual(store.get("web", "haproxy").map((o) => o.metadata.name), ["b"]);
 * ```
 */
export class MemoryStore<
  T extends KubeObjectLike = KubeObject,
  N extends number = number,
> implements Store<T, "sync", N>, IndexedStore<T, "sync", N> {
  #index: KeyIndex<T>;
  #named: NamedIndexes<T, T>;
  #freeze: boolean;
  #modifications = 0;

  /**
   * Creates an empty store.
   *
   * @example Frozen objects, as a debug aid
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore({ freeze: true });
   * const web = { metadata: { namespace: "shop", name: "web" }, spec: { port: 80 } };
   * store.add(web, ["shop"]);
   * assert.throws(() => { web.spec.port = 8080; }, TypeError);
   * ```
   *
   * @param options Key count, named indexes and the debug `freeze` switch;
   * all optional.
   * @throws {TypeError} When `options` has a name it does not take, or an
   * index that is not a function.
   */
  constructor(options?: MemoryStoreOptions<T, N>) {
    assertOptionNames(
      "MemoryStore options",
      MEMORY_NAMES,
      options,
      "MemoryStoreOptions",
    );
    this.#index = new KeyIndex<T>(options?.keyCount);
    this.#named = new NamedIndexes<T, T>(options?.indexes, "MemoryStore");
    this.#freeze = options?.freeze ?? false;
  }

  /** Number of objects held. */
  get size(): number {
    return this.#index.size;
  }

  /** Incremented by every write that changes the store. */
  get modificationCount(): number {
    return this.#modifications;
  }

  /** Adds `obj` (kept by reference) under `keys`, replacing one of the same namespace/name. */
  add(obj: T, keys: string[]): void {
    this.#put(obj, keys);
  }

  /** Replaces the object of the same namespace/name (kept by reference), adding it when absent. */
  update(obj: T, keys: string[]): void {
    this.#put(obj, keys);
  }

  /** Removes exactly the object with this namespace/name; whether it was there. */
  delete(namespace: string, name: string): boolean {
    if (this.#index.delete(namespace, name) === undefined) return false;
    if (!this.#named.empty) this.#named.delete(namespace, name);
    this.#modifications++;
    return true;
  }

  /** Objects under `keys` (all: exact, fewer: a prefix), synchronously, shared with the store. */
  get(...keys: IndexKeys<N>): T[] {
    return this.#index.selectValues(keys);
  }

  /** Objects under `keys` in the named index, synchronously, shared with the store. */
  byIndex(name: string, ...keys: string[]): T[] {
    return values(this.#named.select(name, keys));
  }

  /** Every object, synchronously, by namespace, then name, shared with the store. */
  list(): T[] {
    return this.#index.selectValues(NO_KEYS);
  }

  /** The stored resourceVersion: `undefined` when absent, `""` when the object has none. */
  resourceVersionOf(namespace: string, name: string): string | undefined {
    const slot = this.#index.lookup(namespace, name);
    if (slot === undefined) return undefined;
    return slot.value.metadata?.resourceVersion ?? "";
  }

  /** The stored object (always held here), or `undefined` when absent; no copy is made. */
  peek(namespace: string, name: string): T | undefined {
    return this.#index.lookup(namespace, name)?.value;
  }

  /** Every identity, grouped by namespace, in insertion order; deleting while iterating is safe. */
  *identities(): IterableIterator<[namespace: string, name: string]> {
    for (const slot of this.#index.slots()) yield [slot.namespace, slot.name];
  }

  /** Removes every object; the key count stays. */
  clear(): void {
    if (this.#index.size === 0) return;
    this.#index.clear();
    this.#named.clear();
    this.#modifications++;
  }

  #put(obj: T, keys: string[]): void {
    const [namespace, name] = identityOf(obj);
    const named = this.#named;
    if (named.empty) this.#index.set(namespace, name, obj, keys);
    else {
      const own = named.keysOf(obj);
      this.#index.set(namespace, name, obj, keys);
      named.set(namespace, name, obj, own);
    }
    if (this.#freeze) deepFreeze(obj);
    this.#modifications++;
  }
}

// --- A backend as a value: StoreFactory, and memoryStore() ------------------

/**
 * What a `Watcher` hands a {@linkcode StoreFactory} when it makes its store:
 * what it watches, how it keys objects, and its client, clock and logger.
 *
 * @example A store that logs its key count
 * ```ts
 * import { MemoryStore } from "@haptic/k8s-watcher";
 * import type { StoreContext } from "@haptic/k8s-watcher/store";
 *
 * function make(context: StoreContext<{ metadata: { name?: string } }>) {
 *   context.logger.debug("Store made", { keys: context.indexBy });
 *   return new MemoryStore({ keyCount: context.keyCount });
 * }
 * console.log(typeof make);
 * ```
 *
 * @typeParam T The stored objects.
 */
export interface StoreContext<T extends KubeObjectLike = KubeObject> {
  /** The watched resource. */
  readonly gvr: Gvr;
  /** The watcher's client (for a store that fetches); never close it. */
  readonly client: RestClient;
  /** The watcher's `indexBy`: the JSONPath of each index key, in order. */
  readonly indexBy: readonly string[];
  /** How many index keys every object is stored under (`indexBy.length`). */
  readonly keyCount: number;
  /**
   * The watcher's named indexes (its `indexes` option), each as the
   * function giving an object's keys in it; empty without. A store keeping
   * them (as `MemoryStore` and `CachedStore` do with their `indexes`
   * option) answers `byIndex(name, ...keys)`; a watcher with named indexes
   * refuses a store without `byIndex`. Absent in a context made by hand.
   */
  readonly indexes?: Readonly<Record<string, IndexKeyFunction<T>>>;
  /**
   * What the watcher makes of an object before it stores it (`metadataOnly`,
   * `ignoreFields`, `transform`), for objects a store fetches itself;
   * `undefined` when the watcher would drop it. Objects the watcher writes
   * have been through it already.
   */
  prepare(obj: KubeObject): T | undefined;
  /** The watcher's clock. */
  readonly clock: Clock;
  /** The watcher's logger, naming the watcher on every line. */
  readonly logger: Logger;
}

/**
 * A store backend, as the `store` option of a `Watcher` takes it: a name,
 * whether watchers using it may share a stream, and how to make a store.
 * `memoryStore()` and `cachedStore()` are the two built in; another backend is
 * one object of this shape (see the example).
 *
 * @example A backend counting writes, over the memory store
 * ```ts
 * import { FetchClient, MemoryStore, type Store, Watcher } from "@haptic/k8s-watcher";
 * import type { StoreContext, StoreFactory } from "@haptic/k8s-watcher/store";
 * import type { KubeObjectLike } from "@haptic/k8s-watcher/types";
 *
 * let adds = 0;
 * const counting: StoreFactory = {
 *   name: "counting",
 *   shareable: true, // it holds every object, as the memory store it wraps
 *   create<T extends KubeObjectLike>(context: StoreContext<T>): Store<T> {
 *     const store = new MemoryStore<T>({ keyCount: context.keyCount });
 *     const add = store.add.bind(store);
 *     store.add = (obj, keys) => { adds++; add(obj, keys); };
 *     return store;
 *   },
 * };
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * new Watcher({
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   store: counting,
 *   onChange: () => console.log(`${adds} adds so far`),
 * }, client); // nothing is requested until start()
 * ```
 *
 * @typeParam R How its stores answer reads (see `StoreReads`): a watcher's
 * `store` is typed by it, so that `memoryStore()`'s reads need no `await`.
 * Either, when not given.
 */
export interface StoreFactory<R extends StoreReads = StoreReads> {
  /**
   * Names the backend: `health().notShared` is `store: <name>` for a watcher
   * whose factory is not `shareable`.
   */
  readonly name: string;
  /**
   * Whether watchers using this backend may share one stream with others
   * (`WatcherConfig.shared`). A shared stream keeps every object it stored,
   * and a watcher leaving it keeps a copy of its store made through `peek`:
   * a shareable backend holds every object it is given and answers `peek`
   * with it. A backend keeping references only (`cachedStore()`) is not
   * shareable: its watchers get a stream of their own.
   */
  readonly shareable: boolean;
  /**
   * How its stores answer reads, when it says: `"sync"` for
   * `memoryStore()`, `"async"` for `cachedStore()`. A watcher whose
   * backend answers `"async"` answers with promises from the copy of its
   * store it keeps after leaving a shared stream too.
   */
  readonly reads?: R;
  /**
   * Makes a watcher's store, once, when the watcher is constructed. Watchers
   * sharing a stream share a store only when they have the same `indexBy`,
   * field selector and factory value.
   *
   * @param context What the watcher watches and how it keys objects.
   * @returns An empty store.
   */
  create<T extends KubeObjectLike>(context: StoreContext<T>): Store<T, R>;
}

/** The one memory factory: watchers of one form share its stores (see `memoryStore`). */
const MEMORY_FACTORY: StoreFactory<"sync"> = Object.freeze({
  name: "memory",
  shareable: true,
  reads: "sync",
  create: <T extends KubeObjectLike>(
    context: Pick<StoreContext<T>, "keyCount" | "indexes">,
  ) =>
    new MemoryStore<T>({
      keyCount: context.keyCount,
      indexes: context.indexes,
    }),
});

/**
 * The store backend keeping whole objects in a {@linkcode MemoryStore}: a
 * `Watcher`'s default, and shareable. Every call returns the same value, so
 * watchers of one form and index share one store whether they name it or not.
 *
 * @example Naming the default
 * ```ts
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { memoryStore } from "@haptic/k8s-watcher/store";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * new Watcher({
 *   gvr: { group: "", version: "v1", resource: "services" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   store: memoryStore(),
 *   onChange: (store) => console.log(store.size),
 * }, client);
 * ```
 *
 * @returns The memory store factory, whose stores answer at once.
 */
export function memoryStore(): StoreFactory<"sync"> {
  return MEMORY_FACTORY;
}

function values<T>(slots: readonly Slot<T>[]): T[] {
  // The common answer of a unique index; a literal is the cheapest array.
  if (slots.length === 1) return [slots[0].value];
  const out = new Array<T>(slots.length);
  for (let i = 0; i < slots.length; i++) out[i] = slots[i].value;
  return out;
}

/** The names `MemoryStoreOptions` takes (a record over its keys). */
const MEMORY_NAMES: Record<keyof MemoryStoreOptions, true> = {
  keyCount: true,
  indexes: true,
  freeze: true,
};
