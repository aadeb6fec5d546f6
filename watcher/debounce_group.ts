import { failureFields } from "../_internal/_logging.ts";
import type { Meter } from "../metrics/meter.ts";
import {
  checkedMeter,
  type GroupMetrics,
  groupMetrics,
} from "./_watcher_metrics.ts";
import { optionNamesProblem } from "../_internal/_option_checks.ts";
import { WatcherConfigError } from "../config_error.ts";
import type { ChangeStats, Logger } from "../types.ts";
import { type Clock, systemClock } from "../clock.ts";
import { consoleLogger } from "../logger.ts";
import { DebounceScheduler, type PendingBatch } from "./_debounce_scheduler.ts";
import { insideCallbackOf, runAsCallbackOf } from "../_internal/_lifecycle.ts";
import { type DebounceSettle, debounceTiming } from "./debounce_settle.ts";

const done: Promise<void> = Promise.resolve();

/**
 * The batch type of each member of a `DebounceGroup<T>`, by name. `T` names
 * the members when it is a plain object type whose properties are the
 * members' batch types (`{ ingresses: ChangeBatch<Ingress>; services:
 * ChangeBatch<Service> }`): `member("ingresses")` takes, and `onChange`
 * gets, a `ChangeBatch<Ingress>`. Any other `T` is the one batch type of
 * every member, under any name (`Record<string, T>`): a `ChangeBatch` (or
 * a union of them), a primitive, an array, or an object with methods (a
 * `Set`, a `Map`). For one plain object type for every member, write
 * `DebounceGroup<Record<string, MyBatch>>`.
 *
 * @example Named members and one type for all
 * ```ts
 * import type { ChangeBatch, KubeObject } from "@haptic/k8s-watcher";
 * import type { DebounceGroupMembers } from "@haptic/k8s-watcher/watcher";
 *
 * interface Ingress extends KubeObject { spec: { rules?: { host?: string }[] } }
 * type Named = DebounceGroupMembers<{ ingresses: ChangeBatch<Ingress>; secrets: ChangeBatch }>;
 * const hosts = (m: Named["ingresses"]) => m.objects.created.map((i) => i.spec.rules);
 * type Counts = DebounceGroupMembers<number>; // Record<string, number>
 * const counts: Counts = { ingresses: 1, anything: 2 };
 * console.log(hosts, counts);
 * ```
 *
 * @typeParam T The members by name, or the one batch type of them all.
 */
