import type {
  ListWatchCounts,
  ListWatchFailure,
} from "../listwatch/list_watch_types.ts";
import type { ShardHealth } from "./shard_filter.ts";

/**
 * A snapshot of a watcher's state, for health endpoints: the same for the
 * bulk `Watcher` and the `SingleWatcher`. The counts are its loops'
 * ({@linkcode ListWatchCounts}, added up over `namespaces`).
 *
 * @example A readiness check
 * ```ts
 * import type { WatcherHealth } from "@haptic/k8s-watcher";
 *
 * function healthy(h: WatcherHealth, now: number): boolean {
 *   return h.state === "running" && h.synced &&
 *     (h.lastError === undefined || now - h.lastError.time > 60_000);
 * }
 * ```
 */
export interface WatcherHealth extends ListWatchCounts {
  /**
   * `"idle"` before `start()`, `"running"` from then until `stop()` (or
   * the start signal's abort), `"stopped"` from then on.
   */
  readonly state: "idle" | "running" | "stopped";
  /** The initial list is in and the watcher is not stopped. */
  readonly synced: boolean;
  /** The last resourceVersion seen (list, event or bookmark). */
  readonly resourceVersion: string | undefined;
  /** Objects held: in the store, or 0 or 1 for a `SingleWatcher`. */
  readonly objects: number;
  /** When the last watch event arrived, on the watcher's clock. */
  readonly lastEventTime: number | undefined;
  /**
   * When the loop last made progress, on the watcher's clock: the last
   * watch event or bookmark, LIST page (a completed list included) or
   * opened watch; with `namespaces`, the latest of any namespace's loop.
   * `undefined` until the first. A running loop shows progress at least
   * once per `idleTimeoutMs` (a silent watch is resumed), so one silent
   * for twice that is wedged (see `@haptic/k8s-watcher/health`).
   */
  readonly lastActivityTime: number | undefined;
  /**
   * When the loop's latest wait before a retry (a backoff, a server's
   * `Retry-After`) ends or ended, on the watcher's clock; with
   * `namespaces`, the latest of any namespace's loop. A loop waiting is not
   * silent, however long the wait.
   */
  readonly retryAt?: number | undefined;
  /**
   * A `Watcher`'s delivery to its own `onChange` (absent for a
   * `SingleWatcher`, whose loop waits for each call, and for a member of a
   * `DebounceGroup`): a hung callback shows as a call running for long
   * while changes wait, and `/healthz` fails it as it fails a wedged loop.
   */
  readonly delivery?: WatcherDelivery;
  /** The loop's idle timeout (`idleTimeoutMs` or its default), in ms. */
  readonly idleTimeoutMs: number;
  /** The last failure the loop retried, and when. */
  readonly lastError: ListWatchFailure | undefined;
  /**
   * Whether the watcher's stream is shared: `{ consumers }` counts the
   * running watchers reading it (1 when this one is alone in its form),
   * `false` when it cannot be: `shared: false`, a `store` that is not
   * shareable (`cachedStore()`), or a `SingleWatcher`. Watchers share when
   * they run on the same client object and ask for the same objects in the
   * same form (see `WatcherConfig.shared`).
   */
  readonly shared: { readonly consumers: number } | false;
  /**
   * A sharded watcher's (`shard`): who filters (`mode`: the API server, or
   * the watcher itself), the selector, what was dropped as another shard's
   * (`skipped`) or given up when the shard changed (`released`).
   */
  readonly shard?: ShardHealth | undefined;
  /**
   * Why `shared` is `false`: `"shared: false"`, `"store: <name>"` (the
   * factory's name: `"store: cached"`), or the class name of a kind of
   * watcher that never shares, which reads its own loop (`"SingleWatcher"`).
   * Absent when the watcher can share.
   */
  readonly notShared?:
    | "shared: false"
    | `store: ${string}`
    | `${string}Watcher`;
  /**
   * With `namespaces`, each namespace's loop: listed once, its
   * resourceVersion (`resourceVersion` above is then undefined) and its
   * last failure. Absent with one namespace (or all).
   */
  readonly namespaces?: Readonly<
    Record<string, {
      readonly synced: boolean;
      readonly resourceVersion: string | undefined;
      readonly lastError: ListWatchFailure | undefined;
      readonly lastActivityTime: number | undefined;
      readonly retryAt?: number | undefined;
    }>
  >;
}

/**
 * How far a `Watcher`'s delivery to its `onChange` has got
 * (`health().delivery`), on the watcher's clock.
 *
 * @example A callback that has been running for over a minute
 * ```ts
 * import type { WatcherDelivery } from "@haptic/k8s-watcher/watcher";
 *
 * function slowCallback(d: WatcherDelivery, now: number): boolean {
 *   return d.callbackRunningSince !== undefined &&
 *     now - d.callbackRunningSince > 60_000 && d.undelivered > 0;
 * }
 * ```
 */
export interface WatcherDelivery {
  /** Objects with a change waiting for the next call. */
  readonly undelivered: number;
  /**
   * When the oldest change not yet delivered (waiting, or in the call
   * running) was recorded; `undefined` when none is.
   */
  readonly oldestUndeliveredTime: number | undefined;
  /** When the `onChange` call running now started; `undefined` when none runs. */
  readonly callbackRunningSince: number | undefined;
}
