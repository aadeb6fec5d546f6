/**
 * Each watcher's configuration checked once, into one frozen plan it is
 * assembled from: `planWatcher` for a `Watcher` (its loop settings and
 * source form, its store choice and indexes, its delivery rules, and who
 * speaks in its log lines), and the checks every kind of watcher shares
 * (`checkConfigObject`, `planLoop`, `checkCoreConfig`, `watcherLogger`),
 * which another kind's own plan is made of (a `SingleWatcher`'s is in
 * `single.ts`). The first wrong option is a `WatcherConfigError` naming it,
 * found in the order the checks below run. The plan holds what its checks
 * built (the indexer, the field selector, the loggers), never the
 * watcher's running parts.
 *
 * @module
 */
import type { Gvr, KubeObjectLike, Logger, StoreReads } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { RestClient } from "../client/rest_client.ts";
import { Indexer } from "../selection/indexer.ts";
import { FieldSelector } from "../selection/field_selector.ts";
import { formatLabelSelector } from "../selection/label_selector.ts";
import type { StoreFactory } from "../store/memory_store.ts";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { clientMeter } from "../_internal/_metrics.ts";
import {
  chooseStore,
  DEFAULT_DEBOUNCE_INTERVAL,
  LOOP_TIMEOUT_NAMES,
  loopTimeoutsOf,
  namedIndexes,
  type NamedIndexPaths,
  validateClient,
  validateDuration,
  validateGvr,
  validateInitialList,
  validateLoopTimeouts,
  validatePositive,
  validateSettle,
  type WatcherConfig,
  WatcherConfigError,
  type WatcherOptions,
  wrapConfigError,
} from "./watcher_config.ts";
import { contextLogger, neverThrowingLogger } from "../_internal/_logging.ts";
import { consoleLogger } from "../logger.ts";
import {
  checkPathsPresent,
  formKey,
  identity,
  type LoopSettings,
  selectsOnlyAsSent,
  type SourceForm,
} from "./_source_form.ts";
import type { ObjectPreparerOptions } from "./_store_writer.ts";
import { checkedMeter } from "./_watcher_metrics.ts";
import { groupMeterOf } from "./debounce_group.ts";
import type { ShardFilter } from "./shard_filter.ts";
import type { WatcherHealth } from "./watcher_health.ts";
import type { DebounceSettle } from "./debounce_settle.ts";

/** What the watcher's store holds, and how it is keyed. */
export interface StorePlan {
  readonly factory: StoreFactory;
  /** Keys (`indexBy`) and removes `ignoreFields`. */
  readonly indexer: Indexer;
  readonly named: NamedIndexPaths;
  /** Evaluated here, over JSONPath. */
  readonly fieldSelector: FieldSelector | undefined;
  /** Watchers with the same key share a view (one store, one index). */
  readonly viewKey: string;
}

/** When and where the batches go. */
export interface DeliveryPlan {
  /** The `DebounceGroup` member the batches go to, instead of `onChange`. */
  readonly group: object | undefined;
  /** The leading-edge interval (0: each change at once). */
  readonly interval: number;
  readonly settle: DebounceSettle | undefined;
  /** Batches are held back while the initial list loads. */
  readonly suppressDuringSync: boolean;
}

/** Everything a `Watcher` is assembled from. */
export interface WatcherPlan<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
> {
  /** The user's configuration: its callbacks are called as given. */
  readonly config: WatcherConfig<T, R, I>;
  readonly client: RestClient;
  /** The watched thing, for messages (`ingresses.networking.k8s.io`). */
  readonly what: string;
  /** This watcher's own lines (its name too). */
  readonly logger: Logger;
  /** The stream's lines (shared by the watchers of one form). */
  readonly streamLogger: Logger;
  /** The user's clock, if any (each part has its own default). */
  readonly clock: Clock | undefined;
  /** Its own, else its group's, else its client's. */
  readonly meter: Meter | undefined;
  /** What the source fetches and stores, and how its loops run. */
  readonly form: SourceForm;
  /** The registry's key of `form`. */
  readonly formKey: string;
  /** Other watchers of the same form may join its source. */
  readonly sharable: boolean;
  /** Why the stream cannot be shared, as `health().notShared` says it. */
  readonly notShared: WatcherHealth["notShared"];
  /** How the source makes the stored copies. */
  readonly preparer: ObjectPreparerOptions<T>;
  readonly store: StorePlan;
  readonly delivery: DeliveryPlan;
  /** The loop's idle timeout, for the health of a watcher not yet started. */
  readonly idleTimeoutMs: number;
}

