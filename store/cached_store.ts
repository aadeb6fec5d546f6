import { assertOptionNames } from "../_internal/_option_checks.ts";
import type {
  Gvr,
  IndexedStore,
  IndexKeyFunction,
  IndexKeys,
  KubeObject,
  KubeObjectLike,
  Logger,
  Store,
} from "../types.ts";
import { type Clock, systemClock } from "../clock.ts";
import { consoleLogger } from "../logger.ts";
import { objectPath, type RestClient } from "../client/rest_client.ts";
import { httpStatusOf } from "../client/api_error.ts";
import { StoreFetchError } from "./errors.ts";
import { identityOf, KeyIndex, NamedIndexes, type Slot } from "./_key_index.ts";
import { LruCache } from "./_lru.ts";
import type { StoreContext, StoreFactory } from "./memory_store.ts";

/**
 * Options for {@linkcode CachedStore}.
 *
 * @example Secrets, with a smaller cache
 * ```ts
 * import type { RestClient } from "@haptic/k8s-watcher";
 * import type { CachedStoreOptions } from "@haptic/k8s-watcher/store";
 *
 * function configure(client: RestClient): CachedStoreOptions {
 *   return {
 *     client,
 *     gvr: { group: "", version: "v1", resource: "secrets" },
 *     ttl: 60_000,
 *     maxEntries: 128,
 *   };
 * }
 * ```
 *
 * @typeParam T The stored objects.
 * @typeParam N The key count, as the compiler sees it.
 */
export interface CachedStoreOptions<
  T extends KubeObjectLike = KubeObject,
  N extends number = number,
> {
  /** Client used to GET objects on a cache miss. It is never closed. */
  client: RestClient;
  /** The resource the stored references belong to. */
  gvr: Gvr;
  /**
   * Applied to every fetched object before it is cached and returned: the
   * watcher passes its `ignoreFields` pruning here, so fetched objects look
   * like watched ones (its `transform` too). An object it returns
   * `undefined` for is left out of answers, as a 404 is.
   */
  filter?: (obj: KubeObject) => T | undefined;
  /**
   * Milliseconds a cached object lives after its last access.
   *
   * @default {130_000}
   */
  ttl?: number;
  /**
   * Most objects cached.
   *
   * @default {256}
   */
  maxEntries?: number;
  /**
   * Most GETs in flight for one `get` or `list`.
   *
   * @default {16}
   */
  concurrency?: number;
  /**
   * How many index keys every reference has. When omitted, the first write
   * decides. A literal here types `get`'s key count too.
   */
  keyCount?: N;
  /**
   * Named indexes besides the one `add`'s keys make, as `MemoryStore`'s
   * `indexes`: the key functions read the object written (the watcher's
   * stored copy), and the index keeps its reference; `byIndex` fetches as
   * `get` does.
   *
   * @default {{}}
   */
  indexes?: Readonly<Record<string, IndexKeyFunction<T>>>;
  /**
   * Source of time for expiry.
   *
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Where the `list()` warning and 404s go.
   *
   * @default {consoleLogger()}
   */
  logger?: Logger;
}

/**
 * What the store keeps per identity. A fresh object per write, so that a
 * fetch can tell whether the reference it was made for is still current.
 */
interface Ref {
  readonly resourceVersion: string;
}

interface CachedObject<T> {
  readonly ref: Ref;
  readonly obj: T;
}

interface InFlight<T> {
  readonly ref: Ref;
  readonly promise: Promise<T | undefined>;
}

const NO_KEYS: readonly string[] = [];

