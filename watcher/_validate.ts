import { settleProblem } from "./debounce_settle.ts";
import { IndexerOptionsError } from "../selection/indexer.ts";
import { WatcherConfigError } from "../config_error.ts";
import { wrapConfigError as wrapOptionError } from "../_internal/_validate.ts";

// The checks the loop shares live at the root; the watchers import them here.
export {
  LOOP_TIMEOUT_NAMES,
  loopTimeoutsOf,
  validateDuration,
  validateGvr,
  validateInitialList,
  validateLoopTimeouts,
  validatePositive,
} from "../_internal/_validate.ts";

/** Default debounce interval of the bulk watcher, as in haptic's Go watcher. */
export const DEFAULT_DEBOUNCE_INTERVAL = 2_000;

/**
 * Checks an optional `settle` option: an object of two durations, the
 * quiet period no longer than the maximum wait.
 */
export function validateSettle(value: unknown): void {
  if (value === undefined) return;
  const problem = settleProblem(value);
  if (problem !== undefined) {
    throw new WatcherConfigError(problem.field, problem.message);
  }
}

/** Checks an optional `skip` option of the single watcher. */
export function validateSkip(value: unknown): void {
  if (value === undefined || value === "statusOnly" || value === "none") return;
  throw new WatcherConfigError(
    "skip",
    `must be "statusOnly" or "none", got ${String(value)}`,
  );
}

/**
 * Checks the single watcher's optional `namespace`: absent for a
 * cluster-scoped object, else a non-empty string. `""` is refused rather
 * than read as "none", so that a namespace computed as empty by mistake is
 * not taken for a cluster-scoped object.
 */
export function validateSingleNamespace(value: unknown): void {
  if (value === undefined || (typeof value === "string" && value !== "")) {
    return;
  }
  throw new WatcherConfigError(
    "namespace",
    `must be a non-empty string, got ${
      typeof value === "string" ? '""' : String(value)
    }; omit it for a cluster-scoped object`,
  );
}

/** Checks that the client looks like a `RestClient`. */
export function validateClient(client: unknown): void {
  const performRequest = (client as { performRequest?: unknown } | null)
    ?.performRequest;
  if (typeof performRequest !== "function") {
    throw new WatcherConfigError(
      "client",
      "must be a RestClient with a performRequest method",
    );
  }
}

/**
 * Rethrows an error of `build` as a config error naming `field`, or the
 * indexer option (`indexBy`, `ignoreFields`) the indexer says was at fault.
 */
export function wrapConfigError<T>(field: string, build: () => T): T {
  return wrapOptionError(field, build, (error) =>
    // The indexer knows whether indexBy or ignoreFields was at fault.
    error instanceof IndexerOptionsError ? error.option : undefined);
}