export type DebounceGroupMembers<T> = [T] extends [
  ChangeStats | readonly unknown[] | ((...args: never[]) => unknown),
] ? Record<string, T>
  : [T] extends [object] ? true extends {
      [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? true
        : false;
    }[keyof T] ? Record<string, T>
    : T
  : Record<string, T>;

/**
 * What a {@linkcode DebounceGroup}'s `onChange` receives: the pending batch
 * of every member that has one, by name, in the order the members were
 * created. A `ReadonlyMap` whose `get` is typed per member.
 *
 * @example The batch of one member, typed
 * ```ts
 * import type { ChangeBatch, KubeObject } from "@haptic/k8s-watcher";
 * import type { DebounceGroupBatches } from "@haptic/k8s-watcher/watcher";
 *
 * interface Service extends KubeObject { spec: { ports?: { port: number }[] } }
 * function ports(batches: DebounceGroupBatches<{ services: ChangeBatch<Service> }>): number[] {
 *   const batch = batches.get("services");
 *   return batch?.objects.created.flatMap((s) => s.spec.ports?.map((p) => p.port) ?? []) ?? [];
 * }
 * console.log(ports);
 * ```
 *
 * @typeParam M The members by name (see {@linkcode DebounceGroupMembers}).
 */
export interface DebounceGroupBatches<M>
  extends ReadonlyMap<keyof M & string, M[keyof M & string]> {
  /**
   * The batch of member `name`, if it has one in this call.
   *
   * @example
   * ```ts
   * import type { DebounceGroupBatches } from "@haptic/k8s-watcher/watcher";
   *
   * const count = (b: DebounceGroupBatches<{ a: number }>): number => b.get("a") ?? 0;
   * console.log(count);
   * ```
   *
   * @param name A member name.
   * @returns Its batch, or `undefined`.
   */
  get<K extends keyof M & string>(name: K): M[K] | undefined;
}

/**
 * The batch of some member of a `DebounceGroup<T>`: the union of the
 * members' batch types (`T` itself for one type for all), what `merge`
 * coalesces.
 *
 * @example What merge takes
 * ```ts
 * import type { ChangeBatch, KubeObject } from "@haptic/k8s-watcher";
 * import type { DebounceGroupBatch } from "@haptic/k8s-watcher/watcher";
 *
 * interface Secret extends KubeObject { data?: Record<string, string> }
 * type Any = DebounceGroupBatch<{ ingresses: ChangeBatch; secrets: ChangeBatch<Secret> }>;
 * const total = (batch: Any): number => batch.total;
 * console.log(total);
 * ```
 *
 * @typeParam T The members by name, or the one batch type of them all.
 */
export type DebounceGroupBatch<T> = DebounceGroupMembers<T>[
  & keyof DebounceGroupMembers<T>
  & string
];

/**
 * Options for {@linkcode DebounceGroup}.
 *
 * @example Batches of changed object names
 * ```ts
 * import type { DebounceGroupOptions } from "@haptic/k8s-watcher/watcher";
 *
 * const options: DebounceGroupOptions<string[]> = {
 *   interval: 2_000,
 *   merge: (pending, next) => [...pending, ...next],
 *   onChange: (batches) => console.log([...batches.keys()]),
 * };
 * ```
 */
export interface DebounceGroupOptions<T> {
  /**
   * Refractory period in milliseconds: at most one call per interval,
   * measured from the start of the previous call. Must be > 0 and at most
   * 2³¹−1 (the longest a timer can wait). Required, unless `settle` is
   * given: then it is not allowed.
   */
  interval?: number;
  /**
   * Fire once changes settle, across every member, instead of on the
   * leading edge: after `quietMs` without a batch from any member, at the
   * latest `maxWaitMs` after the first batch pending (see
   * {@linkcode DebounceSettle}). Replaces `interval`. An Ingress and its
   * Service applied together reach one call, not a call with the Ingress
   * alone first. Watchers in the group are timed by it.
   *
   * @example An Ingress and its Service in one call
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const calls: string[][] = [];
   * const group = new DebounceGroup<string[]>({
   *   settle: { quietMs: 200, maxWaitMs: 2_000 },
   *   clock,
   *   merge: (pending, next) => [...pending, ...next],
   *   onChange: (batches) => {
   *     calls.push([...batches.keys()]);
   *   },
   * });
   * group.member("ingresses").add(["shop/web"]);
   * await clock.tick(30); // the Service arrives a moment later
   * group.member("services").add(["shop/web"]);
   * await clock.tick(200);
   * assert.deepEqual(calls, [["ingresses", "services"]]);
   * await group.stop();
   * ```
   */
  settle?: DebounceSettle;
  /**
   * Coalesces a member's pending batch with the batch it just added, into
   * the batch `onChange` will receive for that member. Called only when
   * the member already has a pending batch; a member's first batch is kept
   * as given. A throw propagates out of
   * {@linkcode DebounceGroupMember.add} and leaves the pending batch as it
   * was.
   */
  merge: (
    pending: DebounceGroupBatch<T>,
    next: DebounceGroupBatch<T>,
  ) => DebounceGroupBatch<T>;
  /**
   * Receives, in one call, the pending batch of every member that has one,
   * keyed by member name, in the order the members were created. May be
   * async: the next call waits until the returned promise settles, while
   * batches keep accumulating. Throwing or rejecting is logged at error
   * level and the group goes on; the batches of the failed call are not
   * lost: `merge` puts each before what its member added since, for the
   * next call, which comes with the next batch or, without one, as a retry
   * 1 s after the failure (2 s after a second failure in a row, doubling
   * to 60 s; from 1 s again once a call succeeds). Do not `await`
   * {@linkcode DebounceGroup.flush} or {@linkcode DebounceGroup.stop} from
   * inside it: they wait for this call.
   */
  onChange: (
    batches: DebounceGroupBatches<DebounceGroupMembers<T>>,
  ) => void | Promise<void>;
  /**
   * Time source; tests pass `FakeClock` from `@haptic/k8s-watcher/testing`.
   * Watchers feeding the group must run on the same clock (their
   * `WatcherOptions` clock): one on another is refused, since the group
   * times its batches.
   *
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Where callback failures go.
   *
   * @default {consoleLogger()}
   */
  logger?: Logger;
  /**
   * Where the group's metrics go (see `@haptic/k8s-watcher/metrics`):
   * `k8s_watcher_group_batches_total`, the delivery wait
   * (`k8s_watcher_event_delivery_seconds`), and the duration, failures and
   * retries of `onChange` as `callback="DebounceGroup.onChange"`, each
   * labelled with `name`. It is also the meter of every watcher feeding
   * the group that has no `meter` of its own, before its client's.
   *
   * @default {the meter of the first watcher feeding the group (its own,
   * else its client's `meter`); none without one}
   */
  meter?: Meter;
  /**
   * The group's name: the `name` label of its series (so that two groups
   * on one meter can be told apart) and the `group` field of its log
   * lines. A non-empty string.
   *
   * @default {""}
   */
  name?: string;
}

/**
 * One source feeding a {@linkcode DebounceGroup}, made by
 * {@linkcode DebounceGroup.member}.
 *
 * @example A member per watched resource
 * ```ts
 * import { DebounceGroup } from "@haptic/k8s-watcher";
 * import { type DebounceGroupMember } from "@haptic/k8s-watcher/watcher";
 *
 * const group = new DebounceGroup<number>({
 *   interval: 1_000,
 *   merge: (a, b) => a + b,
 *   onChange: (batches) => console.log(Object.fromEntries(batches)),
 * });
 * const services: DebounceGroupMember<number> = group.member("services");
 * services.add(1);
 * await group.stop();
 * ```
 */
export interface DebounceGroupMember<T> {
  /** The name its batches are delivered under. */
  readonly name: string;
  /**
   * Adds `batch` to this member's pending batch (through the group's
   * `merge`) and schedules a call. Ignored once the group is stopping.
   *
   * @example Adding a batch
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   *
   * const group = new DebounceGroup<string[]>({
   *   interval: 1_000,
   *   merge: (a, b) => [...a, ...b],
   *   onChange: (batches) => console.log(batches.get("ingresses")),
   * });
   * group.member("ingresses").add(["shop/web"]);
   * await group.stop(); // prints [ "shop/web" ]
   * ```
   *
   * @param batch What changed in this member since its last add.
   * @throws {Error} When a `Watcher` feeds this member (its `group`
   * option): the watcher hands over its batches itself.
   */
  add(batch: T): void;
}

/**
 * One debounced callback fed by several sources: each source is a named
 * {@linkcode DebounceGroupMember}, and each call of `onChange` receives the
 * pending batch of every member that has one, under the member's name. A
 * controller that renders one configuration from ingresses, services and a
 * secret gets one call per burst across all three.
 *
 * The timing rules are {@linkcode Debouncer}'s (a `Debouncer` does the
 * scheduling): the first batch after a quiet interval fires at once (in a
 * microtask, so batches added in the same synchronous run land in the same
 * call); batches added less than `interval` after the previous call
 * started accumulate and fire together when the interval ends. Calls never
 * overlap: while an async `onChange` runs, batches keep accumulating and
 * fire once it has settled. {@linkcode DebounceGroup.stop} delivers what is
 * pending, then nothing fires again.
 *
 * With `settle` instead of `interval`, the group fires once batches stop
 * coming from every member: `settle.quietMs` after the latest, at the
 * latest `settle.maxWaitMs` after the first one pending (see
 * {@linkcode DebounceSettle}).
 *
 * Batches are of any type `T`; `merge` says how two of one member's
 * batches coalesce while they wait.
 *
 * Watchers feed a `DebounceGroup<ChangeBatch>` through their `group`
 * option (`group: renders.member("ingresses")`) instead of an own
 * `onChange`: the group takes each watcher's pending batch whole when it
 * fires, one call per burst across all of them (use
 * `mergeChangeBatches` as `merge`). While a member watcher loads its
 * initial list (from its `start()` until it has synced), the group's calls
 * wait; once none is loading any more, one call at once carries every
 * member's initial-sync batch (empty ones too: a controller renders on an
 * empty cluster) and opens no interval.
 *
 * A call that throws or rejects is logged, and its batches go out again
 * with the next call (see `onChange`). {@linkcode DebounceGroup.stop}
 * delivers them once more with the rest; a failure then is logged and the
 * batches are dropped.
 *
 * @example One call for a burst across three sources
 * ```ts
 * import { DebounceGroup } from "@haptic/k8s-watcher";
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const calls: Record<string, string[]>[] = [];
 * const group = new DebounceGroup<string[]>({
 *   interval: 1_000,
 *   clock,
 *   merge: (pending, next) => [...pending, ...next],
 *   onChange: (batches) => {
 *     calls.push(Object.fromEntries(batches));
 *   },
 * });
 * const ingresses = group.member("ingresses");
 * const services = group.member("services");
 * const secrets = group.member("secrets");
 *
 * ingresses.add(["shop/web"]); // quiet until now: fires at once
 * await clock.tick(0);
 * services.add(["shop/web"]); // inside the interval: held back
 * secrets.add(["haptic/tls"]);
 * ingresses.add(["shop/api"]);
 * await clock.tick(1_000);
 * assert.deepEqual(calls, [
 *   { ingresses: ["shop/web"] },
 *   { ingresses: ["shop/api"], services: ["shop/web"], secrets: ["haptic/tls"] },
 * ]);
 * await group.stop();
 * ```
 *
 * @typeParam T The members by name, each with its batch type
 * (`{ ingresses: ChangeBatch<Ingress>; services: ChangeBatch<Service> }`),
 * or the one batch type of every member (`ChangeBatch`, `number`): see
 * {@linkcode DebounceGroupMembers}.
 */
export class DebounceGroup<T> implements AsyncDisposable {
  readonly #onChange: DebounceGroupOptions<T>["onChange"];
  /** The `meter` option: what member watchers without one report on. */
  readonly #meter: Meter | undefined;
  #metrics: GroupMetrics | undefined;
  readonly #name: string;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #pending: MemberBatches<DebounceGroupBatch<T>>;
  readonly #scheduler: DebounceScheduler<
    ReadonlyMap<string, DebounceGroupBatch<T>>
  >;
  #stopping: Promise<void> | undefined;

  /**
   * Creates a group with no members; nothing fires until a member adds a
   * batch.
   *
   * @example Counting changes per member
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   *
   * const group = new DebounceGroup<number>({
   *   interval: 2_000,
   *   merge: (a, b) => a + b,
   *   onChange: (batches) => console.log(batches),
   * });
   * await group.stop();
   * ```
   *
   * @param options Interval or settle, merge, callback, clock and logger.
   * @throws {WatcherConfigError} Naming the option (as the watchers'
   * options are named), when `interval`, `settle.quietMs` or
   * `settle.maxWaitMs` is not a positive number of milliseconds, or is above
   * 2³¹−1 (longer than a timer can wait), `settle.quietMs` is above
   * `settle.maxWaitMs`, `merge` or `onChange` is not a function, both
   * `interval` and `settle` are given, `settle` is not an object, `meter`
   * is not a `Meter`, `name` is not a non-empty string, or `options` or `settle` has a name it does not take.
   */
  constructor(
    options: DebounceGroupOptions<T> & {
      merge: (pending: T, next: T) => T;
    },
  );
  /**
   * Creates a group whose members have a batch type each, by name.
   *
   * @example Ingresses and Services, each typed
   * ```ts
   * import { type ChangeBatch, DebounceGroup, type KubeObject, mergeChangeBatches } from "@haptic/k8s-watcher";
   *
   * interface Ingress extends KubeObject { spec: { rules?: { host?: string }[] } }
   * interface Service extends KubeObject { spec: { ports?: { port: number }[] } }
   *
   * const group = new DebounceGroup<{ ingresses: ChangeBatch<Ingress>; services: ChangeBatch<Service> }>({
   *   interval: 1_000,
   *   merge: mergeChangeBatches,
   *   onChange: (batches) => {
   *     const hosts = batches.get("ingresses")?.objects.created.flatMap((i) => i.spec.rules ?? []);
   *     const ports = batches.get("services")?.objects.created.flatMap((s) => s.spec.ports ?? []);
   *     console.log(hosts, ports);
   *   },
   * });
   * await group.stop();
   * ```
   *
   * @param options Interval or settle, merge, callback, clock and logger.
   * @throws {WatcherConfigError} Naming the option (as the watchers'
   * options are named), when `interval`, `settle.quietMs` or
   * `settle.maxWaitMs` is not a positive number of milliseconds, or is above
   * 2³¹−1 (longer than a timer can wait), `settle.quietMs` is above
   * `settle.maxWaitMs`, `merge` or `onChange` is not a function, both
   * `interval` and `settle` are given, `settle` is not an object, `meter`
   * is not a `Meter`, `name` is not a non-empty string, or `options` or `settle` has a name it does not take.
   */
  constructor(options: DebounceGroupOptions<T>);
  constructor(options: DebounceGroupOptions<T>) {
    const names = optionNamesProblem({
      known: GROUP_NAMES,
      value: options,
      type: "DebounceGroupOptions",
    });
    if (names) throw new WatcherConfigError(names.field, names.message);
    for (const key of ["merge", "onChange"] as const) {
      if (typeof options[key] !== "function") {
        throw new WatcherConfigError(key, "must be a function");
      }
    }
    const name = options.name;
    if (name !== undefined && (typeof name !== "string" || name === "")) {
      throw new WatcherConfigError(
        "name",
        `must be a non-empty string, got ${JSON.stringify(name)}`,
      );
    }
    this.#name = name ?? "";
    this.#onChange = options.onChange;
    this.#logger = options.logger ?? consoleLogger();
    const meter = this.#meter = checkedMeter(options.meter);
    const { interval, settle } = debounceTiming(options);
    // The scheduler decides when to fire; the batches wait in #pending.
    this.#clock = options.clock ?? systemClock;
    this.#pending = new MemberBatches(
      options.merge,
      this.#clock,
      (error, member) =>
        this.#log(
          "Debounce group could not merge a failed call's batch; the later batch goes out alone",
          { ...failureFields(error), member },
        ),
    );
    if (meter !== undefined) {
      this.#metrics = groupMetrics(meter, this.#clock, this.#name);
    }
    const metrics = this.#metrics;
    this.#scheduler = new DebounceScheduler({
      interval,
      settle,
      clock: this.#clock,
      pending: this.#pending,
      onChange: this.#deliver,
      onFailure: (error, batches) =>
        this.#log("Debounce group callback failed", {
          ...failureFields(error),
          members: [...batches.keys()],
        }),
      onRetry: metrics && (() => metrics.retrying()),
    });
  }

  /**
   * Adds a member named `name` and returns the handle it feeds the group
   * through.
   *
   * @example One member per source
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const group = new DebounceGroup<number>({
   *   interval: 1_000,
   *   merge: (a, b) => a + b,
   *   onChange: () => {},
   * });
   * const secrets = group.member("secrets");
   * assert.equal(secrets.name, "secrets");
   * assert.throws(() => group.member("secrets"), /already a member/);
   * await group.stop();
   * ```
   *
   * @param name The name its batches are delivered under; unique in the group.
   * @returns The member.
   * @throws {WatcherConfigError} Naming `member`, when `name` is not a
   * non-empty string or the group already has a member named `name`.
   */
  member<K extends keyof DebounceGroupMembers<T> & string>(
    name: K,
  ): DebounceGroupMember<DebounceGroupMembers<T>[K]> {
    if (typeof name !== "string" || name === "") {
      throw new WatcherConfigError(
        "member",
        `must be a non-empty string, got ${JSON.stringify(name)}`,
      );
    }
    if (this.#pending.names.includes(name)) {
      throw new WatcherConfigError(
        "member",
        `"${name}" is already a member of this debounce group`,
      );
    }
    this.#pending.names.push(name);
    const member: DebounceGroupMember<DebounceGroupMembers<T>[K]> = {
      name,
      add: (batch) => this.#add(name, batch),
    };
    registerMember<DebounceGroupBatch<T>>(
      member,
      (source) => this.#attach(name, source),
    );
    registerGroupMeter(member, {
      own: this.#meter,
      adopt: (meter) => {
        this.#metrics ??= groupMetrics(meter, this.#clock, this.#name);
      },
    });
    return member;
  }

  /**
   * The member names, in the order they were added.
   *
   * @example In creation order
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const group = new DebounceGroup<number>({ interval: 1_000, merge: (a, b) => a + b, onChange: () => {} });
   * group.member("ingresses");
   * group.member("services");
   * assert.deepEqual(group.names, ["ingresses", "services"]);
   * await group.stop();
   * ```
   */
  get names(): readonly (keyof DebounceGroupMembers<T> & string)[] {
    // Every name came through member(), typed by the members.
    return [...this.#pending.names] as (
      & keyof DebounceGroupMembers<T>
      & string
    )[];
  }

  /**
   * Whether some member has a batch waiting for the next call.
   *
   * @example Before and after a flush
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const group = new DebounceGroup<number>({ interval: 1_000, merge: (a, b) => a + b, onChange: () => {} });
   * group.member("services").add(1);
   * assert.equal(group.hasPending, true);
   * await group.flush();
   * assert.equal(group.hasPending, false);
   * await group.stop();
   * ```
   */
  get hasPending(): boolean {
    return !this.#pending.isEmpty;
  }

  /**
   * Delivers what is pending now, ignoring the interval, once the running
   * call (if any) has ended; no call when nothing is pending by then (the
   * running call may have taken it).
   *
   * @example Delivering without waiting for the interval
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const group = new DebounceGroup<number>({
   *   interval: 1_000,
   *   clock,
   *   merge: (a, b) => a + b,
   *   onChange: (batches) => {
   *     totals.push(batches.get("services") ?? 0);
   *   },
   * });
   * const services = group.member("services");
   * services.add(1);
   * await clock.tick(0);
   * services.add(2); // would wait for the interval
   * await group.flush();
   * assert.deepEqual(totals, [1, 2]);
   * await group.stop();
   * ```
   *
   * @returns Resolves once the call, if one was made, has ended; never rejects.
   */
  flush(): Promise<void> {
    return this.#scheduler.flushPending();
  }

  /**
   * Delivers what is pending (after the running call, if any, has ended),
   * the batches of a failed call included, then stops: nothing fires
   * again (no retry either), batches added from now on are dropped, and no
   * timer is left. Idempotent.
   *
   * @example Delivering on stop
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const seen: number[] = [];
   * const group = new DebounceGroup<number>({
   *   interval: 1_000,
   *   clock,
   *   merge: (a, b) => a + b,
   *   onChange: (batches) => {
   *     seen.push(batches.get("a") ?? 0);
   *   },
   * });
   * const a = group.member("a");
   * a.add(1);
   * await clock.tick(0);
   * a.add(5); // held back by the interval
   * await group.stop(); // delivered now
   * a.add(7); // dropped
   * await clock.tick(5_000);
   * assert.deepEqual(seen, [1, 5]);
   * assert.equal(clock.pendingTimers, 0);
   * ```
   *
   * @returns Resolves once the last call has ended; never rejects.
   */
  stop(): Promise<void> {
    if (!insideCallbackOf(this)) return this.#stopping ??= this.#stop();
    // From inside onChange, which a delivery would wait for: deliver
    // nothing more, and let the running call end by itself.
    this.#stopping ??= this.#scheduler.stop();
    return done;
  }

  /**
   * Same as {@linkcode DebounceGroup.stop}, for `await using`.
   *
   * @example Stopping at the end of a block
   * ```ts
   * import { DebounceGroup } from "@haptic/k8s-watcher";
   *
   * await using group = new DebounceGroup<number>({
   *   interval: 1_000,
   *   merge: (a, b) => a + b,
   *   onChange: (batches) => console.log(batches),
   * });
   * group.member("a").add(1);
   * // stopped, and the pending batch delivered, at the end of the block
   * ```
   *
   * @returns Resolves once stopped.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async #stop(): Promise<void> {
    await this.#scheduler.flushPending();
    await this.#scheduler.stop();
  }

  #add(name: string, batch: DebounceGroupBatch<T>): void {
    if (this.#stopping !== undefined) return;
    if (this.#pending.sources.has(name)) {
      throw new Error(
        `Debounce group member "${name}" is fed by a watcher; add() is not allowed`,
      );
    }
    this.#pending.add(name, batch);
    this.#scheduler.changed();
  }

  /** Lets a watcher feed member `name` from its own pending batch. */
  #attach(
    name: string,
    source: GroupSource<DebounceGroupBatch<T>>,
  ): GroupLink {
    const pending = this.#pending;
    if (source.clock !== undefined && source.clock !== this.#clock) {
      // The group times the watcher's batches: on another clock, a
      // watcher on a FakeClock would be debounced in real time.
      throw new Error(
        "must come from a DebounceGroup on this watcher's clock: give both the same clock (DebounceGroupOptions clock and WatcherOptions clock)",
      );
    }
    if (pending.sources.has(name) || pending.pushed.has(name)) {
      throw new Error(
        `Debounce group member "${name}" is already fed by another source`,
      );
    }
    pending.sources.set(name, source);
    const scheduler = this.#scheduler;
    return {
      changed: () => scheduler.changed(),
      // The last member to sync delivers everyone's initial batch.
      synced: () => pending.held ? done : scheduler.deliverInitial(),
      flush: () => scheduler.flushPending(),
      idle: () => scheduler.idle(),
      detach: () => {
        if (pending.sources.get(name) !== source) return;
        const held = pending.held;
        pending.sources.delete(name);
        // Stopped while loading its list: the others wait no more.
        if (held && !pending.held) void scheduler.deliverInitial();
      },
      group: this,
    };
  }

  /** Runs as the scheduler's callback with every pending batch. */
  #deliver = (
    batches: ReadonlyMap<string, DebounceGroupBatch<T>>,
  ): void | Promise<void> => {
    // A watcher's batch may have coalesced to nothing since it asked.
    if (batches.size === 0) return;
    // Keyed by member name, each with its member's batch type.
    const typed = batches as DebounceGroupBatches<DebounceGroupMembers<T>>;
    const metrics = this.#metrics;
    if (metrics === undefined) {
      return runAsCallbackOf(this, () => this.#onChange(typed));
    }
    const pending = this.#pending;
    metrics.delivering(pending.lastSince, !pending.lastOpensWindow);
    // The scheduler waits for this promise: that is what keeps calls apart.
    return runAsCallbackOf(
      this,
      () => metrics.timed(() => this.#onChange(typed)),
    );
  };

  #log(message: string, fields: Record<string, unknown>): void {
    try {
      this.#logger.error(
        message,
        this.#name === "" ? fields : { group: this.#name, ...fields },
      );
    } catch {
      // A throwing logger must not stop the group.
    }
  }
}

