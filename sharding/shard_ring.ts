/**
 * `ShardRing`: a controller's objects split across its replicas on
 * Kubernetes itself. Each replica holds a Lease of its own, labelled with
 * the ring's name; the live Leases are the members, and every member
 * computes the same assignment from them. Keys move between members only
 * through acknowledgements written in those Leases.
 *
 * After the class: `ShardRingStoppedError`, then a member's log lines and
 * its metrics.
 *
 * @module
 */
import {
  collectionPath,
  objectPath,
  type RestClient,
} from "../client/rest_client.ts";
import { httpStatusOf } from "../client/api_error.ts";
import type { TimerHandle } from "../clock.ts";
import type { Awaitable, Logger } from "../types.ts";
import { Lifecycle } from "../_internal/_lifecycle.ts";
import { microTime } from "../_internal/_time.ts";
import { planRing, type RingPlan } from "./_ring_plan.ts";
import {
  LEASES,
  type MemberLease,
  memberLease,
  readMembers,
  RING_LABEL,
} from "./_ring_lease.ts";
import {
  type CompiledRanges,
  compileRanges,
  hashOf,
  inRanges,
  intersect,
  type MemberAck,
  permittedRanges,
  rangeOf,
  sameRanges,
  sameView,
  shareOf,
  subtract,
  type View,
  viewOf,
} from "./_ring_view.ts";
import {
  type ShardRange,
  type ShardRingConfig,
  type ShardRingOptions,
  type ShardRingState,
  shardSelector,
} from "./shard_ring_config.ts";
import type {
  Counter,
  Meter,
  MetricAttributes,
  ObservableGauge,
  ObservableResult,
} from "../metrics/meter.ts";
import { instrumentsOf, PREFIX } from "../_internal/_metrics.ts";

/** Another member, as this replica has watched its Lease change. */
interface Observed {
  lease: MemberLease;
  /** When (on this replica's clock) its renewal was last seen to change. */
  seenAt: number;
}

/**
 * One replica's membership of a shard ring.
 *
 * The rule, for every key (an object's hash of `metadata.uid` or
 * `metadata.namespace`, FNV-1a 64 as KEP-5866 defines it):
 *
 * - The hash space is cut into as many contiguous, equal ranges as the ring
 *   has live members, in the order of their identities. That is a member's
 *   range in a view (the sorted member list).
 * - A member works on a key only if the view it acknowledged in its Lease
 *   gives it the key, no other live member's acknowledged view gives that
 *   member the key, and it renewed its Lease within `renewDeadlineMs`.
 *   Before acknowledging a new view it stops working on the keys the new
 *   view takes away (`onChange` resolves), and it reads the others'
 *   acknowledgements after its own is written.
 * - A member is live while its Lease's renewal keeps changing: it is gone
 *   once no renewal was seen for its lease duration, or its Lease is
 *   deleted (as `stop()` does after giving up its work).
 *
 * The guarantee: no key is worked by two members at once, provided no
 * member's clock runs faster than another's by `leaseDurationMs /
 * renewDeadlineMs` or more — the elector's condition. The exception is the
 * elector's too: a member whose renewals do not reach the API server (a
 * partition) is given up for gone after its lease duration, and it has
 * stopped working by then only because it stops at its renew deadline. Once
 * the ring is quiet, every key is worked by exactly one live member.
 *
 * @example Three replicas of one controller, each on its own pod
 * ```ts ignore
 * import { ShardRing } from "@haptic/k8s-watcher/sharding";
 * import { FetchClient } from "@haptic/k8s-watcher";
 *
 * using client = await FetchClient.fromEnv();
 * await using ring = new ShardRing({
 *   name: "widgets",
 *   namespace: "shop",
 *   identity: Deno.env.get("POD_NAME")!,
 *   onChange: (state) => console.log("working", state.permitted),
 * }, client);
 * void ring.start();
 * // In a reconcile: if (!ring.owns(widget)) return;
 * ```
 */
