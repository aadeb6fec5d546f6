import type {
  Gvr,
  IndexedStore,
  IndexKeyFunction,
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
import { WatcherNotStartedError } from "./watcher_not_started_error.ts";
import { WatcherStoppedError } from "./watcher_stopped_error.ts";
import { monotonicClock } from "../_monotonic_clock.ts";
import type { RestClient } from "../client/rest_client.ts";
import { Indexer } from "../indexer/indexer.ts";
import { FieldSelector } from "../indexer/field_selector.ts";
import { formatLabelSelector } from "../indexer/label_selector.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { StoreKeyError } from "../store/errors.ts";
import { chooseStore } from "./_store_choice.ts";
import type { WatcherHealth } from "./watcher_health.ts";
import type { ShardFilter, ShardHealth } from "./shard_filter.ts";
import type { StoreFactory } from "../store/store_factory.ts";
import { WatcherBase } from "./watcher_base.ts";
import {
  checkConfigObject,
  type Feed,
  WatcherCore,
  watcherLogger,
} from "./_watcher_core.ts";
import {
  SharedSource,
  type SourceConsumer,
  UNSTARTED_HEALTH,
} from "./_shared_source.ts";
import { formKey, identity, type SourceForm } from "./_source_form.ts";
import { acquireSource, releaseSource } from "./_source_registry.ts";
import { ObjectPreparer, SKIPPED } from "./_object_preparer.ts";
import { checkPathsPresent, selectsOnlyAsSent } from "./_selection_rule.ts";
import { DEFAULT_IDLE_TIMEOUT_MS } from "../_duration.ts";
import { runAsCallbackOf } from "../_callback_context.ts";
import { BatchBuilder, type ChangeRecorder } from "./_batch_builder.ts";
import type { ChangeBatch } from "./change_batch.ts";
import { checkedMeter, WatcherMetrics } from "./_watcher_metrics.ts";
import { clientMeter } from "../_metrics.ts";
import { groupMeterOf, offerMeter } from "./_group_meter.ts";
import { type BatchOutlet, groupOutlet, ownOutlet } from "./_batch_outlet.ts";
import {
  DEFAULT_DEBOUNCE_INTERVAL,
  validateDuration,
  validateGvr,
  validateSettle,
  wrapConfigError,
} from "./_validate.ts";
import {
  type PathCount,
  type WatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
} from "./watcher_config.ts";

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
  #config: WatcherConfig<T, R, I>;
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
  #indexer: Indexer;
  #keyCount: number;
  #named: NamedIndexPaths;
  /** Why the stream cannot be shared, as `health().notShared` says it. */
  #notShared: WatcherHealth["notShared"];
  /** The loop's idle timeout, for the health of a watcher not yet started. */
  #idleTimeoutMs: number;

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
    if (options === undefined) options = {};
    checkConfigObject("Watcher", config, options);
    // 0 delivers each change at once (a controller's queue de-duplicates).
    if (config.debounceInterval !== 0) {
      validateDuration("debounceInterval", config.debounceInterval);
    }
    validateSettle(config.settle);
    checkCallbacks(config);
    const choice = chooseStore(config);
    checkBoolean("metadataOnly", config.metadataOnly);
    checkBoolean("shared", config.shared);
    const shard = checkShard(config.shard, choice.factory);
    const namespaces = resolveNamespaces(config, client);
    const labelSelector = config.labelSelector === undefined
      ? undefined
      : wrapConfigError(
        "labelSelector",
        () => formatLabelSelector(config.labelSelector!),
      );
    if (
      config.name !== undefined &&
      (typeof config.name !== "string" || config.name === "")
    ) {
      throw new WatcherConfigError("name", "must be a non-empty string");
    }
    // Who speaks, on every line: the stream's lines (shared by watchers
    // of one form) name its resource and namespaces, this watcher's own
    // lines its name too. Completed once gvr is checked.
    const stream: Record<string, unknown> = {};
    const own: Record<string, unknown> = {};
    const logger = watcherLogger(options, own);
    const streamLogger = watcherLogger(options, stream);
    const metadataOnly = config.metadataOnly === true;
    // Its own, else its group's, else its client's: one set on the client
    // reaches every watcher built on it.
    const meter = checkedMeter(options.meter) ?? groupMeterOf(config.group) ??
      checkedMeter(clientMeter(client), "client.meter");
    const indexer = wrapConfigError("indexBy", () =>
      new Indexer({
        indexBy: config.indexBy,
        ignoreFields: config.ignoreFields,
      }));
    const named = namedIndexes(config.indexes, config.ignoreFields);
    checkBoolean("freezeObjects", options.freezeObjects);
    const freezeObjects = options.freezeObjects === true;
    const fieldSelector = config.fieldSelector
      ? wrapConfigError(
        "fieldSelector",
        () => new FieldSelector(config.fieldSelector!),
      )
      : undefined;
    const sharable = config.shared !== false && choice.factory.shareable;
    this.#notShared = config.shared === false
      ? "shared: false"
      : choice.notShared;
    const preselect = selectsOnlyAsSent(
        fieldSelector,
        indexer.ignoreFields,
        config.transform,
      )
      ? fieldSelector
      : undefined;
    let what = "";
    let preparer!: ObjectPreparer<T>;
    const core = this.#core = new WatcherCore(
      this,
      config,
      client,
      logger,
      () => {
        validateGvr(config.gvr);
        what = describe(config.gvr);
        Object.assign(stream, {
          resource: what,
          ...scopeOf(namespaces),
          // A stream others may share is not this watcher's alone.
          ...(sharable ? {} : { watcher: config.name }),
        });
        Object.assign(own, stream, { watcher: config.name });
        checkPathsPresent({
          selector: fieldSelector,
          indexBy: indexer.indexBy,
          metadataOnly,
          transform: config.transform,
        });
        preparer = new ObjectPreparer<T>({
          indexer,
          transform: config.transform,
          logger: streamLogger,
          resource: what,
          metadataOnly,
          freeze: freezeObjects,
        });
        // What the source fetches, stores, and how its loops run: two
        // watchers share exactly when theirs are equal (`formKey`).
        const form: SourceForm = {
          client,
          gvr: config.gvr,
          namespaces,
          labelSelector,
          metadataOnly,
          ignoreFields: indexer.ignoreFields,
          transform: config.transform,
          freezeObjects,
          pageSize: config.pageSize,
          initialList: config.initialList,
          idleTimeoutMs: options.idleTimeoutMs,
          firstByteTimeoutMs: options.firstByteTimeoutMs,
          clock: options.clock,
          logger: options.logger,
          random: options.random,
          preselect,
          shard,
          // A stream's series carry one watcher name, on one meter.
          meter,
          name: meter === undefined ? undefined : config.name,
        };
        const key = formKey(form);
        const make = (): SharedSource<T> => {
          const source: SharedSource<T> = new SharedSource<T>(
            form,
            streamLogger,
            preparer,
            sharable,
            () => releaseSource(key, source),
          );
          return source;
        };
        // Built now so that its loops check their options now.
        let candidate: SharedSource<T> | undefined = make();
        const fresh = () => {
          const source = candidate ?? make();
          candidate = undefined;
          return source;
        };
        return this.#feed(
          () => sharable ? acquireSource(key, fresh) : fresh(),
        );
      },
      describe,
      options.clock,
    );
    this.#config = config;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const keyCount = indexer.keyCount;
    const ownStore = wrapConfigError("store", () =>
      choice.factory.create<T>({
        gvr: config.gvr,
        client,
        indexBy: indexer.indexBy,
        keyCount,
        indexes: named.keyFunctions,
        prepare: (obj) => {
          const out = preparer.prepare(obj);
          return out === SKIPPED ? undefined : out;
        },
        clock: options.clock ?? systemClock,
        logger,
      }));
    if (
      named.names.length > 0 &&
      typeof (ownStore as Partial<IndexedStore<T>>).byIndex !== "function"
    ) {
      throw new WatcherConfigError(
        "indexes",
        `needs a store that keeps named indexes, and the ${
          JSON.stringify(choice.factory.name)
        } backend's has no byIndex (give its store StoreContext.indexes)`,
      );
    }
    const store = this.#store = new StoreHandle<T, R, PathCount<I>>(
      ownStore,
      choice.factory.reads === "async",
    );
    const builder = this.#builder = new BatchBuilder<T>();
    this.#recorder = builder;
    this.#indexer = indexer;
    this.#keyCount = keyCount;
    this.#named = named;
    const suppressDuringSync = !config.callOnChangeDuringSync;
    // Measured only with a meter: without one, onChange is called as is.
    const metrics = meter === undefined ? undefined : new WatcherMetrics(
      meter,
      // The delivery watch's clock: the waits it measures start on it.
      options.clock ?? monotonicClock,
      config.gvr,
      namespaces.join(","),
      config.name,
    );
    // The batch's objects are the stored ones, typed read-only as handed out.
    const onChange = config.onChange as
      | ((store: unknown, batch: ChangeBatch<T>) => void | Promise<void>)
      | undefined;
    const deliver = metrics === undefined
      ? (batch: ChangeBatch<T>) =>
        runAsCallbackOf(this, () => onChange!(store, batch))
      : (batch: ChangeBatch<T>, since: number | undefined) => {
        metrics.delivering(batch.isInitialSync, since);
        return runAsCallbackOf(
          this,
          () => metrics.timed("onChange", () => onChange!(store, batch)),
        ) as void | Promise<void>;
      };
    this.#outlet = config.group !== undefined
      ? wrapConfigError(
        "group",
        () =>
          groupOutlet(builder, config.group!, {
            suppressDuringSync,
            clock: options.clock ?? systemClock,
            metrics,
          }),
      )
      : ownOutlet(builder, {
        interval: config.debounceInterval ?? DEFAULT_DEBOUNCE_INTERVAL,
        settle: config.settle,
        onChange: deliver,
        suppressDuringSync,
        clock: options.clock,
        logger,
        onRetry: metrics && (() => metrics.retrying("onChange")),
      });
    // A group without a meter of its own reports where its members do.
    offerMeter(config.group, meter);
    // deno-lint-ignore no-this-alias
    const self = this;
    this.#consumer = {
      // Watchers with another backend share the stream, not the store.
      viewKey: JSON.stringify([
        config.indexBy,
        config.fieldSelector ?? "",
        identity(choice.factory),
        named.key,
      ]),
      viewParts: () => ({
        store: ownStore,
        indexer,
        fieldSelector,
        logger,
        resource: what,
      }),
      get recorder() {
        return self.#recorder;
      },
      joined: (view) => {
        store.target = this.#view = view;
      },
      leftShared: (view) => {
        store.copy = this.#frozen ?? copyOf(view, indexer, keyCount, named);
      },
      sourceSynced: (live) =>
        this.#syncing ??= this.#completeSync(live === true),
    };
    core.connect({
      beforeRun: () => this.#outlet.setSyncMode(true),
      stopping: () => this.#outlet.stopping(),
      shutdown: () => this.#shutdown(),
      objects: () => store.size,
      shardServerSide: shard &&
        (() => this.#source?.health().shard?.mode),
      silence: () => this.#outlet.silence(),
      callbackOwners: this.#outlet.callbackOwners,
      metrics,
      delivery: this.#outlet.delivery,
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
        const notShared = this.#notShared;
        const health = leftHealth ?? this.#source?.health() ?? {
          ...UNSTARTED_HEALTH,
          idleTimeoutMs: this.#idleTimeoutMs,
          shard: this.#config.shard && unstartedShard(this.#config.shard),
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
      this.#config.callOnChangeDuringSync === true;
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
    const { onSyncComplete } = this.#config;
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
    const indexer = this.#indexer;
    const freeze = (undo: (copy: Store<T>) => void) => {
      // Later changes go straight to the batch.
      this.#recorder = builder;
      source.rewire(this.#consumer);
      const copy = copyOf(view, indexer, this.#keyCount, this.#named);
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
  indexer: Indexer,
  keyCount: number,
  named: NamedIndexPaths,
): Store<T> {
  const copy = new MemoryStore<T>({ keyCount, indexes: named.keyFunctions });
  // A shared view's backend is shareable: peek answers every object it holds.
  for (const [namespace, name] of store.identities()) {
    const obj = store.peek(namespace, name)!;
    copy.add(obj, indexer.extractKeys(obj)!);
  }
  return copy;
}

/** Names the watched thing, for messages. */
function describe(gvr: Gvr): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
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

/**
 * The watcher's `indexes`, checked: each name's key function (over the
 * stored copy, as `indexBy`'s keys are), and a key for the view.
 */
interface NamedIndexPaths {
  readonly names: readonly string[];
  readonly keyFunctions: Readonly<
    Record<string, IndexKeyFunction<KubeObjectLike>>
  >;
  /** What watchers sharing a store must agree on. */
  readonly key: [string, readonly string[]][];
}

function namedIndexes(
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

/** The `shard` option, checked: a `ShardFilter`, with a store that fits. */
function checkShard(
  shard: unknown,
  factory: StoreFactory,
): ShardFilter | undefined {
  if (shard === undefined) return undefined;
  const methods = ["isAssigned", "selector", "subscribe"] as const;
  const value = shard as Partial<Record<string, unknown>> | null;
  if (
    value === null || typeof value !== "object" ||
    methods.some((m) => typeof value[m] !== "function")
  ) {
    throw new WatcherConfigError(
      "shard",
      "must be a ShardRing (./sharding) or an object with isAssigned, selector and subscribe methods",
    );
  }
  if (!factory.shareable) {
    throw new WatcherConfigError(
      "shard",
      `needs a store that answers peek with every object it holds (memoryStore()); the ${
        JSON.stringify(factory.name)
      } backend keeps references only, so what leaves the shard could not be told from what was deleted`,
    );
  }
  return shard as ShardFilter;
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

function checkBoolean(field: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new WatcherConfigError(
      field,
      `must be a boolean, got ${String(value)}`,
    );
  }
}

/** `onChange` xor `group`; no own interval in a group. */
function checkCallbacks<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
): void {
  if (config.group === undefined) {
    if (typeof config.onChange !== "function") {
      // Either delivers: say so, or a group's user hears only of onChange.
      throw new WatcherConfigError(
        "onChange",
        "must be a function, or give group (a DebounceGroup member) for the group's onChange to receive the batches",
      );
    }
  } else {
    if (config.onChange !== undefined) {
      throw new WatcherConfigError(
        "onChange",
        "is not allowed with group: the group's onChange receives this watcher's batches",
      );
    }
    if (config.debounceInterval !== undefined) {
      throw new WatcherConfigError(
        "debounceInterval",
        "is not allowed with group: the group's interval applies",
      );
    }
    if (config.settle !== undefined) {
      throw new WatcherConfigError(
        "settle",
        "is not allowed with group: the group times the batches (give the DebounceGroup settle)",
      );
    }
  }
  if (config.settle !== undefined && config.debounceInterval !== undefined) {
    throw new WatcherConfigError(
      "settle",
      "is not allowed with debounceInterval: a watcher fires on the leading edge (debounceInterval) or once changes settle, not both",
    );
  }
  if (
    config.transform !== undefined && typeof config.transform !== "function"
  ) {
    throw new WatcherConfigError("transform", "must be a function");
  }
}

/** The namespace fields of a watcher's lines: none for all namespaces. */
function scopeOf(namespaces: readonly string[]): Record<string, unknown> {
  if (namespaces.length > 1) return { namespaces };
  return namespaces[0] ? { namespace: namespaces[0] } : {};
}

/** The namespaces of the loops: `[""]` for all, else one loop each. */
function resolveNamespaces<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
  client: RestClient,
): string[] {
  if (config.namespace !== undefined && typeof config.namespace !== "string") {
    throw new WatcherConfigError("namespace", "must be a string");
  }
  const list = config.namespaces;
  if (list !== undefined) {
    if (config.namespace !== undefined || config.namespacedWatch) {
      throw new WatcherConfigError(
        "namespaces",
        `is not allowed with ${
          config.namespace !== undefined ? "namespace" : "namespacedWatch"
        }: name every namespace in namespaces`,
      );
    }
    if (
      !Array.isArray(list) || list.length === 0 ||
      list.some((ns) => typeof ns !== "string" || ns === "")
    ) {
      throw new WatcherConfigError(
        "namespaces",
        "must be a non-empty array of non-empty namespace names",
      );
    }
    const unique = [...new Set(list)];
    if (unique.length !== list.length) {
      throw new WatcherConfigError("namespaces", "names a namespace twice");
    }
    return unique;
  }
  if (config.namespace) return [config.namespace];
  if (!config.namespacedWatch) return [""];
  const ns = client?.defaultNamespace;
  if (!ns) {
    throw new WatcherConfigError(
      "namespacedWatch",
      "the client has no defaultNamespace; set namespace instead",
    );
  }
  return [ns];
}
