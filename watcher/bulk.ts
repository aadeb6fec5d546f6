import type { KubeObject, Logger, ReadableStore, Store } from "../types.ts";
import { type Clock, systemClock } from "../clock.ts";
import { consoleLogger } from "../logger.ts";
import { neverThrowingLogger } from "../internal/never_throwing_logger.ts";
import type { RestClient } from "../client/rest_client.ts";
import {
  Indexer,
  IndexerOptionsError,
  type ProcessedObject,
} from "../indexer/indexer.ts";
import { FieldSelector } from "../indexer/field_selector.ts";
import { formatLabelSelector } from "../indexer/label_selector.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { CachedStore } from "../store/cached_store.ts";
import { Debouncer } from "./debouncer.ts";
import {
  type ListInfo,
  ListWatch,
  type ListWatchFailure,
} from "./list_watch.ts";
import type { WatchEventType } from "./list_watch_types.ts";
import { SyncWaiters } from "./sync_waiters.ts";
import { Lifecycle } from "./_lifecycle.ts";
import {
  DEFAULT_CACHE_TTL,
  DEFAULT_DEBOUNCE_INTERVAL,
  validateClient,
  validateGvr,
  validateInitialList,
  validatePositive,
} from "./_validate.ts";
import {
  type WatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
} from "./watcher_config.ts";
import { runGuarded } from "./run_guarded.ts";

/**
 * A snapshot of a {@linkcode Watcher}'s state, for health endpoints.
 *
 * @example
 * ```ts
 * import type { WatcherHealth } from "@haptic/k8s-watcher";
 *
 * function healthy(h: WatcherHealth, now: number): boolean {
 *   return h.synced && (h.lastError === undefined || now - h.lastError.time > 60_000);
 * }
 * ```
 */