export class ShardRing implements AsyncDisposable {
  readonly #plan: RingPlan;
  readonly #client: RestClient;
  readonly #lifecycle: Lifecycle;
  readonly #metrics: RingMetrics | undefined;
  readonly #observed = new Map<string, Observed>();
  #acked: View | undefined;
  /** The view the next renewal acknowledges, once the hand-off allows it. */
  #target: View | undefined;
  #members: View = [];
  #assigned: ShardRange[] = [];
  #permitted: ShardRange[] = [];
  #compiled: CompiledRanges = [];
  #compiledAssigned: CompiledRanges = [];
  #ownVersion: string | undefined;
  #lastRenewAt: number | undefined;
  #deadlineTimer: TimerHandle | undefined;
  /** The last `onChange` call; a new view is acknowledged after it settles. */
  #handOff: Promise<void> = Promise.resolve();
  #handOffSettled = true;
  readonly #listeners = new Set<(state: ShardRingState) => Awaitable<void>>();

  /**
   * Checks `config` and `options` and makes the ring's member; nothing is
   * sent until {@linkcode ShardRing.start}.
   *
   * @example A member on a fake server
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * ```
   *
   * @param config The ring, this replica, the timings, the hand-off hook.
   * @param client Where the Leases are read and written.
   * @param options Clock, logger, meter, jitter.
   * @throws {ShardRingConfigError} For the first wrong option.
   */
  constructor(
    config: ShardRingConfig,
    client: RestClient,
    options?: ShardRingOptions,
  ) {
    this.#plan = planRing(config, client, options);
    this.#client = client;
    const plan = this.#plan;
    this.#metrics = plan.meter && new RingMetrics(plan.meter, {
      ring: plan.name,
      namespace: plan.namespace,
      identity: plan.identity,
    }, {
      members: () => this.#members.length,
      assigned: () => shareOf(this.#assigned),
      permitted: () => shareOf(this.#permitted),
    });
    this.#lifecycle = new Lifecycle(
      (signal) => this.#run(signal),
      () => this.#leave(),
      () => new ShardRingStoppedError(this.#plan.name, this.#plan.identity),
    );
  }

  /**
   * This replica's view of the ring now: the members, its assigned ranges,
   * the ranges it may work on.
   *
   * @example Before the start
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * assert.deepEqual(ring.state.permitted, []);
   * ```
   */
  get state(): ShardRingState {
    return {
      members: this.#members,
      assigned: this.#assigned,
      permitted: this.#permitted,
    };
  }

