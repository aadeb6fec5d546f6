import type {
  Gvr,
  KubeObject,
  KubeObjectLike,
  Logger,
  ReadonlyFields,
} from "../types.ts";
// deno-lint-ignore no-unused-vars -- linked from the docs
import type { PartialObjectMetadata } from "../types.ts";
import { asPartialObjectMetadata, deepFreeze } from "../_internal/_objects.ts";
import type { RestClient } from "../client/rest_client.ts";
import type {
  InitialListMode,
  ListInfo,
  ListPage,
  ListWatchFailure,
  WatchEventType,
} from "../listwatch/list_watch_types.ts";
import { type Feed, WatcherBase, WatcherCore } from "./watcher_base.ts";
import {
  checkBoolean,
  checkConfigObject,
  checkCoreConfig,
  describe,
  planLoop,
  watcherLogger,
} from "./_watcher_plan.ts";
import type { LoopSettings } from "./_source_form.ts";
import { clientMeter } from "../_internal/_metrics.ts";
import {
  validateGvr,
  validateSingleNamespace,
  validateSkip, // deno-lint-ignore no-unused-vars -- linked from the docs
  type WatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
} from "./watcher_config.ts";
import { ListWatch } from "../listwatch/list_watch.ts";
import { namespacedObjectSkippedLine, write } from "./_log_lines.ts";
import { type Clock, systemClock } from "../clock.ts";
import { checkedMeter, WatcherMetrics } from "./_watcher_metrics.ts";
import { CallbackRetry } from "./_debounce_scheduler.ts";
import type { Meter } from "../metrics/meter.ts";

/**
 * Configuration of a {@linkcode SingleWatcher}: one named object. Its
 * callbacks receive the current object, or `null` once it was deleted or
 * when it does not exist.
 *
 * @example Credentials in a Secret
 * ```ts
 * import type { SingleWatcherConfig } from "@haptic/k8s-watcher";
 *
 * const config: SingleWatcherConfig = {
 *   gvr: { group: "", version: "v1", resource: "secrets" },
 *   namespace: "haptic",
 *   name: "haproxy-credentials",
 *   onChange: (secret) => console.log(secret ? "credentials changed" : "credentials deleted"),
 * };
 * ```
 *
 * @example A cluster-scoped object: no namespace
 * ```ts
 * import type { SingleWatcherConfig } from "@haptic/k8s-watcher";
 *
 * const config: SingleWatcherConfig = {
 *   gvr: { group: "", version: "v1", resource: "namespaces" },
 *   name: "haptic",
 *   onChange: (ns) => console.log(ns ? "namespace changed" : "namespace deleted"),
 * };
 * ```
 *
 * @typeParam T The watched object's type.
 */
export interface SingleWatcherConfig<T extends KubeObjectLike = KubeObject> {
  /** The resource of the object. */
  gvr: Gvr;
  /**
   * Its namespace; left out (or `undefined`) for a cluster-scoped object (a
   * Namespace, a Node, a ClusterRole, a CustomResourceDefinition), whose URL
   * has no `/namespaces/<namespace>/` segment. `""` is refused: omit it.
   * Without one, an object that has a namespace is not the one watched: it
   * is skipped, with a warning to set `namespace`.
   */
  namespace?: string;
  /** Its name. */
  name: string;
  /**
   * Called after the initial sync for every add, update and delete, in event
   * order and never overlapping; `null` when the object was deleted.
   */
  onChange: (obj: ReadonlyFields<T> | null) => void | Promise<void>;
  /** Called once with the state at the initial sync (`null` when absent). */
  onSyncComplete?: (obj: ReadonlyFields<T> | null) => void | Promise<void>;
  /**
   * How the first state is loaded.
   *
   * @default {"list"}
   */
  initialList?: InitialListMode;
  /**
   * Fetch and keep only `apiVersion`, `kind` and `metadata` (a
   * {@linkcode PartialObjectMetadata}), as {@linkcode WatcherConfig.metadataOnly}.
   *
   * @default {false}
   */
  metadataOnly?: boolean;
  /**
   * Which updates `onChange` is not called for.
   *
   * - `"statusOnly"`: skip a status-only write: same uid and same positive
   *   `metadata.generation`, and no difference outside `status`,
   *   `metadata.resourceVersion` and `metadata.managedFields`. A controller
   *   that writes the status of the object it watches (or whose object's
   *   status is updated by others, as a Deployment's is) would otherwise
   *   wake on every such write. Changes of labels, annotations, finalizers,
   *   owner references and `deletionTimestamp` are always delivered
   *   (Kubernetes leaves the generation alone for all but the last), and
   *   objects without a generation (ConfigMaps, Secrets) deliver every
   *   change.
   * - `"none"`: deliver every new version, status-only writes included.
   *
   * In both modes an event whose resourceVersion equals the current one
   * (the same object seen again, e.g. after a relist) is not a change.
   *
   * @default {"statusOnly"}
   */
  skip?: "statusOnly" | "none";
}

