/**
 * The trailing "settle" rule of a debounced callback, the alternative to
 * the leading edge: wait until changes stop coming. One `kubectl apply` of
 * an Ingress and the Service it routes to arrives as two events a few
 * milliseconds apart; the leading edge delivers the Ingress alone at once
 * (a render with `(no service)`) and the Service an interval later, while
 * settling delivers both in one call.
 *
 * @module
 */

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