/**
 * Checks `config`, `client` and `options` of a `Watcher`; throws the first
 * problem as a `WatcherConfigError` naming the option.
 */
export function planWatcher<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
  client: RestClient,
  options: WatcherOptions | undefined,
): WatcherPlan<T, R, I> {
  if (options === undefined) options = {};
  checkConfigObject("Watcher", WATCHER_NAMES, config, options);
  const delivery = planDelivery(config);
  const choice = chooseStore(config);
  checkBoolean("metadataOnly", config.metadataOnly);
  checkBoolean("shared", config.shared);
  const shard = checkShard(config.shard, choice.factory);
  const namespaces = resolveNamespaces(config, client);
  const labelSelector = config.labelSelector === undefined
    ? undefined
    : wrapConfigError(
      "labelSelector",
      () => formatLabelSelector(config.labelSelector!),
    );
  if (
    config.name !== undefined &&
    (typeof config.name !== "string" || config.name === "")
  ) {
    throw new WatcherConfigError("name", "must be a non-empty string");
  }
  // Its own, else its group's, else its client's: one set on the client
  // reaches every watcher built on it.
  const meter = checkedMeter(options.meter) ?? groupMeterOf(config.group) ??
    checkedMeter(clientMeter(client), "client.meter");
  const store = planStore(config, options, choice.factory);
  validateGvr(config.gvr);
  checkPathsPresent({
    selector: store.fieldSelector,
    indexBy: store.indexer.indexBy,
    metadataOnly: config.metadataOnly === true,
    transform: config.transform,
  });
  const loop = planLoop(config, options, meter);
  checkCoreConfig(config, client);
  // Everything is checked: what is left is putting it together.
  const sharable = config.shared !== false && choice.factory.shareable;
  const what = describe(config.gvr);
  const logs = planLogs(config, options, { what, namespaces, sharable });
  const form = planForm(config, options, {
    client,
    namespaces,
    labelSelector,
    store,
    shard,
    loop,
  });
  return Object.freeze({
    config,
    client,
    what,
    ...logs,
    clock: options.clock,
    meter,
    form,
    formKey: formKey(form),
    sharable,
    notShared: config.shared === false ? "shared: false" : choice.notShared,
    preparer: Object.freeze({
      indexer: store.indexer,
      transform: config.transform,
      logger: logs.streamLogger,
      resource: what,
      metadataOnly: form.metadataOnly,
      freeze: form.freezeObjects,
    }),
    store,
    delivery,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  });
}

/**
 * The keys and selection: `indexBy`, `indexes`, `freezeObjects` (checked
 * here, in the order the watcher always checked it) and `fieldSelector`.
 */
function planStore<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
  options: WatcherOptions,
  factory: StoreFactory,
): StorePlan {
  const indexer = wrapConfigError("indexBy", () =>
    new Indexer({
      indexBy: config.indexBy,
      ignoreFields: config.ignoreFields,
    }));
  const named = namedIndexes(config.indexes, config.ignoreFields);
  checkBoolean("freezeObjects", options.freezeObjects);
  const fieldSelector = config.fieldSelector
    ? wrapConfigError(
      "fieldSelector",
      () => new FieldSelector(config.fieldSelector!),
    )
    : undefined;
  return Object.freeze({
    factory,
    indexer,
    named,
    fieldSelector,
    // Watchers with another backend share the stream, not the store.
    viewKey: JSON.stringify([
      config.indexBy,
      config.fieldSelector ?? "",
      identity(factory),
      named.key,
    ]),
  });
}

/**
 * What the source fetches, stores, and how its loops run: two watchers
 * share exactly when theirs are equal (`formKey`).
 */
function planForm<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
  options: WatcherOptions,
  parts:
    & Pick<
      SourceForm,
      "client" | "namespaces" | "labelSelector" | "shard" | "loop"
    >
    & { store: StorePlan },
): SourceForm {
  const { indexer, fieldSelector } = parts.store;
  return Object.freeze({
    client: parts.client,
    gvr: config.gvr,
    namespaces: parts.namespaces,
    labelSelector: parts.labelSelector,
    metadataOnly: config.metadataOnly === true,
    ignoreFields: indexer.ignoreFields,
    transform: config.transform,
    freezeObjects: options.freezeObjects === true,
    logger: options.logger,
    preselect: selectsOnlyAsSent(
        fieldSelector,
        indexer.ignoreFields,
        config.transform,
      )
      ? fieldSelector
      : undefined,
    shard: parts.shard,
    loop: parts.loop,
  });
}

