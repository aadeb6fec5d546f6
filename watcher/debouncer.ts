import type { ChangeStats, Logger } from "../types.ts";
import { type Clock, systemClock, type TimerHandle } from "../clock.ts";
import { consoleLogger } from "../logger.ts";
import { changeStats } from "./change_stats.ts";

/**
 * Options for {@linkcode Debouncer}.
 *
 * @example
 * ```ts
 * import type { DebouncerOptions } from "@haptic/k8s-watcher";
 *
 * const options: DebouncerOptions = {
 *   interval: 2_000,
 *   onChange: (stats) => console.log(stats.total),
 * };
 * ```
 */
export interface DebouncerOptions {
  /** Refractory period in milliseconds: at most one call per interval. Must be > 0. */
  interval: number;
  /**
   * Receives each batch. May be async: the next call waits until the
   * returned promise settles. Throwing or rejecting is logged at error level
   * and the debouncer goes on. Do not `await` {@linkcode Debouncer.flush} or
   * {@linkcode Debouncer.stop} from inside it: they wait for this call.
   */
  onChange: (stats: ChangeStats) => void | Promise<void>;
  /** When `true` (the default), nothing fires in sync mode except {@linkcode Debouncer.flush}. */
  suppressDuringSync?: boolean;
  /** Time source. Defaults to {@linkcode systemClock}. */
  clock?: Clock;
  /** Where callback failures go. Defaults to {@linkcode consoleLogger}. */
  logger?: Logger;
}