/** The batches waiting for the next call, pushed or held by watchers. */
class MemberBatches<T> implements PendingBatch<ReadonlyMap<string, T>> {
  readonly names: string[] = [];
  pushed: Map<string, T> = new Map();
  readonly sources: Map<string, GroupSource<T>> = new Map();
  readonly #merge: (pending: T, next: T) => T;
  readonly #clock: Clock;
  readonly #onMergeFailure: (error: unknown, member: string) => void;
  /** When the oldest pushed batch waiting was added. */
  #pushedSince: number | undefined;
  /** What the last call carried, until it has ended. */
  #taken:
    | {
      pushed: Map<string, T>;
      since: number | undefined;
      sources: GroupSource<T>[];
    }
    | undefined;

  constructor(
    merge: (pending: T, next: T) => T,
    clock: Clock,
    onMergeFailure: (error: unknown, member: string) => void,
  ) {
    this.#merge = merge;
    this.#clock = clock;
    this.#onMergeFailure = onMergeFailure;
  }

  /** Whether a member watcher loads its initial list: calls wait for it. */
  get held(): boolean {
    for (const source of this.sources.values()) {
      if (source.loading) return true;
    }
    return false;
  }

  get isEmpty(): boolean {
    if (this.pushed.size > 0) return false;
    for (const source of this.sources.values()) {
      if (!source.isEmpty) return false;
    }
    return true;
  }