/**
 * Watches one named object and calls `onChange` at once for every change,
 * without debouncing and without a store (`watcher.NewSingle` of the Go
 * package `pkg/k8s/watcher` of haptic, the HAProxy ingress controller),
 * for things that must take effect immediately: credentials, the
 * controller's own configuration.
 *
 * - Lists and watches in the object's namespace with
 *   `fieldSelector=metadata.name=<name>`; without a `namespace`, a
 *   cluster-scoped object (a Namespace, a Node, a ClusterRole), at the
 *   resource's URL without a `/namespaces/<namespace>/` segment.
 * - Nothing is delivered before the initial sync; then
 *   `onSyncComplete(obj | null)` gets the current state, and
 *   `waitForSync()` resolves with 1 when the object exists and 0 when not
 *   (so the watcher is an `IndexSynchronizationTracker` source as it is).
 * - Afterwards every add, update and delete calls `onChange` in event order,
 *   one call at a time (an async callback is awaited before the next). A
 *   delete passes `null`.
 * - An update is skipped when its resourceVersion did not change, or, by
 *   default (`skip: "statusOnly"`), when it is a status-only write: the same
 *   uid and the same `metadata.generation` > 0, and no difference outside
 *   `status`, `metadata.resourceVersion` and `metadata.managedFields`. So a
 *   change of labels, annotations, finalizers or owner references is
 *   delivered although it leaves the generation alone, as is a
 *   `deletionTimestamp` being set, and objects without a generation
 *   (ConfigMaps, Secrets) deliver every change. `skip: "none"` delivers
 *   status-only writes too.
 * - A throwing or rejecting callback is logged and the watcher goes on. A
 *   failed `onChange` is called again with the latest state: by the next
 *   change, or without one 1 s after the failure (2 s after a second
 *   failure in a row, doubling to 60 s; from 1 s again once a call
 *   succeeds), on the watcher's clock. `stop()` cancels a retry waiting
 *   and calls nothing more. A failed `onSyncComplete` is not retried.
 *
 * @typeParam T The watched object's type.
 *
 * @example Watching one Secret
 * ```ts
 * import { FetchClient, SingleWatcher } from "@haptic/k8s-watcher";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const server = new FakeApiServer();
 * const gvr = { group: "", version: "v1", resource: "secrets" };
 * server.create(gvr, { metadata: { name: "creds", namespace: "haptic" }, data: {} });
 * using _fetch = mockFetch(server);
 *
 * let synced: unknown;
 * const watcher = new SingleWatcher({
 *   gvr,
 *   namespace: "haptic",
 *   name: "creds",
 *   onChange: () => {},
 *   onSyncComplete: (obj) => { synced = obj?.metadata.name; },
 * }, new FetchClient({ server: server.url }));
 * watcher.start();
 * assert.equal(await watcher.waitForSync(), 1); // the object exists
 * assert.equal(synced, "creds");
 * await watcher.stop();
 * await server.close();
 * ```
 */