export interface WatcherHealth {
  /** The initial list is in the store. */
  readonly synced: boolean;
  /** The last resourceVersion seen (list, event or bookmark). */
  readonly resourceVersion: string | undefined;
  /** Objects in the store. */
  readonly objects: number;
  /** Lists after the first one (410 Gone, too large resourceVersion, …). */
  readonly relists: number;
  /**
   * Watches resumed from an earlier resourceVersion (after a stream ended,
   * broke or went idle); watches started from a (re)list do not count.
   */
  readonly reconnects: number;
  /** ADDED, MODIFIED and DELETED events received (bookmarks not counted). */
  readonly events: number;
  /** When the last watch event arrived, on the watcher's clock. */
  readonly lastEventTime: number | undefined;
  /** The last failure the loop retried. */
  readonly lastError: ListWatchFailure | undefined;
}

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
export class Watcher {
  #config: WatcherConfig;
  #resource: string;
  #logger: Logger;
  #indexer: Indexer;
  #fieldSelector: FieldSelector | undefined;
  #store: Store;
  #debouncer: Debouncer;
  #loop: ListWatch;
  #sync: SyncWaiters<number>;
  #lifecycle: Lifecycle;
  /** Keys of listed objects prepared page by page, until the list applies. */
  #listedKeys = new WeakMap<KubeObject, string[]>();

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
    if (!config || typeof config !== "object") {
      throw new WatcherConfigError("config", "must be an object");
    }
    validateGvr(config.gvr);
    validateClient(client);
    if (typeof config.onChange !== "function") {
      throw new WatcherConfigError("onChange", "must be a function");
    }
    if (
      config.onSyncComplete !== undefined &&
      typeof config.onSyncComplete !== "function"
    ) {
      throw new WatcherConfigError("onSyncComplete", "must be a function");
    }
    validatePositive("debounceInterval", config.debounceInterval);
    validatePositive("cacheTTL", config.cacheTTL);
    validatePositive("pageSize", config.pageSize, { integer: true });
    validatePositive("idleTimeoutMs", options.idleTimeoutMs);
    validateInitialList(config.initialList);
    const storeType = config.storeType ?? "memory";
    if (storeType !== "memory" && storeType !== "cached") {
      throw new WatcherConfigError(
        "storeType",
        `must be "memory" or "cached", got ${String(storeType)}`,
      );
    }
    this.#config = config;
    this.#resource = config.gvr.group
      ? `${config.gvr.resource}.${config.gvr.group}`
      : config.gvr.resource;
    this.#indexer = wrapConfigError("indexBy", () =>
      new Indexer({
        indexBy: config.indexBy,
        ignoreFields: config.ignoreFields,
      }));
    this.#fieldSelector = config.fieldSelector
      ? wrapConfigError(
        "fieldSelector",
        () => new FieldSelector(config.fieldSelector!),
      )
      : undefined;
    const labelSelector = config.labelSelector === undefined
      ? undefined
      : wrapConfigError(
        "labelSelector",
        () => formatLabelSelector(config.labelSelector!),
      );
    const namespace = resolveNamespace(config, client);

    const clock: Clock = options.clock ?? systemClock;
    this.#logger = neverThrowingLogger(options.logger ?? consoleLogger());
    const keyCount = this.#indexer.keyCount;
    this.#store = storeType === "cached"
      ? new CachedStore({
        client,
        gvr: config.gvr,
        filter: (obj) => this.#indexer.filterFields(obj),
        ttl: config.cacheTTL ?? DEFAULT_CACHE_TTL,
        keyCount,
        clock,
        logger: this.#logger,
      })
      : new MemoryStore({ keyCount });
    this.#debouncer = new Debouncer({
      interval: config.debounceInterval ?? DEFAULT_DEBOUNCE_INTERVAL,
      onChange: (stats) => config.onChange(this.#store, stats),
      suppressDuringSync: !config.callOnChangeDuringSync,
      clock,
      logger: this.#logger,
    });
    this.#sync = new SyncWaiters(this.#resource, () => this.#loop.lastError);
    this.#loop = new ListWatch(client, {
      onList: (objects, info) => this.#applyList(objects, info),
      onEvent: (type, obj) => this.#applyEvent(type, obj),
      prepareListItem: (obj) => this.#prepareListed(obj),
      onProgress: (n) =>
        this.#logger.debug("Listing", { resource: this.#resource, listed: n }),
    }, {
      gvr: config.gvr,
      namespace,
      labelSelector,
      pageSize: config.pageSize,
      initialList: config.initialList,
      idleTimeoutMs: options.idleTimeoutMs,
      clock,
      logger: this.#logger,
      random: options.random,
    });
    this.#lifecycle = new Lifecycle((signal) => {
      this.#debouncer.setSyncMode(true);
      return this.#loop.run(signal);
    }, () => this.#shutdown());
  }

  /** The indexed store. Reads may return Promises with `storeType: "cached"`. */
  get store(): ReadableStore {
    return this.#store;
  }

  /**
   * Starts listing and watching. Resolves once the watcher is stopped (by
   * {@linkcode Watcher.stop} or `signal`); it never rejects for transient
   * faults, which are retried. Calling it again returns the same promise.
   *
   * @param signal Stops the watcher when aborted.
   * @returns A promise that settles when the watcher has stopped.
   */
  start(signal?: AbortSignal): Promise<void> {
    return this.#lifecycle.start(signal);
  }

  /**
   * Resolves with the number of objects the initial list stored, once it is
   * in. Rejects with a {@linkcode WatcherSyncError} naming the last failure
   * (a 403, a missing CRD, …) when `signal` aborts or the watcher stops
   * first.
   *
   * @param signal Gives up waiting, e.g. `AbortSignal.timeout(30_000)`.
   * @returns The initial object count.
   */
  waitForSync(signal?: AbortSignal): Promise<number> {
    return this.#sync.wait(signal);
  }

  /** Whether the initial list is in the store. */
  isSynced(): boolean {
    return this.#sync.done;
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

  /**
   * Stops the loop, delivers pending changes in one last batch, and then
   * nothing fires any more: no callback, timer or open stream remains.
   * Idempotent.
   *
   * @returns A promise that settles when everything has stopped.
   */
  stop(): Promise<void> {
    return this.#lifecycle.stop();
  }

  /** When the loop last failed (and retried), on the watcher's clock. */
  lastWatchError(): number | undefined {
    return this.#loop.lastError?.time;
  }

  /** The loop's last failure, e.g. an `ApiError` with code 403. */
  lastError(): unknown {
    return this.#loop.lastError?.error;
  }

  /** A snapshot for health endpoints. */
  health(): WatcherHealth {
    return {
      synced: this.#sync.done,
      resourceVersion: this.#loop.resourceVersion,
      objects: this.#store.size,
      relists: this.#loop.relists,
      reconnects: this.#loop.reconnects,
      events: this.#loop.events,
      lastEventTime: this.#loop.lastEventTime,
      lastError: this.#loop.lastError,
    };
  }

  /** After the loop ended: the last batch, then silence. */
  async #shutdown(): Promise<void> {
    const deliverable = this.#sync.done || this.#config.callOnChangeDuringSync;
    if (deliverable) await this.#debouncer.flushPending();
    await this.#debouncer.stop();
    this.#sync.fail("the watcher was stopped");
  }

  /** Brings the store to `objects` in one synchronous step (atomic for readers). */
  #applyList(objects: KubeObject[], info: ListInfo): Promise<void> | void {
    const store = this.#store;
    if (store.size === 0) {
      // Nothing to diff against (the initial sync, or a relist after
      // everything went): no seen-set, no per-object lookups.
      for (const raw of objects) {
        const item = this.#listed(raw);
        if (item) store.add(item.obj, item.keys);
      }
      this.#debouncer.recordCreate(store.size);
    } else {
      this.#diffList(objects);
    }
    if (info.initial && !this.#sync.done) return this.#completeSync();
  }

  /** Applies a relist to a non-empty store; what the list lacks is deleted. */
  #diffList(objects: KubeObject[]): void {
    const store = this.#store;
    const seen = new Set<string>();
    let created = 0, modified = 0, deleted = 0;
    for (const raw of objects) {
      const item = this.#listed(raw);
      if (!item) continue;
      const { namespace = "", name = "", resourceVersion } = item.obj.metadata;
      seen.add(`${namespace}/${name}`);
      const previous = store.resourceVersionOf(namespace, name);
      if (previous === undefined) {
        store.add(item.obj, item.keys);
        created++;
      } else if (previous !== resourceVersion || !resourceVersion) {
        store.update(item.obj, item.keys);
        modified++;
      }
    }
    for (const [namespace, name] of store.identities()) {
      if (!seen.has(`${namespace}/${name}`)) {
        store.delete(namespace, name);
        deleted++;
      }
    }
    this.#debouncer.recordCreate(created);
    this.#debouncer.recordUpdate(modified);
    this.#debouncer.recordDelete(deleted);
  }

  #applyEvent(type: WatchEventType, raw: KubeObject): void {
    const { namespace = "", name } = raw.metadata ?? {};
    if (!name) {
      this.#logger.warn("Watch event without metadata.name skipped", {
        resource: this.#resource,
        type,
      });
      return;
    }
    const item = type === "DELETED" ? undefined : this.#prepare(raw);
    if (!item) {
      // Deleted, or no longer selected or indexable: either way it leaves.
      if (this.#store.delete(namespace, name)) this.#debouncer.recordDelete();
      return;
    }
    const previous = this.#store.resourceVersionOf(namespace, name);
    if (previous === undefined) {
      this.#store.add(item.obj, item.keys);
      this.#debouncer.recordCreate();
    } else if (
      previous !== item.obj.metadata.resourceVersion ||
      !previous
    ) {
      this.#store.update(item.obj, item.keys);
      this.#debouncer.recordUpdate();
    }
  }

  /**
   * Prepares a listed object as its page arrives, remembering its keys so
   * that the list is not selected a second time: a field selector may read
   * a field that `ignoreFields` removes.
   */
  #prepareListed(raw: KubeObject): KubeObject | undefined {
    const item = this.#prepare(raw);
    if (item) this.#listedKeys.set(item.obj, item.keys);
    return item?.obj;
  }

  /** A listed object ready to store: prepared by page, or now (streamed lists). */
  #listed(obj: KubeObject): ProcessedObject | undefined {
    const keys = this.#listedKeys.get(obj);
    return keys ? { obj, keys } : this.#prepare(obj);
  }

  /** Selects, filters and keys one object; `undefined` means "not stored". */
  #prepare(raw: KubeObject): ProcessedObject | undefined {
    if (this.#fieldSelector && !this.#fieldSelector.matches(raw)) {
      return undefined;
    }
    let item: ProcessedObject | undefined;
    try {
      item = this.#indexer.process(raw);
    } catch (error) {
      this.#logger.warn("Object skipped: it is not a valid Kubernetes object", {
        resource: this.#resource,
        error,
      });
      return undefined;
    }
    if (!item) {
      this.#logger.warn("Object skipped: an index key is missing", {
        resource: this.#resource,
        namespace: raw.metadata?.namespace,
        name: raw.metadata?.name,
        missing: this.#indexer.missingKey(raw),
      });
    }
    return item;
  }

  async #completeSync(): Promise<void> {
    const count = this.#store.size;
    this.#debouncer.setSyncMode(false);
    this.#sync.resolve(count);
    this.#logger.info("Initial sync complete", {
      resource: this.#resource,
      count,
    });
    const { onSyncComplete } = this.#config;
    if (onSyncComplete) {
      // The initial batch (fired by leaving sync mode) comes first, even when
      // its onChange is async.
      await this.#debouncer.idle();
      await runGuarded(
        () => onSyncComplete(this.#store, count),
        this.#logger,
        `onSyncComplete for ${this.#resource} failed`,
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
  const ns = client.defaultNamespace;
  if (!ns) {
    throw new WatcherConfigError(
      "namespacedWatch",
      "the client has no defaultNamespace; set namespace instead",
    );
  }
  return ns;
}

/** Rethrows a parse error from `build` as a config error naming `field`. */
function wrapConfigError<T>(field: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The indexer knows whether indexBy or ignoreFields was at fault.
    const option = error instanceof IndexerOptionsError ? error.option : field;
    throw new WatcherConfigError(option, message, { cause: error });
  }
}