/**
 * Who speaks, on every line: the stream's lines (shared by watchers of one
 * form) name its resource and namespaces, this watcher's own lines its
 * name too.
 */
function planLogs<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
  options: WatcherOptions,
  source: { what: string; namespaces: readonly string[]; sharable: boolean },
): { logger: Logger; streamLogger: Logger } {
  const stream = {
    resource: source.what,
    ...scopeOf(source.namespaces),
    // A stream others may share is not this watcher's alone.
    ...(source.sharable ? {} : { watcher: config.name }),
  };
  return {
    logger: watcherLogger(options, { ...stream, watcher: config.name }),
    streamLogger: watcherLogger(options, stream),
  };
}

/**
 * The settings every loop of the source runs with, checked as the loop
 * checks them (so the first problem is found here, in the same order).
 */
export function planLoop(
  config: Pick<WatcherConfig, "pageSize" | "initialList" | "name">,
  options: WatcherOptions,
  meter: Meter | undefined,
): LoopSettings {
  validateInitialList(config.initialList);
  validatePositive("pageSize", config.pageSize, { integer: true });
  validateLoopTimeouts(options);
  return Object.freeze({
    pageSize: config.pageSize,
    initialList: config.initialList,
    ...loopTimeoutsOf(options),
    clock: options.clock,
    random: options.random,
    // A stream's series carry one watcher name, on one meter.
    meter,
    name: meter === undefined ? undefined : config.name,
  });
}

/** `onChange` xor `group`, and the debounce rules. */
function planDelivery<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(config: WatcherConfig<T, R, I>): DeliveryPlan {
  // 0 delivers each change at once (a controller's queue de-duplicates).
  if (config.debounceInterval !== 0) {
    validateDuration("debounceInterval", config.debounceInterval);
  }
  validateSettle(config.settle);
  checkCallbacks(config);
  return Object.freeze({
    group: config.group,
    interval: config.debounceInterval ?? DEFAULT_DEBOUNCE_INTERVAL,
    settle: config.settle,
    suppressDuringSync: !config.callOnChangeDuringSync,
  });
}

/**
 * The names each watcher's config takes, and the names of the options
 * both take. Typed as records over the interfaces' keys, so a field added
 * to an interface without being added here does not compile.
 */
const WATCHER_NAMES: Record<keyof WatcherConfig, true> = {
  gvr: true,
  name: true,
  indexBy: true,
  indexes: true,
  ignoreFields: true,
  transform: true,
  fieldSelector: true,
  labelSelector: true,
  namespace: true,
  namespacedWatch: true,
  onChange: true,
  group: true,
  onSyncComplete: true,
  debounceInterval: true,
  settle: true,
  callOnChangeDuringSync: true,
  store: true,
  initialList: true,
  pageSize: true,
  metadataOnly: true,
  namespaces: true,
  shared: true,
  shard: true,
};
const OPTION_NAMES: Record<keyof WatcherOptions, true> = {
  logger: true,
  clock: true,
  random: true,
  ...LOOP_TIMEOUT_NAMES,
  meter: true,
  freezeObjects: true,
};

/**
 * Checks that `config` and `options` are objects holding only the names
 * a `kind` watcher knows (`known`: its config's), before anything reads
 * them: names neither argument knows, and names put in the wrong argument,
 * in one error naming every one of them.
 */
export function checkConfigObject(
  kind: string,
  known: Readonly<Record<string, true>>,
  config: unknown,
  options: unknown,
): void {
  if (!config || typeof config !== "object") {
    throw new WatcherConfigError("config", "must be an object");
  }
  if (options === null || typeof options !== "object") {
    throw new WatcherConfigError("options", "must be an object");
  }
  const problem = optionNamesProblem({
    known,
    value: config,
    type: `${kind} config`,
    place: "the config (the first argument)",
    short: "the config",
  }, {
    known: OPTION_NAMES,
    value: options,
    type: "WatcherOptions",
    place: "the third argument (WatcherOptions)",
  });
  if (problem) throw new WatcherConfigError(problem.field, problem.message);
}

/**
 * Checks what every watcher needs besides its own options: a client, and
 * an `onSyncComplete` that is a function when given.
 */
export function checkCoreConfig(
  config: { onSyncComplete?: unknown },
  client: unknown,
): void {
  validateClient(client);
  if (
    config.onSyncComplete !== undefined &&
    typeof config.onSyncComplete !== "function"
  ) {
    throw new WatcherConfigError("onSyncComplete", "must be a function");
  }
}

/**
 * The logger a watcher with `options` logs to (never throws): every line
 * carries `context`, who speaks (see `contextLogger`).
 */
