/**
 * The one check of a `settle` option (`DebounceSettle`), for the watchers,
 * the `DebounceGroup` and the `Debouncer`, in one wording: each throws a
 * `WatcherConfigError` with the field and the message.
 *
 * @module
 */
import {
  durationProblem,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { WatcherConfigError } from "../config_error.ts";
import type { DebounceSettle } from "./debounce_settle.ts";

/** What is wrong with a `settle` option. */
export interface SettleProblem {
  /** The option at fault: `settle`, `settle.quietMs`, `settle.maxWaitMs`, or unknown names. */
  readonly field: string;
  /** Why, worded to follow the field ("must be …"). */
  readonly message: string;
}

/** The names `DebounceSettle` takes (a record over its keys). */
const SETTLE_NAMES: Record<keyof DebounceSettle, true> = {
  quietMs: true,
  maxWaitMs: true,
};

/** What is wrong with `value` as a `settle` option; undefined when nothing is. */
export function settleProblem(value: unknown): SettleProblem | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      field: "settle",
      message: `must be an object { quietMs, maxWaitMs }, got ${
        Array.isArray(value) ? "an array" : String(value)
      }`,
    };
  }
  const names = optionNamesProblem({
    known: SETTLE_NAMES,
    value,
    type: "DebounceSettle",
    prefix: "settle.",
  });
  if (names !== undefined) return names;
  const { quietMs, maxWaitMs } = value as DebounceSettle;
  for (const [name, ms] of [["quietMs", quietMs], ["maxWaitMs", maxWaitMs]]) {
    const problem = durationProblem(ms);
    if (problem !== undefined) {
      return { field: `settle.${name}`, message: problem };
    }
  }
  if (quietMs > maxWaitMs) {
    return {
      field: "settle.maxWaitMs",
      message:
        `must be at least settle.quietMs (${quietMs} ms), got ${maxWaitMs}`,
    };
  }
  return undefined;
}

/** How a `Debouncer` or `DebounceGroup` times its calls: checked options. */
export interface DebounceTiming {
  /** The leading edge's refractory period; 0 with `settle`. */
  readonly interval: number;
  /** Settle mode, when given. */
  readonly settle: DebounceSettle | undefined;
}

/**
 * Checks `interval` xor `settle` of a `Debouncer` or `DebounceGroup`, in
 * the watchers' words: `Invalid watcher config: settle.quietMs: must be …`.
 *
 * @throws {WatcherConfigError} Naming the option.
 */
export function debounceTiming(
  options: { readonly interval?: number; readonly settle?: DebounceSettle },
): DebounceTiming {
  const { interval, settle } = options;
  if (settle === undefined) {
    const problem = durationProblem(interval);
    if (problem !== undefined) {
      throw new WatcherConfigError("interval", problem);
    }
    return { interval: interval!, settle: undefined };
  }
  if (interval !== undefined) {
    throw new WatcherConfigError(
      "interval",
      "is not allowed with settle: settle's quietMs and maxWaitMs time the calls",
    );
  }
  const problem = settleProblem(settle);
  if (problem !== undefined) {
    throw new WatcherConfigError(problem.field, problem.message);
  }
  return { interval: 0, settle };
}