/**
 * Batches rapid changes into calls of `onChange`, leading edge with a
 * refractory period: the first change after a quiet interval fires at once
 * (in a microtask, so every change recorded in the same synchronous run
 * lands in that first batch); changes recorded less than `interval` after
 * the previous call started accumulate and fire together when the interval
 * ends. The interval is measured from the start of the previous call.
 *
 * Calls never overlap. A batch that falls due while `onChange` is still
 * running keeps accumulating and fires as soon as the call ends (or when the
 * interval since the previous start ends, whichever is later).
 *
 * Sync mode ({@linkcode Debouncer.setSyncMode}) marks the initial list: a
 * batch has `isInitialSync: true` when any change in it was recorded in sync
 * mode, or when it fires in sync mode. With `suppressDuringSync` (the
 * default) nothing fires in sync mode; leaving it fires what accumulated at
 * once, as one batch with `isInitialSync: true`.
 *
 * @example
 * ```ts
 * import { Debouncer } from "@haptic/k8s-watcher";
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
  readonly #interval: number;
  readonly #onChange: (stats: ChangeStats) => void | Promise<void>;
  readonly #suppressDuringSync: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;

  #created = 0;
  #modified = 0;
  #deleted = 0;
  /** Whether a change in the pending batch was recorded in sync mode. */
  #batchInitial = false;
  #initialCount = 0;
  #syncing = false;
  #stopped = false;
  #lastFire = -Infinity;
  #timer: TimerHandle | undefined;
  /** A leading-edge fire is queued as a microtask. */
  #queued = false;
  /** `onChange` is executing synchronously (guards against re-entry). */
  #calling = false;
  /** The current call, until it has settled. */
  #running: Promise<void> | undefined;
  #idleWaiters: (() => void)[] = [];

  /**
   * Creates a debouncer; nothing fires until a change is recorded.
   *
   * @param options Interval, callback, sync behaviour, clock and logger.
   * @throws {RangeError} When `interval` is not a positive finite number.
   * @throws {TypeError} When `onChange` is not a function.
   */
  constructor(options: DebouncerOptions) {
    const { interval, onChange } = options;
    if (!Number.isFinite(interval) || interval <= 0) {
      throw new RangeError(
        `Debounce interval must be a positive number of milliseconds, got ${interval}`,
      );
    }
    if (typeof onChange !== "function") {
      throw new TypeError("Debouncer option onChange must be a function");
    }
    this.#interval = interval;
    this.#onChange = onChange;
    this.#suppressDuringSync = options.suppressDuringSync ?? true;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? consoleLogger();
  }

  /**
   * Records `n` created objects.
   *
   * @param n How many; a non-negative integer (0 records nothing).
   * @throws {RangeError} When `n` is negative or not an integer.
   */
  recordCreate(n = 1): void {
    if (this.#ignore(n)) return;
    this.#created += n;
    if (this.#syncing) this.#initialCount += n;
    this.#arm();
  }

  /**
   * Records `n` modified objects.
   *
   * @param n How many; a non-negative integer (0 records nothing).
   * @throws {RangeError} When `n` is negative or not an integer.
   */
  recordUpdate(n = 1): void {
    if (this.#ignore(n)) return;
    this.#modified += n;
    this.#arm();
  }

  /**
   * Records `n` deleted objects.
   *
   * @param n How many; a non-negative integer (0 records nothing).
   * @throws {RangeError} When `n` is negative or not an integer.
   */
  recordDelete(n = 1): void {
    if (this.#ignore(n)) return;
    this.#deleted += n;
    this.#arm();
  }

  /**
   * Enters or leaves sync mode. Entering resets {@linkcode initialCount}.
   * Leaving fires what accumulated at once, ignoring the interval, as with
   * {@linkcode flush} (synchronously when no call is running, else right
   * after it ends); an empty batch is not sent.
   *
   * @param syncing `true` while the initial list is loading.
   */
  setSyncMode(syncing: boolean): void {
    if (syncing === this.#syncing) return;
    this.#syncing = syncing;
    if (syncing) {
      this.#initialCount = 0;
      if (this.#suppressDuringSync) this.#cancelScheduled();
    } else if (!this.#isEmpty()) {
      // flush() never rejects; the batch is delivered as soon as calls allow.
      void this.flush();
    }
  }

  /** Whether sync mode is on. */
  get isSyncing(): boolean {
    return this.#syncing;
  }

  /**
   * Objects created while in sync mode since it was last entered: the size
   * of the initial list once sync mode has been left.
   */
  get initialCount(): number {
    return this.#initialCount;
  }

  /**
   * Whether changes are waiting for the next call.
   *
   * @example
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher";
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
    return !this.#isEmpty();
  }

  /**
   * Fires now with whatever accumulated, even nothing, in sync mode too.
   * `onChange` starts before this returns when no call is running; else it
   * starts right after the running call ends. Resolves when it has ended.
   * Does nothing after {@linkcode stop}.
   *
   * @returns Resolves once the call has ended; never rejects.
   */
  async flush(): Promise<void> {
    while (this.#busy()) await (this.#running ?? Promise.resolve());
    if (this.#stopped) return;
    await this.#start();
  }

  /**
   * Like {@linkcode flush}, but fires only when changes are waiting once the
   * running call (if any) has ended; that call may have taken them already.
   * For a last delivery on shutdown.
   *
   * @example
   * ```ts
   * import { Debouncer } from "@haptic/k8s-watcher";
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
  async flushPending(): Promise<void> {
    while (this.#busy()) await (this.#running ?? Promise.resolve());
    if (this.#stopped || this.#isEmpty()) return;
    await this.#start();
  }

  /**
   * Cancels what is scheduled and waits for a running call to end. Once it
   * resolves nothing fires again and further records are ignored.
   * Accumulated changes are dropped: call {@linkcode flush} first to deliver
   * them. Idempotent.
   *
   * @returns Resolves once no call is running; never rejects.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelScheduled();
    while (this.#busy()) await (this.#running ?? Promise.resolve());
  }

  /**
   * Resolves when no call is running and none is scheduled. Changes held
   * back by sync mode do not count as scheduled.
   *
   * @returns Resolves once idle; never rejects.
   */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #ignore(n: number): boolean {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new RangeError(
        `Change count must be a non-negative integer, got ${n}`,
      );
    }
    return n === 0 || this.#stopped;
  }

  /** Schedules the pending batch unless something already will deliver it. */
  #arm(): void {
    if (this.#syncing) {
      this.#batchInitial = true;
      if (this.#suppressDuringSync) return;
    }
    if (
      this.#timer !== undefined || this.#queued || this.#busy() ||
      this.#stopped
    ) {
      return;
    }
    const wait = this.#lastFire + this.#interval - this.#clock.now();
    if (wait <= 0) {
      this.#queued = true;
      queueMicrotask(this.#due);
    } else {
      this.#timer = this.#clock.setTimeout(this.#due, wait);
    }
  }

  #due = (): void => {
    this.#timer = undefined;
    this.#queued = false;
    if (
      this.#stopped || this.#busy() || this.#isEmpty() ||
      (this.#syncing && this.#suppressDuringSync)
    ) {
      // Stale: stopped, suppressed since, taken by flush(), or a call is
      // running (#ended schedules what is left once it ends).
      this.#notifyIdle();
      return;
    }
    void this.#start();
  };

  #start(): Promise<void> {
    this.#cancelTimer();
    const stats = changeStats({
      created: this.#created,
      modified: this.#modified,
      deleted: this.#deleted,
      isInitialSync: this.#batchInitial || this.#syncing,
    });
    this.#created = this.#modified = this.#deleted = 0;
    this.#batchInitial = false;
    this.#lastFire = this.#clock.now();
    let result: void | Promise<void> = undefined;
    this.#calling = true;
    try {
      result = this.#onChange(stats);
    } catch (error) {
      this.#report(error, stats);
    } finally {
      this.#calling = false;
    }
    const running = Promise.resolve(result)
      .then(undefined, (error) => this.#report(error, stats))
      .then(this.#ended);
    this.#running = running;
    return running;
  }

  #ended = (): void => {
    this.#running = undefined;
    // Changes recorded during the call are scheduled from here, since #arm
    // does nothing while busy.
    if (!this.#isEmpty()) this.#arm();
    this.#notifyIdle();
  };

  #report(error: unknown, stats: ChangeStats): void {
    try {
      this.#logger.error("Change callback failed", { error, stats });
    } catch {
      // A throwing logger must not leave the debouncer stuck as busy.
    }
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // A queued microtask cannot be cancelled; #due finds nothing to do.
    this.#queued = false;
  }

  #cancelScheduled(): void {
    this.#cancelTimer();
    this.#notifyIdle();
  }

  #busy(): boolean {
    return this.#calling || this.#running !== undefined;
  }

  #isEmpty(): boolean {
    return this.#created === 0 && this.#modified === 0 && this.#deleted === 0;
  }

  #isIdle(): boolean {
    return !this.#busy() && this.#timer === undefined && !this.#queued;
  }

  #notifyIdle(): void {
    if (this.#idleWaiters.length === 0 || !this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