/**
 * A {@linkcode Store} for large objects (Secrets, ConfigMaps) that keeps only
 * references (namespace, name, resourceVersion) and index keys in memory, and
 * fetches objects with a GET when they are read. Its members are documented,
 * with examples, on {@linkcode Store} (and `ReadableStore`); what
 * differs here is said on each.
 *
 * - The index is the one `MemoryStore` uses: exact and prefix `get`, cost
 *   growing with the answer, results ordered by namespace, then name.
 * - Fetched objects go through `filter` and into an LRU cache (`maxEntries`,
 *   default 256) whose entries expire `ttl` ms (default 130 s) after their
 *   last access; `add`, `update` and `delete` drop the cached copy of that
 *   object. Concurrent reads of one object share one request.
 * - An object the API answers 404 for is gone: it is left out of the answer
 *   (the watch will report the deletion). Any other failure rejects with a
 *   {@linkcode StoreFetchError} naming the object.
 * - `list()` costs one GET per object not cached, and logs a warning saying so.
 * - Returned objects are shared with the cache: do not mutate them.
 *
 * @example Fetching on the first read, then from the cache
 * ```ts
 * import { CachedStore, type RestClient } from "@haptic/k8s-watcher";
 * import { type RequestOptions } from "@haptic/k8s-watcher/client";
 * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const gets: string[] = [];
 * const client = {
 *   performRequest(opts: RequestOptions) {
 *     gets.push(opts.path);
 *     const name = opts.path.split("/").at(-1) ?? "";
 *     const secret = { metadata: { namespace: "default", name }, data: { big: "…" } };
 *     return Promise.resolve(opts.expectJson ? secret : new Uint8Array());
 *   },
 * } as RestClient;
 *
 * const store = new CachedStore({
 *   client,
 *   gvr: { group: "", version: "v1", resource: "secrets" },
 *   logger: new RecordingLogger(),
 * });
 * store.add({ metadata: { namespace: "default", name: "tls", resourceVersion: "7" } }, ["default"]);
 *
 * const [secret] = await store.get("default");
 * assert.equal(secret.metadata.name, "tls");
 * await store.get("default"); // served from the cache
 * assert.deepEqual(gets, ["/api/v1/namespaces/default/secrets/tls"]);
 * ```
 */
export class CachedStore<
  T extends KubeObjectLike = KubeObject,
  N extends number = number,
