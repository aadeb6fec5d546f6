import { optionNamesProblem } from "../_internal/_option_checks.ts";
import {
  contextLogger,
  failureFields,
  neverThrowingLogger,
} from "../_internal/_logging.ts";
import type { Clock, TimerHandle } from "../clock.ts";
import type { Logger } from "../types.ts";
import { consoleLogger } from "../logger.ts";
import {
  collectionPath,
  type JsonValue,
  objectPath,
  type RestClient,
} from "../client/rest_client.ts";
import { httpStatusOf } from "../client/api_error.ts";
import {
  delay,
  JITTER_FACTOR,
  leaseTimingsProblem,
  microTime,
  monotonicClock,
} from "../_internal/_time.ts";
import {
  insideCallbackOf,
  Lifecycle,
  runAsCallbackOf,
  runGuarded,
} from "../_internal/_lifecycle.ts";
import {
  LEASES,
  newLease,
  type ObservedLease,
  readLease,
  replacedLease,
} from "./_lease.ts";
import { ElectorMetrics } from "./_elector_metrics.ts";
import type { Meter } from "../metrics/meter.ts";
import { ownOrClientMeter } from "../_internal/_metrics.ts";

/**
 * What a {@linkcode LeaderElector} competes for and how.
 *
 * @example Leader-only work on a named Lease
 * ```ts
 * import type { LeaderElectorConfig } from "@haptic/k8s-watcher";
 *
 * const config: LeaderElectorConfig = {
 *   lease: { namespace: "haptic", name: "haptic-controller" },
 *   identity: `${Deno.hostname()}-${crypto.randomUUID().slice(0, 8)}`,
 *   onStartedLeading: async (signal) => {
 *     // leader-only work, until the signal aborts
 *     await new Promise((resolve) => signal.addEventListener("abort", resolve));
 *   },
 *   onStoppedLeading: () => console.log("no longer leading"),
 *   onNewLeader: (identity) => console.log(`${identity} leads`),
 * };
 * ```
 */
export interface LeaderElectorConfig {
  /** The `coordination.k8s.io/v1` Lease of this election; created when absent. */
  lease: { namespace: string; name: string };
  /**
   * This replica's name in the Lease's `holderIdentity`. It must be unique
   * among the replicas (e.g. the pod name plus a random suffix): a replica
   * renews a lease held under its identity without waiting.
   */
  identity: string;
  /**
   * How long the others wait, on their own clocks, after they last saw the
   * Lease change before they take it over, in ms.
   *
   * @default {15000}
   */
  leaseDurationMs?: number;
  /**
   * How long a leader keeps leading without a successful renewal, in ms.
   * Must be less than `leaseDurationMs`.
   *
   * @default {10000}
   */
  renewDeadlineMs?: number;
  /**
   * How often the lease is read and renewed (or tried for), jittered to
   * between 1/1.2 of it and all of it, in ms. `retryPeriodMs × 1.2` must
   * be less than `renewDeadlineMs`, as in client-go.
   *
   * @default {2000}
   */
  retryPeriodMs?: number;
  /**
   * On `stop()`, clear `holderIdentity` after leader work has stopped, so a
   * successor takes over within one retry period instead of waiting for
   * the lease to expire.
   *
   * @default {true}
   */
  releaseOnStop?: boolean;
  /**
   * Called when this replica becomes leader. `signal` aborts when it stops
   * leading (lost renewal, another holder, `stop()`); the returned promise
   * should settle soon after, as no other callback runs before it does.
   * Optional: a replica whose leader-only work is a `Controller`'s (or
   * anything else that follows {@linkcode LeaderElector.whileLeading})
   * needs none.
   */
  onStartedLeading?: (signal: AbortSignal) => void | Promise<void>;
  /**
   * Called after the `onStartedLeading` of the same term has settled, once
   * this replica no longer leads. Not called for a term whose
   * `onStartedLeading` was never called.
   */
  onStoppedLeading?: () => void | Promise<void>;
  /** Called when the Lease shows a holder other than the last one seen (this replica included). */
  onNewLeader?: (identity: string) => void | Promise<void>;
}

/**
 * Runtime options of a {@linkcode LeaderElector}: where logs go and how
 * time and chance are measured (tests inject both).
 *
 * @example Debug logs from the election
 * ```ts
 * import { consoleLogger } from "@haptic/k8s-watcher";
 * import {
 *   type LeaderElectorOptions,
 * } from "@haptic/k8s-watcher/leaderelection";
 *
 * const options: LeaderElectorOptions = { logger: consoleLogger({ level: "debug" }) };
 * ```
 */
