/**
 * What a `ShardRing` is made from: its config (the ring, this replica, the
 * timings, the hand-off hook) and its options (clock, logger, meter).
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { Awaitable, Logger } from "../types.ts";
import type { ShardBy, ShardRange } from "./shard_range.ts";

/**
 * The ring as this replica sees it at one moment: passed to
 * {@linkcode ShardRingConfig.onChange} and returned by `ShardRing.state`.
 *
 * @example Logging a change
 * ```ts
 * import type { ShardRingState } from "@haptic/k8s-watcher/sharding";
 *
 * function describe(state: ShardRingState): string {
 *   return `${state.members.length} members, working ${state.permitted.length} range(s)`;
 * }
 * describe({ members: ["a", "b"], assigned: [], permitted: [] });
 * ```
 */
export interface ShardRingState {
  /** The live members, sorted: the view the assignment is computed from. */
  readonly members: readonly string[];
  /**
   * This replica's ranges in that view: the objects it will own once the
   * hand-off is over (what a watcher should keep in its cache).
   */
  readonly assigned: readonly ShardRange[];
  /**
   * The ranges it may work on now (reconcile, write): never a range another
   * live replica may work on. Empty while it holds no Lease.
   */
  readonly permitted: readonly ShardRange[];
}

/**
 * A shard ring's config: the ring's name and where its Leases live, this
 * replica's identity, and the hook the hand-off waits for.
 *
 * @example Three replicas of one controller
 * ```ts
 * import type { ShardRingConfig } from "@haptic/k8s-watcher/sharding";
 *
 * const config: ShardRingConfig = {
 *   name: "widgets",
 *   namespace: "shop",
 *   identity: "widgets-7d9f-abcde", // the pod's name
 *   onChange: (state) => console.log(state.permitted),
 * };
 * ```
 */
export interface ShardRingConfig {
  /**
   * The ring's name: the value of the `k8s-watcher.haptic.dev/ring` label
   * on its members' Leases, and their names' prefix. At most 63 characters.
   */
  name: string;
  /** The namespace of the members' Leases. */
  namespace: string;
  /**
   * This replica's identity, unique in the ring (a pod's name). Its Lease is
   * named `<name>-<identity>`.
   */
  identity: string;
  /** The field objects are hashed by; `"uid"` by default. */
  by?: ShardBy;
  /** How long a member's Lease holds without a renewal (default 15 s). */
  leaseDurationMs?: number;
  /**
   * How long a member keeps working without a successful renewal (default
   * 10 s): after that it works on nothing until it renews again.
   */
  renewDeadlineMs?: number;
  /** How often a member renews and reads the ring (default 2 s). */
  retryPeriodMs?: number;
  /**
   * Called whenever {@linkcode ShardRingState.permitted} or the view
   * changes. When ranges are taken away, the ring acknowledges the new view
   * (and lets other replicas take them) only once the returned promise has
   * resolved: stop or finish the work on the keys that leave before that.
   */
  onChange?: (state: ShardRingState) => Awaitable<void>;
}

/**
 * A shard ring's collaborators.
 *
 * @example On a fake clock, with a silent logger
 * ```ts
 * import type { ShardRingOptions } from "@haptic/k8s-watcher/sharding";
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 * import { silentLogger } from "@haptic/k8s-watcher";
 *
 * const options: ShardRingOptions = { clock: new FakeClock(), logger: silentLogger };
 * ```
 */
export interface ShardRingOptions {
  /** Timers and time; the monotonic clock by default. */
  clock?: Clock;
  /** Where the ring's log lines go; the console by default. */
  logger?: Logger;
  /** The ring's metrics; the client's meter by default. */
  meter?: Meter;
  /** Jitter of the renewal period, in `[0, 1)`; `Math.random` by default. */
  random?: () => number;
}
