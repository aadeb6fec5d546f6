/**
 * client-go's spam filter for Events: a token bucket per key (the reporter,
 * the object and the Event's type), full at first, holding `burst` tokens
 * and refilled by one every `refillMs`. The buckets are kept in use order
 * and at most {@linkcode MAX_BUCKETS} of them, as client-go keeps 4096 in an
 * LRU cache: a bucket forgotten is a full one again.
 *
 * @module
 */

/** client-go's LRU size for its spam filter and its Event caches. */
export const MAX_BUCKETS = 4096;

/** The buckets of one recorder. */
export class EventSpamFilter {
  readonly #burst: number;
  readonly #refillMs: number;
  /**
   * Each bucket as the time it is full again: at `now` it lacks
   * `(fullAt - now) / refillMs` tokens. Exact in whole milliseconds, where
   * adding fractions of a token would not be.
   */
  readonly #fullAt = new Map<string, number>();

  constructor(burst: number, refillMs: number) {
    this.#burst = burst;
    this.#refillMs = refillMs;
  }

  /** How many buckets are kept. */
  get size(): number {
    return this.#fullAt.size;
  }

  /** Takes a token of `key`'s bucket at `now`; false when it has none. */
  take(key: string, now: number): boolean {
    const lacking = Math.max(0, (this.#fullAt.get(key) ?? now) - now);
    // Most recently used last: the first one is the one to forget.
    this.#fullAt.delete(key);
    const allowed = lacking <= (this.#burst - 1) * this.#refillMs;
    this.#fullAt.set(key, now + lacking + (allowed ? this.#refillMs : 0));
    if (this.#fullAt.size > MAX_BUCKETS) {
      this.#fullAt.delete(this.#fullAt.keys().next().value!);
    }
    return allowed;
  }

  /** Forgets the buckets that are full again: they hold nothing to keep. */
  prune(now: number): void {
    for (const [key, fullAt] of this.#fullAt) {
      if (fullAt <= now) this.#fullAt.delete(key);
    }
  }
}
