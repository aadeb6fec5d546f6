/**
 * What a `ShardRing` is made from: its config (the ring, this replica, the
 * timings, the hand-off hook) and its options (clock, logger, meter), and
 * `ShardRingConfigError`, the first wrong one. Then the hash ranges a ring
 * hands out (`ShardRange`, `ShardBy`) and `shardSelector`, how the API
 * server is asked for them.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { Awaitable, Logger } from "../types.ts";

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

/**
 * Thrown when a `ShardRing`'s config or options are wrong; the message
 * names the option and what was wrong with it, and
 * {@linkcode ShardRingConfigError.field} holds its path.
 *
 * @example A ring without a name
 * ```ts
 * import { ShardRing, ShardRingConfigError } from "@haptic/k8s-watcher/sharding";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * assert.throws(
 *   () => new ShardRing({ name: "", namespace: "shop", identity: "pod-1" }, client),
 *   (error: unknown) => error instanceof ShardRingConfigError && error.field === "name",
 * );
 * ```
 */
export class ShardRingConfigError extends TypeError {
  /** The option's path, e.g. `renewDeadlineMs`. */
  readonly field: string;

  /**
   * Creates the error.
   *
   * @example Naming the option
   * ```ts
   * import { ShardRingConfigError } from "@haptic/k8s-watcher/sharding";
   * import assert from "node:assert/strict";
   *
   * const error = new ShardRingConfigError("identity", "must be a non-empty string, got \"\"");
   * assert.equal(error.message, 'Invalid ShardRing config: identity: must be a non-empty string, got ""');
   * ```
   *
   * @param field The option's path.
   * @param message What is wrong with it, worded to follow the path.
   */
  constructor(field: string, message: string) {
    super(`Invalid ShardRing config: ${field}: ${message}`);
    this.name = "ShardRingConfigError";
    this.field = field;
  }
}

// Hash ranges: what a shard owns, and how the API server is asked for it.

/**
 * A half-open range `[start, end)` of the 64-bit FNV-1a hash space
 * `[0, 2⁶⁴)`, as KEP-5866's `shardRange()` reads it.
 *
 * @example The lower half
 * ```ts
 * import type { ShardRange } from "@haptic/k8s-watcher/sharding";
 *
 * const lower: ShardRange = { start: 0n, end: 1n << 63n };
 * ```
 */
export interface ShardRange {
  /** The first hash in the range. */
  readonly start: bigint;
  /** The first hash after it (at most 2⁶⁴). */
  readonly end: bigint;
}

/**
 * Which field an object is hashed by: its `metadata.uid` (objects spread
 * evenly; the default) or its `metadata.namespace` (a namespace's objects
 * stay together, and a cluster-scoped object hashes the empty string).
 *
 * @example By namespace
 * ```ts
 * import type { ShardBy } from "@haptic/k8s-watcher/sharding";
 *
 * const by: ShardBy = "namespace";
 * ```
 */
export type ShardBy = "uid" | "namespace";

/** 2⁶⁴: the end of the hash space. */
export const HASH_SPACE_END: bigint = 1n << 64n;

function hex(value: bigint): string {
  return "0x" + value.toString(16).padStart(16, "0");
}

/**
 * The `shardSelector` query parameter asking kube-apiserver (1.36 and
 * later, with the `ShardedListAndWatch` feature gate) for the objects whose
 * hash is in `ranges`: `shardRange(object.metadata.uid, '0x…', '0x…')`,
 * joined by ` || `. Bounds are written with 16 hex digits, which the server
 * requires; the end of the space is `0x10000000000000000`.
 *
 * @example A replica's half, as a query parameter
 * ```ts
 * import { shardSelector } from "@haptic/k8s-watcher/sharding";
 *
 * const selector = shardSelector([{ start: 0n, end: 1n << 63n }], "uid");
 * // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 * new URLSearchParams({ shardSelector: selector });
 * ```
 *
 * @param ranges The ranges, each non-empty.
 * @param by The field hashed.
 * @returns The selector, or `""` for no ranges (nothing to ask for).
 */
export function shardSelector(
  ranges: readonly ShardRange[],
  by: ShardBy,
): string {
  return ranges.map((r) =>
    `shardRange(object.metadata.${by}, '${hex(r.start)}', '${hex(r.end)}')`
  ).join(" || ");
}
