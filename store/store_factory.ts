import type {
  Gvr,
  IndexKeyFunction,
  KubeObject,
  KubeObjectLike,
  Logger,
  Store,
  StoreReads,
} from "../types.ts";
import type { Clock } from "../clock.ts";
import type { RestClient } from "../client/rest_client.ts";

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