export class SingleWatcher<T extends KubeObjectLike = KubeObject>
  extends WatcherBase<number> {
  #config: SingleWatcherConfig<T>;
  #core: WatcherCore<number>;
  #current: ReadonlyFields<T> | null = null;
  /** The object as found in the list being received. */
  #listed: ReadonlyFields<T> | null = null;
  /** Callbacks run one after another on this chain. */
  #callbacks: Promise<void> = Promise.resolve();
  #stopped = false;
  /**
   * The last `onChange` failed and none has succeeded since: the next call
   * (a change's, or the retry) delivers the latest state, newest wins.
   */
  #failing = false;
  /** When the latest state arrived, on the clock (a retry's wait). */
  #arrived = 0;
  #retry: CallbackRetry;
  /** A stop has begun: a failed call is not retried. */
  #retriesEnded = false;
  /** `metadataOnly`: keep `apiVersion`, `kind` and `metadata` only. */
  #reduce: boolean;
  /** `freezeObjects`: deep-freeze the object kept. */
  #freeze: boolean;
  #clock: Clock;
  /** With a meter: batches (one per call), waits and callback times. */
  #metrics: WatcherMetrics | undefined;
  /** The resource as log lines name it (`ingresses.networking.k8s.io`). */
  #resource = "";
  /** Whether a namespaced object skipped by a cluster-scoped watcher was logged. */
  #warnedNamespaced = false;

  /**
   * Checks the configuration; nothing is requested until
   * {@linkcode SingleWatcher.start}.
   *
   * @example A ConfigMap, status-only writes included
   * ```ts
   * import { FetchClient, SingleWatcher } from "@haptic/k8s-watcher";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * const settings = new SingleWatcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   namespace: "haptic",
   *   name: "settings",
   *   skip: "none",
   *   onChange: (cm) => console.log(cm ? "settings changed" : "settings deleted"),
   * }, client); // nothing is requested until start()
   * ```
   *
   * @param config The object to watch and what to call.
   * @param client A `FetchClient` or any `RestClient`; never closed here.
   * @param options Logger, clock and jitter source.
   * @throws {WatcherConfigError} Naming the option that is wrong.
   */
  constructor(
    config: SingleWatcherConfig<T>,
    client: RestClient,
    options?: WatcherOptions,
  ) {
    super();
    const plan = planSingleWatcher(config, client, options);
    this.#config = config;
    this.#resource = plan.resource;
    this.#reduce = plan.metadataOnly;
    this.#freeze = plan.freezeObjects;
    const clock = this.#clock = plan.clock ?? systemClock;
    this.#retry = new CallbackRetry(clock, () => this.#retryLatest());
    const watch = new ListWatch(client, {
      onListPage: (page) => this.#listPage(page),
      onListEnd: (info) => this.#listEnd(info),
      onEvent: (type, obj) => this.#applyEvent(type, obj),
    }, {
      ...plan.loop,
      gvr: config.gvr,
      namespace: config.namespace,
      fieldSelector: `metadata.name=${escapeFieldValue(config.name)}`,
      metadataOnly: config.metadataOnly,
      logger: plan.logger,
    });
    // Labelled by the object's name (the `watcher` label): two
    // SingleWatchers of one resource and namespace are two series.
    const metrics = this.#metrics = plan.meter && new WatcherMetrics(
      plan.meter,
      clock,
      config.gvr,
      config.namespace ?? "",
      config.name,
    );
    this.#core = new WatcherCore(this, {
      logger: plan.logger,
      what: plan.what,
      clock: plan.clock,
      feed: loopFeed(watch),
      parts: {
        shutdown: () => this.#shutdown(),
        objects: () => this.#current === null ? 0 : 1,
        silence: () => {
          this.#stopped = true;
          this.#retry.cancel();
        },
        // A stop calls nothing again: no retry from now on.
        stopping: () => {
          this.#retriesEnded = true;
          this.#retry.cancel();
        },
        metrics,
      },
    });
  }

  /**
   * The object as last seen, or `null` when absent (or not yet synced).
   *
   * @example The object as last seen
   * ```ts
   * import { FetchClient, SingleWatcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new SingleWatcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   namespace: "haptic",
   *   name: "settings",
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * assert.equal(await watcher.waitForSync(), 0);
   * const before = watcher.current;
   * assert.equal(before, null); // absent
   * server.create("configmaps", { metadata: { name: "settings", namespace: "haptic" }, data: { mode: "fast" } });
   * await waitFor(() => watcher.current !== null);
   * assert.deepEqual(watcher.current?.data, { mode: "fast" });
   * await watcher.stop();
   * ```
   */
  get current(): ReadonlyFields<T> | null {
    return this.#current;
  }

  /**
   * After the loop ended: let a running callback finish, skip the rest (a
   * retry waiting too).
   */
  async #shutdown(): Promise<void> {
    this.#stopped = true;
    this.#retry.cancel();
    await this.#callbacks;
  }

  #listPage(page: ListPage): void {
    if (page.first) this.#listed = null;
    const name = this.#config.name;
    for (const obj of page.items) {
      if (
        this.#listed === null && obj.metadata.name === name &&
        this.#inScope(obj)
      ) {
        this.#listed = this.#form(obj);
      }
    }
  }

  /**
   * Whether `obj` can be the watched object. Without a namespace the
   * requests go to the resource's URL, which for a namespaced type means
   * every namespace: an object there is not a cluster-scoped one, and the
   * name may be taken in several. The URL scopes a watcher with one.
   */
  #inScope(obj: KubeObject): boolean {
    const namespace = obj.metadata.namespace;
    if (this.#config.namespace !== undefined || !namespace) return true;
    if (!this.#warnedNamespaced) {
      this.#warnedNamespaced = true;
      write(
        this.#core.logger,
        namespacedObjectSkippedLine(
          this.#resource,
          namespace,
          this.#config.name,
        ),
      );
    }
    return false;
  }

  #listEnd(info: ListInfo): Promise<void> {
    const found = this.#listed;
    this.#listed = null;
    if (info.initial && !this.#core.synced) {
      this.#current = found;
      const { onSyncComplete } = this.#config;
      const done = onSyncComplete
        ? this.#enqueue(() => onSyncComplete(found), "onSyncComplete")
        : this.#callbacks;
      return done.then(() => this.#core.synchronized(found === null ? 0 : 1));
    }
    return this.#deliver(found);
  }

  #applyEvent(type: WatchEventType, obj: KubeObject): Promise<void> | void {
    if (obj.metadata.name !== this.#config.name || !this.#inScope(obj)) {
      return;
    }
    return this.#deliver(type === "DELETED" ? null : this.#form(obj));
  }

  /**
   * The object as kept: reduced to its metadata with `metadataOnly`,
   * frozen with `freezeObjects`; typed read-only as handed out.
   */
  #form(obj: KubeObject): ReadonlyFields<T> {
    const kept = this.#reduce ? asPartialObjectMetadata(obj) : obj;
    if (this.#freeze) deepFreeze(kept);
    return kept as unknown as ReadonlyFields<T>;
  }

  #deliver(next: ReadonlyFields<T> | null): Promise<void> {
    const previous = this.#current;
    if (!changed(previous, next, this.#config.skip ?? "statusOnly")) {
      // Keep the newest version even when the user need not hear of it.
      this.#current = next;
      return this.#callbacks;
    }
    this.#current = next;
    const arrived = this.#arrived = this.#clock.now();
    return this.#callbacks = this.#callbacks.then(() => {
      if (this.#stopped) return;
      return this.#callOnChange(next, arrived);
    });
  }

  /** The retry's time has come: the latest state, after what is queued. */
  #retryLatest(): void {
    this.#callbacks = this.#callbacks.then(() => {
      // Delivered since, or failed again (a later retry is armed), or
      // stopped: nothing to do now.
      if (
        this.#stopped || this.#retriesEnded || !this.#failing ||
        this.#retry.armed
      ) return;
      return this.#callOnChange(this.#current, this.#arrived);
    });
  }

  /** One call of `onChange`; a failure arms the retry. */
  async #callOnChange(
    obj: ReadonlyFields<T> | null,
    arrived: number,
  ): Promise<void> {
    const metrics = this.#metrics;
    if (metrics !== undefined) {
      if (this.#failing) metrics.retrying("onChange");
      metrics.deliveringOne(arrived);
    }
    const ok = await this.#core.guarded(
      "onChange",
      () => this.#config.onChange(obj),
    );
    this.#failing = !ok;
    if (ok) this.#retry.succeeded();
    else if (!this.#stopped && !this.#retriesEnded) this.#retry.failed();
  }

  #enqueue(callback: () => unknown, name: string): Promise<void> {
    this.#callbacks = this.#callbacks.then(async () => {
      if (this.#stopped) return;
      await this.#core.guarded(name, callback);
    });
    return this.#callbacks;
  }
}

