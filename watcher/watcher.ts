import type {
  IndexedStore,
  IndexKeys,
  KubeObject,
  KubeObjectLike,
  PartialObjectMetadata,
  ReadonlyFields,
  Store,
  StoreAnswer,
  StoreReads,
} from "../types.ts";
import { systemClock } from "../clock.ts";
import { WatcherNotStartedError, WatcherStoppedError } from "./errors.ts";
import { monotonicClock } from "../_internal/_time.ts";
import type { RestClient } from "../client/rest_client.ts";
import type { Indexer } from "../selection/indexer.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { StoreKeyError } from "../store/errors.ts";
import type { ShardFilter, ShardHealth } from "./shard_filter.ts";
import { type Feed, WatcherBase, WatcherCore } from "./watcher_base.ts";
import {
  SharedSource,
  type SourceConsumer,
  UNSTARTED_HEALTH,
} from "./_shared_source.ts";
import { ObjectPreparer, SKIPPED } from "./_store_writer.ts";
import { runAsCallbackOf } from "../_internal/_lifecycle.ts";
import {
  BatchBuilder,
  type ChangeBatch,
  type ChangeRecorder,
} from "./change_batch.ts";
import { WatcherMetrics } from "./_watcher_metrics.ts";
import { offerMeter } from "./debounce_group.ts";
import { type BatchOutlet, groupOutlet, ownOutlet } from "./_batch_outlet.ts";
import {
  type NamedIndexPaths,
  type PathCount,
  type WatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
  wrapConfigError,
} from "./watcher_config.ts";
import { planWatcher, type WatcherPlan } from "./_watcher_plan.ts";

/**
 * Watches every object of a resource, keeps them in an indexed store, and
 * calls `onChange` with debounced batches of changes (`watcher.New` of the
 * Go package `pkg/k8s/watcher` of haptic, the HAProxy ingress controller).
 *
 * - The label selector is sent to the server; the field selector is
 *   evaluated here, over JSONPath, so any field can be used. An object that
 *   stops matching is removed from the store, one that starts matching is
 *   added.
 * - `ignoreFields` are removed before storing, then `transform` (if any)
 *   reshapes or drops the object; keys come from `indexBy`. An object
 *   without a key is skipped; after each list one warning per `indexBy`
 *   path says how many objects lacked it, and one per field-selector path
 *   that no listed object has (a typo, most likely).
 * - Each batch says how many objects were created, modified and deleted
 *   and which ({@linkcode ChangeBatch}), coalesced per object.
 * - While the initial list loads, batches are held back (unless
 *   `callOnChangeDuringSync`); once it is in, one batch with
 *   `isInitialSync: true` reports its count (not its objects: they are in
 *   the store; an empty batch for an empty list), then `onSyncComplete(store, count)` runs, then later
 *   changes arrive in batches with `isInitialSync: false`. The first of
 *   them fires at once: the initial batch opens no debounce interval.
 * - With `settle` instead of `debounceInterval`, a batch waits until
 *   changes stop coming (`settle.quietMs` of quiet, at most
 *   `settle.maxWaitMs`), so the objects of one `kubectl apply` arrive in
 *   one batch.
 * - A relist (after 410 Gone) is applied as one diff: objects missing from
 *   the new list count as deleted, and are in the batch's deleted objects.
 * - With `group`, batches go to a {@linkcode DebounceGroup}'s one callback
 *   instead of an own `onChange`.
 * - A throwing or rejecting callback is logged and the watcher goes on. A
 *   failed batch's changes go out again with the next batch, or without
 *   one as a retry 1 s after the failure (doubling to 60 s, from 1 s again
 *   after a success; on the watcher's clock); `stop()` cancels a retry
 *   waiting and delivers them once more.
 * - A stopped watcher stays stopped: `start()` throws
 *   {@linkcode WatcherStoppedError}; create a new one.
 * - Watchers on the same client object that ask for the same objects in
 *   the same form share one LIST+WATCH and one stored copy of each object
 *   (`WatcherConfig.shared`); `namespaces` runs one loop per namespace;
 *   `metadataOnly` fetches and keeps metadata only.
 *
 * Stored objects are shared with the callbacks: do not mutate them. They
 * are typed read-only ({@linkcode ReadonlyFields}), and frozen with the
 * `freezeObjects` option (for tests).
 *
 * @example Stored objects and the objects of each batch
 * ```ts
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const server = new FakeApiServer();
 * const gvr = { group: "", version: "v1", resource: "configmaps" };
 * server.create(gvr, { metadata: { name: "a", namespace: "shop" }, data: {} });
 * using _fetch = mockFetch(server);
 *
 * const created: string[] = [];
 * const watcher = new Watcher({
 *   gvr,
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   onChange: (_store, batch) => {
 *     created.push(...batch.objects.created.map((o) => o.metadata.name!));
 *   },
 * }, new FetchClient({ server: server.url }));
 * watcher.start();
 * assert.equal(await watcher.waitForSync(), 1);
 * assert.equal((await watcher.store.get("shop")).length, 1);
 * server.create(gvr, { metadata: { name: "b", namespace: "shop" }, data: {} });
 * await waitFor(() => created.length === 1); // the first change: at once
 * assert.deepEqual(created, ["b"]);
 * await watcher.stop();
 * await server.close();
 * ```
 *
 * @typeParam T The stored objects: a user-defined type, or what
 * `transform` returns.
 * @typeParam R How `store` answers reads: from the `store` backend,
 * `"sync"` (the default, `memoryStore()`) or `"async"` (`cachedStore()`).
 * @typeParam I The `indexBy` paths: a literal list types the number of
 * keys `store.get` takes.
 */
