/**
 * What the bulk `Watcher` and the `SingleWatcher` share: their public face
 * ({@linkcode WatcherBase}) and the core behind it (internal).
 *
 * @module
 */
import type { ListWatchFailure } from "../listwatch/list_watch_types.ts";
import type { WatcherHealth } from "./watcher_health.ts";
import type { Logger } from "../types.ts";
import { type Clock, systemClock, type TimerHandle } from "../clock.ts";
import type { DeliveryWatch } from "./_batch_outlet.ts";
import { WatcherStoppedError, WatcherSyncError } from "./errors.ts";
import type { WatcherMetrics } from "./_watcher_metrics.ts";
import {
  insideCallbackOf,
  Lifecycle,
  runAsCallbackOf,
  runGuarded,
} from "../_internal/_lifecycle.ts";

// What every kind of watcher shares once assembled (their checks are their
// plans'): the feed of the list-then-watch loop (each kind brings its own:
// a shared source, one private loop), the start/stop lifecycle, the sync
// latch (`SyncWaiters`, below), guarded user callbacks, the last error and
// the health snapshot. Each watcher adds only what it does with pages and
// events.

/** Where a watcher's objects come from: its own loop, or a shared source. */
export interface Feed {
  /** Runs until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** The last failure, and when. */
  readonly lastError: ListWatchFailure | undefined;
  /** The feed's part of the health snapshot. */
  health(): Omit<WatcherHealth, "state" | "synced" | "objects">;
}

/**
 * How long `waitForSync()` on a watcher never started waits before it
 * says so (it goes on waiting: starting later is legitimate).
 */
export const NOT_STARTED_WARNING_MS = 10_000;

/** What a watcher plugs into its core once it has built its parts. */
export interface CoreParts {
  /** Runs before each start of the loop. */
  beforeRun?: () => void;
  /**
   * Runs when the stop begins (`stop()`, or the start signal aborted):
   * no retry of a failed callback starts from now on; the shutdown
   * delivers what is due.
   */
  stopping?: () => void;
  /** Runs after the loop stopped: deliver what is due, then fall silent. */
  shutdown: () => Promise<void>;
  /** How many objects the watcher holds. */
  objects: () => number;
  /**
   * Stopped from inside a callback: no callback may start from now on,
   * and nothing pending is delivered.
   */
  silence: () => void;
  /** Others whose callbacks this watcher's stop must not wait for (its group). */
  callbackOwners?: readonly object[];
  /** A sharded watcher's mode now (the `shard_server_side` gauge). */
  shardServerSide?:
    | (() => "server" | "client" | "pending" | undefined)
    | undefined;
  /** The watcher's metrics, when it has a meter. */
  metrics?: WatcherMetrics | undefined;
  /** How far delivery to a Watcher's own `onChange` has got. */
  delivery?: DeliveryWatch | undefined;
}

/** Gives a watcher its core: set once, by `WatcherBase`. */
let attach: ((watcher: object, core: WatcherCore<unknown>) => void) | undefined;

/**
 * How `WatcherBase` keeps each watcher's core (in a private field): every
 * core built is handed to its owner through `give`.
 */
export function provideCoreSlot(
  give: (watcher: object, core: WatcherCore<unknown>) => void,
): void {
  attach = give;
}

/** What a watcher builds its core from, once it has checked its options. */
export interface CoreSetup {
  /** The watcher's own logger (from its plan: never throws). */
  logger: Logger;
  /** The watched thing, for messages. */
  what: string;
  /** The watcher's clock. */
  clock?: Clock | undefined;
  /** Where its objects come from. */
  feed: Feed;
  /** The watcher's own parts. */
  parts: CoreParts;
}

/**
 * One watcher's shared machinery, built from what the watcher assembled
 * (its feed and its parts). The loop calls the sink's methods directly,
 * with no hop through the watcher.
 */