  add(name: string, batch: T): void {
    const pushed = this.pushed;
    pushed.set(
      name,
      pushed.has(name) ? this.#merge(pushed.get(name)!, batch) : batch,
    );
    this.#pushedSince ??= this.#clock.now();
  }

  /** Whether the last call carried more than initial-sync batches. */
  lastOpensWindow = true;
  /** When the oldest change the last call carried was recorded. */
  lastSince: number | undefined;

  take(): ReadonlyMap<string, T> {
    const batches = new Map<string, T>();
    let opensWindow = this.pushed.size > 0;
    let since = this.pushed.size > 0 ? this.#pushedSince : undefined;
    const taken: GroupSource<T>[] = [];
    for (const name of this.names) {
      if (this.pushed.has(name)) batches.set(name, this.pushed.get(name)!);
      const source = this.sources.get(name);
      if (source !== undefined && !source.isEmpty) {
        if (!source.isInitial) opensWindow = true;
        const from = source.since;
        if (from !== undefined) since = Math.min(since ?? Infinity, from);
        batches.set(name, source.take());
        taken.push(source);
      }
    }
    this.#taken = {
      pushed: this.pushed,
      since: this.#pushedSince,
      sources: taken,
    };
    this.pushed = new Map();
    this.#pushedSince = undefined;
    this.lastOpensWindow = opensWindow;
    this.lastSince = since;
    return batches;
  }

  ended(retry: boolean): void {
    const taken = this.#taken;
    this.#taken = undefined;
    if (taken === undefined) return;
    for (const source of taken.sources) source.ended(retry);
    if (!retry || taken.pushed.size === 0) return;
    const pushed = this.pushed;
    for (const [name, batch] of taken.pushed) {
      if (!pushed.has(name)) {
        pushed.set(name, batch);
        continue;
      }
      try {
        pushed.set(name, this.#merge(batch, pushed.get(name)!));
      } catch (error) {
        this.#onMergeFailure(error, name);
      }
    }
    if (taken.since !== undefined) {
      this.#pushedSince = Math.min(this.#pushedSince ?? Infinity, taken.since);
    }
  }
}

