/**
 * The checks options go through, each worded once.
 *
 * Names: every options object is checked for the names it does not take (a
 * typo such as `tokn`, or an option of another component), refused all at
 * once, in the same words everywhere. A name silently ignored is a setting
 * silently not applied: a `tokn` meant as the token sends no token.
 *
 * Each component throws its own error class with the result, so the
 * message reads `Invalid <what>: <names>: <why>`:
 * `Invalid FetchClient config: tokn: is not a FetchClientConfig option (did you mean token?)`.
 *
 * Values: every duration and count option goes through
 * {@linkcode durationProblem} and {@linkcode countProblem}. The option
 * checks the loop and the watchers share (`gvr`, sizes, durations,
 * `initialList`, the loop's timeouts) follow, each throwing a
 * `WatcherConfigError` naming the option.
 *
 * @module
 */
import type { Gvr } from "../types.ts";
import { WatcherConfigError } from "../config_error.ts";

/** One argument that takes options, as the check names it. */
export interface OptionArgument {
  /** The names it takes: a record over the options interface's keys, so a field added there and not here does not compile. */
  readonly known: Readonly<Record<string, true>>;
  /** What was passed. Anything but a plain object is left to the caller. */
  readonly value: unknown;
  /** Its type, as in "is not a <type> option": `FetchClientConfig`. */
  readonly type: string;
  /** Where a name of it belongs, for one put in another argument: `the second argument (FetchClientOptions)`. */
  readonly place?: string;
  /** How "not in …" names it: `the config`. Defaults to `type`. */
  readonly short?: string;
  /** Put before each name reported: `exec.` for a nested object. */
  readonly prefix?: string;
}

/** What was wrong: the field (every name, comma-separated) and why. */
export interface OptionNamesProblem {
  /** The offending names, joined with `, `. */
  readonly field: string;
  /** Why, one clause per name when there are several. */
  readonly message: string;
}

/**
 * The names no argument takes, or that belong in another argument; the
 * arguments of one call are checked together so that a name put in the
 * wrong one says where it goes.
 */
export function optionNamesProblem(
  ...args: readonly OptionArgument[]
): OptionNamesProblem | undefined {
  const problems: [name: string, why: string][] = [];
  for (const arg of args) {
    if (arg.value === null || typeof arg.value !== "object") continue;
    for (const name of Object.keys(arg.value)) {
      if (Object.hasOwn(arg.known, name)) continue;
      const home = args.find((other) =>
        other !== arg && other.place !== undefined &&
        Object.hasOwn(other.known, name)
      );
      problems.push([
        (arg.prefix ?? "") + name,
        home
          ? `belongs in ${home.place}, not in ${arg.short ?? arg.type}`
          : notAnOption(name, arg.type, Object.keys(arg.known)),
      ]);
    }
  }
  if (problems.length === 0) return undefined;
  if (problems.length === 1) {
    return { field: problems[0][0], message: problems[0][1] };
  }
  return {
    field: problems.map(([name]) => name).join(", "),
    message: problems.map(([name, why]) => `${name} ${why}`).join("; "),
  };
}

/**
 * The message of a component whose error carries no field:
 * `Invalid <what>: <field>: <message>`, the shape of the watchers' and the
 * elector's errors.
 */
export function invalidOptionsMessage(
  what: string,
  problem: OptionNamesProblem,
): string {
  return `Invalid ${what}: ${problem.field}: ${problem.message}`;
}

/**
 * Throws a `TypeError` naming what `value` does not take, for components
 * whose errors carry no field (`Invalid MemoryStore options: …`).
 */
export function assertOptionNames(
  what: string,
  known: Readonly<Record<string, true>>,
  value: unknown,
  type: string,
): void {
  const problem = optionNamesProblem({ known, value, type });
  if (problem) throw new TypeError(invalidOptionsMessage(what, problem));
}

/** `is not a <type> option` (or an), with the known name it most likely meant. */
function notAnOption(
  name: string,
  type: string,
  known: readonly string[],
): string {
  const meant = closest(name, known);
  const article = /^[aeiou]/i.test(type) ? "an" : "a";
  return `is not ${article} ${type} option${
    meant === undefined ? "" : ` (did you mean ${meant}?)`
  }`;
}

/**
 * The known name `name` differs from only in case, or by one edit (two
 * from eight characters on; none below three): `tokn` → `token`,
 * `indexby` → `indexBy`, `arg` → `args`. The first of equally close names
 * wins.
 */
function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const allowed = name.length < 3 ? 0 : name.length < 8 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === lower
      ? 0
      : editDistance(lower, candidate.toLowerCase());
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbours as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[i].push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        rows[i - 1][j] + 1,
        rows[i][j - 1] + 1,
        rows[i - 1][j - 1] + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2][j - 2] + 1);
      }
      rows[i].push(d);
    }
  }
  return rows[a.length][b.length];
}

/**
 * The longest delay a timer can wait, in ms (2³¹−1, about 24.8 days).
 * Deno, Node and Bun keep a timer's delay in a signed 32-bit integer: asked
 * for more, `setTimeout` warns (`TimeoutOverflowWarning`) and fires after
 * 1 ms, so a debounce interval of 3e9 ms would fire at every change.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The idle timeout of a loop not given one: 3 minutes, in ms. Here because
 * the watcher, above the loop, names it too (in its form and its health).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;

/**
 * What is wrong with a duration option that sets a timer, worded to follow
 * the option's name ("must be …"); undefined when it is a positive finite
 * number of milliseconds no longer than {@linkcode MAX_TIMER_MS}. Every
 * component words its own error around it (its own error type).
 */
export function durationProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    return `must be a positive number of milliseconds, got ${String(value)}`;
  }
  if (value > MAX_TIMER_MS) {
    return `must be at most ${MAX_TIMER_MS} ms (2³¹−1), got ${value}`;
  }
  return undefined;
}

/**
 * What is wrong with a count option (a burst, a limit, a concurrency),
 * worded as {@linkcode durationProblem}'s; undefined when it is a whole
 * number of at least 1.
 */
export function countProblem(value: unknown): string | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 1
    ? undefined
    : `must be a positive whole number, got ${String(value)}`;
}

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
