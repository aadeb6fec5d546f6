import type { Clock } from "../clock.ts";
import { MAX_TIMER_MS } from "../_internal/_option_checks.ts";

interface LruEntry<V> {
  value: V;
  expiresAt: number;
}

/** Options for {@linkcode LruCache}. */
export interface LruCacheOptions {
  /** Most entries kept; the least recently used go first. `0` keeps none. */
  maxEntries: number;
  /** Milliseconds an entry lives after its last access. */
  ttl: number;
  /** Source of time for expiry. */
  clock: Clock;
}

/**
 * A least-recently-used cache whose entries expire `ttl` ms after their last
 * access. Expiry is lazy (checked on access and on insert), so the cache
 * never holds a timer.
 */
export class LruCache<K, V> {
  // Map iteration order is insertion order; re-inserting on every access
  // keeps the least recently used entry first.
  #entries = new Map<K, LruEntry<V>>();
  #maxEntries: number;
  #ttl: number;
  #clock: Clock;

  /**
   * Creates an empty cache.
   *
   * @param options Capacity, time to live and clock.
   */
  constructor(options: LruCacheOptions) {
    const { maxEntries, ttl, clock } = options;
    if (!Number.isInteger(maxEntries) || maxEntries < 0) {
      throw new RangeError(
        `maxEntries must be a non-negative integer but got ${maxEntries}`,
      );
    }
    if (!(ttl >= 0) || ttl === Infinity) {
      throw new RangeError(
        `ttl must be a finite number of milliseconds >= 0 but got ${ttl}`,
      );
    }
    // One limit for every duration option, though this one sets no timer.
    if (ttl > MAX_TIMER_MS) {
      throw new RangeError(
        `ttl must be at most ${MAX_TIMER_MS} ms (2³¹−1) but got ${ttl}`,
      );
    }
    this.#maxEntries = maxEntries;
    this.#ttl = ttl;
    this.#clock = clock;
  }

  /** Number of entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value of a live entry, refreshing its TTL and recency. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    const now = this.#clock.now();
    if (now >= entry.expiresAt) return undefined;
    entry.expiresAt = now + this.#ttl;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** The value of a live entry, leaving its TTL and recency alone. */
  peek(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || this.#clock.now() >= entry.expiresAt) {
      return undefined;
    }
    return entry.value;
  }

  /** Stores a value as the most recently used entry. */
  set(key: K, value: V): void {
    const now = this.#clock.now();
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: now + this.#ttl });
    this.#evict(now);
  }

  /** Drops an entry; returns whether it was there. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
  }

  #evict(now: number): void {
    // The first entry is the least recently accessed, hence the first to
    // expire: drop from the front while over capacity or expired.
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && now < entry.expiresAt) {
        return;
      }
      this.#entries.delete(key);
    }
  }
}
