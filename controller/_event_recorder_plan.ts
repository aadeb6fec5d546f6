/**
 * An `EventRecorder`'s config and options checked once, into one frozen
 * plan the recorder is assembled from. The first wrong option is a
 * `ControllerConfigError`. The default `reportingInstance` is named after
 * the host, as client-go's is (in a pod, the host name is the pod's name).
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { RestClient } from "../client/rest_client.ts";
import type { Meter } from "../metrics/meter.ts";
import type { Logger } from "../types.ts";
import { consoleLogger } from "../logger.ts";
import { monotonicClock } from "../_internal/_time.ts";
import {
  countProblem,
  durationProblem,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { ownOrClientMeter } from "../_internal/_metrics.ts";
import { contextLogger, neverThrowingLogger } from "../_internal/_logging.ts";
import { nodeBuiltin } from "../_internal/_node_builtin.ts";
import { ControllerConfigError } from "./errors.ts";
import type {
  EventRecorderConfig,
  EventRecorderOptions,
} from "./event_recorder_config.ts";

/** Everything a recorder runs with. */
export interface EventRecorderPlan {
  readonly client: RestClient;
  readonly reportingController: string;
  readonly reportingInstance: string;
  readonly burst: number;
  readonly refillMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly meter: Meter | undefined;
}

const CONFIG = {
  reportingController: true,
  reportingInstance: true,
  rateLimit: true,
} as const satisfies Record<keyof EventRecorderConfig, true>;
const RATE = { burst: true, refillMs: true } as const satisfies Record<
  keyof NonNullable<EventRecorderConfig["rateLimit"]>,
  true
>;
const OPTIONS = {
  clock: true,
  logger: true,
  meter: true,
} as const satisfies Record<keyof EventRecorderOptions, true>;

/** client-go's spam filter: 25 at once, then one every 5 minutes. */
const BURST = 25;
const REFILL_MS = 300_000;
/** kube-apiserver's limit on `reportingInstance`. */
export const INSTANCE_LIMIT = 128;

/** A qualified name's name part: what `reportingController` ends with. */
const NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A DNS-1123 subdomain: a qualified name's optional prefix. */
const SUBDOMAIN =
  /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/** Checks the config, client and options; throws the first problem. */
