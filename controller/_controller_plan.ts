/**
 * A `Controller`'s config and options checked once, into one frozen plan
 * the controller is assembled from. The first wrong option is a
 * `ControllerConfigError`; the watcher fields of a resource are checked by
 * its `Watcher` as it is built, and reported under the resource's path.
 *
 * @module
 */
import type { KubeObject, KubeObjectLike, Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { RestClient } from "../client/rest_client.ts";
import type {
  WatcherConfig,
  WatcherOptions,
} from "../watcher/watcher_config.ts";
import { consoleLogger } from "../logger.ts";
import { monotonicClock } from "../_internal/_time.ts";
import {
  countProblem,
  durationProblem,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { ownOrClientMeter } from "../_internal/_metrics.ts";
import { contextLogger, neverThrowingLogger } from "../_internal/_logging.ts";
import { ControllerConfigError } from "./errors.ts";
import type {
  ControllerConfig,
  ControllerOptions,
  ControllerShard,
  Leadership,
  MappedResource,
  ReconcileContext,
  ReconcileResult,
  WatchedResource,
  WorkQueueOptions,
} from "./controller_config.ts";

/** How a resource's changes become keys. */
export type ResourceRole = "for" | "owns" | "watches" | "reconcileAllOn";

/** One watched resource: its store's name and the watcher it gets. */
export interface ResourcePlan {
  readonly role: ResourceRole;
  /** Its path in the config, for errors: `for`, `owns[0]`, … */
  readonly path: string;
  /** Its store's name. */
  readonly name: string;
  readonly clusterScoped: boolean;
  /** The watcher's config but for `onChange`, which the controller adds. */
  readonly watcher: Omit<WatcherConfig, "onChange">;
  /** `watches`' mapping to primary keys. */
  readonly map: MappedResource["map"] | undefined;
}

/** Everything a controller runs with. */
export interface ControllerPlan<T extends KubeObjectLike> {
  readonly name: string;
  readonly primary: ResourcePlan & {
    /** The primary's kind and API group, as owner references name them. */
    readonly kind: string | undefined;
    readonly group: string;
  };
  /** The other resources, in config order: owns, watches, reconcileAllOn. */
  readonly others: readonly ResourcePlan[];
  readonly reconcile: (
    key: string,
    context: ReconcileContext<T>,
  ) => void | ReconcileResult | Promise<void | ReconcileResult>;
  readonly maxConcurrent: number;
  readonly reconcileTimeoutMs: number | undefined;
  readonly generationChangedOnly: boolean;
  readonly resyncEveryMs: number | undefined;
  readonly leader: Leadership | undefined;
  readonly shard: ControllerShard | undefined;
  readonly recorder: ControllerConfig<KubeObject>["recorder"];
  /** The primary's `group/version`, as an Event's `regarding` names it. */
  readonly apiVersion: string;
  readonly readYourWritesTimeoutMs: number;
  readonly drainOnStop: boolean;
  readonly queue: WorkQueueOptions;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly meter: Meter | undefined;
  /** What each watcher runs with: the options, the meter resolved. */
  readonly watcherOptions: WatcherOptions;
}

const CONFIG = {
  name: true,
  for: true,
  owns: true,
  watches: true,
  reconcileAllOn: true,
  reconcile: true,
  maxConcurrent: true,
  reconcileTimeoutMs: true,
  generationChangedOnly: true,
  resyncEveryMs: true,
  leader: true,
  shard: true,
  recorder: true,
  readYourWritesTimeoutMs: true,
  drainOnStop: true,
  queue: true,
} as const;
const QUEUE = { backoff: true, retryRateLimit: true, agingMs: true } as const;
/** What the controller sets on its watchers itself. */
const SET_BY_THE_CONTROLLER = [
  "indexBy",
  "onChange",
  "onSyncComplete",
  "group",
  "debounceInterval",
  "settle",
  "callOnChangeDuringSync",
  "store",
  "namespacedWatch",
  "shard",
] as const;

const MAX_CONCURRENT = 4;
const READ_YOUR_WRITES_TIMEOUT_MS = 10_000;
/**
 * A batch for every turn that brings changes: the queue de-duplicates
 * keys, so a debounce would only add latency (and a timer per batch).
 */
const CONTROLLER_DEBOUNCE_MS = 0;

/** Checks `config` and `options`; throws the first problem, names it. */
export function planController<T extends KubeObjectLike = KubeObject>(
  config: ControllerConfig<T>,
  client: RestClient,
  options: ControllerOptions | undefined,
): ControllerPlan<T> {
  const fail = (field: string, message: string): never => {
    throw new ControllerConfigError("Controller", field, message);
  };
  if (config === null || typeof config !== "object") {
    fail("config", `must be an object, got ${String(config)}`);
  }
  options ??= {};
  if (options === null || typeof options !== "object") {
    fail("options", `must be an object, got ${String(options)}`);
  }
  const names = optionNamesProblem(
    { known: CONFIG, value: config, type: "Controller config" },
    {
      known: QUEUE,
      value: config.queue,
      type: "queue",
      prefix: "queue.",
    },
  );
  if (names) fail(names.field, names.message);
  if (typeof config.name !== "string" || config.name === "") {
    fail(
      "name",
      `must be a non-empty string, got ${
        JSON.stringify(config.name) ?? "undefined"
      }`,
    );
  }
  if (typeof config.reconcile !== "function") {
    fail("reconcile", "must be a function (key, context) => result");
  }
  if (
    typeof (client as { performRequest?: unknown } | null)?.performRequest !==
      "function"
  ) {
    fail("client", "must be a RestClient with a performRequest method");
  }

  const { primary, kind, others, recorder } = planResources(config, fail);
  const timings = planTimings(config, fail);
  const { leader, shard } = planCollaborators(config, fail);

  const meter = ownOrClientMeter(options.meter, client, fail);
  const clock = options.clock ?? monotonicClock;
  const logger = neverThrowingLogger(
    contextLogger(options.logger ?? consoleLogger(), {
      controller: config.name,
    }),
  );
  return Object.freeze({
    name: config.name,
    primary: Object.freeze({
      ...primary,
      // The primary watcher keeps this replica's share.
      watcher: shard === undefined
        ? primary.watcher
        : Object.freeze({ ...primary.watcher, shard }),
      kind: kind as string | undefined,
      group: primary.watcher.gvr.group ?? "",
    }),
    others: Object.freeze(others),
    reconcile: config.reconcile,
    ...timings,
    generationChangedOnly: config.generationChangedOnly ?? false,
    leader,
    shard,
    recorder,
    apiVersion: primary.watcher.gvr.group
      ? `${primary.watcher.gvr.group}/${primary.watcher.gvr.version}`
      : primary.watcher.gvr.version,
    drainOnStop: config.drainOnStop ?? true,
    queue: Object.freeze({
      ...config.queue,
      name: config.name,
      clock,
      meter,
    }),
    logger,
    clock,
    meter,
    watcherOptions: Object.freeze({
      ...options,
      meter,
    }),
  });
}

type Fail = (field: string, message: string) => never;

/**
 * The resources: the primary and the others, their store names unique,
 * and `for.kind` where owner references or Events need it.
 */
function planResources<T extends KubeObjectLike>(
  config: ControllerConfig<T>,
  fail: Fail,
) {
  const primary = resourcePlan("for", "for", config.for, fail);
  const kind = (config.for as { kind?: unknown }).kind;
  if (kind !== undefined && (typeof kind !== "string" || kind === "")) {
    fail("for.kind", `must be a non-empty string, got ${JSON.stringify(kind)}`);
  }
  const others: ResourcePlan[] = [];
  for (const role of ["owns", "watches", "reconcileAllOn"] as const) {
    const list: unknown = config[role];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(role, "must be an array of resources");
    (list as unknown[]).forEach((spec, i) =>
      others.push(resourcePlan(role, `${role}[${i}]`, spec, fail))
    );
  }
  const recorder = config.recorder;
  if (
    recorder !== undefined &&
    (recorder === null || typeof recorder.event !== "function")
  ) {
    fail("recorder", "must be an EventRecorder (event)");
  }
  if (kind === undefined && recorder !== undefined) {
    fail(
      "for.kind",
      "is required with recorder: an Event names the kind of the object it regards",
    );
  }
  if (kind === undefined && others.some((r) => r.role === "owns")) {
    fail(
      "for.kind",
      "is required with owns: a child's controller reference names its owner's kind, which the objects of a LIST do not carry",
    );
  }
  const seen = new Map<string, string>([[primary.name, primary.path]]);
  for (const other of others) {
    const earlier = seen.get(other.name);
    if (earlier !== undefined) {
      fail(
        `${other.path}.name`,
        `${
          JSON.stringify(other.name)
        } is the store name of ${earlier} too; give one of them a name`,
      );
    }
    seen.set(other.name, other.path);
  }
  return { primary, kind: kind as string | undefined, others, recorder };
}

/** The numbers: concurrency and the durations. */
function planTimings<T extends KubeObjectLike>(
  config: ControllerConfig<T>,
  fail: Fail,
) {
  const maxConcurrent = config.maxConcurrent ?? MAX_CONCURRENT;
  const concurrencyWrong = countProblem(maxConcurrent);
  if (concurrencyWrong) fail("maxConcurrent", concurrencyWrong);
  const duration = (field: keyof typeof CONFIG, value: unknown) => {
    if (value === undefined) return undefined;
    const problem = durationProblem(value);
    if (problem) fail(field, problem);
    return value as number;
  };
  const reconcileTimeoutMs = duration(
    "reconcileTimeoutMs",
    config.reconcileTimeoutMs,
  );
  const resyncEveryMs = duration("resyncEveryMs", config.resyncEveryMs);
  const readYourWritesTimeoutMs = duration(
    "readYourWritesTimeoutMs",
    config.readYourWritesTimeoutMs,
  ) ?? READ_YOUR_WRITES_TIMEOUT_MS;
  for (const field of ["generationChangedOnly", "drainOnStop"] as const) {
    const value: unknown = config[field];
    if (value !== undefined && typeof value !== "boolean") {
      fail(field, `must be true or false, got ${String(value)}`);
    }
  }
  return {
    maxConcurrent,
    reconcileTimeoutMs,
    resyncEveryMs,
    readYourWritesTimeoutMs,
  };
}

/** What it works with besides the client: a leader, a shard, the queue. */
function planCollaborators<T extends KubeObjectLike>(
  config: ControllerConfig<T>,
  fail: Fail,
) {
  const leader = config.leader;
  if (
    leader !== undefined &&
    (leader === null || typeof leader.whileLeading !== "function" ||
      typeof leader.isLeader !== "function")
  ) {
    fail("leader", "must be a LeaderElector (whileLeading, isLeader)");
  }
  const shard = config.shard;
  if (
    shard !== undefined &&
    (shard === null ||
      ["owns", "isAssigned", "selector", "subscribe"].some((method) =>
        typeof (shard as unknown as Record<string, unknown>)[method] !==
          "function"
      ))
  ) {
    fail(
      "shard",
      "must be a ShardRing (owns, isAssigned, selector, subscribe)",
    );
  }
  if (
    config.queue !== undefined &&
    (config.queue === null || typeof config.queue !== "object")
  ) {
    fail("queue", `must be an object, got ${String(config.queue)}`);
  }
  return { leader, shard };
}

function resourcePlan(
  role: ResourceRole,
  path: string,
  spec: unknown,
  fail: (field: string, message: string) => never,
): ResourcePlan {
  if (spec === null || typeof spec !== "object") {
    fail(path, `must be a resource ({ gvr, … }), got ${String(spec)}`);
  }
  const {
    name,
    clusterScoped,
    map,
    kind: _kind,
    ...watcher
  } = spec as WatchedResource & { map?: unknown; kind?: unknown };
  for (const field of SET_BY_THE_CONTROLLER) {
    if (field in watcher) {
      fail(
        `${path}.${field}`,
        "is set by the controller (it indexes by namespace and name, takes every change at once and keeps objects in memory)",
      );
    }
  }
  if (role === "watches" && typeof map !== "function") {
    fail(`${path}.map`, "must be a function from an object to primary keys");
  }
  if (role !== "watches" && map !== undefined) {
    fail(`${path}.map`, `is only for watches, not ${role}`);
  }
  if (clusterScoped !== undefined && typeof clusterScoped !== "boolean") {
    fail(
      `${path}.clusterScoped`,
      `must be true or false, got ${String(clusterScoped)}`,
    );
  }
  const gvr: unknown = watcher.gvr;
  const resource = gvr !== null && typeof gvr === "object"
    ? (gvr as { resource?: unknown }).resource
    : undefined;
  const storeName = name ?? resource;
  if (typeof storeName !== "string" || storeName === "") {
    fail(
      name === undefined ? `${path}.gvr.resource` : `${path}.name`,
      `must be a non-empty string, got ${JSON.stringify(storeName)}`,
    );
  }
  return Object.freeze({
    role,
    path,
    name: storeName as string,
    clusterScoped: clusterScoped ?? false,
    watcher: Object.freeze({
      ...watcher,
      name: storeName as string,
      indexBy: clusterScoped
        ? ["metadata.name"]
        : ["metadata.namespace", "metadata.name"],
      debounceInterval: CONTROLLER_DEBOUNCE_MS,
    }) as Omit<WatcherConfig, "onChange">,
    map: map as MappedResource["map"] | undefined,
  });
}
