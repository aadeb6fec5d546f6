/**
 * The options of a `WorkQueue`.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";

/**
 * How a `WorkQueue` runs. Every field is optional.
 *
 * @example A named queue with a retry budget
 * ```ts
 * import { type WorkQueueOptions, WorkQueue } from "@haptic/k8s-watcher/controller";
 *
 * const options: WorkQueueOptions = {
 *   name: "widgets",
 *   backoff: { baseMs: 10, maxMs: 60_000 },
 *   retryRateLimit: { perSecond: 10, burst: 100 },
 * };
 * await using _queue = new WorkQueue<string>(options);
 * ```
 */
export interface WorkQueueOptions {
  /** The queue's `name` label on its metrics and its name in errors [`""`]. */
  name?: string;
  /**
   * Timers and `now()` [the system's timers, a monotonic `now()`]; a
   * `FakeClock` drives the whole queue in tests.
   */
  clock?: Clock;
  /** Where its `workqueue_*` metrics go [none]. */
  meter?: Meter;
  /**
   * A failed key's retry delay (`addRateLimited`): `baseMs` doubling per
   * failure up to `maxMs` [5 ms to 1,000,000 ms, client-go's], reset by
   * `forget`.
   */
  backoff?: { baseMs?: number; maxMs?: number };
  /**
   * A budget shared by every retry of the queue, as a token bucket: at most
   * `burst` at once, refilled at `perSecond` [none: only each key's own
   * backoff]. A retry waits for the longer of the two.
   */
  retryRateLimit?: { perSecond: number; burst: number };
  /**
   * How long a low-priority key (an initial list's, a resync's) waits behind
   * live ones before it takes turns with them [5000 ms].
   */
  agingMs?: number;
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