export function planEventRecorder(
  config: EventRecorderConfig,
  client: RestClient,
  options: EventRecorderOptions | undefined,
): EventRecorderPlan {
  const fail = (field: string, message: string): never => {
    throw new ControllerConfigError("EventRecorder", field, message);
  };
  if (config === null || typeof config !== "object") {
    fail("config", `must be an object, got ${String(config)}`);
  }
  if (options === undefined) options = {};
  if (options === null || typeof options !== "object") {
    fail("options", `must be an object, got ${String(options)}`);
  }
  const names = optionNamesProblem(
    {
      known: CONFIG,
      value: config,
      type: "EventRecorderConfig",
      place: "the first argument (EventRecorderConfig)",
      short: "the config",
    },
    {
      known: RATE,
      value: config.rateLimit,
      type: "rateLimit",
      prefix: "rateLimit.",
    },
    {
      known: OPTIONS,
      value: options,
      type: "EventRecorderOptions",
      place: "the third argument (EventRecorderOptions)",
      short: "the options",
    },
  );
  if (names) fail(names.field, names.message);

  const controller = config.reportingController;
  const controllerWrong = qualifiedNameProblem(controller);
  if (controllerWrong) fail("reportingController", controllerWrong);
  const instance = config.reportingInstance ??
    defaultInstance(controller, hostname());
  if (typeof instance !== "string" || instance === "") {
    fail(
      "reportingInstance",
      `must be a non-empty string, got ${JSON.stringify(instance)}`,
    );
  }
  if (instance.length > INSTANCE_LIMIT) {
    fail(
      "reportingInstance",
      `must be at most ${INSTANCE_LIMIT} characters, got ${instance.length}`,
    );
  }

  const rate = config.rateLimit ?? {};
  if (rate === null || typeof rate !== "object") {
    fail("rateLimit", `must be an object, got ${String(rate)}`);
  }
  const burst = rate.burst ?? BURST;
  const burstWrong = countProblem(burst);
  if (burstWrong) fail("rateLimit.burst", burstWrong);
  const refillMs = rate.refillMs ?? REFILL_MS;
  const refillWrong = durationProblem(refillMs);
  if (refillWrong) fail("rateLimit.refillMs", refillWrong);

  if (
    client === null || typeof client !== "object" ||
    typeof client.performRequest !== "function"
  ) {
    fail("client", "must be a RestClient with a performRequest method");
  }
  const clock = options.clock ?? monotonicClock;
  if (
    clock === null || typeof clock !== "object" ||
    typeof clock.now !== "function" ||
    typeof clock.setTimeout !== "function" ||
    typeof clock.clearTimeout !== "function"
  ) {
    fail("clock", "must be a Clock (now, setTimeout, clearTimeout)");
  }
  const logger = options.logger ?? consoleLogger();
  if (
    logger === null || typeof logger !== "object" ||
    (["debug", "info", "warn", "error"] as const).some((level) =>
      typeof logger[level] !== "function"
    )
  ) {
    fail("logger", "must be a Logger (debug, info, warn, error)");
  }
  const meter = ownOrClientMeter(options.meter, client, fail);

  return Object.freeze({
    client,
    reportingController: controller,
    reportingInstance: instance,
    burst,
    refillMs,
    clock,
    // Who speaks, on every line.
    logger: neverThrowingLogger(
      contextLogger(logger, {
        reportingController: controller,
        reportingInstance: instance,
      }),
    ),
    meter: meter,
  });
}

/** client-go's: the controller and the host, within the length allowed. */
function defaultInstance(controller: string, host: string | undefined) {
  const instance = host ? `${controller}-${host}` : controller;
  return instance.slice(0, INSTANCE_LIMIT);
}

/** The part of `Deno` read for the host name. */
interface DenoHost {
  hostname(): string;
  permissions: {
    querySync(descriptor: { name: "sys"; kind: "hostname" }): {
      state: string;
    };
  };
}

/**
 * The host's name, where it can be read without asking; undefined where
 * reading it needs a permission not granted (Deno without `--allow-sys`:
 * asking would prompt, or throw) or fails.
 */
function hostname(): string | undefined {
  try {
    const deno = (globalThis as { Deno?: DenoHost }).Deno;
    if (typeof deno === "object") {
      const state = deno.permissions.querySync({
        name: "sys",
        kind: "hostname",
      }).state;
      return state === "granted" ? deno.hostname() || undefined : undefined;
    }
    return nodeBuiltin<{ hostname(): string }>("node:os").hostname() ||
      undefined;
  } catch {
    return undefined;
  }
}

/** Why `value` is not a qualified name (`[prefix/]name`), or undefined. */
function qualifiedNameProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") {
    return `must be a non-empty string, got ${JSON.stringify(value)}`;
  }
  const slash = value.indexOf("/");
  const [prefix, name] = slash < 0
    ? [undefined, value]
    : [value.slice(0, slash), value.slice(slash + 1)];
  if (
    prefix !== undefined &&
    (prefix.length > 253 || !SUBDOMAIN.test(prefix))
  ) {
    return `must be a qualified name: its prefix ${
      JSON.stringify(prefix)
    } must be a DNS subdomain (lower case, at most 253 characters), got ${
      JSON.stringify(value)
    }`;
  }
  if (!NAME.test(name)) {
    return `must be a qualified name: at most 63 characters of letters, digits, "-", "_" and ".", starting and ending with a letter or digit, after an optional "prefix/", got ${
      JSON.stringify(value)
    }`;
  }
  return undefined;
}