  /**
   * Whether this replica may work on `obj` now (its hash is in
   * {@linkcode ShardRingState.permitted}).
   *
   * @example Skipping another shard's object
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * // Not started: it works on nothing.
   * assert.equal(ring.owns({ metadata: { uid: "0b4c" } }), false);
   * ```
   *
   * @param obj An object with the hashed field in its metadata.
   */
  owns(obj: { readonly metadata?: ShardMetadata }): boolean {
    return inRanges(this.#compiled, hashOf(this.#field(obj)));
  }

  /**
   * Whether `obj` is in this replica's assigned ranges: what it keeps in
   * its cache, including keys it will work on once the hand-off is over.
   *
   * @example A filter for what to keep
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * assert.equal(ring.isAssigned({ metadata: { uid: "0b4c" } }), false);
   * ```
   *
   * @param obj An object with the hashed field in its metadata.
   */
  isAssigned(obj: { readonly metadata?: ShardMetadata }): boolean {
    return inRanges(this.#compiledAssigned, hashOf(this.#field(obj)));
  }

  /**
   * The `shardSelector` for this replica's assigned ranges, for a LIST or
   * WATCH of only them on a server with `ShardedListAndWatch`; `""` while
   * it has none.
   *
   * @example The selector of a ring not yet started
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * assert.equal(ring.selector(), "");
   * ```
   */
  selector(): string {
    return shardSelector(this.#assigned, this.#plan.by);
  }

  /**
   * Adds a listener called as {@linkcode ShardRingConfig.onChange} is, and
   * awaited with it: what a `Controller` or a `Watcher` given the ring
   * uses to give up keys (and pick new ones up). It is called at once with
   * the state as it is now. Returns the function that removes it.
   *
   * @example A second party in the hand-off
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * await using ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * const unsubscribe = ring.subscribe((state) => console.log(state.permitted));
   * unsubscribe();
   * ```
   *
   * @param listener Called with each new state; the ring waits for it
   * before it gives keys away.
   * @returns Removes the listener.
   */
  subscribe(
    listener: (state: ShardRingState) => Awaitable<void>,
  ): () => void {
    if (typeof listener !== "function") {
      throw new TypeError("ShardRing.subscribe(): listener must be a function");
    }
    this.#listeners.add(listener);
    this.#enqueue([listener], this.state);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * Joins the ring and keeps renewing until {@linkcode ShardRing.stop};
   * resolves when stopped.
   *
   * @example Run in the background
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * const running = ring.start();
   * await ring.stop();
   * await running;
   * ```
   *
   * @param signal Stops the ring when aborted.
   * @throws {ShardRingStoppedError} After {@linkcode ShardRing.stop}.
   */
  start(signal?: AbortSignal): Promise<void> {
    return this.#lifecycle.start(signal);
  }

  /**
   * Leaves the ring: works on nothing (waits for `onChange` with no ranges),
   * deletes its Lease so the others take its ranges at once, and resolves
   * when done. Safe to call more than once.
   *
   * @example Leaving
   * ```ts
   * import { ShardRing } from "@haptic/k8s-watcher/sharding";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
   * await ring.stop();
   * ```
   */
  stop(): Promise<void> {
    return this.#lifecycle.stop();
  }

  /** {@linkcode ShardRing.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  #field(obj: { readonly metadata?: ShardMetadata }): string | undefined {
    return this.#plan.by === "uid"
      ? obj.metadata?.uid
      : obj.metadata?.namespace;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { retryPeriodMs, random } = this.#plan;
    this.#metrics?.open();
    while (!signal.aborted) {
      await this.#attempt(signal);
      if (signal.aborted) break;
      // A view waiting to be acknowledged goes out as soon as the hand-off
      // it waits for is over; otherwise the next round is on time.
      const waiting = this.#target !== undefined &&
        !sameView(this.#target, this.#acked);
      await this.#wait(
        retryPeriodMs / (1 + 0.2 * random()),
        signal,
        waiting ? this.#handOff : undefined,
      );
    }
  }

  /**
   * One round with a time limit of half the renew deadline, so that a
   * request that never answers (a stalled connection) cannot hold the
   * member past its deadline without it trying again.
   */
  async #attempt(loopSignal: AbortSignal): Promise<void> {
    const attempt = new AbortController();
    const { clock } = this.#plan;
    const timeout = clock.setTimeout(
      () => attempt.abort(),
      this.#plan.renewDeadlineMs / 2,
    );
    // Forwarded by hand, so that nothing stays registered on the loop's
    // signal once the attempt is over.
    const onStop = () => attempt.abort();
    loopSignal.addEventListener("abort", onStop, { once: true });
    try {
      await this.#round(attempt.signal);
    } finally {
      loopSignal.removeEventListener("abort", onStop);
      clock.clearTimeout(timeout);
    }
  }

  /** Waits `ms`, or until `early` settles, or the loop stops. */
  #wait(
    ms: number,
    loopSignal: AbortSignal,
    early: Promise<void> | undefined,
  ): Promise<void> {
    const { clock } = this.#plan;
    return new Promise<void>((resolve) => {
      const done = () => {
        clock.clearTimeout(timer);
        loopSignal.removeEventListener("abort", done);
        resolve();
      };
      const timer = clock.setTimeout(done, ms);
      loopSignal.addEventListener("abort", done, { once: true });
      void early?.then(done);
    });
  }

  /**
   * One round: renew (acknowledging the target view when the hand-off
   * allows), then read the ring and recompute.
   */
  async #round(signal: AbortSignal): Promise<void> {
    if (this.#handOffSettled && !sameView(this.#target, this.#acked)) {
      this.#acked = this.#target;
    }
    await this.#renew(signal);
    if (signal.aborted) return;
    let members: MemberLease[];
    try {
      members = readMembers(
        await this.#client.performRequest({
          method: "GET",
          path: collectionPath(LEASES, this.#plan.namespace),
          querystring: new URLSearchParams({
            labelSelector: `${RING_LABEL}=${this.#plan.name}`,
          }),
          abortSignal: signal,
          expectJson: true,
        }),
      );
    } catch (error) {
      if (!signal.aborted) ringLines.listFailed(this.#plan.logger, error);
      return;
    }
    this.#recompute(members);
  }

  /** Writes this replica's Lease; a success moves its renew deadline. */
  async #renew(signal: AbortSignal): Promise<void> {
    const { clock, namespace, leaseName } = this.#plan;
    const sentAt = clock.now();
    const record = {
      ring: this.#plan.name,
      namespace,
      leaseName,
      identity: this.#plan.identity,
      leaseDurationSeconds: Math.ceil(this.#plan.leaseDurationMs / 1000),
      renewTime: microTime(sentAt),
      acked: this.#acked,
    };
    const send = (method: "POST" | "PUT", resourceVersion?: string) =>
      this.#client.performRequest({
        method,
        path: method === "POST"
          ? collectionPath(LEASES, namespace)
          : objectPath(LEASES, namespace, leaseName),
        abortSignal: signal,
        expectJson: true,
        bodyJson: memberLease({ ...record, resourceVersion }),
      });
    try {
      let answer;
      try {
        answer = this.#ownVersion === undefined
          ? await send("POST")
          : await send("PUT", this.#ownVersion);
      } catch (error) {
        const code = signal.aborted ? 0 : httpStatusOf(error).code;
        if (code === 409) {
          // Written by an earlier life of this replica, or our version is
          // old: take it over from its current version.
          const current = await this.#client.performRequest({
            method: "GET",
            path: objectPath(LEASES, namespace, leaseName),
            abortSignal: signal,
            expectJson: true,
          }) as { metadata?: { resourceVersion?: string } };
          answer = await send("PUT", current.metadata?.resourceVersion);
        } else if (code === 404) {
          answer = await send("POST");
        } else throw error;
      }
      this.#ownVersion = (answer as { metadata?: { resourceVersion?: string } })
        .metadata?.resourceVersion;
      this.#held(sentAt);
    } catch (error) {
      if (!signal.aborted) {
        ringLines.renewFailed(this.#plan.logger, error);
        this.#metrics?.renewFailed();
      }
      this.#ownVersion = undefined;
    }
  }

  /** A renewal sent at `sentAt` went through: work until its deadline. */
  #held(sentAt: number): void {
    const { clock, renewDeadlineMs } = this.#plan;
    this.#lastRenewAt = sentAt;
    if (this.#deadlineTimer !== undefined) {
      clock.clearTimeout(this.#deadlineTimer);
    }
    this.#deadlineTimer = clock.setTimeout(() => {
      this.#deadlineTimer = undefined;
      ringLines.deadlinePassed(this.#plan.logger, renewDeadlineMs);
      // It works on nothing now, until a renewal goes through and the ring
      // is read again. Its acknowledgement is withdrawn only once the work
      // has stopped (the next renewal after onChange settles), like any
      // other view change.
      this.#target = undefined;
      this.#lastRenewAt = undefined;
      this.#update(this.#members, [], []);
    }, Math.max(0, sentAt + renewDeadlineMs - clock.now()));
  }

  /** From a LIST made after this replica's latest renewal. */
  #recompute(members: MemberLease[]): void {
    const now = this.#plan.clock.now();
    const self = this.#plan.identity;
    const seen = new Set<string>();
    let ownListed: MemberLease | undefined;
    for (const lease of members) {
      if (lease.identity === self) {
        if (lease.leaseName === this.#plan.leaseName) ownListed = lease;
        continue;
      }
      seen.add(lease.identity);
      const before = this.#observed.get(lease.identity);
      if (before === undefined || before.lease.key !== lease.key) {
        this.#observed.set(lease.identity, { lease, seenAt: now });
      } else before.lease = lease;
    }
    const live: MemberAck[] = [];
    for (const [identity, entry] of this.#observed) {
      const duration = entry.lease.durationMs ?? this.#plan.leaseDurationMs;
      if (!seen.has(identity)) {
        // Deleted: gone, and forgotten.
        this.#observed.delete(identity);
        continue;
      }
      // Not renewed for its lease duration: gone, until it renews again.
      if (now - entry.seenAt >= duration) continue;
      live.push({ identity, acked: entry.lease.acked });
    }
    // Holding means a renewal younger than the renew deadline, whatever
    // this round's write did: an answer that came late proves nothing newer
    // than when it was sent.
    const holding = this.#lastRenewAt !== undefined &&
      now - this.#lastRenewAt < this.#plan.renewDeadlineMs;
    const view = viewOf([
      ...live.map((m) => m.identity),
      ...(holding ? [self] : []),
    ]);
    this.#target = holding ? view : undefined;
    // The acknowledgement that counts is the one the server holds.
    const listedAck = ownListed?.acked;
    const permitted = holding
      ? intersect(
        permittedRanges(self, listedAck, live),
        rangeOf(view, self),
      )
      : [];
    this.#update(view, rangeOf(view, self), permitted);
  }

  #update(
    view: View,
    assigned: ShardRange[],
    permitted: ShardRange[],
  ): void {
    if (
      sameView(view, this.#members) && sameRanges(assigned, this.#assigned) &&
      sameRanges(permitted, this.#permitted)
    ) return;
    const lost = subtract(this.#permitted, permitted).length > 0;
    this.#members = view;
    this.#assigned = assigned;
    this.#permitted = permitted;
    this.#compiled = compileRanges(permitted);
    this.#compiledAssigned = compileRanges(assigned);
    const state = this.state;
    ringLines.changed(this.#plan.logger, state);
    this.#metrics?.changed();
    if (lost) ringLines.handOffWaiting(this.#plan.logger, view);
    this.#enqueue([this.#plan.onChange, ...this.#listeners], state);
  }

  /**
   * Calls `listeners` with `state` once the calls before have settled; the
   * next acknowledgement waits for the last of them.
   */
  #enqueue(
    listeners: ((state: ShardRingState) => Awaitable<void>)[],
    state: ShardRingState,
  ): void {
    const call = this.#handOff.then(async () => {
      await Promise.all(listeners.map(async (listener) => {
        try {
          await listener(state);
        } catch (error) {
          ringLines.hookFailed(this.#plan.logger, error);
        }
      }));
    });
    this.#handOff = call;
    this.#handOffSettled = false;
    void call.then(() => {
      if (this.#handOff === call) this.#handOffSettled = true;
    });
  }

  /** After the loop: give up all work, then the Lease. */
  async #leave(): Promise<void> {
    const { clock } = this.#plan;
    if (this.#deadlineTimer !== undefined) {
      clock.clearTimeout(this.#deadlineTimer);
      this.#deadlineTimer = undefined;
    }
    this.#update(this.#members, [], []);
    await this.#handOff;
    if (this.#lastRenewAt === undefined && this.#ownVersion === undefined) {
      this.#metrics?.close();
      return;
    }
    const controller = new AbortController();
    const timer = clock.setTimeout(
      () => controller.abort(),
      this.#plan.retryPeriodMs,
    );
    try {
      await this.#client.performRequest({
        method: "DELETE",
        path: objectPath(LEASES, this.#plan.namespace, this.#plan.leaseName),
        abortSignal: controller.signal,
        expectJson: true,
      });
    } catch (error) {
      if (httpStatusOf(error).code !== 404) {
        ringLines.leaveFailed(this.#plan.logger, error);
      }
    } finally {
      clock.clearTimeout(timer);
      this.#metrics?.close();
    }
  }
}

/** The metadata fields a ring hashes. */
export interface ShardMetadata {
  /** The object's uid. */
  readonly uid?: string;
  /** The object's namespace. */
  readonly namespace?: string;
}

/**
 * Thrown by `ShardRing.start()` after `stop()`: a member leaves its ring
 * once; make a new `ShardRing` to join again.
 *
 * @example Starting a stopped member
 * ```ts
 * import { ShardRing, ShardRingStoppedError } from "@haptic/k8s-watcher/sharding";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
 * await ring.stop();
 * assert.throws(() => ring.start(), ShardRingStoppedError);
 * ```
 */
export class ShardRingStoppedError extends Error {
  /** The ring's name. */
  readonly ring: string;
  /** The member's identity. */
  readonly identity: string;

  /**
   * Creates the error.
   *
   * @example The message
   * ```ts
   * import { ShardRingStoppedError } from "@haptic/k8s-watcher/sharding";
   * import assert from "node:assert/strict";
   *
   * assert.equal(
   *   new ShardRingStoppedError("widgets", "pod-1").message,
   *   "Shard ring member pod-1 of widgets was stopped: make a new ShardRing to join again",
   * );
   * ```
   *
   * @param ring The ring's name.
   * @param identity The member's identity.
   */
  constructor(ring: string, identity: string) {
    super(
      `Shard ring member ${identity} of ${ring} was stopped: make a new ShardRing to join again`,
    );
    this.name = "ShardRingStoppedError";
    this.ring = ring;
    this.identity = identity;
  }
}

// Every log line of a shard ring: level, wording, fields; its ranges as
// people read them, `0x0000…-0x8000…`.

/** The ring's lines, one function each. */
const ringLines = {
  changed(logger: Logger, state: ShardRingState): void {
    logger.info("Shard ring changed", {
      members: state.members.join(","),
      assigned: rangesText(state.assigned),
      permitted: rangesText(state.permitted),
    });
  },
  handOffWaiting(logger: Logger, members: readonly string[]): void {
    logger.debug("Shard ring hand-off: waiting for the work on moved keys", {
      members: members.join(","),
    });
  },
  renewFailed(logger: Logger, error: unknown): void {
    logger.warn("Shard Lease renewal failed", { error });
  },
  listFailed(logger: Logger, error: unknown): void {
    logger.warn("Shard ring read failed", { error });
  },
  deadlinePassed(logger: Logger, ms: number): void {
    logger.warn(
      "Shard Lease not renewed within renewDeadlineMs: working on nothing until it is",
      { renewDeadlineMs: ms },
    );
  },
  hookFailed(logger: Logger, error: unknown): void {
    logger.error("Shard ring onChange failed", { error });
  },
  leaveFailed(logger: Logger, error: unknown): void {
    logger.warn(
      "Shard Lease not deleted on stop: the others take its ranges when it expires",
      { error },
    );
  },
};

/** `[start, end)` ranges as `0x…-0x…` joined by commas; `none` for none. */
function rangesText(ranges: readonly ShardRange[]): string {
  if (ranges.length === 0) return "none";
  const hex = (v: bigint) => "0x" + v.toString(16).padStart(16, "0");
  return ranges.map((r) => `${hex(r.start)}-${hex(r.end)}`).join(",");
}

// A shard ring member's metrics, labelled with the ring (`ring`,
// `namespace`) and the member (`identity`): the members it sees, the shares
// of the hash space it is assigned and may work on, the view changes, and
// failed renewals.

interface RingInstruments {
  members: ObservableGauge;
  assigned: ObservableGauge;
  permitted: ObservableGauge;
  changes: Counter;
  renewFailures: Counter;
}

function makeInstruments(meter: Meter): RingInstruments {
  return {
    members: meter.createObservableGauge(PREFIX + "shard_ring_members", {
      description: "Live members of the shard ring, as this member sees it",
    }),
    assigned: meter.createObservableGauge(PREFIX + "shard_assigned_ratio", {
      description:
        "Share of the hash space assigned to this member (what it keeps in its cache)",
    }),
    permitted: meter.createObservableGauge(PREFIX + "shard_permitted_ratio", {
      description:
        "Share of the hash space this member may work on now (0 during a hand-off it waits for)",
    }),
    changes: meter.createCounter(PREFIX + "shard_ring_changes", {
      description: "Times this member's view of the ring or its ranges changed",
    }),
    renewFailures: meter.createCounter(PREFIX + "shard_lease_renew_failures", {
      description: "Renewals of this member's Lease that failed",
    }),
  };
}

/** What the gauges read when scraped. */
interface RingReadings {
  members(): number;
  assigned(): number;
  permitted(): number;
}

/** One member's measurements. */
class RingMetrics {
  readonly #instruments: RingInstruments;
  readonly #attributes: MetricAttributes;
  readonly #reports: [ObservableGauge, (r: ObservableResult) => void][];
  #observing = false;

  constructor(
    meter: Meter,
    labels: { ring: string; namespace: string; identity: string },
    readings: RingReadings,
  ) {
    this.#instruments = instrumentsOf(meter, "shard-ring", makeInstruments);
    const attributes = this.#attributes = Object.freeze({ ...labels });
    const i = this.#instruments;
    this.#reports = [
      [i.members, (r) => r.observe(readings.members(), attributes)],
      [i.assigned, (r) => r.observe(readings.assigned(), attributes)],
      [i.permitted, (r) => r.observe(readings.permitted(), attributes)],
    ];
    i.changes.add(0, attributes);
    i.renewFailures.add(0, attributes);
  }

  /** The member runs: its gauges are reported from now on. */
  open(): void {
    if (this.#observing) return;
    this.#observing = true;
    for (const [gauge, report] of this.#reports) gauge.addCallback(report);
  }

  /** The view or the ranges changed. */
  changed(): void {
    this.#instruments.changes.add(1, this.#attributes);
  }

  /** A renewal failed. */
  renewFailed(): void {
    this.#instruments.renewFailures.add(1, this.#attributes);
  }

  /** The member stopped: its gauges are no longer reported. */
  close(): void {
    if (!this.#observing) return;
    this.#observing = false;
    for (const [gauge, report] of this.#reports) gauge.removeCallback(report);
  }
}
