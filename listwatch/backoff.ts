import {
  assertOptionNames,
  durationProblem,
} from "../_internal/_option_checks.ts";
import { BACKOFF_NAMES } from "./_backoff_names.ts";
import { type Clock, systemClock } from "../clock.ts";

/** True when `A` and `B` are the same set of names. */
type SameNames<A, B> = [A] extends [B] ? [B] extends [A] ? true : false
  : false;
// Fails to compile when BACKOFF_NAMES and BackoffOptions' keys differ.
const _namesMatch: SameNames<
  keyof typeof BACKOFF_NAMES,
  keyof BackoffOptions
> = true;

/**
 * Options for {@linkcode Backoff}. The defaults are client-go's reflector
 * backoff: 800 ms, doubling, capped at 30 s, reset after 2 healthy minutes.
 *
 * @example Faster retries without jitter
 * ```ts
 * import type { BackoffOptions } from "@haptic/k8s-watcher/listwatch";
 *
 * const options: BackoffOptions = { initialMs: 100, maxMs: 5_000, jitter: 0 };
 * ```
 */
export interface BackoffOptions {
  /**
   * The first delay in milliseconds.
   *
   * @default {800}
   */
  initialMs?: number;
  /**
   * The largest delay in milliseconds.
   *
   * @default {30000}
   */
  maxMs?: number;
  /**
   * How much each delay grows over the previous one.
   *
   * @default {2}
   */
  factor?: number;
  /**
   * The share of each delay that is randomised, from 0 (none) to 1 (full
   * jitter): a delay is drawn uniformly from
   * `[nominal * (1 - jitter), nominal]`.
   *
   * @default {0.2}
   */
  jitter?: number;
  /**
   * How long the guarded operation must have been healthy, in milliseconds,
   * before the next failure starts again from `initialMs`.
   *
   * @default {120000}
   */
  resetAfterMs?: number;
  /**
   * The clock that measures healthy time.
   *
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * A source of numbers in `[0, 1)` for the jitter.
   *
   * @default {Math.random}
   */
  random?: () => number;
}

/**
 * An exponential backoff with jitter for retry loops, as the list-then-watch
 * loop uses between failed requests.
 *
 * The nominal delays are `initialMs`, then `factor` times the previous one,
 * never above `maxMs`. Jitter only ever shortens a delay (each one is drawn
 * from `[nominal * (1 - jitter), nominal]`), so `maxMs` is a hard cap and
 * clients that failed together spread out instead of retrying in step.
 *
 * Success alone does not reset the sequence: a watch that opens and breaks
 * at once would otherwise retry at full speed forever. Call
 * {@linkcode Backoff.markHealthy} when the operation starts working; the
 * next failure starts over from `initialMs` only if it has been healthy for
 * `resetAfterMs` since.
 *
 * @example Doubling delays, reset after healthy time
 * ```ts
 * import { Backoff } from "@haptic/k8s-watcher/listwatch";
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const backoff = new Backoff({ clock, jitter: 0 });
 * assert.deepEqual([backoff.next(), backoff.next(), backoff.next()], [800, 1_600, 3_200]);
 *
 * backoff.markHealthy();
 * await clock.tick(120_000);
 * assert.equal(backoff.next(), 800);
 * ```
 */
export class Backoff {
  #initialMs: number;
  #maxMs: number;
  #factor: number;
  #jitter: number;
  #resetAfterMs: number;
  #clock: Clock;
  #random: () => number;
  #attempt = 0;
  #healthySince: number | undefined;

