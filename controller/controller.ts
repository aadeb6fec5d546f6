/**
 * `Controller<T>`: watchers feeding a per-key queue, and workers that
 * reconcile its keys; `ControllerHealth`, its snapshot for health endpoints.
 *
 * @module
 */
import type {
  IndexedStore,
  KubeObject,
  KubeObjectLike,
  ReadonlyFields,
} from "../types.ts";
import type { RestClient } from "../client/rest_client.ts";
import type { TimerHandle } from "../clock.ts";
import { Watcher } from "../watcher/watcher.ts";
import type { ChangeBatch } from "../watcher/change_batch.ts";
import { WatcherConfigError } from "../config_error.ts";
import { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import {
  insideCallbackOf,
  Lifecycle,
  runAsCallbackOf,
} from "../_internal/_lifecycle.ts";
import { contextLogger } from "../_internal/_logging.ts";
import {
  type ControllerPlan,
  planController,
  type ResourcePlan,
} from "./_controller_plan.ts";
import { batchKeys, objectKeys } from "./_batch_keys.ts";
import { WriteWaits } from "./_write_waits.ts";
import {
  controllerLines as lines,
  ControllerMetrics,
  type ReconcileOutcome,
} from "./_controller_telemetry.ts";
import { WorkQueue } from "./work_queue.ts";
import { ControllerConfigError, ControllerStoppedError } from "./errors.ts";
import type {
  ControllerConfig,
  ControllerOptions,
  ReconcileContext,
  ReconcileResult,
} from "./controller_config.ts";
import { objectKey, splitObjectKey } from "./object_helpers.ts";
import type { WatcherHealth } from "../watcher/watcher_health.ts";

type Obj = ReadonlyFields<KubeObject>;
type SyncStore = IndexedStore<Obj, "sync">;

/** Why a reconcile's signal aborted, when its timeout did it. */
class ReconcileTimeout extends Error {}

/** Why a reconcile's signal aborted, when its key left the shard. */
class KeyMoved extends Error {}

/**
 * A controller: it watches a primary resource (`for`), its children
 * (`owns`) and anything mapped to it (`watches`), queues the key of every
 * object that changed, and calls `reconcile(key, context)` for each key,
 * never twice at once for one key, at most `maxConcurrent` at a time.
 *
 * - **Level-triggered.** A key is queued once however many events it gets
 *   while it waits (and once more at most while it is reconciled); the
 *   reconcile reads the current state from the context's stores. A
 *   deleted object is reconciled once more, absent.
 * - **Results.** Nothing: done, its backoff forgotten. `{ requeueAfter }`:
 *   again after that long. `{ requeue: true }`: again after its backoff. A
 *   throw, a rejection or `reconcileTimeoutMs` passing: a failure, retried
 *   after the key's backoff (5 ms doubling to 1000 s by default).
 * - **Start.** No reconcile starts before every watched store has synced;
 *   then every primary key is reconciled once, behind live events.
 * - **Read your writes.** A reconcile that calls `context.wrote(obj)` with
 *   what a write returned holds its key's next reconcile until the cache
 *   shows that version (or deletion), for at most `readYourWritesTimeoutMs`;
 *   after several calls, until it shows each of them.
 * - **Leader election.** With `leader`, a standby syncs its stores and fills
 *   its queue, and reconciles only while it leads. Losing the lead aborts
 *   the reconciles in flight; their keys wait for the next term.
 * - **Stop.** `stop()` (or `await using`) lets the reconciles in flight
 *   finish (`drainOnStop`, the default) or aborts them, then stops the
 *   watchers; it resolves once no reconcile runs. Inside a reconcile it
 *   resolves at once, and nothing new starts; the rest follows.
 *
 * The HAPTIC model, one debounced batch into one full re-render (an ingress
 * controller's configuration, say), is a `DebounceGroup` instead: a
 * controller is for work per object.
 *
 * Metrics (the client's meter by default): controller-runtime's
 * `controller_runtime_reconcile_total` by `result`,
 * `controller_runtime_reconcile_errors_total`,
 * `controller_runtime_reconcile_time_seconds`,
 * `controller_runtime_active_workers` and
 * `controller_runtime_max_concurrent_reconciles`, labelled `controller`;
 * its queue's `workqueue_*` series, and its watchers'.
 *
 * @example A ConfigMap copied, kept in step
 * ```ts
 * import { Controller } from "@haptic/k8s-watcher/controller";
 * import { FetchClient, ResourceClient } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
 * import { silentLogger } from "@haptic/k8s-watcher/logger";
 *
 * await using server = new FakeApiServer();
 * server.create("configmaps", { metadata: { namespace: "shop", name: "source" }, data: { a: "1" } });
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const gvr = { group: "", version: "v1", resource: "configmaps" };
 * const configMaps = new ResourceClient({ client, gvr });
 * await using controller = new Controller({
 *   name: "copier",
 *   for: { gvr, fieldSelector: "metadata.name=source" },
 *   reconcile: async (_key, { get, namespace }) => {
 *     const source = get();
 *     if (source === undefined) return; // deleted
 *     await configMaps.apply({
 *       apiVersion: "v1",
 *       kind: "ConfigMap",
 *       metadata: { namespace, name: "copy" },
 *       data: source.data,
 *     }, { fieldManager: "copier", namespace });
 *   },
 * }, client, { logger: silentLogger });
 * controller.start();
 * await waitFor(() =>
 *   server.list("configmaps", "shop").some((c) => c.metadata.name === "copy")
 * );
 * ```
 *
 * @typeParam T The primary objects.
 */
export class Controller<T extends KubeObjectLike = KubeObject>
  implements AsyncDisposable {
  readonly #plan: ControllerPlan<T>;
  readonly #queue: WorkQueue<string>;
  /** Every watcher by store name; the primary's first. */
  readonly #watchers = new Map<string, Watcher<KubeObject>>();
  readonly #resources: readonly ResourcePlan[];
  /** The store names of the cluster-scoped resources (keyed by name alone). */
  readonly #clusterScoped: ReadonlySet<string>;
  readonly #tracker: IndexSynchronizationTracker;
  readonly #trackerAbort = new AbortController();
  readonly #waits: WriteWaits;
  readonly #metrics: ControllerMetrics | undefined;
  readonly #lifecycle: Lifecycle;
  /** Aborts every reconcile in flight: a stop without draining. */
  readonly #abortAll = new AbortController();
  /** The worker loops running, of every term. */
  readonly #workers = new Set<Promise<void>>();
  #active = 0;
  #synced = false;
  /** A stop began (maybe from inside a reconcile): start nothing new. */
  #stopping = false;
  #unfollow: (() => void) | undefined;
  #resync: TimerHandle;
  /** Sharded: the reconciles running, to abort those whose key leaves. */
  readonly #running = new Map<
    string,
    { readonly own: AbortController; readonly ended: Promise<void> }
  >();
  /**
   * Sharded: keys whose deletion the primary watcher reported, so their
   * reconcile (absent) is this replica's, until one succeeds.
   */
  readonly #deleted = new Set<string>();
  /**
   * Sharded: keys of objects this replica holds but was not yet allowed
   * to work on (a hand-off to it under way): queued once it may.
   */
  readonly #waitingForShard = new Set<string>();
  #unsubscribe: (() => void) | undefined;

  /**
   * Checks the configuration and builds the watchers; nothing is requested
   * until {@linkcode Controller.start}.
   *
   * @example A controller of Namespaces (cluster-scoped)
   * ```ts
   * import { Controller } from "@haptic/k8s-watcher/controller";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * await using _controller = new Controller({
   *   name: "namespaces",
   *   for: { gvr: { group: "", version: "v1", resource: "namespaces" }, clusterScoped: true },
   *   reconcile: (key) => console.log("namespace", key),
   * }, client);
   * ```
   *
   * @param config What it watches and the reconcile; see {@linkcode ControllerConfig}.
   * @param client A `FetchClient` or any `RestClient`; never closed here.
   * @param options Its watchers' options (logger, clock, meter, …).
   * @throws {ControllerConfigError} Naming the option that is wrong, with
   * a resource's path (`owns[0].labelSelector`) for a watcher field.
   */
  constructor(
    config: ControllerConfig<T>,
    client: RestClient,
    options?: ControllerOptions,
  ) {
    const plan = this.#plan = planController(config, client, options);
    this.#resources = [plan.primary, ...plan.others];
    this.#clusterScoped = new Set(
      this.#resources.filter((r) => r.clusterScoped).map((r) => r.name),
    );
    this.#queue = asControllerError("queue.", () => new WorkQueue(plan.queue));
    for (const resource of this.#resources) {
      const watcher = asControllerError(
        `${resource.path}.`,
        () =>
          new Watcher<KubeObject>(
            {
              ...resource.watcher,
              onChange: (_store, batch) => this.#changed(resource, batch),
            },
            client,
            plan.watcherOptions,
          ),
      );
      this.#watchers.set(resource.name, watcher);
    }
    this.#tracker = new IndexSynchronizationTracker(
      this.#resources.map((resource) => resource.name),
      { logger: plan.logger, signal: this.#trackerAbort.signal },
    );
    this.#tracker.synchronized.catch(() => {}); // a stop before the sync
    this.#waits = new WriteWaits(plan.clock, plan.readYourWritesTimeoutMs, {
      cached: (store, namespace, name) =>
        this.#lookup(store, namespace, name)?.metadata.resourceVersion,
      release: (key) => this.#add(key),
      expired: (key, written, cached) =>
        lines.staleCache(
          contextLogger(plan.logger, { key }),
          written,
          cached,
          plan.readYourWritesTimeoutMs,
        ),
    });
    if (plan.meter !== undefined) {
      this.#metrics = new ControllerMetrics(plan.meter, plan.name, {
        active: () => this.#active,
        max: plan.maxConcurrent,
      });
    }
    this.#lifecycle = new Lifecycle(
      (signal) => this.#run(signal),
      () => this.#shutdown(),
      () => new ControllerStoppedError(plan.name, "start()"),
      {
        now: () => insideCallbackOf(this),
        silence: () => void (this.#stopping = true),
      },
    );
  }

  /**
   * Starts the watchers, waits for every store's initial list, then
   * reconciles (while leading, with `leader`). Resolves once stopped (by
   * `stop()` or `signal`).
   *
   * @example Until a signal aborts
   * ```ts
   * import { Controller } from "@haptic/k8s-watcher/controller";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import { silentLogger } from "@haptic/k8s-watcher/logger";
   *
   * await using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { namespace: "shop", name: "a" } });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const seen: string[] = [];
   * const controller = new Controller({
   *   name: "configmaps",
   *   for: { gvr: { group: "", version: "v1", resource: "configmaps" } },
   *   reconcile: (key) => void seen.push(key),
   * }, client, { logger: silentLogger });
   * const abort = new AbortController();
   * const running = controller.start(abort.signal);
   * await waitFor(() => seen.length === 1);
   * abort.abort();
   * await running;
   * ```
   *
   * @param signal Stops the controller (as `stop()` does) when aborted.
   * @returns A promise that settles once the controller has stopped.
   * @throws {ControllerStoppedError} When it was stopped before.
   */
  start(signal?: AbortSignal): Promise<void> {
    return this.#lifecycle.start(signal);
  }

  /**
   * Stops: no reconcile starts from now on; the ones in flight finish
   * (`drainOnStop`) or are aborted; then the watchers stop. Resolves once
   * no reconcile runs. Idempotent; inside a reconcile it resolves at once.
   *
   * @example Stopping from a reconcile
   * ```ts
   * import { Controller } from "@haptic/k8s-watcher/controller";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import { silentLogger } from "@haptic/k8s-watcher/logger";
   *
   * await using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { namespace: "shop", name: "a" } });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const controller: Controller = new Controller({
   *   name: "once",
   *   for: { gvr: { group: "", version: "v1", resource: "configmaps" } },
   *   reconcile: async () => {
   *     await controller.stop(); // resolves at once in here
   *   },
   * }, client, { logger: silentLogger });
   * await controller.start(); // resolves once stopped
   * ```
   *
   * @returns A promise that settles when everything has stopped.
   */
  stop(): Promise<void> {
    return this.#lifecycle.stop();
  }

  /**
   * Stops the controller, as {@linkcode Controller.stop}.
   *
   * @example With `await using`
   * ```ts
   * import { Controller } from "@haptic/k8s-watcher/controller";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * {
   *   await using _controller = new Controller({
   *     name: "widgets",
   *     for: { gvr: { group: "example.com", version: "v1", resource: "widgets" } },
   *     reconcile: () => {},
   *   }, client);
   * } // stopped here
   * ```
   *
   * @returns A promise that settles when everything has stopped.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /**
   * Queues every primary key at low priority (behind live events), as a
   * resync does: for "something every object depends on changed".
   *
   * @example After a change only this program knows of
   * ```ts
   * import { Controller } from "@haptic/k8s-watcher/controller";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import { silentLogger } from "@haptic/k8s-watcher/logger";
   *
   * await using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { namespace: "shop", name: "a" } });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * let runs = 0;
   * await using controller = new Controller({
   *   name: "configmaps",
   *   for: { gvr: { group: "", version: "v1", resource: "configmaps" } },
   *   reconcile: () => void runs++,
   * }, client, { logger: silentLogger });
   * controller.start();
   * await waitFor(() => runs === 1);
   * controller.reconcileAll();
   * await waitFor(() => runs === 2);
   * ```
   *
   * @throws {ControllerStoppedError} When the controller was stopped.
   */
  reconcileAll(): void {
    if (this.#lifecycle.state === "stopped") {
      throw new ControllerStoppedError(this.#plan.name, "reconcileAll()");
    }
    this.#addAll();
  }

  /**
   * A snapshot for health endpoints: synced, leading, workers, queue and
   * each watcher's health. `healthHandler({ controllers })` serves it.
   *
   * @example Before start
   * ```ts
   * import { Controller } from "@haptic/k8s-watcher/controller";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import assert from "node:assert/strict";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * await using controller = new Controller({
   *   name: "widgets",
   *   for: { gvr: { group: "example.com", version: "v1", resource: "widgets" } },
   *   reconcile: () => {},
   * }, client);
   * const health = controller.health();
   * assert.equal(health.state, "idle");
   * assert.equal(health.workers.max, 4);
   * ```
   *
   * @returns The snapshot.
   */
  health(): ControllerHealth {
    return {
      state: this.#lifecycle.state,
      synced: this.#synced,
      leading: this.#plan.leader?.isLeader(),
      workers: { active: this.#active, max: this.#plan.maxConcurrent },
      queue: {
        waiting: this.#queue.length,
        processing: this.#queue.processing.size,
        heldForWrites: this.#waits.held,
      },
      watchers: Object.fromEntries(
        [...this.#watchers].map(([name, watcher]) => [name, watcher.health()]),
      ),
    };
  }

  async #run(signal: AbortSignal): Promise<void> {
    this.#unsubscribe = this.#plan.shard?.subscribe(() => this.#shardChanged());
    for (const [name, watcher] of this.#watchers) {
      watcher.start();
      void this.#tracker.track(name, watcher);
    }
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    const synced = await Promise.race([
      this.#tracker.synchronized.then(() => true, () => false),
      stopped.then(() => false),
    ]);
    if (synced && !signal.aborted && !this.#stopping) {
      this.#synced = true;
      this.#scheduleResync();
      const leader = this.#plan.leader;
      if (leader === undefined) {
        lines.synced(this.#plan.logger, this.#queue.length);
        // Not the run's signal: a stop drains through the queue instead.
        this.#work(new AbortController().signal);
      } else {
        if (!leader.isLeader()) lines.waitingForLead(this.#plan.logger);
        this.#unfollow = leader.whileLeading((term) => this.#lead(term));
      }
    }
    await stopped;
  }

  /** A term began: reconcile until it ends. */
  #lead(term: AbortSignal): void {
    if (this.#stopping || term.aborted) return;
    lines.leading(this.#plan.logger, this.#plan.maxConcurrent);
    term.addEventListener("abort", () => {
      if (!this.#stopping) lines.leadLost(this.#plan.logger, this.#active);
    }, { once: true });
    // The last term's workers end first (their reconciles were aborted):
    // never more than maxConcurrent reconciles at once.
    void Promise.all(this.#workers).then(() => {
      if (!term.aborted && !this.#stopping) this.#work(term);
    });
  }

  /**
   * Runs `maxConcurrent` workers until `until` (a term) aborts or the
   * queue shuts down.
   */
  #work(until: AbortSignal): void {
    for (let i = 0; i < this.#plan.maxConcurrent; i++) {
      const worker = this.#worker(until);
      this.#workers.add(worker);
      void worker.finally(() => this.#workers.delete(worker));
    }
  }

  async #worker(until: AbortSignal): Promise<void> {
    while (!until.aborted && !this.#stopping) {
      let key: string | undefined;
      try {
        key = await this.#queue.next(until);
      } catch {
        return; // the term ended while waiting
      }
      if (key === undefined) return; // shut down
      if (until.aborted || this.#stopping) {
        this.#queue.done(key);
        this.#add(key);
        return;
      }
      await this.#process(key, until);
    }
  }

  /** One key, handed out: held for a write, or reconciled. */
  async #process(key: string, term: AbortSignal): Promise<void> {
    if (!this.#mayWork(key)) {
      // Another replica's (now): its backoff goes; a share that brings it
      // back queues it again.
      if (this.#primaryOf(key) !== undefined) this.#waitingForShard.add(key);
      this.#queue.forget(key);
      this.#waits.clear(key);
      this.#queue.done(key);
      return;
    }
    if (!this.#waits.ready(key)) {
      this.#queue.done(key); // its wait's end queues it again
      return;
    }
    const plan = this.#plan;
    const attempt = this.#queue.retries(key) + 1;
    const own = new AbortController();
    let ended = () => {};
    if (plan.shard !== undefined) {
      this.#running.set(key, {
        own,
        ended: new Promise<void>((resolve) => ended = resolve),
      });
    }
    const signal = AbortSignal.any([own.signal, term, this.#abortAll.signal]);
    const timeoutMs = plan.reconcileTimeoutMs;
    const timer = timeoutMs === undefined ? undefined : plan.clock.setTimeout(
      () => own.abort(new ReconcileTimeout("Reconcile timed out")),
      timeoutMs,
    );
    const logger = contextLogger(plan.logger, { key });
    const started = plan.clock.now();
    this.#active++;
    let result: unknown;
    let failure: { error: unknown } | undefined;
    try {
      result = await runAsCallbackOf(
        this,
        () => plan.reconcile(key, this.#context(key, signal, attempt, logger)),
      );
    } catch (error) {
      failure = { error };
    } finally {
      this.#active--;
      this.#running.delete(key);
      ended();
      if (timer !== undefined) plan.clock.clearTimeout(timer);
    }
    const outcome = this.#settle(key, {
      result,
      failure,
      timedOut: own.signal.reason instanceof ReconcileTimeout,
      cutShort: term.aborted || own.signal.reason instanceof KeyMoved,
      attempt,
      logger,
    });
    if (outcome !== undefined) {
      this.#metrics?.reconciled(outcome, plan.clock.now() - started);
    }
    this.#queue.done(key);
  }

  /** What a reconcile's end means for its key; the outcome to count. */
  #settle(key: string, end: {
    result: unknown;
    failure: { error: unknown } | undefined;
    timedOut: boolean;
    /** Its term ended, or its key left the shard: not its own failure. */
    cutShort: boolean;
    attempt: number;
    logger: ReturnType<typeof contextLogger>;
  }): ReconcileOutcome | undefined {
    const queue = this.#queue;
    const retry = (): ReconcileOutcome => {
      if (!queue.isShutDown) queue.addRateLimited(key);
      return "error";
    };
    if (end.timedOut) {
      lines.timedOut(end.logger, end.attempt, this.#plan.reconcileTimeoutMs!);
      return retry();
    }
    // Cut short by a lost lead or a key that left (and not by its own
    // timeout first), however it ended: a reconcile may return when its
    // signal aborts. No outcome of its own; the next term, the new owner or
    // this replica when the key comes back looks again.
    if (end.cutShort) {
      this.#add(key);
      return undefined;
    }
    if (end.failure !== undefined) {
      // Cut short by a stop without draining: nothing more for this key.
      if (this.#abortAll.signal.aborted) return undefined;
      lines.failed(end.logger, end.attempt, end.failure.error);
      return retry();
    }
    const result = end.result as ReconcileResult | undefined;
    if (result === undefined || result === null) {
      queue.forget(key);
      this.#deleted.delete(key);
      return "success";
    }
    if (
      typeof result === "object" && result.requeue === undefined &&
      typeof result.requeueAfter === "number" && result.requeueAfter >= 0 &&
      Number.isFinite(result.requeueAfter)
    ) {
      queue.forget(key);
      if (!queue.isShutDown) queue.addAfter(key, result.requeueAfter);
      return "requeue_after";
    }
    if (
      typeof result === "object" && result.requeue === true &&
      result.requeueAfter === undefined
    ) {
      if (!queue.isShutDown) queue.addRateLimited(key);
      return "requeue";
    }
    lines.badResult(end.logger, result);
    return retry();
  }

  #context(
    key: string,
    signal: AbortSignal,
    attempt: number,
    logger: ReturnType<typeof contextLogger>,
  ): ReconcileContext<T> {
    const { namespace, name } = splitObjectKey(key);
    const primary = this.#plan.primary;
    return {
      key,
      namespace,
      name,
      get: () =>
        this.#lookup(primary.name, namespace, name) as
          | ReadonlyFields<T>
          | undefined,
      store: (store = primary.name) => this.#store(store),
      signal,
      attempt,
      logger,
      event: (event) => {
        const recorder = this.#plan.recorder;
        if (recorder === undefined) {
          throw new TypeError(
            `Controller ${this.#plan.name} has no recorder: give it one (an EventRecorder) to record Events`,
          );
        }
        const obj = this.#lookup(primary.name, namespace, name);
        if (obj === undefined) return;
        recorder.event({
          apiVersion: this.#plan.apiVersion,
          kind: primary.kind,
          metadata: obj.metadata,
        }, event);
      },
      wrote: (object, store = primary.name) => {
        const written = this.#written(object, store);
        if (typeof written === "string") lines.badWrite(logger, written);
        else this.#waits.expect(key, written);
      },
    };
  }

  /** What `wrote(object, store)` waits for, or why it cannot. */
  #written(object: KubeObjectLike, store: string) {
    if (!this.#watchers.has(store)) {
      return `no store is named ${JSON.stringify(store)} (${
        [...this.#watchers.keys()].join(", ")
      })`;
    }
    const metadata = (object as { metadata?: KubeObject["metadata"] })
      ?.metadata;
    const name = metadata?.name;
    const resourceVersion = metadata?.resourceVersion;
    if (typeof name !== "string" || typeof resourceVersion !== "string") {
      return "the object has no metadata.name or metadata.resourceVersion (pass what the write returned)";
    }
    return {
      store,
      namespace: metadata?.namespace || undefined,
      name,
      resourceVersion,
      uid: metadata?.uid || undefined,
    };
  }

  #store(name: string): SyncStore {
    const watcher = this.#watchers.get(name);
    if (watcher === undefined) {
      throw new RangeError(
        `Controller ${this.#plan.name} has no store named ${
          JSON.stringify(name)
        }: its stores are ${[...this.#watchers.keys()].join(", ")}`,
      );
    }
    return watcher.store as unknown as SyncStore;
  }

  #lookup(
    store: string,
    namespace: string | undefined,
    name: string,
  ): Obj | undefined {
    const found = this.#clusterScoped.has(store)
      ? this.#store(store).get(name)
      : namespace === undefined
      ? []
      : this.#store(store).get(namespace, name);
    return found[0];
  }

  /** A watcher's batch: keys to queue, writes seen. */
  #changed(resource: ResourcePlan, batch: ChangeBatch<Obj>): void {
    if (this.#queue.isShutDown) return;
    if (batch.isInitialSync) {
      if (resource.role === "reconcileAllOn") return;
      const keys = new Set<string>();
      for (const obj of this.#store(resource.name).list()) {
        objectKeys(this.#plan, resource, obj, keys, this.#mapFailed(resource));
      }
      for (const key of keys) this.#add(key, true);
      return;
    }
    this.#observeWrites(resource, batch);
    if (resource.role === "for" && this.#plan.shard !== undefined) {
      for (const obj of batch.objects.deleted) {
        this.#deleted.add(objectKey(obj));
      }
    }
    if (resource.role === "reconcileAllOn") {
      if (batch.total > 0) this.#addAll();
      return;
    }
    const keys = batchKeys(
      this.#plan,
      resource,
      batch,
      this.#mapFailed(resource),
    );
    for (const key of keys) this.#add(key);
  }

  #observeWrites(resource: ResourcePlan, batch: ChangeBatch<Obj>): void {
    const { created, modified, deleted } = batch.objects;
    const seen = (obj: Obj, gone: boolean) =>
      this.#waits.observed(
        resource.name,
        obj.metadata.namespace || undefined,
        obj.metadata.name!,
        gone ? { uid: obj.metadata.uid } : undefined,
      );
    for (const obj of created) seen(obj, false);
    for (const { current } of modified) seen(current, false);
    for (const obj of deleted) seen(obj, true);
  }

  /**
   * Whether this replica may reconcile `key` now: always unsharded; else
   * while the shard owns its object, or its deletion was reported here.
   */
  #mayWork(key: string): boolean {
    const shard = this.#plan.shard;
    if (shard === undefined) return true;
    const obj = this.#primaryOf(key);
    return obj === undefined ? this.#deleted.has(key) : shard.owns(obj);
  }

  /**
   * The share changed (the ring waits for this before it gives keys away):
   * reconciles of keys that left are aborted and awaited; keys held but
   * not yet its own are queued once they are (the others' changes queue
   * them as they arrive).
   */
  async #shardChanged(): Promise<void> {
    const leaving: Promise<void>[] = [];
    for (const [key, { own, ended }] of this.#running) {
      if (this.#mayWork(key)) continue;
      own.abort(new KeyMoved(`${key} left this replica's shard`));
      leaving.push(ended);
    }
    await Promise.all(leaving);
    if (this.#stopping || this.#queue.isShutDown) return;
    for (const key of this.#waitingForShard) {
      if (this.#primaryOf(key) === undefined) this.#waitingForShard.delete(key);
      else if (this.#mayWork(key)) {
        this.#waitingForShard.delete(key);
        this.#add(key);
      }
    }
  }

  /** The primary object of `key` in the cache, if the store holds it. */
  #primaryOf(key: string): Obj | undefined {
    const { namespace, name } = splitObjectKey(key);
    return this.#lookup(this.#plan.primary.name, namespace, name);
  }

  #mapFailed(resource: ResourcePlan): (error: unknown) => void {
    return (error) => lines.mapFailed(this.#plan.logger, resource.name, error);
  }

  #add(key: string, low = false): void {
    if (this.#queue.isShutDown) return;
    this.#queue.add(key, low ? { priority: "low" } : undefined);
  }

  #addAll(): void {
    for (const obj of this.#store(this.#plan.primary.name).list()) {
      this.#add(objectKey(obj), true);
    }
  }

  #scheduleResync(): void {
    const every = this.#plan.resyncEveryMs;
    if (every === undefined || this.#stopping) return;
    this.#resync = this.#plan.clock.setTimeout(() => {
      this.#addAll();
      this.#scheduleResync();
    }, every);
  }

  async #shutdown(): Promise<void> {
    const plan = this.#plan;
    this.#stopping = true;
    this.#unfollow?.();
    this.#unsubscribe?.();
    plan.clock.clearTimeout(this.#resync);
    this.#trackerAbort.abort();
    lines.stopping(plan.logger, plan.drainOnStop, this.#active);
    if (!plan.drainOnStop) {
      this.#abortAll.abort(new Error(`Controller ${plan.name} stopped`));
    }
    await this.#queue.shutDown({ drain: true });
    while (this.#workers.size > 0) await Promise.all(this.#workers);
    this.#waits.clearAll();
    await Promise.all([...this.#watchers.values()].map((w) => w.stop()));
    this.#metrics?.close();
  }
}

/**
 * Runs `build`, reporting a queue's or a watcher's config error as the
 * controller's, under the resource's path.
 */
function asControllerError<R>(prefix: string, build: () => R): R {
  try {
    return build();
  } catch (error) {
    if (
      error instanceof WatcherConfigError ||
      error instanceof ControllerConfigError
    ) {
      // Their message follows "<field>: "; the path is the controller's.
      const at = error.message.indexOf(`${error.field}: `);
      throw new ControllerConfigError(
        "Controller",
        prefix + error.field,
        error.message.slice(at + error.field.length + 2),
      );
    }
    throw error;
  }
}

/**
 * What a controller is doing now: whether its stores are synced, whether
 * it leads, its workers and its queue, and each watcher's health. It is
 * ready once synced, leading or a warm standby.
 *
 * @example Ready, and how busy
 * ```ts
 * import type { ControllerHealth } from "@haptic/k8s-watcher/controller";
 *
 * function describe(health: ControllerHealth): string {
 *   if (!health.synced) return "syncing";
 *   return `${health.workers.active}/${health.workers.max} workers, ${health.queue.waiting} waiting`;
 * }
 * console.log(typeof describe);
 * ```
 */
export interface ControllerHealth {
  /** `"idle"` before `start()`, `"running"`, `"stopped"` once `stop()` began. */
  readonly state: "idle" | "running" | "stopped";
  /** Every watched store has its initial list. */
  readonly synced: boolean;
  /** Whether it leads; undefined without a leader election. */
  readonly leading: boolean | undefined;
  /** Reconciles running now, and the most that may. */
  readonly workers: { readonly active: number; readonly max: number };
  /**
   * Keys waiting to be reconciled, being reconciled, and held back until
   * the cache shows what their last reconcile wrote.
   */
  readonly queue: {
    readonly waiting: number;
    readonly processing: number;
    readonly heldForWrites: number;
  };
  /** Each watcher's health, by store name. */
  readonly watchers: Readonly<Record<string, WatcherHealth>>;
}