/** The names `DebounceGroupOptions` takes (a record over its keys). */
const GROUP_NAMES: Record<keyof DebounceGroupOptions<number>, true> = {
  interval: true,
  settle: true,
  merge: true,
  onChange: true,
  clock: true,
  logger: true,
  meter: true,
  name: true,
};

// How a `Watcher` feeds a `DebounceGroup` member without pushing a batch
// per event: it attaches its own pending batch as the member's source, and
// the group takes that batch whole when it fires. Kept out of the public
// API: users pass the member (`group.member(name)`) in the watcher's
// `group` option.

/** A member's batch, held by its watcher until the group takes it. */
export interface GroupSource<T> {
  /** The watcher's clock: the group refuses a source on another one. */
  readonly clock?: Clock;
  /** Whether nothing is ready to deliver. */
  readonly isEmpty: boolean;
  /** Whether the batch ready is an initial sync's (it opens no window). */
  readonly isInitial: boolean;
  /**
   * Whether the watcher is loading its initial list (started, not synced,
   * its batches held back): the group's calls wait for it.
   */
  readonly loading: boolean;
  /** When the oldest change ready was recorded, on the clock. */
  readonly since: number | undefined;
  /** Takes the batch and starts an empty one. */
  take(): T;
  /**
   * The group's call that carried the batch taken last has ended.
   * `retry`: it failed, and the batch goes back for the next call.
   */
  ended(retry: boolean): void;
}