> implements Store<T, "async", N>, IndexedStore<T, "async", N> {
  #index: KeyIndex<Ref>;
  #named: NamedIndexes<Ref, T>;
  #cache: LruCache<string, CachedObject<T>>;
  #inFlight = new Map<string, InFlight<T>>();
  #client: RestClient;
  #gvr: Gvr;
  #filter: ((obj: KubeObject) => T | undefined) | undefined;
  #concurrency: number;
  #logger: Logger;
  #modifications = 0;

  /**
   * Creates an empty store.
   *
   * @example Secrets read through a client
   * ```ts
   * import { CachedStore, type RestClient } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * // Nothing here is fetched: a client that refuses is enough.
   * const client: RestClient = { performRequest: (): Promise<never> => Promise.reject(new Error("no GET")) };
   * const store = new CachedStore({ client, gvr: { group: "", version: "v1", resource: "secrets" } });
   * assert.equal(store.size, 0);
   * ```
   *
   * @param options Client, resource, filter, cache tuning, clock and logger.
   * @throws {RangeError} `ttl`, `maxEntries` or `concurrency` out of range.
   * @throws {TypeError} When `options` has a name it does not take.
   */
  constructor(options: CachedStoreOptions<T, N>) {
    assertOptionNames(
      "CachedStore options",
      CACHED_NAMES,
      options,
      "CachedStoreOptions",
    );
    const concurrency = options.concurrency ?? 16;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(
        `concurrency must be a positive integer but got ${concurrency}`,
      );
    }
    this.#index = new KeyIndex<Ref>(options.keyCount);
    this.#named = new NamedIndexes<Ref, T>(options.indexes, "CachedStore");
    this.#cache = new LruCache({
      maxEntries: options.maxEntries ?? 256,
      ttl: options.ttl ?? 130_000,
      clock: options.clock ?? systemClock,
    });
    this.#client = options.client;
    this.#gvr = options.gvr;
    this.#filter = options.filter;
    this.#concurrency = concurrency;
    this.#logger = options.logger ?? consoleLogger();
  }

  /** Number of references held. */
  get size(): number {
    return this.#index.size;
  }

  /** Incremented by every write that changes the store. */
  get modificationCount(): number {
    return this.#modifications;
  }

  /** Keeps a reference to `obj` (identity and resourceVersion, not the object) under `keys`. */
  add(obj: T, keys: string[]): void {
    this.#put(obj, keys);
  }

  /** Replaces the reference of the same namespace/name (adding it when absent) and drops its cached copy. */
  update(obj: T, keys: string[]): void {
    this.#put(obj, keys);
  }

  /** Removes exactly this reference and its cached copy; whether it was there. */
  delete(namespace: string, name: string): boolean {
    const slot = this.#index.delete(namespace, name);
    if (slot === undefined) return false;
    if (!this.#named.empty) this.#named.delete(namespace, name);
    this.#cache.delete(slot.id);
    this.#modifications++;
    return true;
  }

  /**
   * Objects under `keys` (all: exact, fewer: a prefix), each fetched unless
   * cached; one answered 404 is left out.
   *
   * @throws {StoreFetchError} A GET failed other than with 404.
   */
  get(...keys: IndexKeys<N>): Promise<T[]> {
    try {
      return this.#resolve(this.#index.select(keys));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Objects under `keys` in the named index, each fetched unless cached, as
   * `get` does.
   *
   * @throws {StoreKeyError} No index of that name, or too many keys.
   * @throws {StoreFetchError} A GET failed other than with 404.
   */
  byIndex(name: string, ...keys: string[]): Promise<T[]> {
    try {
      return this.#resolve(this.#named.select(name, keys));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Every object, by namespace, then name: one GET per object not cached, and
   * a warning saying so on every call.
   *
   * @throws {StoreFetchError} A GET failed other than with 404.
   */
  list(): Promise<T[]> {
    this.#logger.warn(
      "CachedStore list() fetches every object that is not cached with one GET each",
      { resource: this.#gvr.resource, objects: this.#index.size },
    );
    return this.#resolve(this.#index.select(NO_KEYS));
  }

  /** The referenced resourceVersion: `undefined` when absent, `""` when stored without one. */
  resourceVersionOf(namespace: string, name: string): string | undefined {
    return this.#index.lookup(namespace, name)?.value.resourceVersion;
  }

  /** The cached copy of the current version, without a GET or a TTL refresh; else `undefined`. */
  peek(namespace: string, name: string): T | undefined {
    const slot = this.#index.lookup(namespace, name);
    if (slot === undefined) return undefined;
    const hit = this.#cache.peek(slot.id);
    return hit !== undefined && hit.ref === slot.value ? hit.obj : undefined;
  }

  /** Every identity, grouped by namespace, in insertion order; deleting while iterating is safe. */
  *identities(): IterableIterator<[namespace: string, name: string]> {
    for (const slot of this.#index.slots()) yield [slot.namespace, slot.name];
  }

  /** Removes every reference and cached object; the key count stays. */
  clear(): void {
    this.#cache.clear();
    if (this.#index.size === 0) return;
    this.#index.clear();
    this.#named.clear();
    this.#modifications++;
  }

  #put(obj: T, keys: string[]): void {
    const [namespace, name] = identityOf(obj);
    const ref: Ref = { resourceVersion: obj.metadata?.resourceVersion ?? "" };
    const named = this.#named;
    // Every index's keys are checked before anything changes.
    const own = named.empty ? undefined : named.keysOf(obj);
    const slot = this.#index.set(namespace, name, ref, keys);
    if (own !== undefined) named.set(namespace, name, ref, own);
    this.#cache.delete(slot.id);
    this.#modifications++;
  }

  async #resolve(selected: readonly Slot<Ref>[]): Promise<T[]> {
    // The index's array and the slots' values change with later writes:
    // take what this answer is about now, before the first await.
    const n = selected.length;
    const slots = new Array<Slot<Ref>>(n);
    const refs = new Array<Ref>(n);
    const found = new Array<T | undefined>(n);
    const misses: number[] = [];
    for (let i = 0; i < n; i++) {
      const slot = selected[i];
      slots[i] = slot;
      refs[i] = slot.value;
      const hit = this.#cache.get(slot.id);
      if (hit !== undefined && hit.ref === slot.value) found[i] = hit.obj;
      else misses.push(i);
    }
    if (misses.length > 0) {
      let next = 0;
      let failed = false;
      const worker = async () => {
        while (!failed && next < misses.length) {
          const i = misses[next++];
          try {
            found[i] = await this.#fetch(slots[i], refs[i]);
          } catch (error) {
            failed = true;
            throw error;
          }
        }
      };
      const workers = [];
      for (let w = Math.min(this.#concurrency, misses.length); w > 0; w--) {
        workers.push(worker());
      }
      await Promise.all(workers);
    }
    if (misses.length === 0) return found as T[];
    return found.filter((obj) => obj !== undefined);
  }

  #fetch(slot: Slot<Ref>, ref: Ref): Promise<T | undefined> {
    const running = this.#inFlight.get(slot.id);
    if (running !== undefined && running.ref === ref) return running.promise;
    const entry: InFlight<T> = { ref, promise: this.#request(slot, ref) };
    this.#inFlight.set(slot.id, entry);
    entry.promise
      .finally(() => {
        if (this.#inFlight.get(slot.id) === entry) {
          this.#inFlight.delete(slot.id);
        }
      })
      // Whoever awaits the request sees its failure; this branch only
      // keeps the bookkeeping from raising an unhandled rejection.
      .catch(() => {});
    return entry.promise;
  }

  async #request(slot: Slot<Ref>, ref: Ref): Promise<T | undefined> {
    const { id, namespace, name } = slot;
    const path = objectPath(this.#gvr, namespace, name);
    let obj: T | undefined;
    try {
      const answer = await this.#client.performRequest({
        method: "GET",
        path,
        expectJson: true,
      });
      if (!isKubeObject(answer)) {
        throw new TypeError(
          "The API answered something that is not a Kubernetes object",
        );
      }
      obj = this.#filter ? this.#filter(answer) : answer as unknown as T;
    } catch (error) {
      if (httpStatusOf(error).code === 404) {
        this.#logger.debug("Object gone before it could be fetched", {
          resource: this.#gvr.resource,
          namespace,
          name,
        });
        return undefined;
      }
      throw new StoreFetchError({ namespace, name, path, cause: error });
    }
    // Cache only what is still current: a write since the request started
    // may have made this answer stale.
    if (obj === undefined) return undefined;
    if (this.#index.lookup(namespace, name)?.value === ref) {
      this.#cache.set(id, { ref, obj });
    }
    return obj;
  }
}

/**
 * How a `Watcher`'s {@linkcode CachedStore} is tuned (`cachedStore()`); the
 * watcher gives the client, resource, filter, key count, clock and logger.
 *
 * @example Secrets cached for a minute
 * ```ts
 * import type { CachedStoreTuning } from "@haptic/k8s-watcher/store";
 *
 * const tuning: CachedStoreTuning = { ttl: 60_000, maxEntries: 128 };
 * ```
 */
export type CachedStoreTuning = Pick<
  CachedStoreOptions,
  "ttl" | "maxEntries" | "concurrency"
>;

/**
 * The store backend keeping references only, in a {@linkcode CachedStore}
 * that GETs objects on read through the watcher's client and passes them
 * through what the watcher does to objects (`ignoreFields`, `transform`). Not
 * shareable: a watcher using it gets a stream of its own
 * (`health().notShared` is `"store: cached"`).
 *
 * @example Large Secrets, fetched on read
 * ```ts
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { cachedStore } from "@haptic/k8s-watcher/store";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * new Watcher({
 *   gvr: { group: "", version: "v1", resource: "secrets" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   store: cachedStore({ ttl: 60_000 }),
 *   onChange: async (store) => console.log((await store.get("default")).length),
 * }, client);
 * ```
 *
 * @param tuning Cache TTL, size and GET concurrency; all optional.
 * @returns A factory making one cached store per watcher, whose reads
 * answer with promises.
 * @throws {TypeError} When `tuning` has a name it does not take.
 * @throws {RangeError} `ttl`, `maxEntries` or `concurrency` out of range.
 */
export function cachedStore(tuning?: CachedStoreTuning): StoreFactory<"async"> {
  assertOptionNames(
    "cachedStore tuning",
    TUNING_NAMES,
    tuning,
    "CachedStoreTuning",
  );
  // The constructor's range checks, now rather than in a watcher's.
  new CachedStore({ ...tuning, client: NO_CLIENT, gvr: NO_GVR });
  return Object.freeze({
    name: "cached",
    shareable: false,
    reads: "async",
    create: <T extends KubeObjectLike>(context: StoreContext<T>) =>
      new CachedStore<T>({
        ...tuning,
        client: context.client,
        gvr: context.gvr,
        filter: (obj) => context.prepare(obj),
        keyCount: context.keyCount,
        indexes: context.indexes,
        clock: context.clock,
        logger: context.logger,
      }),
  });
}

/** Stands in for a client in the check of a tuning; never called. */
const NO_CLIENT: RestClient = {
  performRequest: (): Promise<never> =>
    Promise.reject(new Error("Not a client")),
};
const NO_GVR: Gvr = { group: "", version: "v1", resource: "none" };

const TUNING_NAMES: Record<keyof CachedStoreTuning, true> = {
  ttl: true,
  maxEntries: true,
  concurrency: true,
};

function isKubeObject(value: unknown): value is KubeObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return false;
  }
  const meta = (value as { metadata?: unknown }).metadata;
  return meta !== null && typeof meta === "object";
}

/** The names `CachedStoreOptions` takes (a record over its keys). */
const CACHED_NAMES: Record<keyof CachedStoreOptions, true> = {
  client: true,
  gvr: true,
  filter: true,
  ttl: true,
  maxEntries: true,
  concurrency: true,
  keyCount: true,
  indexes: true,
  clock: true,
  logger: true,
};