export interface LeaderElectorOptions {
  /**
   * Where the elector logs.
   *
   * @default {consoleLogger()}
   */
  logger?: Logger;
  /**
   * Measures every duration of the election. It must be monotonic: the
   * default is one on `performance.now()`, never the wall clock.
   *
   * @default {a clock on performance.now()}
   */
  clock?: Clock;
  /**
   * Source of jitter in [0, 1).
   *
   * @default {Math.random}
   */
  random?: () => number;
  /**
   * Where the elector's metrics go (see `@haptic/k8s-watcher/metrics`):
   * `leader_election_master_status` (client-go's name), transitions and
   * renew failures, labelled with the Lease's name and namespace.
   *
   * @default {the client's `meter` (`RestClient.meter`), if it has one}
   */
  meter?: Meter;
}

/**
 * A snapshot of a {@linkcode LeaderElector}'s state, for health endpoints.
 * Times are on the elector's clock.
 *
 * @example Describing who leads
 * ```ts
 * import type {
 *   LeaderElectorHealth,
 * } from "@haptic/k8s-watcher/leaderelection";
 *
 * function describe(h: LeaderElectorHealth): string {
 *   return h.leading ? "leading" : `following ${h.leader ?? "nobody"}`;
 * }
 * ```
 */
export interface LeaderElectorHealth {
  /** Whether this replica leads now (same as `isLeader()`). */
  readonly leading: boolean;
  /** The holder the Lease showed at the last read (`undefined`: none). */
  readonly leader: string | undefined;
  /** The Lease's `leaseTransitions` at the last read. */
  readonly leaseTransitions: number | undefined;
  /** When the Lease last showed a change, as this replica saw it. */
  readonly observedTime: number | undefined;
  /** When the last successful write of this replica was sent. */
  readonly lastRenewTime: number | undefined;
  /** While leading: when this replica stops leading unless it renews. */
  readonly renewDeadline: number | undefined;
  /** Attempts in a row that failed (reset by a read that finds the Lease, or a successful write). */
  readonly consecutiveFailures: number;
  /** Writes refused with 409 Conflict, because someone else wrote first. */
  readonly conflicts: number;
  /** The last failed attempt. */
  readonly lastError: { time: number; error: unknown } | undefined;
}

/** One stretch of leadership, from acquiring to stepping down. */
interface Term {
  controller: AbortController;
  deadline: number;
  deadlineTimer: TimerHandle;
  /** Whether its `onStartedLeading` was called (so `onStoppedLeading` is due). */
  started: boolean;
}

const DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** An attempt that ran out of time; the message says how long it had. */
class AttemptTimeoutError extends Error {
  constructor(ms: number) {
    super(`The Lease request got no answer within ${ms} ms`);
    this.name = "AttemptTimeoutError";
  }
}

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, so that of several
 * replicas of a controller only one acts at a time while all keep their
 * watchers warm. It follows client-go's `leaderelection` semantics:
 *
 * - The Lease is created when absent. Every write carries the
 *   `resourceVersion` that was read; a 409 Conflict means someone else
 *   wrote, and the Lease is read again, never overwritten.
 * - A candidate takes over a lease held by another replica only once it has
 *   seen the same record for `leaseDurationMs` (or the holder's longer
 *   `leaseDurationSeconds`), measured on its own monotonic clock from when
 *   it first read that record. No timestamp written by another node is ever
 *   compared, so clock skew between nodes does not matter; only their rates.
 * - The leader renews every `retryPeriodMs` (jittered). When no renewal has
 *   succeeded within `renewDeadlineMs` of sending the last successful one,
 *   it stops leading: `isLeader()` turns false, the signal given to
 *   `onStartedLeading` aborts, then `onStoppedLeading` runs. Since
 *   `renewDeadlineMs < leaseDurationMs`, that happens before any other
 *   replica may take over, as long as no replica's clock runs faster than
 *   another's by the factor `leaseDurationMs / renewDeadlineMs` (1.5 with
 *   the defaults) and the leader's event loop is not blocked past its
 *   deadline.
 * - A replica that stepped down goes on as a candidate (and may lead again).
 * - `stop()` stops leading, waits for the callbacks, and with
 *   `releaseOnStop` clears `holderIdentity`, so that a successor takes over
 *   within one retry period.
 * - `leaseTransitions` grows by one whenever the holder changes.
 * - Callbacks run one at a time, in order, and never after `stop()` has
 *   resolved. One that throws or rejects is logged; the election goes on.
 * - `await stop()` inside a callback resolves at once (it cannot wait for
 *   the callback it is called from): leadership ends, no `onNewLeader`
 *   starts after it, and the rest of the stop (the term's
 *   `onStoppedLeading`, the release, `start()`'s promise) follows once
 *   that callback returns.
 *
 * Each attempt (a read, and a write when due) gets at most half of
 * `renewDeadlineMs`; a stalled request is aborted then.
 *
 * The client needs `get`, `create` and `update` on `leases` in the Lease's
 * namespace.
 *
 * @example Three replicas, one leader
 * ```ts
 * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
 * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * await using server = new FakeApiServer({ clock });
 * using _fetch = mockFetch(server);
 * const client = new FetchClient({ server: server.url });
 * const electors = ["a", "b", "c"].map((identity) =>
 *   new LeaderElector({
 *     lease: { namespace: "default", name: "demo" },
 *     identity,
 *     onStartedLeading: () => console.log(`${identity} leads`),
 *   }, client, { clock, random: () => 0.5 })
 * );
 * electors.forEach((e) => e.start());
 * await waitFor(() => electors.some((e) => e.isLeader()));
 * assert.equal(electors.filter((e) => e.isLeader()).length, 1);
 * const leader = electors.find((e) => e.isLeader())!;
 * await leader.stop(); // releases the lease
 * await clock.tick(2_000);
 * assert.equal(electors.filter((e) => e.isLeader()).length, 1);
 * await Promise.all(electors.map((e) => e.stop()));
 * ```
 */
export class LeaderElector {
  #config: LeaderElectorConfig;
  #client: RestClient;
  #logger: Logger;
  #clock: Clock;
  #random: () => number;
  #leaseDurationMs: number;
  #metrics: ElectorMetrics | undefined;
  #renewDeadlineMs: number;
  #retryPeriodMs: number;
  #attemptTimeoutMs: number;
  #collectionPath: string;
  #objectPath: string;
  #lifecycle: Lifecycle;

  /** The Lease as last read or written, and when its record was first seen. */
  #observed: ObservedLease | undefined;
  #observedTime: number | undefined;
  /** The last holder reported to `onNewLeader`. */
  #reportedLeader: string | undefined;
  #term: Term | undefined;
  /** Aborts the attempt in flight, e.g. when the term it renews ends. */
  #attempt: AbortController | undefined;
  #lastRenewTime: number | undefined;
  #consecutiveFailures = 0;
  #conflicts = 0;
  #lastError: { time: number; error: unknown } | undefined;
  /** Callbacks run one after another on this chain (whether they succeeded). */
  #callbacks: Promise<unknown> = Promise.resolve();
  #stopped = false;
  /** Set by a `stop()` from inside a callback: no news is delivered after it. */
  #silenced = false;
  /** `whileLeading` subscribers, told of each term as it begins. */
  readonly #termListeners = new Set<(signal: AbortSignal) => void>();

  /**
   * Checks the configuration; nothing is requested until
   * {@linkcode LeaderElector.start}.
   *
   * @example Leader-only work that ends with the term
   * ```ts
   * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * const elector = new LeaderElector({
   *   lease: { namespace: "haptic", name: "haptic-controller" },
   *   identity: `${Deno.hostname()}-${crypto.randomUUID().slice(0, 8)}`,
   *   leaseDurationMs: 30_000,
   *   renewDeadlineMs: 20_000,
   *   onStartedLeading: async (signal) => {
   *     // render and apply until the signal aborts
   *     await new Promise((resolve) => signal.addEventListener("abort", resolve));
   *   },
   *   onNewLeader: (identity) => console.log(`${identity} leads`),
   * }, client); // nothing is requested until start()
   * ```
   *
   * @param config The Lease, this replica's identity, timings and callbacks.
   * @param client A `FetchClient` or any `RestClient`; never closed here.
   * @param options Logger, clock and jitter source.
   * @throws {LeaderElectionConfigError} Naming the option that is wrong,
   * e.g. a `renewDeadlineMs` not below `leaseDurationMs`.
   */
  constructor(
    config: LeaderElectorConfig,
    client: RestClient,
    options?: LeaderElectorOptions,
  ) {
    if (options === undefined) options = {};
    if (!config || typeof config !== "object") {
      throw new LeaderElectionConfigError("config", "must be an object");
    }
    const names = optionNamesProblem({
      known: CONFIG_NAMES,
      value: config,
      type: "LeaderElectorConfig",
      place: "the config (the first argument)",
      short: "the config",
    }, {
      known: OPTION_NAMES,
      value: options,
      type: "LeaderElectorOptions",
      place: "the third argument (LeaderElectorOptions)",
    });
    if (names) throw new LeaderElectionConfigError(names.field, names.message);
    if (!config.lease || typeof config.lease !== "object") {
      throw new LeaderElectionConfigError(
        "lease",
        "must be an object with namespace and name",
      );
    }
    validateName("lease.namespace", config.lease.namespace);
    validateName("lease.name", config.lease.name);
    validateName("identity", config.identity);
    const timings = {
      leaseDurationMs: config.leaseDurationMs ?? DEFAULTS.leaseDurationMs,
      renewDeadlineMs: config.renewDeadlineMs ?? DEFAULTS.renewDeadlineMs,
      retryPeriodMs: config.retryPeriodMs ?? DEFAULTS.retryPeriodMs,
    };
    // Each positive, no longer than a timer can wait (2³¹−1 ms), ordered
    // safely: client-go's rules.
    const timingsWrong = leaseTimingsProblem(timings, "a leader");
    if (timingsWrong) {
      throw new LeaderElectionConfigError(
        timingsWrong.field,
        timingsWrong.message,
      );
    }
    validateCallback("onStartedLeading", config.onStartedLeading, false);
    validateCallback("onStoppedLeading", config.onStoppedLeading, false);
    validateCallback("onNewLeader", config.onNewLeader, false);
    if (
      config.releaseOnStop !== undefined &&
      typeof config.releaseOnStop !== "boolean"
    ) {
      throw new LeaderElectionConfigError("releaseOnStop", "must be a boolean");
    }
    if (
      typeof (client as { performRequest?: unknown } | null)?.performRequest !==
        "function"
    ) {
      throw new LeaderElectionConfigError(
        "client",
        "must be a RestClient with a performRequest method",
      );
    }
    this.#config = config;
    this.#client = client;
    // Who speaks, on every line (callback failures included).
    this.#logger = neverThrowingLogger(
      contextLogger(options.logger ?? consoleLogger(), {
        lease: `${config.lease.namespace}/${config.lease.name}`,
        identity: config.identity,
      }),
    );
    this.#clock = options.clock ?? monotonicClock;
    this.#random = options.random ?? Math.random;
    const meter = ownOrClientMeter(options.meter, client, (field, problem) => {
      throw new LeaderElectionConfigError(field, problem);
    });
    if (meter !== undefined) {
      this.#metrics = new ElectorMetrics(
        meter,
        config.lease,
        () => this.isLeader(),
      );
    }
    this.#leaseDurationMs = timings.leaseDurationMs;
    this.#renewDeadlineMs = timings.renewDeadlineMs;
    this.#retryPeriodMs = timings.retryPeriodMs;
    this.#attemptTimeoutMs = timings.renewDeadlineMs / 2;
    const { namespace, name } = config.lease;
    this.#collectionPath = collectionPath(LEASES, namespace);
    this.#objectPath = objectPath(LEASES, namespace, name);
    this.#lifecycle = new Lifecycle(
      (signal) => {
        this.#metrics?.open();
        return this.#run(signal);
      },
      () => this.#shutdown(),
      // Its identity may have led: a second life would reuse a stale record.
      () =>
        new Error(
          `LeaderElector for Lease ${namespace}/${name} was stopped and cannot be restarted; create a new one`,
        ),
      // A stop() from one of the callbacks, which it would wait for.
      {
        now: () => insideCallbackOf(this),
        silence: () => void (this.#silenced = true),
      },
    );
  }

  /**
   * Joins the election. Resolves once stopped; never rejects for API
   * failures (they are logged and retried). Calling it again returns the
   * same promise.
   *
   * @example Joining until a signal aborts
   * ```ts
   * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
   * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * await using server = new FakeApiServer({ clock });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const elector = new LeaderElector({
   *   lease: { namespace: "haptic", name: "haptic-controller" },
   *   identity: "replica-a",
   *   onStartedLeading: () => {},
   * }, client, { clock });
   * const controller = new AbortController();
   * const running = elector.start(controller.signal);
   * await waitFor(() => elector.isLeader()); // alone: it creates the Lease and leads
   * controller.abort();
   * await running;
   * assert.equal(elector.isLeader(), false);
   * ```
   *
   * @param signal Stops the elector (as `stop()` does) when aborted.
   * @returns A promise that settles when the elector has stopped.
   * @throws {Error} When the elector was stopped: create a new one instead.
   */
  start(signal?: AbortSignal): Promise<void> {
    return this.#lifecycle.start(signal);
  }

  /**
   * Leaves the election: stops leading (aborting the leader's signal,
   * waiting for `onStartedLeading` to settle, then calling
   * `onStoppedLeading`), releases the Lease when `releaseOnStop` is set,
   * and resolves when nothing more will happen. Idempotent. Called from
   * inside one of the elector's callbacks, it resolves at once, and the
   * rest follows when that callback returns.
   *
   * @example Handing over on shutdown
   * ```ts
   * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
   * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * await using server = new FakeApiServer({ clock });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const elector = new LeaderElector({
   *   lease: { namespace: "haptic", name: "haptic-controller" },
   *   identity: "replica-a",
   *   onStartedLeading: () => {},
   * }, client, { clock });
   * elector.start();
   * await waitFor(() => elector.isLeader());
   * await elector.stop(); // stops leading and releases the Lease
   * const lease = server.get("leases", "haptic", "haptic-controller");
   * assert.ok(!(lease.spec as { holderIdentity?: string }).holderIdentity); // a successor need not wait for it to expire
   * ```
   *
   * @returns A promise that settles when everything has stopped.
   */
  stop(): Promise<void> {
    return this.#lifecycle.stop();
  }

  /**
   * Whether this replica leads now.
   *
   * @example Acting only as the leader
   * ```ts
   * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
   * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * await using server = new FakeApiServer({ clock });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const elector = new LeaderElector({
   *   lease: { namespace: "haptic", name: "haptic-controller" },
   *   identity: "replica-a",
   *   onStartedLeading: () => {},
   * }, client, { clock });
   * elector.start();
   * await waitFor(() => elector.isLeader());
   * if (elector.isLeader()) console.log("writing the status");
   * await elector.stop();
   * ```
   */
  isLeader(): boolean {
    return this.#term !== undefined;
  }

  /**
   * Follows this replica's leadership without being its `onStartedLeading`:
   * `onTerm` is called at the start of every term, at once when one is
   * running, with that term's signal, which aborts the moment the term
   * ends (a lost renewal, another holder, `stop()`), before any callback of
   * the elector's runs. It is called synchronously and is not awaited: it
   * starts the leader-only work and returns; a throw is logged. Several
   * parties may follow one elector (a `Controller` does). Returns the
   * function that stops following.
   *
   * @example Work that runs only while leading
   * ```ts
   * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
   * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * await using server = new FakeApiServer({ clock });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const elector = new LeaderElector({
   *   lease: { namespace: "haptic", name: "haptic-controller" },
   *   identity: "replica-a",
   * }, client, { clock });
   * const terms: AbortSignal[] = [];
   * const unfollow = elector.whileLeading((signal) => terms.push(signal));
   * elector.start();
   * await waitFor(() => terms.length === 1);
   * await elector.stop();
   * assert.equal(terms[0].aborted, true);
   * unfollow();
   * ```
   *
   * @param onTerm Called with each term's signal.
   * @returns A function that stops following (a term already begun keeps
   * its signal).
   */
  whileLeading(onTerm: (signal: AbortSignal) => void): () => void {
    if (typeof onTerm !== "function") {
      throw new TypeError("whileLeading needs a function");
    }
    this.#termListeners.add(onTerm);
    const term = this.#term;
    if (term !== undefined) this.#tellTerm(onTerm, term.controller.signal);
    return () => void this.#termListeners.delete(onTerm);
  }

  #tellTerm(onTerm: (signal: AbortSignal) => void, signal: AbortSignal): void {
    try {
      onTerm(signal);
    } catch (error) {
      this.#logger.error("whileLeading callback failed", failureFields(error));
    }
  }

  /**
   * The holder the Lease showed at the last read, or `undefined` when none.
   *
   * @example Who holds the Lease
   * ```ts
   * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
   * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * await using server = new FakeApiServer({ clock });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const elector = new LeaderElector({
   *   lease: { namespace: "haptic", name: "haptic-controller" },
   *   identity: "replica-a",
   *   onStartedLeading: () => {},
   * }, client, { clock });
   * assert.equal(elector.leader(), undefined); // nothing read yet
   * elector.start();
   * await waitFor(() => elector.leader() !== undefined);
   * assert.equal(elector.leader(), "replica-a");
   * await elector.stop();
   * ```
   */
  leader(): string | undefined {
    const holder = this.#observed?.record.holderIdentity;
    return holder ? holder : undefined;
  }

  /**
   * A snapshot for health endpoints.
   *
   * @example A health endpoint
   * ```ts
   * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
   * import { FakeApiServer, FakeClock, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * await using server = new FakeApiServer({ clock });
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const elector = new LeaderElector({
   *   lease: { namespace: "haptic", name: "haptic-controller" },
   *   identity: "replica-a",
   *   onStartedLeading: () => {},
   * }, client, { clock });
   * elector.start();
   * await waitFor(() => elector.isLeader());
   * const health = elector.health();
   * assert.equal(health.leading, true);
   * assert.equal(health.leader, "replica-a");
   * assert.equal(health.consecutiveFailures, 0);
   * await elector.stop();
   * ```
   */
  health(): LeaderElectorHealth {
    return {
      leading: this.#term !== undefined,
      leader: this.leader(),
      leaseTransitions: this.#observed?.record.leaseTransitions,
      observedTime: this.#observedTime,
      lastRenewTime: this.#lastRenewTime,
      renewDeadline: this.#term?.deadline,
      consecutiveFailures: this.#consecutiveFailures,
      conflicts: this.#conflicts,
      lastError: this.#lastError,
    };
  }

  /** The loop: one attempt, a jittered wait, until stopped. */
  async #run(signal: AbortSignal): Promise<void> {
    // Stop leading the moment stop() is called (or start's signal aborts),
    // not once the attempt in flight has given up.
    signal.addEventListener("abort", () => this.#leave(), { once: true });
    while (!signal.aborted) {
      await this.#tryOnce(signal);
      try {
        await delay(this.#retryWait(), { clock: this.#clock, signal });
      } catch {
        return;
      }
    }
  }

  /** Between `retryPeriodMs / 1.2` and `retryPeriodMs`. */
  #retryWait(): number {
    return this.#retryPeriodMs / (1 + (JITTER_FACTOR - 1) * this.#random());
  }

  /** One attempt with a time limit; failures are logged and counted. */
  async #tryOnce(loopSignal: AbortSignal): Promise<void> {
    const attempt = new AbortController();
    this.#attempt = attempt;
    const timeout = this.#clock.setTimeout(
      () => attempt.abort(new AttemptTimeoutError(this.#attemptTimeoutMs)),
      this.#attemptTimeoutMs,
    );
    // Forwarded by hand rather than with AbortSignal.any, so that nothing
    // stays registered on the loop's signal once the attempt is over.
    const onStop = () => attempt.abort(loopSignal.reason);
    loopSignal.addEventListener("abort", onStop, { once: true });
    const signal = attempt.signal;
    try {
      // A 409 means the Lease changed since it was read: read it again at
      // once, rather than a retry period later.
      if (await this.#acquireOrRenew(signal) === "conflict") {
        await this.#acquireOrRenew(signal);
      }
    } catch (error) {
      if (loopSignal.aborted) return;
      this.#failed(signal.aborted ? signal.reason : error);
    } finally {
      loopSignal.removeEventListener("abort", onStop);
      this.#clock.clearTimeout(timeout);
      if (this.#attempt === attempt) this.#attempt = undefined;
    }
  }

  /**
   * Reads the Lease and writes it when this replica may hold it. Returns
   * whether a write met a 409 Conflict; other failures throw.
   */
  async #acquireOrRenew(signal: AbortSignal): Promise<"done" | "conflict"> {
    const current = await this.#read(signal);
    // A read that finds the Lease shows the API works; one that finds none
    // does not (a create answered 404 would fail unseen, count 1 each time).
    if (current !== undefined) this.#consecutiveFailures = 0;
    const now = this.#clock.now();
    if (current === undefined) {
      // Deleted under a holder this replica saw: wait that lease out, as if
      // the record had not changed (its holder may still be leading).
      const seen = this.#observed?.record.holderIdentity;
      if (seen && seen !== this.#config.identity && !this.#expired(now)) {
        return "done";
      }
      return await this.#write(
        signal,
        "POST",
        (at) =>
          newLease(this.#config.lease.namespace, this.#config.lease.name, {
            holderIdentity: this.#config.identity,
            leaseDurationSeconds: this.#leaseDurationSeconds(),
            leaseTransitions: 0,
            acquireTime: microTime(at),
            renewTime: microTime(at),
          }),
      );
    }
    const holder = current.record.holderIdentity;
    const mine = holder === this.#config.identity;
    // Someone else wrote themselves in: a leader gives up at once (before
    // anyone hears of the new leader), whatever the record's age.
    if (!mine && holder !== "") {
      this.#stepDown(`the Lease is held by ${holder}`);
    }
    this.#observe(current, now);
    if (!mine && holder !== "" && !this.#expired(now)) return "done";
    return await this.#write(signal, "PUT", (at) =>
      replacedLease(current, {
        holderIdentity: this.#config.identity,
        leaseDurationSeconds: this.#leaseDurationSeconds(),
        leaseTransitions: current.record.leaseTransitions + (mine ? 0 : 1),
        acquireTime: mine && current.record.acquireTime
          ? current.record.acquireTime
          : microTime(at),
        renewTime: microTime(at),
      }), current.resourceVersion);
  }

  /** The Lease, or `undefined` when it does not exist. */
  async #read(signal: AbortSignal): Promise<ObservedLease | undefined> {
    try {
      return readLease(
        await this.#client.performRequest({
          method: "GET",
          path: this.#objectPath,
          abortSignal: signal,
          expectJson: true,
        }),
      );
    } catch (error) {
      if (!signal.aborted && httpStatusOf(error).code === 404) return undefined;
      throw error;
    }
  }

  /**
   * Sends a create or update of the Lease. When it succeeds, this replica
   * holds the lease from the moment the request was sent: the API server
   * stored it after that, so every other replica saw it after that too.
   */
  async #write(
    signal: AbortSignal,
    method: "POST" | "PUT",
    body: (at: number) => JsonValue,
    readVersion?: string,
  ): Promise<"done" | "conflict"> {
    const sentAt = this.#clock.now();
    let written: ObservedLease;
    try {
      written = readLease(
        await this.#client.performRequest({
          method,
          path: method === "POST" ? this.#collectionPath : this.#objectPath,
          abortSignal: signal,
          expectJson: true,
          bodyJson: body(sentAt),
        }),
      );
    } catch (error) {
      if (!signal.aborted && httpStatusOf(error).code === 409) {
        this.#conflicts++;
        this.#logger.debug("Lease write refused: someone else wrote first", {
          lease: this.#leaseName(),
          identity: this.#config.identity,
        });
        return "conflict";
      }
      throw error;
    }
    this.#consecutiveFailures = 0;
    this.#observe(written, this.#clock.now());
    // A write that changed nothing (same millisecond) proves nothing new.
    if (written.resourceVersion !== readVersion) this.#held(sentAt);
    return "done";
  }

  /** A write sent at `sentAt` succeeded: lead until `sentAt + renewDeadlineMs`. */
  #held(sentAt: number): void {
    this.#lastRenewTime = sentAt;
    const deadline = sentAt + this.#renewDeadlineMs;
    const remaining = deadline - this.#clock.now();
    if (this.#stopped || remaining <= 0) return;
    let term = this.#term;
    if (term) this.#clock.clearTimeout(term.deadlineTimer);
    else {
      term = {
        controller: new AbortController(),
        deadline,
        deadlineTimer: undefined,
        started: false,
      };
      this.#term = term;
      this.#metrics?.transition();
      this.#logger.info("Started leading", {
        lease: this.#leaseName(),
        identity: this.#config.identity,
      });
      this.#enqueueStart(term);
      for (const onTerm of [...this.#termListeners]) {
        this.#tellTerm(onTerm, term.controller.signal);
      }
    }
    term.deadline = deadline;
    term.deadlineTimer = this.#clock.setTimeout(
      () =>
        this.#stepDown(
          `no renewal succeeded within renewDeadlineMs (${this.#renewDeadlineMs} ms)`,
        ),
      remaining,
    );
  }

  /** Ends the current term at once; its callbacks follow on the chain. */
  #stepDown(reason: string): void {
    const term = this.#term;
    if (!term) return;
    this.#term = undefined;
    this.#metrics?.transition();
    this.#clock.clearTimeout(term.deadlineTimer);
    // A renewal in flight could only start a new term; let the next attempt decide.
    this.#attempt?.abort(new Error(`Stopped leading: ${reason}`));
    this.#logger[this.#stopped ? "info" : "warn"]("Stopped leading", {
      lease: this.#leaseName(),
      identity: this.#config.identity,
      reason,
    });
    term.controller.abort(new Error(`Stopped leading: ${reason}`));
    this.#enqueue(() => {
      if (term.started) return this.#config.onStoppedLeading?.();
    }, "onStoppedLeading");
  }

  #enqueueStart(term: Term): void {
    this.#enqueue(() => {
      // The term ended before its turn: neither callback is due.
      if (term.controller.signal.aborted) return;
      term.started = true;
      return this.#config.onStartedLeading?.(term.controller.signal);
    }, "onStartedLeading");
  }

  /** Remembers the Lease; a new record restarts the expiry clock. */
  #observe(lease: ObservedLease, at: number): void {
    if (this.#observed?.key !== lease.key) this.#observedTime = at;
    this.#observed = lease;
    const holder = lease.record.holderIdentity;
    if (holder !== "" && holder !== this.#reportedLeader && !this.#stopped) {
      this.#reportedLeader = holder;
      this.#logger.debug("New leader observed", {
        lease: this.#leaseName(),
        leader: holder,
      });
      const onNewLeader = this.#config.onNewLeader;
      if (onNewLeader) {
        this.#enqueue(
          () => this.#silenced ? undefined : onNewLeader(holder),
          "onNewLeader",
        );
      }
    }
  }

  /** Whether the observed record is older than its lease, on this clock. */
  #expired(now: number): boolean {
    const claimed = (this.#observed?.record.leaseDurationSeconds ?? 0) * 1000;
    const wait = Math.max(this.#leaseDurationMs, claimed);
    return this.#observedTime !== undefined &&
      now - this.#observedTime >= wait;
  }

  #leaseDurationSeconds(): number {
    return Math.max(1, Math.ceil(this.#leaseDurationMs / 1000));
  }

  #failed(error: unknown): void {
    this.#consecutiveFailures++;
    this.#lastError = { time: this.#clock.now(), error };
    if (this.#term !== undefined) this.#metrics?.renewFailed();
    const { code } = httpStatusOf(error);
    const fields: Record<string, unknown> = {
      lease: this.#leaseName(),
      identity: this.#config.identity,
      error,
      failures: this.#consecutiveFailures,
    };
    if (code === 401 || code === 403) {
      fields.hint =
        "the client needs get, create and update on leases.coordination.k8s.io in the Lease's namespace";
      this.#logger.error("Lease request refused", fields);
    } else if (code === 404) {
      fields.hint =
        `is the namespace ${this.#config.lease.namespace} missing, or does the API server not serve coordination.k8s.io/v1?`;
      this.#logger.error("Lease request not found", fields);
    } else this.#logger.warn("Lease request failed", fields);
  }

  #enqueue(callback: () => unknown, what: string): void {
    this.#callbacks = this.#callbacks.then(() =>
      runAsCallbackOf(
        this,
        () => runGuarded(callback, this.#logger, `${what} failed`),
      )
    );
  }

  /** No more terms, no more news: the elector is stopping. */
  #leave(): void {
    this.#stopped = true;
    this.#stepDown("the elector was stopped");
  }

  /** After the loop ended: drain the callbacks, then release. */
  async #shutdown(): Promise<void> {
    this.#leave();
    this.#metrics?.close();
    await this.#callbacks;
    const observed = this.#observed;
    if (
      this.#config.releaseOnStop !== false &&
      observed?.record.holderIdentity === this.#config.identity
    ) await this.#release(observed);
  }

  /**
   * Clears `holderIdentity` of the Lease as last seen. If anyone wrote it
   * since, the 409 means it is no longer ours to clear.
   */
  async #release(observed: ObservedLease): Promise<void> {
    const attempt = new AbortController();
    const timeout = this.#clock.setTimeout(
      () => attempt.abort(new AttemptTimeoutError(this.#attemptTimeoutMs)),
      this.#attemptTimeoutMs,
    );
    const now = this.#clock.now();
    try {
      await this.#client.performRequest({
        method: "PUT",
        path: this.#objectPath,
        abortSignal: attempt.signal,
        expectJson: true,
        bodyJson: replacedLease(observed, {
          holderIdentity: "",
          leaseDurationSeconds: 1,
          leaseTransitions: observed.record.leaseTransitions,
          acquireTime: microTime(now),
          renewTime: microTime(now),
        }),
      });
      this.#logger.info("Released the Lease", {
        lease: this.#leaseName(),
        identity: this.#config.identity,
      });
    } catch (error) {
      const conflict = !attempt.signal.aborted &&
        httpStatusOf(error).code === 409;
      this.#logger[conflict ? "info" : "warn"](
        conflict
          ? "Lease not released: someone else wrote it since"
          : "Lease not released; the others take over once it expires",
        {
          lease: this.#leaseName(),
          identity: this.#config.identity,
          error: attempt.signal.aborted ? attempt.signal.reason : error,
        },
      );
    } finally {
      this.#clock.clearTimeout(timeout);
    }
  }

  #leaseName(): string {
    return `${this.#config.lease.namespace}/${this.#config.lease.name}`;
  }
}