/** What an attached source can ask of its group. */
export interface GroupLink {
  /** Something was added to the source: schedule a call. */
  changed(): void;
  /**
   * The source's initial list is in: its initial batch goes out at once,
   * opening no refractory window, with every other member's once none is
   * loading its list any more.
   */
  synced(): Promise<void>;
  /** Delivers what is pending now (after a running call). */
  flush(): Promise<void>;
  /** Resolves once the group runs no call and has none scheduled. */
  idle(): Promise<void>;
  /** Stops taking from this source. */
  detach(): void;
  /** The group, whose `onChange` a member watcher's stop must not wait for. */
  readonly group: object;
}

type Attach = (source: GroupSource<never>) => GroupLink;

const members = new WeakMap<object, Attach>();

/** Called by the group for each member it makes. */
export function registerMember<T>(
  member: object,
  attach: (source: GroupSource<T>) => GroupLink,
): void {
  members.set(member, attach as Attach);
}

/**
 * Attaches `source` to the group `member` came from.
 *
 * @throws {Error} When `member` was not made by a `DebounceGroup`, or
 * already has a source.
 */
export function attachSource<T>(
  member: object,
  source: GroupSource<T>,
): GroupLink {
  const attach = members.get(member);
  if (attach === undefined) {
    throw new Error("must be a member made by DebounceGroup.member(name)");
  }
  return (attach as (source: GroupSource<T>) => GroupLink)(source);
}

