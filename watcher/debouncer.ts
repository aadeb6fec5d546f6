import { failureFields } from "../_internal/_logging.ts";
import { optionNamesProblem } from "../_internal/_option_checks.ts";
import { WatcherConfigError } from "../config_error.ts";
import type { ChangeStats, Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import { consoleLogger } from "../logger.ts";
import { changeStats } from "./change_batch.ts";
import { DebounceScheduler, type PendingBatch } from "./_debounce_scheduler.ts";
import { type DebounceSettle, debounceTiming } from "./debounce_settle.ts";

/**
 * Options for {@linkcode Debouncer}.
 *
 * @example One call per two seconds at most
 * ```ts
 * import type { DebouncerOptions } from "@haptic/k8s-watcher/watcher";
 *
 * const options: DebouncerOptions = {
 *   interval: 2_000,
 *   onChange: (stats) => console.log(stats.total),
 * };
 * ```
 */
export interface DebouncerOptions {
  /**
   * Refractory period in milliseconds: at most one call per interval. Must
   * be > 0 and at most 2³¹−1 (the longest a timer can wait). Required,
   * unless `settle` is given: then it is not allowed.
   */
  interval?: number;
  /**
   * Fire once changes settle instead of on the leading edge: after
   * `quietMs` without a change, at the latest `maxWaitMs` after the first
   * change of the batch (see {@linkcode DebounceSettle}). Replaces
   * `interval`.
   *
   * @example Three quick changes, one call once they stop
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   settle: { quietMs: 100, maxWaitMs: 1_000 },
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * debouncer.recordCreate();
   * await clock.tick(50);
   * debouncer.recordCreate(); // quiet starts again
   * await clock.tick(50);
   * debouncer.recordUpdate();
   * await clock.tick(99);
   * assert.deepEqual(totals, []);
   * await clock.tick(1); // 100 ms without a change
   * assert.deepEqual(totals, [3]);
   * await debouncer.stop();
   * ```
   */
  settle?: DebounceSettle;
  /**
   * Receives each batch. May be async: the next call waits until the
   * returned promise settles. Throwing or rejecting is logged at error level
   * and the debouncer goes on; the failed batch's counts are not delivered
   * again (a `Watcher` and a `DebounceGroup` retry theirs). Do not `await`
   * {@linkcode Debouncer.flush} or
   * {@linkcode Debouncer.stop} from inside it: they wait for this call.
   */
  onChange: (stats: ChangeStats) => void | Promise<void>;
  /**
   * When `true`, nothing fires in sync mode except
   * {@linkcode Debouncer.flush}.
   *
   * @default {true}
   */
  suppressDuringSync?: boolean;
  /**
   * Time source.
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
}

/**
 * Batches rapid changes into calls of `onChange`, by default on the leading
 * edge with a refractory period: the first change after a quiet interval fires at once
 * (in a microtask, so every change recorded in the same synchronous run
 * lands in that first batch); changes recorded less than `interval` after
 * the previous call started accumulate and fire together when the interval
 * ends. The interval is measured from the start of the previous call.
 *
 * Calls never overlap. A batch that falls due while `onChange` is still
 * running keeps accumulating and fires as soon as the call ends (or when the
 * interval since the previous start ends, whichever is later).
 *
 * With `settle` instead of `interval`, calls fire once changes stop
 * coming: `settle.quietMs` after the latest change, at the latest
 * `settle.maxWaitMs` after the first change of the batch (see
 * {@linkcode DebounceSettle}). A batch that falls due while `onChange` runs
 * fires as soon as it ends.
 *
 * Sync mode ({@linkcode Debouncer.setSyncMode}) marks the initial list: a
 * batch has `isInitialSync: true` when any change in it was recorded in sync
 * mode, or when it fires in sync mode. With `suppressDuringSync` (the
 * default) nothing fires in sync mode; leaving it fires what accumulated at
 * once, as one batch with `isInitialSync: true`. That batch opens no
 * refractory interval: the first change after the initial sync fires at
 * once too.
 *
 * @example Leading edge, then a batch per interval
 * ```ts
 * import { Debouncer } from "@haptic/k8s-watcher/watcher";
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const batches: number[] = [];
 * const debouncer = new Debouncer({
 *   interval: 1_000,
 *   clock,
 *   onChange: (stats) => {
 *     batches.push(stats.total);
 *   },
 * });
 *
 * debouncer.recordCreate(); // quiet until now: fires at once
 * await clock.tick(0);
 * debouncer.recordUpdate(); // inside the interval: batched
 * debouncer.recordDelete(2);
 * await clock.tick(1_000);
 * assert.deepEqual(batches, [1, 3]);
 * await debouncer.stop();
 * ```
 */
export class Debouncer {
  readonly #logger: Logger;
  readonly #counts = new PendingCounts();
  readonly #scheduler: DebounceScheduler<ChangeStats>;
  #initialCount = 0;

  /**
   * Creates a debouncer; nothing fires until a change is recorded.
   *
   * @example At most one call a second, on a fake clock
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * debouncer.recordCreate();
   * await clock.tick(0);
   * assert.deepEqual(totals, [1]); // the leading edge fires at once
   * await debouncer.stop();
   * ```
   *
   * @param options Interval or settle, callback, sync behaviour, clock and
   * logger.
   * @throws {WatcherConfigError} Naming the option (as the watchers'
   * options are named), when `interval`, `settle.quietMs` or
   * `settle.maxWaitMs` is not a positive number of milliseconds, or is above
   * 2³¹−1 (longer than a timer can wait), `settle.quietMs` is above
   * `settle.maxWaitMs`, `onChange` is not a function, both `interval` and
   * `settle` are given, `settle` is not an object, or `options` or `settle`
   * has a name it does not take.
   */
  constructor(options: DebouncerOptions) {
    const names = optionNamesProblem({
      known: DEBOUNCER_NAMES,
      value: options,
      type: "DebouncerOptions",
    });
    if (names) throw new WatcherConfigError(names.field, names.message);
    const { onChange } = options;
    const { interval, settle } = debounceTiming(options);
    if (typeof onChange !== "function") {
      throw new WatcherConfigError("onChange", "must be a function");
    }
    this.#logger = options.logger ?? consoleLogger();
    this.#scheduler = new DebounceScheduler({
      interval,
      settle,
      pending: this.#counts,
      onChange,
      onFailure: (error, stats) => this.#report(error, stats),
      suppressDuringSync: options.suppressDuringSync,
      clock: options.clock,
    });
  }

  /**
   * Records `n` created objects.
   *
   * @example Three objects at once
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * debouncer.recordCreate(3);
   * await clock.tick(0);
   * assert.deepEqual(totals, [3]);
   * await debouncer.stop();
   * ```
   *
   * @param n How many; a non-negative integer (0 records nothing).
   * @throws {RangeError} When `n` is negative or not an integer.
   */
  recordCreate(n?: number): void {
    if (n === undefined) n = 1;
    if (this.#ignore(n)) return;
    this.#counts.created += n;
    if (this.#scheduler.isSyncing) this.#initialCount += n;
    this.#scheduler.changed();
  }

  /**
   * Records `n` modified objects.
   *
   * @example Updates inside the interval are batched
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * debouncer.recordUpdate(); // fires at once
   * await clock.tick(0);
   * debouncer.recordUpdate();
   * debouncer.recordUpdate();
   * await clock.tick(1_000);
   * assert.deepEqual(totals, [1, 2]);
   * await debouncer.stop();
   * ```
   *
   * @param n How many; a non-negative integer (0 records nothing).
   * @throws {RangeError} When `n` is negative or not an integer.
   */
  recordUpdate(n?: number): void {
    if (n === undefined) n = 1;
    if (this.#ignore(n)) return;
    this.#counts.modified += n;
    this.#scheduler.changed();
  }

  /**
   * Records `n` deleted objects.
   *
   * @example Counting deletes
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const deleted: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     deleted.push(stats.deleted);
   *   },
   * });
   * debouncer.recordDelete(2);
   * await clock.tick(0);
   * assert.deepEqual(deleted, [2]);
   * await debouncer.stop();
   * ```
   *
   * @param n How many; a non-negative integer (0 records nothing).
   * @throws {RangeError} When `n` is negative or not an integer.
   */
  recordDelete(n?: number): void {
    if (n === undefined) n = 1;
    if (this.#ignore(n)) return;
    this.#counts.deleted += n;
    this.#scheduler.changed();
  }

  /**
   * Enters or leaves sync mode. Entering resets {@linkcode initialCount}.
   * Leaving fires what accumulated at once, ignoring the interval, as with
   * {@linkcode flush} (synchronously when no call is running, else right
   * after it ends); an empty batch is not sent. That batch (the initial
   * sync) opens no refractory interval: the first change after it fires at
   * once.
   *
   * @example Holding back the initial list
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const calls: { total: number; initial: boolean }[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     calls.push({ total: stats.total, initial: stats.isInitialSync });
   *   },
   * });
   * debouncer.setSyncMode(true);
   * debouncer.recordCreate(100); // held back
   * assert.deepEqual(calls, []);
   * debouncer.setSyncMode(false); // fires at once, marked initial
   * await clock.tick(0);
   * assert.deepEqual(calls, [{ total: 100, initial: true }]);
   * debouncer.recordUpdate(); // no interval opened: at once
   * await clock.tick(0);
   * assert.equal(calls.length, 2);
   * await debouncer.stop();
   * ```
   *
   * @param syncing `true` while the initial list is loading.
   */
  setSyncMode(syncing: boolean): void {
    if (syncing && !this.#scheduler.isSyncing) this.#initialCount = 0;
    this.#scheduler.setSyncMode(syncing);
  }

  /**
   * Whether sync mode is on.
   *
   * @example In and out of sync mode
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * assert.equal(debouncer.isSyncing, false);
   * debouncer.setSyncMode(true);
   * assert.equal(debouncer.isSyncing, true);
   * await debouncer.stop();
   * ```
   */
  get isSyncing(): boolean {
    return this.#scheduler.isSyncing;
  }

  /**
   * Objects created while in sync mode since it was last entered: the size
   * of the initial list once sync mode has been left.
   *
   * @example The size of the initial list
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * debouncer.setSyncMode(true);
   * debouncer.recordCreate(42);
   * debouncer.setSyncMode(false);
   * assert.equal(debouncer.initialCount, 42);
   * await debouncer.stop();
   * ```
   */
  get initialCount(): number {
    return this.#initialCount;
  }

  /**
   * Whether changes are waiting for the next call.
   *
   * @example A change held back in sync mode
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const debouncer = new Debouncer({ interval: 1_000, clock: new FakeClock(), onChange: () => {} });
   * debouncer.setSyncMode(true);
   * debouncer.recordCreate();
   * assert.equal(debouncer.hasPending, true);
   * await debouncer.stop();
   * ```
   */
  get hasPending(): boolean {
    return this.#scheduler.hasPending;
  }

  /**
   * Fires now with whatever accumulated, even nothing, in sync mode too.
   * `onChange` starts before this returns when no call is running; else it
   * starts right after the running call ends. Resolves when it has ended.
   * Does nothing after {@linkcode stop}.
   *
   * @example Forcing a call inside the interval
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * debouncer.recordCreate(); // fires at once, opens the interval
   * await clock.tick(0);
   * debouncer.recordCreate(); // waits for the interval…
   * await debouncer.flush(); // …unless flushed
   * assert.deepEqual(totals, [1, 1]);
   * await debouncer.stop();
   * ```
   *
   * @returns Resolves once the call has ended; never rejects.
   */
  flush(): Promise<void> {
    return this.#scheduler.flush();
  }

  /**
   * Like {@linkcode flush}, but fires only when changes are waiting once the
   * running call (if any) has ended; that call may have taken them already.
   * For a last delivery on shutdown.
   *
   * @example Nothing pending, no call
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * let calls = 0;
   * const debouncer = new Debouncer({ interval: 1_000, clock: new FakeClock(), onChange: () => { calls++; } });
   * await debouncer.flushPending(); // nothing waiting: no call
   * assert.equal(calls, 0);
   * await debouncer.stop();
   * ```
   *
   * @returns Resolves once the call, if one was made, has ended.
   */
  flushPending(): Promise<void> {
    return this.#scheduler.flushPending();
  }

  /**
   * Cancels what is scheduled and waits for a running call to end. Once it
   * resolves nothing fires again and further records are ignored.
   * Accumulated changes are dropped: call {@linkcode flush} first to deliver
   * them. Idempotent.
   *
   * @example Delivering the rest, then stopping
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const totals: number[] = [];
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock,
   *   onChange: (stats) => {
   *     totals.push(stats.total);
   *   },
   * });
   * debouncer.recordCreate();
   * await clock.tick(0);
   * debouncer.recordCreate(); // pending
   * await debouncer.flush(); // stop() alone would drop it
   * await debouncer.stop();
   * debouncer.recordCreate(); // ignored
   * assert.deepEqual(totals, [1, 1]);
   * ```
   *
   * @returns Resolves once no call is running; never rejects.
   */
  stop(): Promise<void> {
    return this.#scheduler.stop();
  }

  /**
   * Resolves when no call is running and none is scheduled. Changes held
   * back by sync mode do not count as scheduled.
   *
   * @example Waiting for an async callback
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher/watcher";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * let done = 0;
   * const debouncer = new Debouncer({
   *   interval: 1_000,
   *   clock: new FakeClock(),
   *   onChange: async () => {
   *     await Promise.resolve();
   *     done++;
   *   },
   * });
   * debouncer.recordCreate();
   * await debouncer.idle();
   * assert.equal(done, 1);
   * await debouncer.stop();
   * ```
   *
   * @returns Resolves once idle; never rejects.
   */
  idle(): Promise<void> {
    return this.#scheduler.idle();
  }

  #ignore(n: number): boolean {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new RangeError(
        `Change count must be a non-negative integer, got ${n}`,
      );
    }
    return n === 0 || this.#scheduler.stopped;
  }

  #report(error: unknown, stats: ChangeStats): void {
    try {
      this.#logger.error("Change callback failed", {
        ...failureFields(error),
        stats,
      });
    } catch {
      // A throwing logger must not leave the debouncer stuck as busy.
    }
  }
}

/** The counts waiting for the next call. */
class PendingCounts implements PendingBatch<ChangeStats> {
  created = 0;
  modified = 0;
  deleted = 0;

  get isEmpty(): boolean {
    return this.created === 0 && this.modified === 0 && this.deleted === 0;
  }

  take(isInitialSync: boolean): ChangeStats {
    const stats = changeStats({
      created: this.created,
      modified: this.modified,
      deleted: this.deleted,
      isInitialSync,
    });
    this.created = this.modified = this.deleted = 0;
    return stats;
  }
}

/** The names `DebouncerOptions` takes (a record over its keys). */
const DEBOUNCER_NAMES: Record<keyof DebouncerOptions, true> = {
  interval: true,
  settle: true,
  onChange: true,
  suppressDuringSync: true,
  clock: true,
  logger: true,
};
