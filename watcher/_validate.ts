import { optionNamesProblem } from "../_option_names.ts";
import { settleProblem } from "./_settle_problem.ts";
import { IndexerOptionsError } from "../indexer/indexer.ts";
import { WatcherConfigError } from "../config_error.ts";
import { wrapConfigError as wrapOptionError } from "../_validate.ts";
import type { WatcherOptions } from "./watcher_config.ts";

// The checks the loop shares live at the root; the watchers import them here.
export {
  validateDuration,
  validateGvr,
  validateInitialList,
  validatePositive,
} from "../_validate.ts";

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

/**
 * The names `WatcherOptions` takes. Typed as a record over the interface's
 * keys, so a field added to it without being added here does not compile.
 */
const OPTION_NAMES: Record<keyof WatcherOptions, true> = {
  logger: true,
  clock: true,
  random: true,
  idleTimeoutMs: true,
  firstByteTimeoutMs: true,
  meter: true,
  freezeObjects: true,
};

/**
 * Rejects names neither argument of a `kind` watcher knows (`known`: its
 * config's), and names put in the wrong argument, with one error naming
 * every one of them.
 */
export function checkOptionNames(
  kind: string,
  known: Readonly<Record<string, true>>,
  config: object,
  options: object,
): void {
  const problem = optionNamesProblem({
    known,
    value: config,
    type: `${kind} config`,
    place: "the config (the first argument)",
    short: "the config",
  }, {
    known: OPTION_NAMES,
    value: options,
    type: "WatcherOptions",
    place: "the third argument (WatcherOptions)",
  });
  if (problem) throw new WatcherConfigError(problem.field, problem.message);
}