// The names each argument takes: records over the interfaces' keys, so a
// field added to an interface and not here does not compile.
const CONFIG_NAMES: Record<keyof LeaderElectorConfig, true> = {
  lease: true,
  identity: true,
  leaseDurationMs: true,
  renewDeadlineMs: true,
  retryPeriodMs: true,
  releaseOnStop: true,
  onStartedLeading: true,
  onStoppedLeading: true,
  onNewLeader: true,
};
const OPTION_NAMES: Record<keyof LeaderElectorOptions, true> = {
  logger: true,
  clock: true,
  random: true,
  meter: true,
};

/** Checks that `value` is a non-empty string. */
function validateName(field: string, value: unknown): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw new LeaderElectionConfigError(
      field,
      `must be a non-empty string, got ${JSON.stringify(value) ?? "undefined"}`,
    );
  }
}

/** Checks that an optional callback is a function. */
function validateCallback(
  field: string,
  value: unknown,
  required: boolean,
): void {
  if (value === undefined && !required) return;
  if (typeof value !== "function") {
    throw new LeaderElectionConfigError(field, "must be a function");
  }
}

/**
 * Thrown by the {@linkcode LeaderElector} constructor when its configuration
 * is unusable: a missing lease name or identity, a timing that could let two
 * replicas lead at once. `field` names the offending option.
 *
 * @example A renew deadline longer than the lease
 * ```ts
 * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
 * import {
 *   LeaderElectionConfigError,
 * } from "@haptic/k8s-watcher/leaderelection";
 * import assert from "node:assert/strict";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * assert.throws(
 *   () =>
 *     new LeaderElector({
 *       lease: { namespace: "haptic", name: "haptic-leader" },
 *       identity: "pod-a",
 *       retryPeriodMs: 9_000, // × 1.2 is not below the 10 s renew deadline
 *       onStartedLeading: () => {},
 *     }, client),
 *   (e) => e instanceof LeaderElectionConfigError && e.field === "retryPeriodMs",
 * );
 * ```
 */
export class LeaderElectionConfigError extends Error {
  /** The option that was wrong, e.g. `renewDeadlineMs`. */
  readonly field: string;

  /**
   * Creates the error; the message names the option.
   *
   * @example Naming the option
   * ```ts
   * import { LeaderElectionConfigError } from "@haptic/k8s-watcher/leaderelection";
   * import assert from "node:assert/strict";
   *
   * const err = new LeaderElectionConfigError("renewDeadlineMs", "must be less than leaseDurationMs");
   * assert.equal(err.field, "renewDeadlineMs");
   * ```
   *
   * @param field The option that was wrong.
   * @param message What was wrong with it.
   */
  constructor(field: string, message: string) {
    super(`Invalid leader election config: ${field}: ${message}`);
    this.name = "LeaderElectionConfigError";
    this.field = field;
  }
}
