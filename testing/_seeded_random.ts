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

/** A seed that broke rules, and the rules it broke. */
export interface FailedSeed {
  readonly seed: number;
  readonly broken: readonly string[];
}

/**
 * The seeds a property test runs: `<prefix>_SEED=<n>` runs seed n alone,
 * `<prefix>_SEEDS=<count>` seeds 1 to count, else seeds 1 to
 * `defaultCount`.
 */
export function seedsToRun(prefix: string, defaultCount: number): number[] {
  const only = envValue(`${prefix}_SEED`);
  if (only !== undefined) return [Number(only)];
  const count = Number(envValue(`${prefix}_SEEDS`) ?? defaultCount);
  return Array.from({ length: count }, (_, i) => i + 1);
}

/**
 * Throws, when any seed failed, an error that gives, for each failed seed, its
 * replay line (`replay(seed)`) and the first rules the first seeds broke.
 */
export function assertSeedsHeld(
  failed: readonly FailedSeed[],
  total: number,
  replay: (seed: number) => string,
): void {
  if (failed.length === 0) return;
  throw new Error(
    `${failed.length} of ${total} seeds failed; replay each with:\n${
      failed.slice(0, 10).map((f) => `  ${replay(f.seed)}`).join("\n")
    }\n\n${
      failed.slice(0, 3).map((f) =>
        `seed ${f.seed}:\n  ${f.broken.slice(0, 5).join("\n  ")}`
      ).join("\n\n")
    }`,
  );
}

/** An environment variable, or undefined when unset, empty or not allowed. */
function envValue(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}
