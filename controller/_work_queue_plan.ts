/**
 * A `WorkQueue`'s options checked once, into one frozen plan the queue is
 * assembled from. The first wrong option is a `ControllerConfigError`.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import { monotonicClock } from "../_internal/_time.ts";
import {
  countProblem,
  durationProblem,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { meterProblem } from "../_internal/_metrics.ts";
import { ControllerConfigError } from "./errors.ts";
import type { WorkQueueOptions } from "./controller_config.ts";

/** The settings, as checked by the queue's plan. */
export interface RetryLimits {
  /** The first retry's delay. */
  readonly baseMs: number;
  /** The longest delay. */
  readonly maxMs: number;
  /** The shared bucket: retries per second, and how many may go at once. */
  readonly rate?: { readonly perSecond: number; readonly burst: number };
}

/** Everything a queue runs with. */
export interface WorkQueuePlan {
  readonly name: string;
  readonly clock: Clock;
  readonly meter: Meter | undefined;
  readonly retry: RetryLimits;
  readonly agingMs: number;
}

const OPTIONS = {
  name: true,
  clock: true,
  meter: true,
  backoff: true,
  retryRateLimit: true,
  agingMs: true,
} as const;
const BACKOFF = { baseMs: true, maxMs: true } as const;
const RATE = { perSecond: true, burst: true } as const;

/** client-go's per-item defaults: 5 ms doubling to 1000 s. */
const BASE_MS = 5;
const MAX_MS = 1_000_000;
const AGING_MS = 5_000;

/** Checks `options`; throws the first problem, names the option. */
export function planWorkQueue(
  options: WorkQueueOptions | undefined,
): WorkQueuePlan {
  const fail = (field: string, message: string): never => {
    throw new ControllerConfigError("WorkQueue", field, message);
  };
  if (options === undefined) options = {};
  if (options === null || typeof options !== "object") {
    fail("options", `must be an object, got ${String(options)}`);
  }
  const names = optionNamesProblem(
    { known: OPTIONS, value: options, type: "WorkQueue options" },
    {
      known: BACKOFF,
      value: options.backoff,
      type: "backoff",
      prefix: "backoff.",
    },
    {
      known: RATE,
      value: options.retryRateLimit,
      type: "retryRateLimit",
      prefix: "retryRateLimit.",
    },
  );
  if (names) fail(names.field, names.message);

  const name = options.name ?? "";
  if (typeof name !== "string") fail("name", `must be a string, got ${name}`);
  const clock = options.clock ?? monotonicClock;
  if (
    clock === null || typeof clock !== "object" ||
    typeof clock.now !== "function" ||
    typeof clock.setTimeout !== "function" ||
    typeof clock.clearTimeout !== "function"
  ) {
    fail("clock", "must be a Clock (now, setTimeout, clearTimeout)");
  }
  const meterWrong = options.meter === undefined
    ? undefined
    : meterProblem(options.meter);
  if (meterWrong) fail("meter", meterWrong);

  const backoff = objectOption("backoff", options.backoff, fail) ?? {};
  const baseMs = backoff.baseMs ?? BASE_MS;
  const baseWrong = durationProblem(baseMs);
  if (baseWrong) fail("backoff.baseMs", baseWrong);
  const maxMs = backoff.maxMs ?? Math.max(MAX_MS, baseMs);
  const maxWrong = durationProblem(maxMs);
  if (maxWrong) fail("backoff.maxMs", maxWrong);
  if (maxMs < baseMs) {
    fail(
      "backoff.maxMs",
      `must be at least backoff.baseMs (${baseMs}), got ${maxMs}`,
    );
  }

  const rate = objectOption("retryRateLimit", options.retryRateLimit, fail);
  if (rate !== undefined) {
    const { perSecond, burst } = rate;
    if (
      typeof perSecond !== "number" || !Number.isFinite(perSecond) ||
      perSecond <= 0
    ) {
      fail(
        "retryRateLimit.perSecond",
        `must be a positive number, got ${String(perSecond)}`,
      );
    }
    const burstWrong = countProblem(burst);
    if (burstWrong) fail("retryRateLimit.burst", burstWrong);
  }

  const agingMs = options.agingMs ?? AGING_MS;
  const agingWrong = durationProblem(agingMs);
  if (agingWrong) fail("agingMs", agingWrong);

  return Object.freeze({
    name,
    clock,
    meter: options.meter,
    retry: Object.freeze({
      baseMs,
      maxMs,
      rate: rate && Object.freeze({ ...rate }),
    }),
    agingMs,
  });
}

function objectOption<T>(
  field: string,
  value: T | undefined,
  fail: (field: string, message: string) => never,
): T | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object") {
    fail(field, `must be an object, got ${String(value)}`);
  }
  return value;
}
