/**
 * The one seeded random generator of the tests and the demo (mulberry32):
 * the same seed gives the same numbers, so a run that failed can be run
 * again. Not published (deno.json's `publish.exclude`): no library file
 * imports it.
 *
 * @module
 */

/** Numbers in [0, 1), and the draws the tests make of them, from a seed. */
export class SeededRandom {
  #state: number;

  /** Starts the sequence of `seed` (an integer; taken modulo 2³²). */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next number in [0, 1); bound, so it can be a `random` option. */
  readonly next = (): number => {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  /** An integer from `min` to `max`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One of `items` (not empty). */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The numbers of `seed` in [0, 1), as a function (`random` options take one). */
export function seeded(seed: number): () => number {
  return new SeededRandom(seed).next;
}
