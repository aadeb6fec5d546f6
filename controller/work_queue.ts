/**
 * `WorkQueue<K>`: the per-key queue a controller's workers take keys from;
 * after the class, the keys it can hand out now (live first, low-priority
 * ones aging into turns), its metrics, and a failed key's backoff with the
 * shared retry budget.
 *
 * @module
 */
import type { TimerHandle } from "../clock.ts";
import {
  planWorkQueue,
  type RetryLimits,
  type WorkQueuePlan,
} from "./_work_queue_plan.ts";
import type { WorkQueueOptions } from "./controller_config.ts";
import { ControllerConfigError, WorkQueueShutDownError } from "./errors.ts";
import type {
  Counter,
  Histogram,
  Meter,
  MetricAttributes,
  ObservableGauge,
  ObservableResult,
} from "../metrics/meter.ts";
import { claimName, instrumentsOf } from "../_internal/_metrics.ts";

/** A key added again while it was being processed: queued after `done`. */
interface Rerun {
  since: number;
  low: boolean;
}

/** A delayed add: the timer, when it fires, and the rank it adds with. */
interface Delayed {
  timer: TimerHandle;
  due: number;
  low: boolean;
}

/** A worker waiting in `next()`. */
interface Waiter<K> {
  resolve(key: K | undefined): void;
  detach(): void;
}

/**
 * How an `add` ranks its key: `"live"` (an event) [the default] or `"low"`
 * (an initial list, a resync), which waits behind live keys until it ages.
 *
 * @example An initial list's keys
 * ```ts
 * import { WorkQueue } from "@haptic/k8s-watcher/controller";
 *
 * await using queue = new WorkQueue<string>();
 * queue.add("shop/listed", { priority: "low" });
 * queue.add("shop/changed");
 * const key = (await queue.next())!;
 * console.log(key); // "shop/changed"
 * queue.done(key);
 * ```
 */
export interface AddOptions {
  /** `"live"` [the default] or `"low"`. */
  priority?: "live" | "low";
}

/**
 * A queue of keys to reconcile, each handed to one worker at a time.
 *
 * - A key waits at most once: adding a key that is already waiting does
 *   nothing. Adding a key that a worker is processing queues it once more,
 *   to be handed out after that worker calls `done(key)`; so a burst of
 *   events for one key during its reconcile costs at most one more.
 * - `addAfter(key, ms)` adds it later; of several pending, the earliest
 *   wins. `addRateLimited(key)` adds it after its backoff (`baseMs` doubling
 *   per failure to `maxMs`, and the shared `retryRateLimit` when set);
 *   `forget(key)` resets the backoff, `retries(key)` counts it. Other adds
 *   do not count toward the backoff.
 * - Keys added with `{ priority: "low" }` (an initial list, a resync) wait
 *   behind live keys, until they have waited `agingMs`; then they take
 *   turns with live keys, so neither starves.
 * - `shutDown()` drops the waiting and delayed keys and wakes every worker
 *   with `undefined`; with `{ drain: true }` it resolves when every key
 *   being processed is done. An add after it throws
 *   `WorkQueueShutDownError`, but for a key a worker still holds: that
 *   worker's retry or requeue is ignored (its reconcile is ending).
 *
 * Every timer runs on the `clock` option, so a `FakeClock` drives the whole
 * queue. Metrics, with a `meter`: client-go's `workqueue_depth`,
 * `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
 * `workqueue_work_duration_seconds`, `workqueue_unfinished_work_seconds`,
 * `workqueue_longest_running_processor_seconds` and
 * `workqueue_retries_total`, labelled with `name`.
 *
 * @example A worker, one key at a time
 * ```ts
 * import { WorkQueue } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * await using queue = new WorkQueue<string>({ name: "widgets" });
 * queue.add("shop/a");
 * queue.add("shop/a"); // already waiting: nothing more
 * queue.add("shop/b");
 * const seen: string[] = [];
 * while (queue.length > 0) {
 *   const key = (await queue.next())!;
 *   try {
 *     seen.push(key); // reconcile here
 *     queue.forget(key); // it succeeded: reset its backoff
 *   } finally {
 *     queue.done(key);
 *   }
 * }
 * assert.deepEqual(seen, ["shop/a", "shop/b"]);
 * ```
 *
 * @typeParam K The key, usually `namespace/name`; any value a `Map` keys by.
 */