// Which meter a group and its member watchers report on, when only one of
// them, or their client, was given one: a group's own meter reaches the
// watchers feeding it (unless they have their own), and a group without
// one reports on the meter of the first watcher that feeds it (its own,
// else its client's), so that one meter set on the client reaches the
// group too. Apart from the member link above: the link is about batches,
// this about where they are counted.

/** What a group says about its meter, registered for each member it makes. */
export interface GroupMeter {
  /** The meter given in the group's options, if any. */
  readonly own: Meter | undefined;
  /** A member watcher reports on `meter`: the group takes it if it has none. */
  adopt(meter: Meter): void;
}

const groups = new WeakMap<object, GroupMeter>();

/** Called by the group for each member it makes. */
export function registerGroupMeter(member: object, group: GroupMeter): void {
  groups.set(member, group);
}

/** The meter of the group `member` came from, when the group was given one. */
export function groupMeterOf(member: unknown): Meter | undefined {
  return member !== null && typeof member === "object"
    ? groups.get(member)?.own
    : undefined;
}

/** A watcher feeding `member` reports on `meter`; the group may take it. */
export function offerMeter(member: unknown, meter: Meter | undefined): void {
  if (meter === undefined || member === null || typeof member !== "object") {
    return;
  }
  groups.get(member)?.adopt(meter);
}
