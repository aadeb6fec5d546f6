import type { KubeObject, Logger } from "../types.ts";
import { consoleLogger } from "../logger.ts";
import { neverThrowingLogger } from "../internal/never_throwing_logger.ts";
import type { RestClient } from "../client/rest_client.ts";
import { ListWatch } from "./list_watch.ts";
import type { WatchEventType } from "./list_watch_types.ts";
import { SyncWaiters } from "./sync_waiters.ts";
import { Lifecycle } from "./_lifecycle.ts";
import { runGuarded } from "./run_guarded.ts";
import { isStatusOnlyChange } from "./_status_only.ts";
import {
  validateClient,
  validateGvr,
  validateInitialList,
  validatePositive,
  validateSkip,
} from "./_validate.ts";
import {
  type SingleWatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
} from "./watcher_config.ts";

/**
 * Watches one named object and calls `onChange` at once for every change,
 * without debouncing and without a store (the seed's `watcher.NewSingle`),
 * for things that must take effect immediately: credentials, the
 * controller's own configuration.
 *
 * - Lists and watches in the object's namespace with
 *   `fieldSelector=metadata.name=<name>`.
 * - Nothing is delivered before the initial sync; then
 *   `onSyncComplete(obj | null)` gets the current state.
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
 * - A throwing or rejecting callback is logged and the watcher goes on.
 *
 * @example
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
 * await watcher.waitForSync();
 * assert.equal(synced, "creds");
 * await watcher.stop();
 * await server.close();
 * ```
 */
export class SingleWatcher {
  #config: SingleWatcherConfig;
  #what: string;
  #logger: Logger;
  #loop: ListWatch;
  #sync: SyncWaiters<void>;
  #current: KubeObject | null = null;
  /** Callbacks run one after another on this chain. */
  #callbacks: Promise<void> = Promise.resolve();
  #stopped = false;
  #lifecycle: Lifecycle;

  /**
   * Checks the configuration; nothing is requested until
   * {@linkcode SingleWatcher.start}.
   *
   * @param config The object to watch and what to call.
   * @param client A `FetchClient` or any `RestClient`; never closed here.
   * @param options Logger, clock and jitter source.
   * @throws {WatcherConfigError} Naming the option that is wrong.
   */
  constructor(
    config: SingleWatcherConfig,
    client: RestClient,
    options: WatcherOptions = {},
  ) {
    if (!config || typeof config !== "object") {
      throw new WatcherConfigError("config", "must be an object");
    }
    validateGvr(config.gvr);
    validateClient(client);
    for (const field of ["namespace", "name"] as const) {
      if (typeof config[field] !== "string" || config[field] === "") {
        throw new WatcherConfigError(field, "must be a non-empty string");
      }
    }
    if (typeof config.onChange !== "function") {
      throw new WatcherConfigError("onChange", "must be a function");
    }
    if (
      config.onSyncComplete !== undefined &&
      typeof config.onSyncComplete !== "function"
    ) {
      throw new WatcherConfigError("onSyncComplete", "must be a function");
    }
    validateInitialList(config.initialList);
    validateSkip(config.skip);
    validatePositive("idleTimeoutMs", options.idleTimeoutMs);
    this.#config = config;
    this.#what = `${config.gvr.resource} ${config.namespace}/${config.name}`;
    this.#logger = neverThrowingLogger(options.logger ?? consoleLogger());
    this.#sync = new SyncWaiters(this.#what, () => this.#loop.lastError);
    this.#loop = new ListWatch(client, {
      onList: (objects, info) => this.#applyList(objects, info.initial),
      onEvent: (type, obj) => this.#applyEvent(type, obj),
    }, {
      gvr: config.gvr,
      namespace: config.namespace,
      fieldSelector: `metadata.name=${escapeFieldValue(config.name)}`,
      initialList: config.initialList,
      idleTimeoutMs: options.idleTimeoutMs,
      clock: options.clock,
      logger: this.#logger,
      random: options.random,
    });
    this.#lifecycle = new Lifecycle(
      (signal) => this.#loop.run(signal),
      () => this.#shutdown(),
    );
  }

  /**
   * Starts watching. Resolves once stopped; never rejects for transient
   * faults. Calling it again returns the same promise.
   *
   * @param signal Stops the watcher when aborted.
   * @returns A promise that settles when the watcher has stopped.
   */
  start(signal?: AbortSignal): Promise<void> {
    return this.#lifecycle.start(signal);
  }

  /**
   * Resolves once the initial state is known (and `onSyncComplete` ran).
   * Rejects with a `WatcherSyncError` naming the last failure when `signal`
   * aborts or the watcher stops first.
   *
   * @param signal Gives up waiting.
   * @returns A promise that settles at the initial sync.
   */
  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.#sync.wait(signal);
  }

  /** Whether the initial state is known. */
  isSynced(): boolean {
    return this.#sync.done;
  }

  /** The object as last seen, or `null` when absent (or not yet synced). */
  get current(): KubeObject | null {
    return this.#current;
  }

  /**
   * Stops watching; waits for a running callback; afterwards nothing fires.
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

  /** When the last watch event arrived, on the watcher's clock. */
  lastEventTime(): number | undefined {
    return this.#loop.lastEventTime;
  }

  /** After the loop ended: let a running callback finish, skip the rest. */
  async #shutdown(): Promise<void> {
    this.#stopped = true;
    await this.#callbacks;
    this.#sync.fail("the watcher was stopped");
  }

  #applyList(objects: KubeObject[], initial: boolean): Promise<void> {
    const found =
      objects.find((o) => o?.metadata?.name === this.#config.name) ?? null;
    if (initial && !this.#sync.done) {
      this.#current = found;
      const { onSyncComplete } = this.#config;
      const done = onSyncComplete
        ? this.#enqueue(() => onSyncComplete(found), "onSyncComplete")
        : this.#callbacks;
      return done.then(() => this.#sync.resolve());
    }
    return this.#deliver(found);
  }

  #applyEvent(type: WatchEventType, obj: KubeObject): Promise<void> | void {
    if (obj?.metadata?.name !== this.#config.name) return;
    return this.#deliver(type === "DELETED" ? null : obj);
  }

  #deliver(next: KubeObject | null): Promise<void> {
    const previous = this.#current;
    if (!changed(previous, next, this.#config.skip ?? "statusOnly")) {
      // Keep the newest version even when the user need not hear of it.
      this.#current = next;
      return this.#callbacks;
    }
    this.#current = next;
    return this.#enqueue(() => this.#config.onChange(next), "onChange");
  }

  #enqueue(callback: () => unknown, name: string): Promise<void> {
    this.#callbacks = this.#callbacks.then(() => {
      if (this.#stopped) return;
      return runGuarded(
        callback,
        this.#logger,
        `${name} for ${this.#what} failed`,
      );
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
  previous: KubeObject | null,
  next: KubeObject | null,
  skip: "statusOnly" | "none",
): boolean {
  if (previous === null || next === null) return previous !== next;
  const a = previous.metadata, b = next.metadata;
  if (a.uid !== b.uid) return true;
  if (a.resourceVersion && a.resourceVersion === b.resourceVersion) {
    return false;
  }
  return skip === "none" || !isStatusOnlyChange(previous, next);
}