export class WorkQueue<K = string> implements AsyncDisposable {
  readonly #plan: WorkQueuePlan;
  readonly #ready: ReadyKeys<K>;
  readonly #limiter: RetryLimiter<K>;
  readonly #metrics: QueueMetrics | undefined;
  /** Keys handed out and not yet done, with when they were handed out. */
  readonly #processing = new Map<K, number>();
  readonly #reruns = new Map<K, Rerun>();
  readonly #delayed = new Map<K, Delayed>();
  readonly #waiters: Waiter<K>[] = [];
  #shutDown = false;
  #drained: { promise: Promise<void>; resolve: () => void } | undefined;

  /**
   * Creates a queue; checks every option first.
   *
   * @example A queue on a fake clock
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   *
   * const clock = new FakeClock();
   * await using queue = new WorkQueue<string>({ clock });
   * queue.addAfter("shop/a", 1000);
   * await clock.tick(1000);
   * console.log(queue.length); // 1
   * ```
   *
   * @param options How it runs; see {@linkcode WorkQueueOptions}.
   * @throws {ControllerConfigError} When an option is wrong.
   */
  constructor(options?: WorkQueueOptions) {
    const plan = this.#plan = planWorkQueue(options);
    this.#ready = new ReadyKeys(plan.agingMs);
    this.#limiter = new RetryLimiter(plan.retry);
    if (plan.meter !== undefined) {
      this.#metrics = new QueueMetrics(plan.meter, plan.name, {
        // client-go's depth counts a key queued again behind its worker.
        depth: () => this.#ready.size + this.#reruns.size,
        startTimes: () => this.#processing.values(),
        now: () => plan.clock.now(),
      });
    }
  }

  /**
   * How many keys wait to be handed out now (not the delayed ones, nor
   * those queued again behind a worker).
   *
   * @example Depth
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * await using queue = new WorkQueue<string>();
   * queue.add("a");
   * queue.add("a");
   * console.log(queue.length); // 1
   * ```
   *
   * @returns The number of waiting keys.
   */
  get length(): number {
    return this.#ready.size;
  }

  /**
   * The keys handed to workers and not yet `done`.
   *
   * @example Active work
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * await using queue = new WorkQueue<string>();
   * queue.add("a");
   * const key = await queue.next();
   * console.log([...queue.processing]); // ["a"]
   * queue.done(key!);
   * ```
   *
   * @returns The keys being processed.
   */
  get processing(): ReadonlySet<K> {
    return new Set(this.#processing.keys());
  }

  /**
   * Whether `shutDown()` was called.
   *
   * @example After shutdown
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * const queue = new WorkQueue<string>();
   * await queue.shutDown();
   * console.log(queue.isShutDown); // true
   * ```
   *
   * @returns True once shut down.
   */
  get isShutDown(): boolean {
    return this.#shutDown;
  }

  /**
   * Queues `key` to be handed out; nothing when it is already waiting.
   *
   * @example Adding twice
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * await using queue = new WorkQueue<string>();
   * queue.add("shop/a");
   * queue.add("shop/a");
   * console.log(queue.length); // 1
   * ```
   *
   * @param key The key.
   * @param options Its rank: `{ priority: "low" }` for an initial list's or
   * a resync's keys.
   * @throws {WorkQueueShutDownError} After `shutDown()`, for a key no worker
   * holds (the held key's own retry is ignored then, so that a worker's
   * usual `catch` does not throw while the queue drains).
   */
  add(key: K, options?: AddOptions): void {
    if (this.#refuseAfterShutDown(key, "add()")) return;
    this.#add(key, options?.priority === "low");
  }

  /**
   * Queues `key` after `ms` milliseconds (at once when `ms` is 0 or less, as
   * a deadline already past gives). Of several delayed adds of one key, the
   * earliest wins. Counted in `workqueue_retries_total`, as client-go's.
   *
   * @example Check again in five minutes
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   *
   * const clock = new FakeClock();
   * await using queue = new WorkQueue<string>({ clock });
   * queue.addAfter("shop/a", 300_000);
   * queue.addAfter("shop/a", 60_000); // earlier: this one wins
   * await clock.tick(60_000);
   * console.log(queue.length); // 1
   * ```
   *
   * @param key The key.
   * @param ms How long to wait, in milliseconds.
   * @param options Its rank when it is added.
   * @throws {RangeError} When `ms` is not a finite number.
   * @throws {WorkQueueShutDownError} After `shutDown()`, for a key no worker
   * holds (the held key's own requeue is ignored then).
   */
  addAfter(key: K, ms: number, options?: AddOptions): void {
    if (typeof ms !== "number" || !Number.isFinite(ms)) {
      throw new RangeError(
        `addAfter() delay must be a finite number of milliseconds, got ${
          String(ms)
        }`,
      );
    }
    if (this.#refuseAfterShutDown(key, "addAfter()")) return;
    this.#metrics?.retried();
    this.#addAfter(key, ms, options?.priority === "low");
  }

  /**
   * Queues a key whose processing failed, after its backoff, and counts the
   * failure: the first retry waits `backoff.baseMs`, each further one twice
   * as long, up to `backoff.maxMs`; with `retryRateLimit`, also as long as
   * the shared budget needs.
   *
   * @example A failing key backs off
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   *
   * const clock = new FakeClock();
   * await using queue = new WorkQueue<string>({ clock });
   * queue.addRateLimited("shop/a"); // waits 5 ms
   * queue.addRateLimited("shop/a"); // a second failure: 10 ms, the first stays
   * console.log(queue.retries("shop/a")); // 2
   * await clock.tick(5);
   * console.log(queue.length); // 1
   * ```
   *
   * @param key The key that failed.
   * @param options Its rank when it is added.
   * @throws {WorkQueueShutDownError} After `shutDown()`, for a key no worker
   * holds (the held key's own retry is ignored then, so that a worker's
   * usual `catch` does not throw while the queue drains).
   */
  addRateLimited(key: K, options?: AddOptions): void {
    if (this.#refuseAfterShutDown(key, "addRateLimited()")) return;
    const delay = this.#limiter.delay(key, this.#plan.clock.now());
    this.#metrics?.retried();
    this.#addAfter(key, delay, options?.priority === "low");
  }

  /**
   * Resets `key`'s backoff: call it when the key's processing succeeded.
   *
   * @example After a success
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * await using queue = new WorkQueue<string>();
   * queue.addRateLimited("shop/a");
   * queue.forget("shop/a");
   * console.log(queue.retries("shop/a")); // 0
   * ```
   *
   * @param key The key.
   */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  /**
   * How many failures of `key` count toward its backoff.
   *
   * @example Counting
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * await using queue = new WorkQueue<string>();
   * queue.addRateLimited("shop/a");
   * console.log(queue.retries("shop/a")); // 1
   * ```
   *
   * @param key The key.
   * @returns Its failures since the last `forget`.
   */
  retries(key: K): number {
    return this.#limiter.failures(key);
  }

  /**
   * The next key to process, once one waits; `undefined` once the queue is
   * shut down. The key is this caller's until it calls `done(key)`.
   *
   * @example A worker
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * const queue = new WorkQueue<string>();
   * queue.add("shop/a");
   * const key = await queue.next();
   * console.log(key); // "shop/a"
   * queue.done(key!);
   * await queue.shutDown();
   * console.log(await queue.next()); // undefined
   * ```
   *
   * @param signal Stops waiting: the promise rejects with its reason.
   * @returns The key, or `undefined` after `shutDown()`.
   */
  next(signal?: AbortSignal): Promise<K | undefined> {
    if (this.#shutDown) return Promise.resolve(undefined);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const ready = this.#ready.shift(this.#plan.clock.now());
    if (ready !== undefined) {
      return Promise.resolve(this.#handOut(ready.key, ready.since));
    }
    return new Promise<K | undefined>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        reject(signal!.reason);
      };
      const waiter: Waiter<K> = {
        resolve,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /**
   * Says that `key`'s processing is over; if it was added meanwhile, it
   * waits again now. A key that is not being processed is ignored.
   *
   * @example Added during its processing
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * await using queue = new WorkQueue<string>();
   * queue.add("shop/a");
   * const key = (await queue.next())!;
   * queue.add("shop/a");
   * queue.add("shop/a");
   * console.log(queue.length); // 0: not handed to a second worker
   * queue.done(key);
   * console.log(queue.length); // 1: once more
   * ```
   *
   * @param key The key a `next()` gave.
   */
  done(key: K): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.worked(this.#plan.clock.now() - started);
    const rerun = this.#reruns.get(key);
    if (rerun !== undefined) {
      this.#reruns.delete(key);
      this.#ready.push(key, rerun.low, rerun.since);
      this.#wake();
    }
    if (this.#shutDown && this.#processing.size === 0) this.#finish();
  }

  /**
   * Stops the queue: the waiting and delayed keys are dropped, every worker
   * waiting in `next()` gets `undefined`, and adds throw from now on.
   *
   * @example Draining
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * const queue = new WorkQueue<string>();
   * queue.add("shop/a");
   * const key = (await queue.next())!;
   * const stopped = queue.shutDown({ drain: true });
   * queue.done(key);
   * await stopped; // resolved once "shop/a" was done
   * ```
   *
   * @param options `drain`: resolve only when every key being processed is
   * done [false: at once].
   * @returns A promise that resolves when the queue is shut down (drained).
   */
  shutDown(options?: { drain?: boolean }): Promise<void> {
    if (!this.#shutDown) {
      this.#shutDown = true;
      for (const delayed of this.#delayed.values()) {
        this.#plan.clock.clearTimeout(delayed.timer);
      }
      this.#delayed.clear();
      this.#ready.clear();
      this.#reruns.clear();
      for (const waiter of this.#waiters.splice(0)) {
        waiter.detach();
        waiter.resolve(undefined);
      }
      if (this.#processing.size === 0) this.#finish();
    }
    if (!options?.drain || this.#processing.size === 0) {
      return Promise.resolve();
    }
    if (this.#drained === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => resolve = r);
      this.#drained = { promise, resolve };
    }
    return this.#drained.promise;
  }

  /**
   * `shutDown({ drain: true })`, for `await using`.
   *
   * @example Scoped
   * ```ts
   * import { WorkQueue } from "@haptic/k8s-watcher/controller";
   *
   * {
   *   await using queue = new WorkQueue<string>();
   *   queue.add("shop/a");
   * } // shut down here
   * ```
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutDown({ drain: true });
  }

  /**
   * After shutdown: true (ignore it) for the key a worker is finishing, whose
   * reconcile may end in its usual retry or requeue; a throw for any other.
   */
  #refuseAfterShutDown(key: K, call: string): boolean {
    if (!this.#shutDown) return false;
    if (this.#processing.has(key)) return true;
    throw new WorkQueueShutDownError(this.#plan.name, call);
  }

  #add(key: K, low: boolean): void {
    // Already waiting: nothing to do but, for a live add, to raise it.
    if (this.#ready.raise(key, low)) return;
    const now = this.#plan.clock.now();
    if (this.#processing.has(key)) {
      const rerun = this.#reruns.get(key);
      if (rerun !== undefined) {
        rerun.low &&= low;
        return;
      }
      this.#reruns.set(key, { since: now, low });
    } else {
      this.#ready.push(key, low, now);
    }
    this.#metrics?.added();
    this.#wake();
  }

  #addAfter(key: K, ms: number, low: boolean): void {
    if (ms <= 0) return this.#add(key, low);
    const clock = this.#plan.clock;
    const due = clock.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending !== undefined) {
      if (pending.due <= due) {
        pending.low &&= low;
        return;
      }
      clock.clearTimeout(pending.timer);
      low &&= pending.low;
    }
    const timer = clock.setTimeout(() => {
      const fired = this.#delayed.get(key);
      if (fired === undefined || fired.timer !== timer) return;
      this.#delayed.delete(key);
      this.#add(key, fired.low);
    }, ms);
    this.#delayed.set(key, { timer, due, low });
  }

  #handOut(key: K, since: number): K {
    const now = this.#plan.clock.now();
    this.#processing.set(key, now);
    this.#metrics?.waited(now - since);
    return key;
  }

  #wake(): void {
    while (this.#waiters.length > 0 && this.#ready.size > 0) {
      const ready = this.#ready.shift(this.#plan.clock.now())!;
      const waiter = this.#waiters.shift()!;
      waiter.detach();
      waiter.resolve(this.#handOut(ready.key, ready.since));
    }
  }

  #finish(): void {
    this.#metrics?.close();
    this.#drained?.resolve();
  }
}

// The keys a `WorkQueue` can hand out now, in the order it hands them out:
// first in, first out, live keys before low-priority ones (an initial list,
// a resync), but a low-priority key that has waited `agingMs` takes turns
// with the live ones, so neither kind starves the other.
//
// A key is here at most once. A live add of a key that waits as a
// low-priority one puts it in the live line too, keeping its waiting time:
// whichever line reaches it first hands it out (so the event never makes
// it wait longer than it would have), and the other entry is dropped.

/** A key handed out, and since when it waited (the queue's clock). */
interface ReadyKey<K> {
  readonly key: K;
  /** When it was added, for the queue-duration metric. */
  readonly since: number;
}

/**
 * A first-in-first-out line of keys and their times, over two arrays: no
 * object per key, and the times unboxed in a double array. `shift()` moves
 * a head index (an array's own `shift()` is linear), and the front is cut
 * off once it is the larger half. Each entry has a position that never
 * changes: how many were pushed before it.
 */
class Line<K> {
  #keys: (K | undefined)[] = [];
  #sinces: number[] = [];
  #head = 0;
  /** The position of `#keys[0]`. */
  #base = 0;

  /** Adds an entry; returns its position. */
  push(key: K, since: number): number {
    this.#keys.push(key);
    this.#sinces.push(since);
    return this.#base + this.#keys.length - 1;
  }

  get empty(): boolean {
    return this.#head >= this.#keys.length;
  }

  /** The first entry's key (only when not `empty`). */
  get headKey(): K {
    return this.#keys[this.#head] as K;
  }

  /** The first entry's position. */
  get headPosition(): number {
    return this.#base + this.#head;
  }

  /** The time of the entry at `position` (still in the line). */
  sinceAt(position: number): number {
    return this.#sinces[position - this.#base];
  }

  shift(): void {
    this.#keys[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#keys.length) {
      this.#keys = this.#keys.slice(this.#head);
      this.#sinces = this.#sinces.slice(this.#head);
      this.#base += this.#head;
      this.#head = 0;
    }
  }

  clear(): void {
    this.#base += this.#keys.length;
    this.#keys = [];
    this.#sinces = [];
    this.#head = 0;
  }
}

/**
 * The two lines, and where each waiting key's entry is. A waiting key maps
 * to the position of its entry: `p` in the live line, `-p - 1` in the low
 * one (a small integer, so the map holds no boxed number per key). An
 * entry whose key does not map to it is spent.
 */
class ReadyKeys<K> {
  readonly #agingMs: number;
  readonly #live = new Line<K>();
  readonly #low = new Line<K>();
  /** Each waiting key's entry, as above. */
  readonly #entries = new Map<K, number>();
  /**
   * Keys moved to the live line that still have their entry in the low
   * one (whichever line reaches the key first serves it): that entry's
   * position.
   */
  readonly #moved = new Map<K, number>();
  /** The last key handed out was an aged low-priority one: a live one next. */
  #agedTurn = false;

  constructor(agingMs: number) {
    this.#agingMs = agingMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Whether `key` waits; if it does, a live add (`low` false) moves it to
   * the live line, keeping its waiting time (a key waits once).
   */
  raise(key: K, low: boolean): boolean {
    const waiting = this.#entries.get(key);
    if (waiting === undefined) return false;
    if (low || waiting >= 0) return true;
    // In both lines, with its waiting time: the first to reach it serves it.
    const lowPosition = -waiting - 1;
    this.#moved.set(key, lowPosition);
    this.#entries.set(
      key,
      this.#live.push(key, this.#low.sinceAt(lowPosition)),
    );
    return true;
  }

  /** Adds `key`, or moves it to the live line (a key waits once). */
  push(key: K, low: boolean, since: number): void {
    if (this.raise(key, low)) return;
    this.#entries.set(
      key,
      low ? -this.#low.push(key, since) - 1 : this.#live.push(key, since),
    );
  }

  /** The next key to hand out, taken off its line. */
  shift(now: number): ReadyKey<K> | undefined {
    const live = this.#ready(this.#live, false);
    const low = this.#ready(this.#low, true);
    let line: Line<K>;
    if (!low) {
      if (!live) return undefined;
      line = this.#live;
    } else if (!live) {
      line = this.#low;
    } else if (
      !this.#agedTurn &&
      now - this.#low.sinceAt(this.#low.headPosition) >= this.#agingMs
    ) {
      line = this.#low;
    } else {
      line = this.#live;
    }
    const key = line.headKey;
    const since = line.sinceAt(line.headPosition);
    line.shift();
    this.#agedTurn = line === this.#low && live;
    this.#entries.delete(key);
    this.#moved.delete(key);
    return { key, since };
  }

  clear(): void {
    this.#live.clear();
    this.#low.clear();
    this.#entries.clear();
    this.#moved.clear();
  }

  /**
   * Whether the line has an entry that is still its key's, dropping spent
   * ones from its front.
   */
  #ready(line: Line<K>, low: boolean): boolean {
    for (; !line.empty; line.shift()) {
      const key = line.headKey;
      const position = line.headPosition;
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      if (low ? entry === -position - 1 : entry === position) return true;
      if (low && this.#moved.get(key) === position) return true;
    }
    return false;
  }
}

// A `WorkQueue`'s metrics under client-go's `workqueue_*` names and
// meanings, labelled with the queue's `name`, so that dashboards built for
// client-go and controller-runtime read them as they are: depth, adds (a key
// already waiting is not counted), time waited, time worked, the work still
// running and its longest, and retries.

/**
 * The names of the queues reporting on each meter: a gauge keeps one value
 * per label set, so two queues of one name would overwrite each other.
 */

/** client-go's buckets for both durations: 10 ns to 10 s, tenfold. */
const QUEUE_BUCKETS: readonly number[] = Object.freeze(
  Array.from({ length: 10 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1))),
);

interface QueueInstruments {
  depth: ObservableGauge;
  adds: Counter;
  queueDuration: Histogram;
  workDuration: Histogram;
  unfinished: ObservableGauge;
  longest: ObservableGauge;
  retries: Counter;
}

function makeInstruments(meter: Meter): QueueInstruments {
  const seconds = (description: string) => ({
    description,
    unit: "s",
    advice: { explicitBucketBoundaries: [...QUEUE_BUCKETS] },
  });
  return {
    depth: meter.createObservableGauge("workqueue_depth", {
      description: "Current depth of workqueue",
    }),
    adds: meter.createCounter("workqueue_adds", {
      description: "Total number of adds handled by workqueue",
    }),
    queueDuration: meter.createHistogram(
      "workqueue_queue_duration_seconds",
      seconds(
        "How long in seconds an item stays in workqueue before being requested",
      ),
    ),
    workDuration: meter.createHistogram(
      "workqueue_work_duration_seconds",
      seconds("How long in seconds processing an item from workqueue takes"),
    ),
    unfinished: meter.createObservableGauge(
      "workqueue_unfinished_work_seconds",
      {
        description:
          "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
        unit: "s",
      },
    ),
    longest: meter.createObservableGauge(
      "workqueue_longest_running_processor_seconds",
      {
        description:
          "How many seconds has the longest running processor for workqueue been running",
        unit: "s",
      },
    ),
    retries: meter.createCounter("workqueue_retries", {
      description: "Total number of retries handled by workqueue",
    }),
  };
}

/** What the gauges read from the queue when scraped. */
interface QueueReadings {
  depth(): number;
  /** When each key being processed was handed out (the queue's clock). */
  startTimes(): Iterable<number>;
  now(): number;
}

/** One queue's measurements. */
class QueueMetrics {
  readonly #instruments: QueueInstruments;
  readonly #attributes: MetricAttributes;
  readonly #observeDepth: (result: ObservableResult) => void;
  readonly #observeUnfinished: (result: ObservableResult) => void;
  readonly #observeLongest: (result: ObservableResult) => void;
  readonly #release: () => void;
  #open = true;

  /**
   * @throws {ControllerConfigError} When a queue of that name reports on
   * this meter already.
   */
  constructor(meter: Meter, name: string, readings: QueueReadings) {
    this.#release = claimName(
      meter,
      "workqueue",
      name,
      () =>
        new ControllerConfigError(
          "WorkQueue",
          "name",
          `another WorkQueue that is not shut down reports on this meter as ${
            JSON.stringify(name)
          }; give each queue its own name`,
        ),
    );
    const instruments = this.#instruments = instrumentsOf(
      meter,
      "workqueue",
      makeInstruments,
    );
    const attributes = this.#attributes = Object.freeze({ name });
    this.#observeDepth = (result) =>
      result.observe(readings.depth(), attributes);
    const running = () => {
      const now = readings.now();
      let total = 0;
      let longest = 0;
      for (const start of readings.startTimes()) {
        total += now - start;
        longest = Math.max(longest, now - start);
      }
      return { total: total / 1000, longest: longest / 1000 };
    };
    this.#observeUnfinished = (result) =>
      result.observe(running().total, attributes);
    this.#observeLongest = (result) =>
      result.observe(running().longest, attributes);
    instruments.depth.addCallback(this.#observeDepth);
    instruments.unfinished.addCallback(this.#observeUnfinished);
    instruments.longest.addCallback(this.#observeLongest);
    instruments.adds.add(0, attributes);
    instruments.retries.add(0, attributes);
  }

  /** A key was added that was not already waiting. */
  added(): void {
    this.#instruments.adds.add(1, this.#attributes);
  }

  /** A key was handed out after waiting `ms`. */
  waited(ms: number): void {
    this.#instruments.queueDuration.record(ms / 1000, this.#attributes);
  }

  /** A key was done after `ms` of work. */
  worked(ms: number): void {
    this.#instruments.workDuration.record(ms / 1000, this.#attributes);
  }

  /** A key was added with a delay (`addAfter`, `addRateLimited`), as client-go counts. */
  retried(): void {
    this.#instruments.retries.add(1, this.#attributes);
  }

  /** The queue is shut down and its work done: its gauges stop reporting. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#release();
    this.#instruments.depth.removeCallback(this.#observeDepth);
    this.#instruments.unfinished.removeCallback(this.#observeUnfinished);
    this.#instruments.longest.removeCallback(this.#observeLongest);
  }
}

// How long a failed key waits before its retry: its own exponential backoff
// and, when set, a token bucket shared by every retry of the queue; the
// longer of the two wins.
//
// Only failures count. A key's count grows by one per `delay()` (one per
// `addRateLimited`), and nothing else touches it: an `add` from an event or
// a requeue-after does not make the next failure wait longer (client-go's
// limiter, combined with other delays, grows faster than exponential when
// they do: kubernetes/kubernetes#132805).

/** Per-key failure counts and the shared bucket, read on the queue's clock. */
class RetryLimiter<K> {
  readonly #limits: RetryLimits;
  readonly #failures = new Map<K, number>();
  #tokens: number;
  #filledAt: number | undefined;

  constructor(limits: RetryLimits) {
    this.#limits = limits;
    this.#tokens = limits.rate?.burst ?? 0;
  }

  /** Counts one more failure of `key`; the delay before its retry. */
  delay(key: K, now: number): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const { baseMs, maxMs } = this.#limits;
    // 2 ** 1100 is Infinity, and Math.min takes it: no overflow to guard.
    const own = Math.min(baseMs * 2 ** failures, maxMs);
    return Math.max(own, this.#reserve(now));
  }

  /** How many failures of `key` are counted (0 after `forget`). */
  failures(key: K): number {
    return this.#failures.get(key) ?? 0;
  }

  /** `key` succeeded: its next failure starts at the first delay again. */
  forget(key: K): void {
    this.#failures.delete(key);
  }

  /**
   * Takes a token, in advance when none is left: the wait until the bucket,
   * refilled at `perSecond`, holds the one taken.
   */
  #reserve(now: number): number {
    const rate = this.#limits.rate;
    if (rate === undefined) return 0;
    const perMs = rate.perSecond / 1000;
    if (this.#filledAt !== undefined) {
      this.#tokens = Math.min(
        rate.burst,
        this.#tokens + (now - this.#filledAt) * perMs,
      );
    }
    this.#filledAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : -this.#tokens / perMs;
  }
}
