/**
 * The names `BackoffOptions` takes. `backoff.ts` checks that they are
 * exactly its keys (a name missing here, or one too many, does not compile);
 * this file imports nothing, so the loop reads the names without the class.
 */
export const BACKOFF_NAMES = Object.freeze(
  {
    initialMs: true,
    maxMs: true,
    factor: true,
    jitter: true,
    resetAfterMs: true,
    clock: true,
    random: true,
  } as const,
);
