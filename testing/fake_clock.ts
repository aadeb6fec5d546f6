import type { Clock, TimerHandle } from "../clock.ts";

interface PendingTimer {
  handle: number;
  due: number;
  fn: () => void;
}

/**
 * A {@linkcode Clock} whose time moves only when a test says so. Timers fire
 * in due order during {@linkcode FakeClock.tick}, and pending promise chains
 * get to run between them, so a test can drive the watchers step by step
 * without sleeping.
 *
 * @example Timers fire when the clock is ticked
 * ```ts
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock({ now: 1_000 });
 * let fired = 0;
 * clock.setTimeout(() => fired++, 500);
 * await clock.tick(499);
 * assert.equal(fired, 0);
 * await clock.tick(1);
 * assert.equal(fired, 1);
 * assert.equal(clock.now(), 1_500);
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #nextHandle = 1;
  #timers = new Map<unknown, PendingTimer>();

  /**
   * Creates a clock at `options.now` (default 0).
   *
   * @example Starting at a given time
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new FakeClock().now(), 0);
   * assert.equal(new FakeClock({ now: Date.parse("2025-01-01") }).now(), 1735689600000);
   * ```
   *
   * @param options Where time starts.
   */
  constructor(options?: { now?: number }) {
    this.#now = options?.now ?? 0;
  }

  /**
   * The current fake time in milliseconds.
   *
   * @example Time moves only when ticked
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * await clock.tick(1_500);
   * assert.equal(clock.now(), 1_500);
   * ```
   */
  now(): number {
    return this.#now;
  }

  /**
   * Schedules `fn` at `now() + ms` (negative and NaN delays count as zero).
   *
   * @example A timer on fake time
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * let fired = false;
   * clock.setTimeout(() => fired = true, 100);
   * await clock.tick(100);
   * assert.equal(fired, true);
   * ```
   */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = this.#nextHandle++;
    this.#timers.set(handle, {
      handle,
      // NaN would make the timer due at every tick and time itself NaN.
      due: this.#now + (ms > 0 ? ms : 0),
      fn,
    });
    return handle;
  }

  /**
   * Cancels a pending timer.
   *
   * @example A cancelled timer never fires
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * let fired = false;
   * const handle = clock.setTimeout(() => fired = true, 100);
   * clock.clearTimeout(handle);
   * await clock.tick(1_000);
   * assert.equal(fired, false);
   * ```
   */
  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle);
  }

  /**
   * How many timers are pending.
   *
   * @example Checking that code left no timer behind
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * clock.setTimeout(() => {}, 10);
   * assert.equal(clock.pendingTimers, 1);
   * await clock.tick(10);
   * assert.equal(clock.pendingTimers, 0);
   * ```
   */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * When the earliest pending timer is due, or `undefined` when none is.
   *
   * @example When the next timer is due
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * assert.equal(clock.nextDue, undefined);
   * clock.setTimeout(() => {}, 300);
   * clock.setTimeout(() => {}, 200);
   * assert.equal(clock.nextDue, 200);
   * await clock.runAll();
   * ```
   */
  get nextDue(): number | undefined {
    let next: number | undefined;
    for (const t of this.#timers.values()) {
      if (next === undefined || t.due < next) next = t.due;
    }
    return next;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way
   * in order, and letting promise chains settle after each one.
   *
   * @example Timers fire in order, promise chains settle between them
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * const order: string[] = [];
   * clock.setTimeout(() => order.push("b"), 20);
   * clock.setTimeout(() => Promise.resolve().then(() => order.push("a then")), 10);
   * await clock.tick(30);
   * assert.deepEqual(order, ["a then", "b"]);
   * ```
   *
   * @param ms How far to move.
   * @throws {RangeError} When `ms` is negative or not finite: time never
   * goes back, and NaN would fire every pending timer at once.
   */
  async tick(ms: number): Promise<void> {
    if (!(ms >= 0 && Number.isFinite(ms))) {
      throw new RangeError(
        `FakeClock.tick needs a finite, non-negative number of milliseconds, got ${ms}`,
      );
    }
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#earliestDueBy(target);
      if (!next) break;
      this.#timers.delete(next.handle);
      this.#now = Math.max(this.#now, next.due);
      next.fn();
      await settle();
    }
    this.#now = target;
    await settle();
  }

  /**
   * Fires timers one after another (moving time to each) until none is
   * pending or `maxTimers` have fired; for code that should go quiet.
   *
   * @example Until the code goes quiet
   * ```ts
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const clock = new FakeClock();
   * let retries = 0;
   * const retry = () => {
   *   if (++retries < 3) clock.setTimeout(retry, 1_000 * retries);
   * };
   * clock.setTimeout(retry, 0);
   * assert.equal(await clock.runAll(), 3);
   * assert.equal(clock.now(), 3_000);
   * ```
   *
   * @param maxTimers Guard against code that reschedules forever.
   * @returns How many timers fired.
   */
  async runAll(maxTimers?: number): Promise<number> {
    if (maxTimers === undefined) maxTimers = 10_000;
    let fired = 0;
    while (fired < maxTimers) {
      const due = this.nextDue;
      if (due === undefined) break;
      await this.tick(Math.max(0, due - this.#now));
      fired++;
    }
    return fired;
  }

  #earliestDueBy(target: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.#timers.values()) {
      if (t.due > target) continue;
      if (
        !best || t.due < best.due ||
        (t.due === best.due && t.handle < best.handle)
      ) {
        best = t;
      }
    }
    return best;
  }
}

/**
 * Lets pending promise chains (and in-process streams) run: a few turns of
 * the real event loop. This yields; it does not wait for time to pass.
 *
 * @example Letting resolved promises run
 * ```ts
 * import { settle } from "@haptic/k8s-watcher/testing";
 *
 * let done = false;
 * Promise.resolve().then(() => done = true);
 * await settle();
 * console.log(done); // true
 * ```
 *
 * @param turns How many event-loop turns to yield.
 */
export async function settle(turns?: number): Promise<void> {
  if (turns === undefined) turns = 3;
  for (let i = 0; i < turns; i++) {
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}

/**
 * Yields event-loop turns until `predicate` holds; throws after `maxTurns`
 * with `description` so a failing test says what it waited for.
 *
 * @example Waiting for a condition
 * ```ts
 * import { waitFor } from "@haptic/k8s-watcher/testing";
 *
 * let ready = false;
 * setTimeout(() => ready = true, 0);
 * await waitFor(() => ready, { description: "ready flag" });
 * ```
 *
 * @param predicate The condition to wait for.
 * @param options `maxTurns` (default 1000) and a `description` for the error.
 */
export async function waitFor(
  predicate: () => boolean,
  options?: { maxTurns?: number; description?: string },
): Promise<void> {
  const maxTurns = options?.maxTurns ?? 1000;
  for (let i = 0; i < maxTurns; i++) {
    if (predicate()) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
  if (predicate()) return;
  throw new Error(
    `Condition not reached after ${maxTurns} event-loop turns: ${
      options?.description ?? predicate.toString()
    }`,
  );
}
