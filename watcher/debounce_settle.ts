/**
 * The trailing "settle" rule of a debounced callback, the alternative to
 * the leading edge: wait until changes stop coming. One `kubectl apply` of
 * an Ingress and the Service it routes to arrives as two events a few
 * milliseconds apart; the leading edge delivers the Ingress alone at once
 * (a render with `(no service)`) and the Service an interval later, while
 * settling delivers both in one call. The checks of a `settle` option and
 * of a debounced call's timing, for the watchers, the `DebounceGroup` and the
 * `Debouncer`, are here too (internal).
 *
 * @module
 */
import {
  durationProblem,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { WatcherConfigError } from "../config_error.ts";

/**
 * When a debounced call fires in settle mode (`settle` of
 * `WatcherConfig`, `DebounceGroupOptions` and `DebouncerOptions`, instead
 * of the leading edge's interval). A change starts the wait; every further
 * change starts the quiet period again; the call fires once `quietMs` have
 * passed without a change, or `maxWaitMs` after the first change it
 * carries, whichever comes first, so that steady churn still gets
 * delivered. Calls never overlap: changes made while `onChange` runs wait,
 * and the same rule times them once it has ended (at once when it is
 * already due). The initial-sync batch is still delivered at once,
 * `flush()` fires at once and `stop()` delivers what is pending.
 *
 * Both are milliseconds: positive, at most 2³¹−1 (the longest a timer can
 * wait), and `quietMs` at most `maxWaitMs`. Equal values fire a fixed time
 * after the first change.
 *
 * @example One call for an Ingress and its Service applied together
 * ```ts
 * import type { DebounceSettle, WatcherConfig } from "@haptic/k8s-watcher/watcher";
 *
 * const settle: DebounceSettle = { quietMs: 300, maxWaitMs: 5_000 };
 * const config: WatcherConfig = {
 *   gvr: { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   settle, // instead of debounceInterval
 *   onChange: (store, batch) => console.log(store.size, batch.total),
 * };
 * console.log(config.settle);
 * ```
 */
export interface DebounceSettle {
  /**
   * How long no change may come before the call fires, in ms. Every
   * change starts it again.
   *
   * @example A quarter of a second of quiet
   * ```ts
   * import type { DebounceSettle } from "@haptic/k8s-watcher/watcher";
   *
   * const settle: DebounceSettle = { quietMs: 250, maxWaitMs: 2_000 };
   * console.log(settle.quietMs);
   * ```
   */
  quietMs: number;
  /**
   * The longest a change waits, in ms from the first change of the batch:
   * the call fires then even if changes keep coming. At least `quietMs`.
   *
   * @example Never more than two seconds late
   * ```ts
   * import type { DebounceSettle } from "@haptic/k8s-watcher/watcher";
   *
   * const settle: DebounceSettle = { quietMs: 250, maxWaitMs: 2_000 };
   * console.log(settle.maxWaitMs);
   * ```
   */
  maxWaitMs: number;
}

// The one check of a `settle` option (`DebounceSettle`), for the watchers,
// the `DebounceGroup` and the `Debouncer`, in one wording: each throws a
// `WatcherConfigError` with the field and the message.

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
