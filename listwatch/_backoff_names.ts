import type { BackoffOptions } from "./backoff.ts";

/** The names `BackoffOptions` takes (a record over its keys). */
export const BACKOFF_NAMES: Readonly<Record<keyof BackoffOptions, true>> = {
  initialMs: true,
  maxMs: true,
  factor: true,
  jitter: true,
  resetAfterMs: true,
  clock: true,
  random: true,
};
