/**
 * `ControllerHealth`: a controller's snapshot for health endpoints.
 *
 * @module
 */
import type { WatcherHealth } from "../watcher/watcher_health.ts";

/**
 * What a controller is doing now: whether its stores are synced, whether
 * it leads, its workers and its queue, and each watcher's health. It is
 * ready once synced, leading or a warm standby.
 *
 * @example Ready, and how busy
 * ```ts
 * import type { ControllerHealth } from "@haptic/k8s-watcher/controller";
 *
 * function describe(health: ControllerHealth): string {
 *   if (!health.synced) return "syncing";
 *   return `${health.workers.active}/${health.workers.max} workers, ${health.queue.waiting} waiting`;
 * }
 * console.log(typeof describe);
 * ```
 */
export interface ControllerHealth {
  /** `"idle"` before `start()`, `"running"`, `"stopped"` once `stop()` began. */
  readonly state: "idle" | "running" | "stopped";
  /** Every watched store has its initial list. */
  readonly synced: boolean;
  /** Whether it leads; undefined without a leader election. */
  readonly leading: boolean | undefined;
  /** Reconciles running now, and the most that may. */
  readonly workers: { readonly active: number; readonly max: number };
  /**
   * Keys waiting to be reconciled, being reconciled, and held back until
   * the cache shows what their last reconcile wrote.
   */
  readonly queue: {
    readonly waiting: number;
    readonly processing: number;
    readonly heldForWrites: number;
  };
  /** Each watcher's health, by store name. */
  readonly watchers: Readonly<Record<string, WatcherHealth>>;
}
