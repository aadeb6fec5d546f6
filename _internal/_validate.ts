/**
 * The option checks the loop and the watchers share, each throwing a
 * `WatcherConfigError` naming the option.
 *
 * @module
 */
import type { Gvr } from "../types.ts";
import { durationProblem } from "./_duration.ts";
import { WatcherConfigError } from "../config_error.ts";

/**
 * What a gvr is, for one that is missing or not an object: a resource name
 * alone (`"ingresses"`) is the likely mistake, and "is required" would not
 * say what to give instead.
 */
const GVR_SHAPE =
  'must be an object { group, version, resource } (e.g. { group: "networking.k8s.io", version: "v1", resource: "ingresses" }; group "" for the core group)';

/** Checks the `gvr` the loop and both watchers take. */
export function validateGvr(gvr: Gvr | undefined): void {
  if (!gvr || typeof gvr !== "object" || Array.isArray(gvr)) {
    throw new WatcherConfigError(
      "gvr",
      `${GVR_SHAPE}, got ${
        typeof gvr === "string" ? JSON.stringify(gvr) : String(gvr)
      }`,
    );
  }
  if (typeof gvr.resource !== "string" || gvr.resource === "") {
    throw new WatcherConfigError("gvr.resource", "must be a non-empty string");
  }
  if (typeof gvr.version !== "string" || gvr.version === "") {
    throw new WatcherConfigError("gvr.version", "must be a non-empty string");
  }
  if (typeof gvr.group !== "string") {
    throw new WatcherConfigError(
      "gvr.group",
      'must be a string ("" for the core group)',
    );
  }
}

/** Checks that an optional number option is a positive finite number. */
export function validatePositive(
  field: string,
  value: unknown,
  options: { integer?: boolean } = {},
): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new WatcherConfigError(
      field,
      `must be a positive number, got ${String(value)}`,
    );
  }
  if (options.integer && !Number.isInteger(value)) {
    throw new WatcherConfigError(
      field,
      `must be a positive integer, got ${String(value)}`,
    );
  }
}

/**
 * Checks that an optional duration option, which sets a timer, is a
 * positive number of milliseconds a timer can wait (at most 2³¹−1).
 */
export function validateDuration(field: string, value: unknown): void {
  if (value === undefined) return;
  const problem = durationProblem(value);
  if (problem !== undefined) throw new WatcherConfigError(field, problem);
}

/**
 * The names of the loop's timeouts (`ListWatchTimeouts`), in the order they
 * are checked: the one list both the loop and the watchers above it read.
 * A watcher takes them in its `WatcherOptions`, checks them here as the
 * loop does, hands them to its loops as they are and compares them, in its
 * form, by this list: a timeout added to the loop needs nothing there.
 */
export const LOOP_TIMEOUTS = ["idleTimeoutMs", "firstByteTimeoutMs"] as const;

/** The name of one of the loop's timeouts. */
export type LoopTimeout = typeof LOOP_TIMEOUTS[number];

/** The loop's timeouts as a plan holds them: each present, `undefined` when not given. */
export type LoopTimeoutValues = {
  readonly [K in LoopTimeout]: number | undefined;
};

/** The loop's timeouts as names an options object takes (`optionNamesProblem`'s `known`). */
export const LOOP_TIMEOUT_NAMES: Readonly<Record<LoopTimeout, true>> = Object
  .freeze(
    Object.fromEntries(LOOP_TIMEOUTS.map((name) => [name, true])) as Record<
      LoopTimeout,
      true
    >,
  );

/** Checks the loop's timeouts of `options`, each an optional duration. */
export function validateLoopTimeouts(
  options: { readonly [K in LoopTimeout]?: unknown },
): void {
  for (const name of LOOP_TIMEOUTS) validateDuration(name, options[name]);
}

/** The loop's timeouts of `options` (checked), to pass on as they are. */
export function loopTimeoutsOf(
  options: { readonly [K in LoopTimeout]?: number | undefined },
): LoopTimeoutValues {
  return Object.fromEntries(
    LOOP_TIMEOUTS.map((name) => [name, options[name]]),
  ) as Record<LoopTimeout, number | undefined>;
}

/** Checks an optional `initialList` option. */
export function validateInitialList(value: unknown): void {
  if (value === undefined || value === "list" || value === "stream") return;
  throw new WatcherConfigError(
    "initialList",
    `must be "list" or "stream", got ${String(value)}`,
  );
}

/**
 * Rethrows an error of `build` as a config error naming `field`, or the
 * option `optionOf` finds in the error.
 */
export function wrapConfigError<T>(
  field: string,
  build: () => T,
  optionOf: (error: unknown) => string | undefined = () => undefined,
): T {
  try {
    return build();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new WatcherConfigError(optionOf(error) ?? field, message, {
      cause: error,
    });
  }
}
