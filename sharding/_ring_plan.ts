/**
 * A `ShardRing`'s config and options checked once, into one frozen plan the
 * ring is assembled from. The first wrong option is a
 * `ShardRingConfigError`.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { RestClient } from "../client/rest_client.ts";
import type { Meter } from "../metrics/meter.ts";
import type { Awaitable, Logger } from "../types.ts";
import { consoleLogger } from "../logger.ts";
import { leaseTimingsProblem, monotonicClock } from "../_internal/_time.ts";
import { ownOrClientMeter } from "../_internal/_metrics.ts";
import { optionNamesProblem } from "../_internal/_option_checks.ts";
import { contextLogger, neverThrowingLogger } from "../_internal/_logging.ts";
import {
  type ShardBy,
  type ShardRingConfig,
  ShardRingConfigError,
  type ShardRingOptions,
  type ShardRingState,
} from "./shard_ring_config.ts";

/** Everything a ring runs with. */
export interface RingPlan {
  readonly name: string;
  readonly namespace: string;
  readonly identity: string;
  /** Its own Lease's name: `<name>-<identity>`. */
  readonly leaseName: string;
  readonly by: ShardBy;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly onChange: (state: ShardRingState) => Awaitable<void>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly meter: Meter | undefined;
  readonly random: () => number;
}

const CONFIG = {
  name: true,
  namespace: true,
  identity: true,
  by: true,
  leaseDurationMs: true,
  renewDeadlineMs: true,
  retryPeriodMs: true,
  onChange: true,
} as const satisfies Record<keyof ShardRingConfig, true>;
const OPTIONS = {
  clock: true,
  logger: true,
  meter: true,
  random: true,
} as const satisfies Record<keyof ShardRingOptions, true>;

/** client-go's elector defaults: a ring member holds its Lease the same way. */
const DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** A label value: what the ring's name must be to label its Leases. */
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
/** A DNS-1123 subdomain: what a Lease's name must be. */
const SUBDOMAIN =
  /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/** Checks the config, options and client; throws the first problem. */
export function planRing(
  config: ShardRingConfig,
  client: RestClient,
  options: ShardRingOptions | undefined,
): RingPlan {
  const fail = (field: string, message: string): never => {
    throw new ShardRingConfigError(field, message);
  };
  if (config === null || typeof config !== "object") {
    fail("config", "must be an object");
  }
  if (options === undefined) options = {};
  const names = optionNamesProblem({
    known: CONFIG,
    value: config,
    type: "ShardRingConfig",
    place: "the config (the first argument)",
    short: "the config",
  }, {
    known: OPTIONS,
    value: options,
    type: "ShardRingOptions",
    place: "the third argument (ShardRingOptions)",
  });
  if (names) fail(names.field, names.message);
  for (const field of ["name", "namespace", "identity"] as const) {
    const value: unknown = config[field];
    if (typeof value !== "string" || value === "") {
      fail(
        field,
        `must be a non-empty string, got ${
          JSON.stringify(value) ?? "undefined"
        }`,
      );
    }
  }
  if (!LABEL_VALUE.test(config.name)) {
    fail(
      "name",
      `must be a label value (at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit), got ${
        JSON.stringify(config.name)
      }`,
    );
  }
  const leaseName = `${config.name}-${config.identity}`;
  if (leaseName.length > 253 || !SUBDOMAIN.test(leaseName)) {
    fail(
      "identity",
      `must make "<name>-<identity>" a Lease name (lowercase letters, digits, '-' and '.', at most 253 characters), got ${
        JSON.stringify(leaseName)
      }`,
    );
  }
  const by = config.by ?? "uid";
  if (by !== "uid" && by !== "namespace") {
    fail("by", `must be "uid" or "namespace", got ${JSON.stringify(by)}`);
  }
  const timings = {
    leaseDurationMs: config.leaseDurationMs ?? DEFAULTS.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs ?? DEFAULTS.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs ?? DEFAULTS.retryPeriodMs,
  };
  const timing = leaseTimingsProblem(timings, "a member");
  if (timing) fail(timing.field, timing.message);
  if (config.onChange !== undefined && typeof config.onChange !== "function") {
    fail("onChange", "must be a function");
  }
  if (
    typeof (client as { performRequest?: unknown } | null)?.performRequest !==
      "function"
  ) {
    fail("client", "must be a RestClient with a performRequest method");
  }
  const meter = ownOrClientMeter(options.meter, client, fail);
  if (options.random !== undefined && typeof options.random !== "function") {
    fail("random", "must be a function returning a number in [0, 1)");
  }
  return Object.freeze({
    name: config.name,
    namespace: config.namespace,
    identity: config.identity,
    leaseName,
    by,
    ...timings,
    onChange: config.onChange ?? (() => {}),
    clock: options.clock ?? monotonicClock,
    // Who speaks, on every line.
    logger: neverThrowingLogger(
      contextLogger(options.logger ?? consoleLogger(), {
        ring: `${config.namespace}/${config.name}`,
        identity: config.identity,
      }),
    ),
    meter: meter,
    random: options.random ?? Math.random,
  });
}