/**
 * Escapes a field-selector value as client-go's `fields.EscapeValue` does:
 * names of some resources (RBAC roles, say) may contain `,` or `=`.
 */
function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, "\\$&");
}

/** Whether a user of the single watcher needs to hear about `next`. */
function changed(
  previous: KubeObjectLike | null,
  next: KubeObjectLike | null,
  skip: "statusOnly" | "none",
): boolean {
  if (previous === null || next === null) return previous !== next;
  const a = previous.metadata, b = next.metadata;
  if (a?.uid !== b?.uid) return true;
  if (a?.resourceVersion && a.resourceVersion === b?.resourceVersion) {
    return false;
  }
  // Both are objects as the API sent them (whatever type `T` gives them).
  return skip === "none" ||
    !isStatusOnlyChange(previous as KubeObject, next as KubeObject);
}

/** Everything a `SingleWatcher` is assembled from. */
export interface SingleWatcherPlan<T extends KubeObjectLike> {
  /** The user's configuration: its callbacks are called as given. */
  readonly config: SingleWatcherConfig<T>;
  readonly client: RestClient;
  /** The watched object, for messages (`secrets haptic/creds`). */
  readonly what: string;
  /** The resource, for log lines (`ingresses.networking.k8s.io`). */
  readonly resource: string;
  readonly logger: Logger;
  /** The user's clock, if any. */
  readonly clock: Clock | undefined;
  /** Its own, else its client's. */
  readonly meter: Meter | undefined;
  /** How its one loop runs. */
  readonly loop: LoopSettings;
  /** `metadataOnly`: keep `apiVersion`, `kind` and `metadata` only. */
  readonly metadataOnly: boolean;
  /** `freezeObjects`: deep-freeze the object kept. */
  readonly freezeObjects: boolean;
}

