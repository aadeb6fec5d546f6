/**
 * How long a failed key waits before its retry: its own exponential backoff
 * and, when set, a token bucket shared by every retry of the queue; the
 * longer of the two wins.
 *
 * Only failures count. A key's count grows by one per `delay()` (one per
 * `addRateLimited`), and nothing else touches it: an `add` from an event or
 * a requeue-after does not make the next failure wait longer (client-go's
 * limiter, combined with other delays, grows faster than exponential when
 * they do: kubernetes/kubernetes#132805).
 *
 * @module
 */

/** The settings, as checked by the queue's plan. */
export interface RetryLimits {
  /** The first retry's delay. */
  readonly baseMs: number;
  /** The longest delay. */
  readonly maxMs: number;
  /** The shared bucket: retries per second, and how many may go at once. */
  readonly rate?: { readonly perSecond: number; readonly burst: number };
}

/** Per-key failure counts and the shared bucket, read on the queue's clock. */
export class RetryLimiter<K> {
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
