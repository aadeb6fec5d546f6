import type { ReadableStore, Store } from "../types.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { RestClient } from "../client/rest_client.ts";
import { Indexer } from "../indexer/indexer.ts";
import { FieldSelector } from "../indexer/field_selector.ts";
import { formatLabelSelector } from "../indexer/label_selector.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { CachedStore } from "../store/cached_store.ts";
import { Debouncer } from "./debouncer.ts";
import type { ListInfo } from "./list_watch_types.ts";
import { WatcherBase } from "./watcher_base.ts";
import { checkConfigObject, WatcherCore } from "./_watcher_core.ts";
import { StoreWriter } from "./_store_writer.ts";
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
 * - `ignoreFields` are removed before storing; keys come from `indexBy`. An
 *   object without a key is skipped with a warning.
 * - While the initial list loads, batches are held back (unless
 *   `callOnChangeDuringSync`); once it is in, one batch with
 *   `isInitialSync: true` reports it, then `onSyncComplete(store, count)`
 *   runs, then later changes arrive in batches with `isInitialSync: false`.
 * - A relist (after 410 Gone) is applied as one diff: objects missing from
 *   the new list count as deleted.
 * - A throwing or rejecting callback is logged and the watcher goes on.
 *
 * Stored objects are shared with the callbacks: do not mutate them.
 *
 * @example
 * ```ts
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const server = new FakeApiServer();
 * const gvr = { group: "", version: "v1", resource: "configmaps" };
 * server.create(gvr, { metadata: { name: "a", namespace: "shop" }, data: {} });
 * using _fetch = mockFetch(server);
 *
 * const watcher = new Watcher({
 *   gvr,
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   onChange: () => {},
 * }, new FetchClient({ server: server.url }));
 * watcher.start();
 * assert.equal(await watcher.waitForSync(), 1);
 * assert.equal((await watcher.store.get("shop")).length, 1);
 * await watcher.stop();
 * await server.close();
 * ```
 */
export class Watcher extends WatcherBase<number> {
  #config: WatcherConfig;
  #core: WatcherCore<number>;
  #store: Store;
  #debouncer: Debouncer;
  #writer: StoreWriter;

  /**
   * Checks the configuration and builds the watcher; nothing is requested
   * until {@linkcode Watcher.start}.
   *
   * @param config What to watch and what to call.
   * @param client A `FetchClient` or any `RestClient`; never closed here.
   * @param options Logger, clock and jitter source.
   * @throws {WatcherConfigError} Naming the option that is wrong.
   */
  constructor(
    config: WatcherConfig,
    client: RestClient,
    options: WatcherOptions = {},
  ) {
    super();
    checkConfigObject(config);
    validatePositive("debounceInterval", config.debounceInterval);
    validatePositive("cacheTTL", config.cacheTTL);
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

    const clock: Clock = options.clock ?? systemClock;
    const logger = core.logger;
    const keyCount = indexer.keyCount;
    const store = this.#store = storeType === "cached"
      ? new CachedStore({
        client,
        gvr: config.gvr,
        filter: (obj) => indexer.filterFields(obj),
        ttl: config.cacheTTL ?? DEFAULT_CACHE_TTL,
        keyCount,
        clock,
        logger,
      })
      : new MemoryStore({ keyCount });
    const debouncer = this.#debouncer = new Debouncer({
      interval: config.debounceInterval ?? DEFAULT_DEBOUNCE_INTERVAL,
      onChange: (stats) => config.onChange(store, stats),
      suppressDuringSync: !config.callOnChangeDuringSync,
      clock,
      logger,
    });
    const writer = this.#writer = new StoreWriter({
      store,
      indexer,
      fieldSelector,
      changes: debouncer,
      logger,
      resource: core.what,
    });
    core.connect({
      sink: {
        onListPage: (page) => writer.stagePage(page),
        onListEnd: (info) => this.#listed(info),
        onEvent: writer.applyEvent,
      },
      beforeRun: () => debouncer.setSyncMode(true),
      shutdown: () => this.#shutdown(),
      objects: () => store.size,
    });
  }

  /** The indexed store. Reads may return Promises with `storeType: "cached"`. */
  get store(): ReadableStore {
    return this.#store;
  }

  /**
   * Calls `onChange` now with what accumulated (possibly nothing), as the
   * seed's `ForceSync`.
   *
   * @returns A promise that settles when that call has finished.
   */
  forceSync(): Promise<void> {
    return this.#debouncer.flush();
  }

  /** A complete (re)list: into the store as one diff, then the sync. */
  #listed(info: ListInfo): Promise<void> | undefined {
    this.#writer.commitList();
    if (info.initial && !this.#core.synced) return this.#completeSync();
  }

  /** After the loop ended: the last batch, then silence. */
  async #shutdown(): Promise<void> {
    const deliverable = this.#core.synced ||
      this.#config.callOnChangeDuringSync;
    if (deliverable) await this.#debouncer.flushPending();
    await this.#debouncer.stop();
  }

  async #completeSync(): Promise<void> {
    const count = this.#store.size;
    this.#debouncer.setSyncMode(false);
    this.#core.synchronized(count);
    this.#core.logger.info("Initial sync complete", {
      resource: this.#core.what,
      count,
    });
    const { onSyncComplete } = this.#config;
    if (onSyncComplete) {
      // The initial batch (fired by leaving sync mode) comes first, even when
      // its onChange is async.
      await this.#debouncer.idle();
      await this.#core.guarded(
        "onSyncComplete",
        () => onSyncComplete(this.#store, count),
      );
    }
  }
}

function resolveNamespace(config: WatcherConfig, client: RestClient): string {
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