/**
 * Checks `config`, `client` and `options` of a `SingleWatcher`; throws the
 * first problem as a `WatcherConfigError` naming the option, in the order
 * the checks below run (the shared ones are `_watcher_plan.ts`'s). Not
 * public: `mod.ts` exports only `SingleWatcher` and `SingleWatcherConfig`
 * from this file.
 */
export function planSingleWatcher<T extends KubeObjectLike>(
  config: SingleWatcherConfig<T>,
  client: RestClient,
  options: WatcherOptions | undefined,
): SingleWatcherPlan<T> {
  if (options === undefined) options = {};
  checkConfigObject("SingleWatcher", SINGLE_NAMES, config, options);
  if (typeof config.onChange !== "function") {
    throw new WatcherConfigError("onChange", "must be a function");
  }
  if (typeof config.name !== "string" || config.name === "") {
    throw new WatcherConfigError("name", "must be a non-empty string");
  }
  validateSingleNamespace(config.namespace);
  validateSkip(config.skip);
  checkBoolean("metadataOnly", config.metadataOnly, false);
  checkBoolean("freezeObjects", options.freezeObjects, false);
  // Its own, else its client's: one set on the client reaches it.
  const meter = checkedMeter(options.meter) ??
    checkedMeter(clientMeter(client), "client.meter");
  validateGvr(config.gvr);
  const loop = planLoop(config, options, meter);
  checkCoreConfig(config, client);
  const { gvr, namespace, name } = config;
  const resource = describe(gvr);
  return Object.freeze({
    config,
    client,
    what: namespace === undefined
      ? `${gvr.resource} ${name}`
      : `${gvr.resource} ${namespace}/${name}`,
    resource,
    // Who speaks, on every line: the object.
    logger: watcherLogger(
      options,
      namespace === undefined
        ? { resource, name }
        : { resource, namespace, name },
    ),
    clock: options.clock,
    meter,
    // One series per watched object.
    loop: Object.freeze({ ...loop, name }),
    metadataOnly: config.metadataOnly === true,
    freezeObjects: options.freezeObjects === true,
  });
}