export function watcherLogger(
  options: WatcherOptions,
  context: Readonly<Record<string, unknown>>,
): Logger {
  return neverThrowingLogger(
    contextLogger(options.logger ?? consoleLogger(), context),
  );
}

/** Names the watched thing, for messages. */
export function describe(gvr: Gvr): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
}

/** The `shard` option, checked: a `ShardFilter`, with a store that fits. */
function checkShard(
  shard: unknown,
  factory: StoreFactory,
): ShardFilter | undefined {
  if (shard === undefined) return undefined;
  const methods = ["isAssigned", "selector", "subscribe"] as const;
  const value = shard as Partial<Record<string, unknown>> | null;
  if (
    value === null || typeof value !== "object" ||
    methods.some((m) => typeof value[m] !== "function")
  ) {
    throw new WatcherConfigError(
      "shard",
      "must be a ShardRing (./sharding) or an object with isAssigned, selector and subscribe methods",
    );
  }
  if (!factory.shareable) {
    throw new WatcherConfigError(
      "shard",
      `needs a store that answers peek with every object it holds (memoryStore()); the ${
        JSON.stringify(factory.name)
      } backend keeps references only, so what leaves the shard could not be told from what was deleted`,
    );
  }
  return shard as ShardFilter;
}

/** `got`: whether the message says what was given. */
export function checkBoolean(field: string, value: unknown, got = true): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new WatcherConfigError(
      field,
      got ? `must be a boolean, got ${String(value)}` : "must be a boolean",
    );
  }
}

/** `onChange` xor `group`; no own interval in a group. */
function checkCallbacks<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
): void {
  if (config.group === undefined) {
    if (typeof config.onChange !== "function") {
      // Either delivers: say so, or a group's user hears only of onChange.
      throw new WatcherConfigError(
        "onChange",
        "must be a function, or give group (a DebounceGroup member) for the group's onChange to receive the batches",
      );
    }
  } else {
    if (config.onChange !== undefined) {
      throw new WatcherConfigError(
        "onChange",
        "is not allowed with group: the group's onChange receives this watcher's batches",
      );
    }
    if (config.debounceInterval !== undefined) {
      throw new WatcherConfigError(
        "debounceInterval",
        "is not allowed with group: the group's interval applies",
      );
    }
    if (config.settle !== undefined) {
      throw new WatcherConfigError(
        "settle",
        "is not allowed with group: the group times the batches (give the DebounceGroup settle)",
      );
    }
  }
  if (config.settle !== undefined && config.debounceInterval !== undefined) {
    throw new WatcherConfigError(
      "settle",
      "is not allowed with debounceInterval: a watcher fires on the leading edge (debounceInterval) or once changes settle, not both",
    );
  }
  if (
    config.transform !== undefined && typeof config.transform !== "function"
  ) {
    throw new WatcherConfigError("transform", "must be a function");
  }
}

/** The namespace fields of a watcher's lines: none for all namespaces. */
function scopeOf(namespaces: readonly string[]): Record<string, unknown> {
  if (namespaces.length > 1) return { namespaces };
  return namespaces[0] ? { namespace: namespaces[0] } : {};
}

/** The namespaces of the loops: `[""]` for all, else one loop each. */
function resolveNamespaces<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
  client: RestClient,
): string[] {
  if (config.namespace !== undefined && typeof config.namespace !== "string") {
    throw new WatcherConfigError("namespace", "must be a string");
  }
  const list = config.namespaces;
  if (list !== undefined) {
    if (config.namespace !== undefined || config.namespacedWatch) {
      throw new WatcherConfigError(
        "namespaces",
        `is not allowed with ${
          config.namespace !== undefined ? "namespace" : "namespacedWatch"
        }: name every namespace in namespaces`,
      );
    }
    if (
      !Array.isArray(list) || list.length === 0 ||
      list.some((ns) => typeof ns !== "string" || ns === "")
    ) {
      throw new WatcherConfigError(
        "namespaces",
        "must be a non-empty array of non-empty namespace names",
      );
    }
    const unique = [...new Set(list)];
    if (unique.length !== list.length) {
      throw new WatcherConfigError("namespaces", "names a namespace twice");
    }
    return unique;
  }
  if (config.namespace) return [config.namespace];
  if (!config.namespacedWatch) return [""];
  const ns = client?.defaultNamespace;
  if (!ns) {
    throw new WatcherConfigError(
      "namespacedWatch",
      "the client has no defaultNamespace; set namespace instead",
    );
  }
  return [ns];
}