  /**
   * Creates a backoff at its first step.
   *
   * @example client-go's reflector backoff, or a faster one
   * ```ts
   * import { Backoff } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const standard = new Backoff({ random: () => 0 }); // 800 ms doubling to 30 s
   * assert.equal(standard.next(), 800);
   * const fast = new Backoff({ initialMs: 10, maxMs: 100, factor: 3, jitter: 0 });
   * assert.deepEqual([fast.next(), fast.next(), fast.next()], [10, 30, 90]);
   * assert.throws(() => new Backoff({ jitter: 2 }), RangeError);
   * ```
   *
   * @param options Delays, jitter, reset time, clock and random source.
   * @throws {RangeError} When a delay is not positive or above 2³¹−1 ms
   * (longer than a timer can wait), `maxMs` is below `initialMs`, `factor` is below 1 or `jitter` is outside `[0, 1]`.
   * @throws {TypeError} When `options` has a name it does not take.
   */
  constructor(options?: BackoffOptions) {
    if (options === undefined) options = {};
    assertOptionNames(
      "Backoff options",
      BACKOFF_NAMES,
      options,
      "BackoffOptions",
    );
    this.#initialMs = options.initialMs ?? 800;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#jitter = options.jitter ?? 0.2;
    this.#resetAfterMs = options.resetAfterMs ?? 120_000;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    if (!(this.#initialMs > 0)) {
      throw new RangeError(
        `Backoff initialMs must be positive, got ${this.#initialMs}`,
      );
    }
    if (!(this.#maxMs >= this.#initialMs)) {
      throw new RangeError(
        `Backoff maxMs must be at least initialMs (${this.#initialMs}), got ${this.#maxMs}`,
      );
    }
    // Both are delays: past a timer's limit, they would fire at once.
    for (const field of ["initialMs", "maxMs"] as const) {
      const problem = durationProblem(
        field === "initialMs" ? this.#initialMs : this.#maxMs,
      );
      if (problem !== undefined) {
        throw new RangeError(`Backoff ${field} ${problem}`);
      }
    }
    if (!(this.#factor >= 1)) {
      throw new RangeError(
        `Backoff factor must be at least 1, got ${this.#factor}`,
      );
    }
    if (!(this.#jitter >= 0 && this.#jitter <= 1)) {
      throw new RangeError(
        `Backoff jitter must be between 0 and 1, got ${this.#jitter}`,
      );
    }
    if (!(this.#resetAfterMs >= 0)) {
      throw new RangeError(
        `Backoff resetAfterMs must not be negative, got ${this.#resetAfterMs}`,
      );
    }
  }

  /**
   * Failures counted since the sequence last started over.
   *
   * @example Counting failures
   * ```ts
   * import { Backoff } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const backoff = new Backoff({ jitter: 0 });
   * backoff.next();
   * backoff.next();
   * assert.equal(backoff.attempt, 2);
   * ```
   */
  get attempt(): number {
    return this.#attempt;
  }

  /**
   * Records a failure and returns how long to wait before retrying, in
   * milliseconds. Starts over from `initialMs` first when the operation has
   * been healthy for `resetAfterMs`.
   *
   * @example Delays capped at maxMs
   * ```ts
   * import { Backoff } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const backoff = new Backoff({ initialMs: 1_000, maxMs: 3_000, jitter: 0 });
   * assert.deepEqual([backoff.next(), backoff.next(), backoff.next()], [1_000, 2_000, 3_000]);
   * ```
   *
   * @returns The delay, within `[nominal * (1 - jitter), nominal]`.
   */
  next(): number {
    if (this.#shouldReset()) this.#attempt = 0;
    this.#healthySince = undefined;
    const nominal = this.#nominal(this.#attempt);
    this.#attempt++;
    return Math.round(nominal * (1 - this.#jitter * this.#random()));
  }

  /**
   * Records that the operation works (e.g. a watch stream opened). Only the
   * first call after a failure counts: healthy time runs from then.
   *
   * @example A watch that breaks at once does not reset the delays
   * ```ts
   * import { Backoff } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   * import { FakeClock } from "@haptic/k8s-watcher/testing";
   *
   * const clock = new FakeClock();
   * const backoff = new Backoff({ clock, jitter: 0 });
   * backoff.next(); // 800
   * backoff.markHealthy(); // the stream opened…
   * await clock.tick(10); // …and broke 10 ms later
   * assert.equal(backoff.next(), 1_600);
   * ```
   */
  markHealthy(): void {
    this.#healthySince ??= this.#clock.now();
  }

  /**
   * Starts the sequence over at once.
   *
   * @example Starting over
   * ```ts
   * import { Backoff } from "@haptic/k8s-watcher/listwatch";
   * import assert from "node:assert/strict";
   *
   * const backoff = new Backoff({ jitter: 0 });
   * backoff.next();
   * backoff.next();
   * backoff.reset();
   * assert.equal(backoff.next(), 800);
   * ```
   */
  reset(): void {
    this.#attempt = 0;
    this.#healthySince = undefined;
  }

  #shouldReset(): boolean {
    return this.#healthySince !== undefined &&
      this.#clock.now() - this.#healthySince >= this.#resetAfterMs;
  }

  #nominal(attempt: number): number {
    // Computed from the attempt count rather than accumulated, so a long
    // outage cannot overflow and the cap holds exactly.
    return Math.min(
      this.#maxMs,
      this.#initialMs * Math.pow(this.#factor, attempt),
    );
  }
}
