import type { KubeObject, ReadableStore, Store } from "../types.ts";
import type { RestClient } from "../client/rest_client.ts";
import { Indexer } from "../indexer/indexer.ts";
import { FieldSelector } from "../indexer/field_selector.ts";
import { formatLabelSelector } from "../indexer/label_selector.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { CachedStore } from "../store/cached_store.ts";
import type { ListInfo } from "../listwatch/list_watch_types.ts";
import { WatcherBase } from "./watcher_base.ts";
import { checkConfigObject, WatcherCore } from "./_watcher_core.ts";
import { StoreWriter } from "./_store_writer.ts";
import { ObjectPreparer, SKIPPED } from "./_object_preparer.ts";
import { BatchBuilder } from "./_batch_builder.ts";
import { type BatchOutlet, groupOutlet, ownOutlet } from "./_batch_outlet.ts";
import {
  DEFAULT_CACHE_TTL,
  DEFAULT_DEBOUNCE_INTERVAL,
  validatePositive,
  wrapConfigError,
} from "./_validate.ts";
import {
  type WatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
} from "./watcher_config.ts";

/**
 * Watches every object of a resource, keeps them in an indexed store, and
 * calls `onChange` with debounced batches of changes (the seed's
 * `watcher.New`).
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
 *   the store), then `onSyncComplete(store, count)` runs, then later
 *   changes arrive in batches with `isInitialSync: false`. The first of
 *   them fires at once: the initial batch opens no debounce interval.
 * - A relist (after 410 Gone) is applied as one diff: objects missing from
 *   the new list count as deleted, and are in the batch's deleted objects.
 * - With `group`, batches go to a {@linkcode DebounceGroup}'s one callback
 *   instead of an own `onChange`.
 * - A throwing or rejecting callback is logged and the watcher goes on.
 * - A stopped watcher stays stopped: `start()` throws
 *   {@linkcode WatcherStoppedError}; create a new one.
 *
 * Stored objects are shared with the callbacks: do not mutate them.
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
 */
export class Watcher<T extends KubeObject = KubeObject>
  extends WatcherBase<number> {
  #config: WatcherConfig<T>;
  #core: WatcherCore<number>;
  #store: Store<T>;
  #outlet: BatchOutlet;
  #writer: StoreWriter<T>;

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
   * @param options Logger, clock, jitter source and idle timeout.
   * @throws {WatcherConfigError} Naming the option that is wrong, unknown
   * or in the wrong argument.
   */
  constructor(
    config: WatcherConfig<T>,
    client: RestClient,
    options?: WatcherOptions,
  ) {
    super();
    if (options === undefined) options = {};
    checkConfigObject("Watcher", config, options);
    validatePositive("debounceInterval", config.debounceInterval);
    validatePositive("cacheTTL", config.cacheTTL);
    checkCallbacks(config);
    const storeType = config.storeType ?? "memory";
    if (storeType !== "memory" && storeType !== "cached") {
      throw new WatcherConfigError(
        "storeType",
        `must be "memory" or "cached", got ${String(storeType)}`,
      );
    }
    const labelSelector = config.labelSelector === undefined
      ? undefined
      : wrapConfigError(
        "labelSelector",
        () => formatLabelSelector(config.labelSelector!),
      );
    const core = this.#core = new WatcherCore(this, config, client, options, {
      namespace: resolveNamespace(config, client),
      labelSelector,
      pageSize: config.pageSize,
    }, (gvr) => gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource);
    this.#config = config;
    const indexer = wrapConfigError("indexBy", () =>
      new Indexer({
        indexBy: config.indexBy,
        ignoreFields: config.ignoreFields,
      }));
    const fieldSelector = config.fieldSelector
      ? wrapConfigError(
        "fieldSelector",
        () => new FieldSelector(config.fieldSelector!),
      )
      : undefined;

    const logger = core.logger;
    const keyCount = indexer.keyCount;
    const preparer = new ObjectPreparer<T>({
      indexer,
      transform: config.transform,
      logger,
      resource: core.what,
    });
    const store = this.#store = storeType === "cached"
      ? new CachedStore<T>({
        client,
        gvr: config.gvr,
        filter: (obj) => {
          const out = preparer.prepare(obj);
          return out === SKIPPED ? undefined : out;
        },
        ttl: config.cacheTTL ?? DEFAULT_CACHE_TTL,
        keyCount,
        clock: options.clock,
        logger,
      })
      : new MemoryStore<T>({ keyCount });
    const builder = new BatchBuilder<T>();
    const suppressDuringSync = !config.callOnChangeDuringSync;
    this.#outlet = config.group !== undefined
      ? wrapConfigError(
        "group",
        () => groupOutlet(builder, config.group!, suppressDuringSync),
      )
      : ownOutlet(builder, {
        interval: config.debounceInterval ?? DEFAULT_DEBOUNCE_INTERVAL,
        onChange: (batch) => config.onChange!(store, batch),
        suppressDuringSync,
        clock: options.clock,
        logger,
      });
    const writer = this.#writer = new StoreWriter<T>({
      store,
      preparer,
      indexer,
      fieldSelector,
      changes: builder,
      logger,
      resource: core.what,
    });
    core.connect({
      sink: {
        onListPage: (page) => writer.stagePage(page),
        onListEnd: (info) => this.#listed(info),
        onEvent: writer.applyEvent,
      },
      beforeRun: () => this.#outlet.setSyncMode(true),
      shutdown: () => this.#shutdown(),
      objects: () => store.size,
    });
  }

  /**
   * The indexed store. Reads may return Promises with `storeType: "cached"`.
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
  get store(): ReadableStore<T> {
    return this.#store;
  }

  /**
   * Calls `onChange` now with what accumulated (possibly nothing), as the
   * seed's `ForceSync`. In a group: delivers the group's pending batches
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
   * @returns A promise that settles when that call has finished.
   */
  forceSync(): Promise<void> {
    return this.#outlet.flush();
  }

  /** A complete (re)list: into the store as one diff, then the sync. */
  #listed(info: ListInfo): Promise<void> | undefined {
    const initial = info.initial && !this.#core.synced;
    this.#writer.commitList(initial);
    if (initial) return this.#completeSync();
  }

  /** After the loop ended: the last batch, then silence. */
  #shutdown(): Promise<void> {
    const deliverable = this.#core.synced ||
      this.#config.callOnChangeDuringSync === true;
    return this.#outlet.shutdown(deliverable);
  }

  async #completeSync(): Promise<void> {
    const count = this.#store.size;
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
  }
}

/** `onChange` xor `group`; no own interval in a group. */
function checkCallbacks<T extends KubeObject>(config: WatcherConfig<T>): void {
  if (config.group === undefined) {
    if (typeof config.onChange !== "function") {
      throw new WatcherConfigError("onChange", "must be a function");
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
  }
  if (
    config.transform !== undefined && typeof config.transform !== "function"
  ) {
    throw new WatcherConfigError("transform", "must be a function");
  }
}

function resolveNamespace<T extends KubeObject>(
  config: WatcherConfig<T>,
  client: RestClient,
): string {
  if (config.namespace !== undefined && typeof config.namespace !== "string") {
    throw new WatcherConfigError("namespace", "must be a string");
  }
  if (config.namespace) return config.namespace;
  if (!config.namespacedWatch) return "";
  const ns = client?.defaultNamespace;
  if (!ns) {
    throw new WatcherConfigError(
      "namespacedWatch",
      "the client has no defaultNamespace; set namespace instead",
    );
  }
  return ns;
}