const SINGLE_NAMES: Record<keyof SingleWatcherConfig, true> = {
  gvr: true,
  namespace: true,
  name: true,
  onChange: true,
  onSyncComplete: true,
  initialList: true,
  metadataOnly: true,
  skip: true,
};

/** The feed of its one private loop: a stream no other watcher shares. */
function loopFeed(loop: ListWatch): Feed {
  return {
    run: (signal) => loop.run(signal),
    get lastError(): ListWatchFailure | undefined {
      return loop.lastError;
    },
    health: () => ({
      resourceVersion: loop.resourceVersion,
      ...loop.stats,
      idleTimeoutMs: loop.idleTimeoutMs,
      shared: false,
      notShared: "SingleWatcher",
    }),
  };
}

/**
 * Whether `next` differs from `previous` only where the API server or a
 * controller records observed state: `status`, `metadata.resourceVersion`
 * and `metadata.managedFields`. Both must be the same incarnation (same
 * `uid`) at the same `metadata.generation`, and that generation must be a
 * positive number: an object that does not track its generation gives no
 * such promise, so every change of it counts.
 *
 * Labels, annotations, finalizers, owner references and `deletionTimestamp`
 * are compared like everything else: Kubernetes does not bump the
 * generation when the first four change (it does when it sets
 * `deletionTimestamp`, but a server need not), yet a controller must hear
 * of them all.
 *
 * Walks both objects side by side and stops at the first difference;
 * nothing is serialised or copied. Values compare as JSON does: a key whose
 * value is `undefined` equals a missing key, key order does not matter,
 * array order does.
 */
export function isStatusOnlyChange(
  previous: KubeObject,
  next: KubeObject,
): boolean {
  const a = previous.metadata, b = next.metadata;
  if (!a || !b || a.uid !== b.uid) return false;
  const generation = a.generation;
  if (
    typeof generation !== "number" || !(generation > 0) ||
    generation !== b.generation
  ) {
    return false;
  }
  return sameType(previous.apiVersion, next.apiVersion) &&
    sameType(previous.kind, next.kind) &&
    sameOutside(previous, next, TOP_LEVEL_IGNORED) &&
    sameOutside(a, b, METADATA_IGNORED);
}

/**
 * kube-apiserver leaves `apiVersion` and `kind` out of the items of a LIST
 * of a built-in type, and sends them with every watch event: one side
 * without them is no change.
 */
function sameType(a: unknown, b: unknown): boolean {
  return a === undefined || b === undefined || a === b;
}

/** Top-level fields compared apart, or that a status-only write may change. */
const TOP_LEVEL_IGNORED: ReadonlySet<string> = new Set([
  "status",
  "metadata",
  "apiVersion",
  "kind",
]);
/** Metadata fields that change on every write, whatever it changed. */
const METADATA_IGNORED: ReadonlySet<string> = new Set([
  "resourceVersion",
  "managedFields",
]);

/** Whether `a` and `b` hold equal values under every key not in `ignored`. */
function sameOutside(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  ignored: ReadonlySet<string>,
): boolean {
  for (const key in a) {
    if (!ignored.has(key) && !jsonEqual(a[key], b[key])) return false;
  }
  // Keys only `b` has (with a defined value) are a difference too.
  for (const key in b) {
    if (!ignored.has(key) && a[key] === undefined && b[key] !== undefined) {
      return false;
    }
  }
  return true;
}

/** Deep equality of two decoded JSON values. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null || b === null
  ) {
    return false;
  }
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  if (isArray) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!jsonEqual(a[i], other[i])) return false;
    }
    return true;
  }
  return sameOutside(
    a as Record<string, unknown>,
    b as Record<string, unknown>,
    NOTHING_IGNORED,
  );
}

const NOTHING_IGNORED: ReadonlySet<string> = new Set();