export class WatcherCore<T> {
  /** The watcher's logger (never throws). */
  readonly logger: Logger;
  /** The watched thing, for messages (`ingresses.networking.k8s.io`). */
  readonly what: string;
  #feed: Feed;
  #sync: SyncWaiters<T>;
  #lifecycle: Lifecycle;
  #parts: CoreParts;
  #owner: object;
  #clock: Clock;
  /** Waits begun before any start, and the timer that tells of them. */
  #unstartedWaits = 0;
  #unstartedTimer: TimerHandle | undefined;

  /**
   * @param owner The watcher this core serves (a `WatcherBase`).
   * @param setup The watcher's parts, checked and built.
   */
  constructor(owner: object, setup: CoreSetup) {
    this.logger = setup.logger;
    this.#clock = setup.clock ?? systemClock;
    this.#owner = owner;
    this.#feed = setup.feed;
    this.#parts = setup.parts;
    this.what = setup.what;
    this.#sync = new SyncWaiters(this.what, () => this.#feed.lastError);
    attach?.(owner, this as WatcherCore<unknown>);
    this.#lifecycle = new Lifecycle(
      (signal) => {
        this.#parts.beforeRun?.();
        signal.addEventListener("abort", () => this.#parts.stopping?.(), {
          once: true,
        });
        return this.#feed.run(signal);
      },
      () => this.#shutdown(),
      () => new WatcherStoppedError(this.what),
      {
        now: () => insideCallbackOf(owner, ...this.#parts.callbackOwners ?? []),
        silence: () => this.#parts.silence(),
      },
    );
  }

  /** See `Watcher.start`. */
  start(signal?: AbortSignal): Promise<void> {
    this.#endUnstartedWarning();
    const started = this.#lifecycle.start(signal);
    if (this.#lifecycle.state === "running") {
      const delivery = this.#parts.delivery;
      this.#parts.metrics?.observe({
        objects: () => this.#parts.objects(),
        synced: () => this.syncedAndRunning,
        oldestUndeliveredSeconds: delivery && (() => delivery.ageSeconds()),
        shardServerSide: this.#parts.shardServerSide,
      });
    }
    return started;
  }

  /** See `Watcher.stop`. */
  stop(): Promise<void> {
    this.#endUnstartedWarning();
    return this.#lifecycle.stop();
  }

  /**
   * Waits for the initial sync, failing with the loop's last error. On a
   * watcher never started, says so in the log after a while.
   */
  waitForSync(signal?: AbortSignal): Promise<T> {
    // Stopped: its sync, if it had one, is no longer kept (isSynced() is
    // false), so there is nothing to wait for.
    if (this.#lifecycle.state === "stopped") {
      return Promise.reject(
        new WatcherStoppedError(this.what, "waitForSync()"),
      );
    }
    const waiting = this.#sync.wait(signal);
    if (this.#lifecycle.state === "idle" && !this.#sync.done) {
      this.#unstartedWaits++;
      this.#unstartedTimer ??= this.#clock.setTimeout(
        this.#warnUnstarted,
        NOT_STARTED_WARNING_MS,
      );
      const settled = () => {
        if (--this.#unstartedWaits === 0) this.#endUnstartedWarning();
      };
      waiting.then(settled, settled);
    }
    return waiting;
  }

  #warnUnstarted = (): void => {
    this.#unstartedTimer = undefined;
    this.logger.warn(
      `waitForSync() has waited ${NOT_STARTED_WARNING_MS} ms for ${this.what}, which was never started: call start()`,
      { waitedMs: NOT_STARTED_WARNING_MS },
    );
  };

  #endUnstartedWarning(): void {
    if (this.#unstartedTimer === undefined) return;
    this.#clock.clearTimeout(this.#unstartedTimer);
    this.#unstartedTimer = undefined;
  }

  /** Whether the initial sync is done (stopped or not). */
  get synced(): boolean {
    return this.#sync.done;
  }

  /** Whether the initial sync is done and the watcher not stopped. */
  get syncedAndRunning(): boolean {
    return this.#sync.done && this.#lifecycle.state !== "stopped";
  }

  /** Marks the initial sync done with `value`, releasing every waiter. */
  synchronized(value: T): void {
    this.#sync.resolve(value);
  }

  /** The loop's last failure, and when. */
  lastError(): ListWatchFailure | undefined {
    return this.#feed.lastError;
  }

  /** The health snapshot. */
  health(): WatcherHealth {
    return {
      state: this.#lifecycle.state,
      synced: this.syncedAndRunning,
      objects: this.#parts.objects(),
      ...this.#feed.health(),
      ...(this.#parts.delivery === undefined
        ? {}
        : { delivery: this.#parts.delivery.snapshot() }),
    };
  }

  /**
   * Runs a user callback named `name`; a throw or rejection is logged and
   * does not escape. Says whether it succeeded (see `runGuarded`).
   */
  guarded(name: string, callback: () => unknown): boolean | Promise<boolean> {
    const metrics = this.#parts.metrics;
    const measured = metrics === undefined
      ? callback
      : () => metrics.timed(name, callback);
    return runAsCallbackOf(
      this.#owner,
      () =>
        runGuarded(measured, this.logger, `${name} for ${this.what} failed`),
    );
  }

  async #shutdown(): Promise<void> {
    await this.#parts.shutdown();
    this.#parts.metrics?.unobserve();
    this.#sync.fail("the watcher was stopped");
  }
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * The "has the initial list arrived" latch both watchers share: resolves
 * every waiter once, and rejects a waiter whose signal aborts (or all of them
 * when the watcher stops) with the loop's last failure attached.
 */
class SyncWaiters<T> {
  #resource: string;
  #lastError: () => { error: unknown } | undefined;
  #waiters = new Set<Waiter<T>>();
  #value: { value: T } | undefined;
  #failure: string | undefined;

  constructor(
    resource: string,
    lastError: () => { error: unknown } | undefined,
  ) {
    this.#resource = resource;
    this.#lastError = lastError;
  }

  get done(): boolean {
    return this.#value !== undefined;
  }

  resolve(value: T): void {
    if (this.#value) return;
    this.#value = { value };
    for (const w of this.#waiters) w.resolve(value);
    this.#waiters.clear();
  }

  /** Rejects current and future waiters (unless already resolved). */
  fail(why: string): void {
    if (this.#value) return;
    this.#failure = why;
    for (const w of this.#waiters) w.reject(this.#error(why));
    this.#waiters.clear();
  }

  wait(signal?: AbortSignal): Promise<T> {
    if (this.#value) return Promise.resolve(this.#value.value);
    if (this.#failure) return Promise.reject(this.#error(this.#failure));
    if (signal?.aborted) {
      return Promise.reject(this.#error("the wait was aborted"));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(this.#error("the wait was aborted"));
      };
      const waiter: Waiter<T> = {
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #error(why: string): WatcherSyncError {
    return new WatcherSyncError(this.#resource, why, this.#lastError()?.error);
  }
}

/**
 * What the bulk `Watcher` and the `SingleWatcher` have in common: starting,
 * stopping, waiting for the initial sync, the last error and the health
 * snapshot. `Synced` is what the initial sync resolves with (the number of
 * objects: stored for a `Watcher`, 0 or 1 for a `SingleWatcher`). Code that only
 * starts, stops and checks watchers can take either as a `WatcherBase`.
 *
 * @example Checking every watcher of a controller alike
 * ```ts
 * import type { WatcherBase } from "@haptic/k8s-watcher";
 *
 * function unhealthy(watchers: WatcherBase<unknown>[]): number {
 *   return watchers.filter((w) => !w.isSynced() || w.lastError() !== undefined).length;
 * }
 * ```
 */
export abstract class WatcherBase<Synced> {
  /** Set once, by the core the subclass builds in its constructor. */
  #core: WatcherCore<Synced> | undefined;

  static {
    provideCoreSlot((watcher, core) => {
      (watcher as WatcherBase<unknown>).#core = core;
    });
  }

  /** The core of a watcher built with one. */
  #ready(): WatcherCore<Synced> {
    const core = this.#core;
    if (core === undefined) throw new Error("This watcher has no core");
    return core;
  }

  /**
   * Starts listing and watching. Resolves once the watcher is stopped (by
   * `stop()` or `signal`); it never rejects for transient faults, which are
   * retried. Calling it again while it runs returns the same promise. A
   * stopped watcher cannot be started again: create a new one.
   *
   * @example Running until a signal aborts
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * const controller = new AbortController();
   * const running = watcher.start(controller.signal);
   * await watcher.waitForSync();
   * controller.abort(); // e.g. on SIGTERM
   * await running; // resolves once stopped
   * assert.equal(watcher.health().state, "stopped");
   * ```
   *
   * @param signal Stops the watcher when aborted.
   * @returns A promise that settles when the watcher has stopped.
   * @throws {WatcherStoppedError} When the watcher was stopped (by `stop()`
   * or by the signal of an earlier `start`).
   */
  start(signal?: AbortSignal): Promise<void> {
    return this.#ready().start(signal);
  }

  /**
   * Resolves once the initial sync is done (and `onSyncComplete` ran for a
   * `SingleWatcher`): with the number of objects stored for a `Watcher`,
   * with 1 (the object exists) or 0 (it does not) for a `SingleWatcher`.
   * Rejects with a `WatcherSyncError` naming the last failure (a 403, a
   * missing CRD, …) when `signal` aborts or the watcher stops first.
   *
   * @example Waiting at most 30 seconds
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * const count = await watcher.waitForSync(AbortSignal.timeout(30_000));
   * assert.equal(count, 1);
   * await watcher.stop();
   * ```
   *
   * @param signal Gives up waiting, e.g. `AbortSignal.timeout(30_000)`.
   * @returns What the initial sync gives.
   */
  waitForSync(signal?: AbortSignal): Promise<Synced> {
    return this.#ready().waitForSync(signal);
  }

  /**
   * Whether the initial sync is done and the watcher still runs: `false`
   * once it was stopped (its view is no longer kept up to date).
   *
   * @example Before the sync, during it and after stop
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * assert.equal(watcher.isSynced(), false);
   * watcher.start();
   * await watcher.waitForSync();
   * assert.equal(watcher.isSynced(), true);
   * await watcher.stop();
   * assert.equal(watcher.isSynced(), false); // its view is no longer kept up to date
   * ```
   */
  isSynced(): boolean {
    return this.#ready().syncedAndRunning;
  }

  /**
   * Stops the loop, lets what is due be delivered, and then nothing fires
   * any more: no callback, timer or open stream remains. Idempotent.
   *
   * @example Stopping for good
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * await watcher.waitForSync();
   * await watcher.stop(); // nothing fires after this
   * await watcher.stop(); // idempotent
   * assert.throws(() => watcher.start()); // WatcherStoppedError: create a new one
   * ```
   *
   * @returns A promise that settles when everything has stopped.
   */
  stop(): Promise<void> {
    return this.#ready().stop();
  }

  /**
   * The loop's last failure (e.g. an `ApiError` with code 403) and when it
   * happened, on the watcher's clock; kept after recovery.
   *
   * @example The 403 a missing RBAC rule gives
   * ```ts
   * import { FetchClient, silentLogger, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * server.injectFault({ verb: "list", resource: "secrets", kind: "status", code: 403 });
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "secrets" },
   *   indexBy: ["metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }), { logger: silentLogger });
   * watcher.start();
   * await waitFor(() => watcher.lastError() !== undefined);
   * assert.match(String(watcher.lastError()?.error), /403/);
   * await watcher.stop();
   * ```
   */
  lastError(): ListWatchFailure | undefined {
    return this.#ready().lastError();
  }

  /**
   * A snapshot for health endpoints: sync, versions, counts, last error.
   *
   * @example A health endpoint
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.namespace", "metadata.name"],
   *   onChange: () => {},
   * }, new FetchClient({ server: server.url }));
   * watcher.start();
   * await watcher.waitForSync();
   * const health = watcher.health();
   * assert.equal(health.state, "running");
   * assert.equal(health.synced, true);
   * const body = JSON.stringify(health); // e.g. the answer of /healthz
   * assert.ok(body.length > 0);
   * await watcher.stop();
   * ```
   */
  health(): WatcherHealth {
    return this.#ready().health();
  }
}