export class Watcher<
  T extends KubeObjectLike = KubeObject,
  R extends StoreReads = "sync",
  const I extends readonly string[] = readonly string[],
> extends WatcherBase<number> {
  /** The checked configuration the watcher was assembled from. */
  #plan: WatcherPlan<T, R, I>;
  #core: WatcherCore<number>;
  /** What `store` reads: this watcher's view, once it joined one. */
  #store: StoreHandle<T, R, PathCount<I>>;
  #outlet: BatchOutlet;
  #source: SharedSource<T> | undefined;
  #consumer: SourceConsumer<T>;
  /** The initial sync under way or done: the batch, then onSyncComplete. */
  #syncing: Promise<void> | undefined;
  #builder: BatchBuilder<T>;
  /** Where the view records this watcher's changes (see `#freeze`). */
  #recorder: ChangeRecorder<T>;
  /** The store of the view this watcher is in, while it is in one. */
  #view: Store<T> | undefined;
  /** What `store` reads while frozen, once the view changed (`#freeze`). */
  #frozen: Store<T> | undefined;

  /**
   * Checks the configuration and builds the watcher; nothing is requested
   * until {@linkcode Watcher.start}.
   *
   * @example Typed, with one set of options for every watcher
   * ```ts
   * import {
   *   consoleLogger,
   *   FetchClient,
   *   type KubeObject,
   *   Watcher,
   *   type WatcherOptions,
   * } from "@haptic/k8s-watcher";
   *
   * interface Service extends KubeObject {
   *   spec: { ports?: { port: number }[] };
   * }
   *
   * const options: WatcherOptions = { logger: consoleLogger({ level: "warn" }) };
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * const services = new Watcher<Service>({
   *   gvr: { group: "", version: "v1", resource: "services" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: (store, batch) => console.log(store.size, batch.total),
   * }, client, options); // nothing is requested until start()
   * ```
   *
   * @param config What to watch and what to call.
   * @param client A `FetchClient` or any `RestClient`; never closed here.
   * Watchers on the same client object share their stream when they ask
   * for the same objects in the same form (see `WatcherConfig.shared`).
   * @param options Logger, clock, jitter source and idle timeout.
   * @throws {WatcherConfigError} Naming the option that is wrong, unknown
   * or in the wrong argument.
   */
  constructor(
    config: WatcherConfig<T, R, I> & StoredForm<T>,
    client: RestClient,
    options?: WatcherOptions,
  ) {
    super();
    const plan = this.#plan = planWatcher(config, client, options);
    const preparer = new ObjectPreparer<T>(plan.preparer);
    const openSource = sourceOpener(plan, preparer);
    const own = ownStore(plan, preparer);
    this.#store = new StoreHandle<T, R, PathCount<I>>(
      own,
      plan.store.factory.reads === "async",
    );
    this.#builder = this.#recorder = new BatchBuilder<T>();
    // Measured only with a meter: without one, onChange is called as is.
    const metrics = plan.meter === undefined ? undefined : new WatcherMetrics(
      plan.meter,
      // The delivery watch's clock: the waits it measures start on it.
      plan.clock ?? monotonicClock,
      config.gvr,
      plan.form.namespaces.join(","),
      config.name,
    );
    const outlet = this.#outlet = this.#makeOutlet(metrics);
    // A group without a meter of its own reports where its members do.
    offerMeter(config.group, plan.meter);
    this.#consumer = this.#makeConsumer(own);
    this.#core = new WatcherCore<number>(this, {
      logger: plan.logger,
      what: plan.what,
      clock: plan.clock,
      feed: this.#feed(openSource),
      parts: {
        beforeRun: () => outlet.setSyncMode(true),
        stopping: () => outlet.stopping(),
        shutdown: () => this.#shutdown(),
        objects: () => this.#store.size,
        shardServerSide: plan.form.shard &&
          (() => this.#source?.health().shard?.mode),
        silence: () => outlet.silence(),
        callbackOwners: outlet.callbackOwners,
        metrics,
        delivery: outlet.delivery,
      },
    });
  }

  /**
   * The indexed store, with the named `indexes` (`byIndex`). Reads answer
   * as the backend's type says: at once with `memoryStore()` (the default),
   * with promises with a store that fetches (`store: cachedStore()`). The
   * objects are typed read-only ({@linkcode ReadonlyFields}).
   *
   * @example Reading by index keys
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
   * server.create("configmaps", { metadata: { name: "c", namespace: "blog" } });
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * await watcher.waitForSync();
   * assert.equal((await watcher.store.get("shop")).length, 2); // a key prefix
   * assert.equal((await watcher.store.get("blog", "c"))[0].metadata.name, "c");
   * assert.equal(watcher.store.size, 3);
   * await watcher.stop();
   * ```
   */
  get store(): IndexedStore<ReadonlyFields<T>, R, PathCount<I>> {
    return this.#store;
  }

  /**
   * Calls `onChange` now with what accumulated (possibly nothing), as
   * `ForceSync` does in haptic's Go watcher. In a group: delivers the group's pending batches
   * now, when there are any.
   *
   * @example Delivering a batch without waiting for the interval
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const totals: number[] = [];
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.name"],
   *   debounceInterval: 60_000,
   *   onChange: (_store, batch) => {
   *     if (!batch.isInitialSync) totals.push(batch.total);
   *   },
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * await watcher.waitForSync();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * await waitFor(() => totals.length === 1); // the first change fires at once
   * server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
   * await waitFor(() => watcher.health().events === 2); // held for a minute…
   * await watcher.forceSync(); // …unless forced
   * assert.deepEqual(totals, [1, 1]);
   * await watcher.stop();
   * ```
   *
   * @returns A promise that settles when that call has finished; it
   * rejects with `WatcherNotStartedError` before `start()` and with
   * `WatcherStoppedError` after `stop()` (nothing to deliver).
   */
  forceSync(): Promise<void> {
    const state = this.health().state;
    if (state === "idle") {
      return Promise.reject(
        new WatcherNotStartedError(this.#core.what, "forceSync()"),
      );
    }
    if (state === "stopped") {
      return Promise.reject(
        new WatcherStoppedError(this.#core.what, "forceSync()"),
      );
    }
    return this.#outlet.flush();
  }

  /** Where this watcher's batches go: its own `onChange`, or its group. */
  #makeOutlet(metrics: WatcherMetrics | undefined): BatchOutlet {
    const { config, delivery } = this.#plan;
    const builder = this.#builder;
    if (delivery.group !== undefined) {
      return wrapConfigError(
        "group",
        () =>
          groupOutlet(builder, delivery.group!, {
            suppressDuringSync: delivery.suppressDuringSync,
            clock: this.#plan.clock ?? systemClock,
            metrics,
          }),
      );
    }
    // The batch's objects are the stored ones, typed read-only as handed out.
    const onChange = config.onChange as (
      store: unknown,
      batch: ChangeBatch<T>,
    ) => void | Promise<void>;
    const store = this.#store;
    return ownOutlet(builder, {
      interval: delivery.interval,
      settle: delivery.settle,
      onChange: metrics === undefined
        ? (batch) => runAsCallbackOf(this, () => onChange(store, batch))
        : (batch, since) => {
          metrics.delivering(batch.isInitialSync, since);
          return runAsCallbackOf(
            this,
            () => metrics.timed("onChange", () => onChange(store, batch)),
          ) as void | Promise<void>;
        },
      suppressDuringSync: delivery.suppressDuringSync,
      clock: this.#plan.clock,
      logger: this.#plan.logger,
      onRetry: metrics && (() => metrics.retrying("onChange")),
    });
  }

  /** What this watcher is to the sources it joins. */
  #makeConsumer(own: Store<T>): SourceConsumer<T> {
    const { store: plan, what, logger } = this.#plan;
    // deno-lint-ignore no-this-alias
    const self = this;
    return {
      viewKey: plan.viewKey,
      viewParts: () => ({
        store: own,
        indexer: plan.indexer,
        fieldSelector: plan.fieldSelector,
        logger,
        resource: what,
      }),
      get recorder() {
        return self.#recorder;
      },
      joined: (view) => {
        this.#store.target = this.#view = view;
      },
      leftShared: (view) => {
        this.#store.copy = this.#frozen ?? copyOf(view, plan);
      },
      sourceSynced: (live) =>
        this.#syncing ??= this.#completeSync(live === true),
    };
  }

  /** This watcher's membership of a source, as its core's feed. */
  #feed(acquire: () => SharedSource<T>): Feed {
    let current: SharedSource<T> | undefined;
    /**
     * The source's health as it was when this watcher left: the stream goes
     * on for the others, and what a stopped watcher reports must not
     * follow it.
     */
    let leftHealth: ReturnType<SharedSource<T>["health"]> | undefined;
    return {
      run: async (signal) => {
        if (signal.aborted) return;
        const source = this.#source = current = acquire();
        source.join(this.#consumer);
        await aborted(signal);
        leftHealth = source.health();
        const left = source.leave(this.#consumer);
        this.#view = undefined;
        await left;
        // A source others still read does not wait for this consumer's
        // onSyncComplete; its stop does, as a watcher alone does.
        await this.#syncing;
      },
      get lastError() {
        return current?.lastError;
      },
      health: () => {
        const { notShared, idleTimeoutMs, form } = this.#plan;
        const health = leftHealth ?? this.#source?.health() ?? {
          ...UNSTARTED_HEALTH,
          idleTimeoutMs,
          shard: form.shard && unstartedShard(form.shard),
        };
        return notShared === undefined
          ? health
          : { ...health, shared: false, notShared };
      },
    };
  }

  /** After the loop ended: the last batch, then silence. */
  #shutdown(): Promise<void> {
    const deliverable = this.#core.synced ||
      !this.#plan.delivery.suppressDuringSync;
    return this.#outlet.shutdown(deliverable);
  }

  /**
   * Every loop of the source has listed: the initial batch, then the sync.
   * `live`: the source was running when this watcher joined, and its loops
   * do not wait for this sync.
   */
  async #completeSync(live: boolean): Promise<void> {
    if (this.#core.synced) return;
    const count = this.#store.size;
    // Until onSyncComplete settles, later changes wait in the batch, and the
    // store reads as it synced: a watcher alone receives none then (its loop
    // waits), and one that joined a running stream must not either.
    const thaw = live ? this.#freeze() : undefined;
    const release = this.#outlet.hold();
    this.#outlet.setSyncMode(false);
    this.#core.synchronized(count);
    this.#core.logger.info("Initial sync complete", {
      resource: this.#core.what,
      count,
    });
    const { onSyncComplete } = this.#plan.config;
    if (onSyncComplete) {
      // The initial batch (fired by leaving sync mode) comes first, even when
      // its onChange is async.
      await this.#outlet.idle();
      await this.#core.guarded(
        "onSyncComplete",
        () => onSyncComplete(this.#store, count),
      );
    }
    thaw?.();
    release();
  }

  /**
   * Until the returned function runs, `store` reads the view as it is now,
   * as for a watcher alone, whose loop waits: the first change the view
   * records for this watcher makes a copy of the view without that change
   * (no copy while nothing changes), which `store` reads from then on.
   */
  #freeze(): () => void {
    const view = this.#view;
    const source = this.#source;
    if (view === undefined || source === undefined) return () => {};
    const builder = this.#builder;
    const handle = this.#store;
    const indexer = this.#plan.store.indexer;
    const freeze = (undo: (copy: Store<T>) => void) => {
      // Later changes go straight to the batch.
      this.#recorder = builder;
      source.rewire(this.#consumer);
      const copy = copyOf(view, this.#plan.store);
      undo(copy);
      this.#frozen = copy;
      if (handle.target === view) handle.copy = copy;
    };
    this.#recorder = {
      created(namespace, name, obj) {
        freeze((copy) => copy.delete(namespace, name));
        builder.created(namespace, name, obj);
      },
      modified(namespace, name, previous, current) {
        freeze((copy) => copy.update(previous, indexer.extractKeys(previous)!));
        builder.modified(namespace, name, previous, current);
      },
      deleted(namespace, name, last) {
        freeze((copy) => copy.add(last, indexer.extractKeys(last)!));
        builder.deleted(namespace, name, last);
      },
      createdInBulk: (count) => builder.createdInBulk(count),
      released(namespace, name, last) {
        freeze((copy) => copy.add(last, indexer.extractKeys(last)!));
        builder.released(namespace, name, last);
      },
    };
    source.rewire(this.#consumer);
    return () => {
      if (this.#recorder !== builder) {
        this.#recorder = builder;
        source.rewire(this.#consumer);
      }
      const frozen = this.#frozen;
      this.#frozen = undefined;
      // Back to the view, unless stopped (it keeps what it held).
      if (frozen !== undefined && this.#view !== undefined) {
        handle.target = this.#view;
      }
    };
  }
}

/**
 * What the stored objects can be typed as: with `metadataOnly` and no
 * `transform` they are `PartialObjectMetadata`, so `T` must accept that
 * (a `Watcher<Pod>` cannot be metadata-only without a `transform`).
 */
type StoredForm<T> = PartialObjectMetadata extends T ? unknown
  : { metadataOnly?: false } | {
    transform: (obj: KubeObject) => T | undefined;
  };

/** A memory store holding what `store` holds, keyed alike. */
function copyOf<T extends KubeObjectLike>(
  store: Store<T>,
  plan: { readonly indexer: Indexer; readonly named: NamedIndexPaths },
): Store<T> {
  const { indexer, named } = plan;
  const copy = new MemoryStore<T>({
    keyCount: indexer.keyCount,
    indexes: named.keyFunctions,
  });
  // A shared view's backend is shareable: peek answers every object it holds.
  for (const [namespace, name] of store.identities()) {
    const obj = store.peek(namespace, name)!;
    copy.add(obj, indexer.extractKeys(obj)!);
  }
  return copy;
}

/**
 * The running (or starting) sources, by form key (`_source_form.ts`, the
 * client object being one of its fields): where watchers find the source
 * of their form. Closed ones leave.
 */
const runningSources = new Map<string, SharedSource<KubeObject>>();

/**
 * The running (or starting) source of `key`, made with `make` and
 * registered when there is none. A source unregisters itself when its last
 * consumer leaves (see `releaseSource`).
 */
function acquireSource<T extends KubeObjectLike>(
  key: string,
  make: () => SharedSource<T>,
): SharedSource<T> {
  const source = runningSources.get(key);
  if (source !== undefined && !source.closed) {
    return source as unknown as SharedSource<T>;
  }
  const made = make();
  runningSources.set(key, made as unknown as SharedSource<KubeObject>);
  return made;
}

/** Unregisters `source` (its last consumer left). */
function releaseSource(key: string, source: object): void {
  if (runningSources.get(key) === source) runningSources.delete(key);
}

/**
 * Opens this watcher's source: the running one of its form when it may
 * share one, else a new one. The first is built now, so that its loops
 * check their options now; a start that finds none running uses it.
 */
function sourceOpener<T extends KubeObjectLike>(
  plan: WatcherPlan<T, StoreReads, readonly string[]>,
  preparer: ObjectPreparer<T>,
): () => SharedSource<T> {
  const { form, formKey: key, sharable, streamLogger } = plan;
  const build = (): SharedSource<T> => {
    const source: SharedSource<T> = new SharedSource<T>(
      form,
      streamLogger,
      preparer,
      sharable,
      () => releaseSource(key, source),
    );
    return source;
  };
  let unused: SharedSource<T> | undefined = build();
  const next = () => {
    const source = unused ?? build();
    unused = undefined;
    return source;
  };
  return () => sharable ? acquireSource(key, next) : next();
}

/** The watcher's own store, from its backend; its problems name `store`. */
function ownStore<T extends KubeObjectLike>(
  plan: WatcherPlan<T, StoreReads, readonly string[]>,
  preparer: ObjectPreparer<T>,
): Store<T> {
  const { factory, indexer, named } = plan.store;
  const store = wrapConfigError("store", () =>
    factory.create<T>({
      gvr: plan.config.gvr,
      client: plan.client,
      indexBy: indexer.indexBy,
      keyCount: indexer.keyCount,
      indexes: named.keyFunctions,
      prepare: (obj) => {
        const out = preparer.prepare(obj);
        return out === SKIPPED ? undefined : out;
      },
      clock: plan.clock ?? systemClock,
      logger: plan.logger,
    }));
  if (
    named.names.length > 0 &&
    typeof (store as Partial<IndexedStore<T>>).byIndex !== "function"
  ) {
    throw new WatcherConfigError(
      "indexes",
      `needs a store that keeps named indexes, and the ${
        JSON.stringify(factory.name)
      } backend's has no byIndex (give its store StoreContext.indexes)`,
    );
  }
  return store;
}

/** Resolves once `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

/**
 * What `Watcher.store` is: the store of the view the watcher reads (its
 * own until it joins a source, then its view's, shared with the watchers
 * of the same index and field selector), or a memory copy of that view
 * (a watcher that left a shared stream, or waits for its onSyncComplete).
 * Typed as the watcher hands objects out: read-only, answering as the
 * backend says (`R`), with the key count of `indexBy` (`N`).
 */
class StoreHandle<
  T extends KubeObjectLike,
  R extends StoreReads,
  N extends number,
> implements IndexedStore<ReadonlyFields<T>, R, N> {
  #target: Store<T>;
  /** The backend answers with promises: so must a memory copy of it. */
  #promised: boolean;
  /** The target is a memory copy (it answers at once). */
  #copy = false;

  constructor(target: Store<T>, promised: boolean) {
    this.#target = target;
    this.#promised = promised;
  }

  /** The store read: the backend's own, or a view's. */
  get target(): Store<T> {
    return this.#target;
  }

  set target(store: Store<T>) {
    this.#target = store;
    this.#copy = false;
  }

  /** Reads a memory copy from now on. */
  set copy(store: Store<T>) {
    this.#target = store;
    this.#copy = true;
  }

  get(...keys: IndexKeys<N>): StoreAnswer<R, ReadonlyFields<T>[]> {
    return this.#answer(this.#target.get(...keys as string[]));
  }

  list(): StoreAnswer<R, ReadonlyFields<T>[]> {
    return this.#answer(this.#target.list());
  }

  byIndex(
    name: string,
    ...keys: string[]
  ): StoreAnswer<R, ReadonlyFields<T>[]> {
    const target = this.#target as Partial<IndexedStore<T>>;
    if (typeof target.byIndex !== "function") {
      // Only without `indexes`: with them, the watcher checked its store.
      throw new StoreKeyError(
        `The store has no index named ${JSON.stringify(name)} (it has none)`,
        { actual: keys.length },
      );
    }
    return this.#answer(target.byIndex(name, ...keys));
  }

  get size(): number {
    return this.#target.size;
  }

  #answer(
    answer: ReturnType<Store<T>["get"]>,
  ): StoreAnswer<R, ReadonlyFields<T>[]> {
    // The objects are the stored ones, typed read-only as handed out.
    const out = this.#copy && this.#promised ? Promise.resolve(answer) : answer;
    return out as StoreAnswer<R, ReadonlyFields<T>[]>;
  }
}

/** A sharded watcher's `health().shard` before it started. */
function unstartedShard(shard: ShardFilter): ShardHealth {
  return {
    mode: "pending",
    selector: shard.selector(),
    skipped: 0,
    released: 0,
    viewChanges: 0,
  };
}
