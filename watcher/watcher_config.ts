import type {
  ChangeStats,
  Gvr,
  KubeObject,
  Logger,
  ReadableStore,
} from "../types.ts";
import type { Clock } from "../clock.ts";
import type { LabelSelectorObject } from "../indexer/label_selector.ts";
import type { InitialListMode } from "./list_watch_types.ts";

/**
 * Configuration of a bulk {@linkcode Watcher}, the TypeScript form of the
 * seed's `WatcherConfig`.
 *
 * @example
 * ```ts
 * import type { WatcherConfig } from "@haptic/k8s-watcher";
 *
 * const config: WatcherConfig = {
 *   gvr: { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   ignoreFields: ["metadata.managedFields"],
 *   onChange: (_store, stats) => {
 *     if (stats.isInitialSync) return;
 *     console.log(`${stats.total} ingress changes`);
 *   },
 * };
 * ```
 */
export interface WatcherConfig {
  /** The resource to watch. `resource` is required. */
  gvr: Gvr;
  /** JSONPath expressions whose values form each object's index keys. */
  indexBy: string[];
  /** JSONPath expressions removed from objects before they are stored. */
  ignoreFields?: string[];
  /** Client-side field selector over JSONPath (`path=value`, `==`, `!=`, comma = and). */
  fieldSelector?: string;
  /** Server-side label selector, as a string or a `metav1.LabelSelector` object. */
  labelSelector?: string | LabelSelectorObject;
  /** Namespace to watch; `""` or absent watches all namespaces. */
  namespace?: string;
  /** Watch the client's `defaultNamespace` (ignored when `namespace` is set). */
  namespacedWatch?: boolean;
  /** Called with each debounced batch of changes. */
  onChange: (store: ReadableStore, stats: ChangeStats) => void | Promise<void>;
  /**
   * Called once when the initial list is in the store, with its size, after
   * the `onChange` of the initial batch has returned (or settled).
   */
  onSyncComplete?: (
    store: ReadableStore,
    count: number,
  ) => void | Promise<void>;
  /** Refractory period of the debouncer in ms. Defaults to 2000. */
  debounceInterval?: number;
  /** Deliver batches while the initial list loads (with `isInitialSync`). Defaults to `false`. */
  callOnChangeDuringSync?: boolean;
  /** `"memory"` (default) keeps objects; `"cached"` keeps references and GETs on read. */
  storeType?: "memory" | "cached";
  /** TTL of a cached object in ms, refreshed on access. Defaults to 130000. */
  cacheTTL?: number;
  /** How the first state is loaded. Defaults to `"list"`. */
  initialList?: InitialListMode;
  /** Objects per LIST page. Defaults to 500. */
  pageSize?: number;
}

/**
 * Configuration of a {@linkcode SingleWatcher}: one named object. Its
 * callbacks receive the current object, or `null` once it was deleted or
 * when it does not exist.
 *
 * @example
 * ```ts
 * import type { SingleWatcherConfig } from "@haptic/k8s-watcher";
 *
 * const config: SingleWatcherConfig = {
 *   gvr: { group: "", version: "v1", resource: "secrets" },
 *   namespace: "haptic",
 *   name: "haproxy-credentials",
 *   onChange: (secret) => console.log(secret ? "credentials changed" : "credentials deleted"),
 * };
 * ```
 */
export interface SingleWatcherConfig {
  /** The resource of the object. */
  gvr: Gvr;
  /** Its namespace (`""` for a cluster-scoped object is not allowed: name one). */
  namespace: string;
  /** Its name. */
  name: string;
  /**
   * Called after the initial sync for every add, update and delete, in event
   * order and never overlapping; `null` when the object was deleted.
   */
  onChange: (obj: KubeObject | null) => void | Promise<void>;
  /** Called once with the state at the initial sync (`null` when absent). */
  onSyncComplete?: (obj: KubeObject | null) => void | Promise<void>;
  /** How the first state is loaded. Defaults to `"list"`. */
  initialList?: InitialListMode;
  /**
   * Which updates `onChange` is not called for. Defaults to `"statusOnly"`.
   *
   * - `"statusOnly"`: skip a status-only write: same uid and same positive
   *   `metadata.generation`, and no difference outside `status`,
   *   `metadata.resourceVersion` and `metadata.managedFields`. A controller
   *   that writes the status of the object it watches (or whose object's
   *   status is updated by others, as a Deployment's is) would otherwise
   *   wake on every such write. Changes of labels, annotations, finalizers,
   *   owner references and `deletionTimestamp` are always delivered
   *   (Kubernetes leaves the generation alone for all but the last), and
   *   objects without a generation (ConfigMaps, Secrets) deliver every
   *   change.
   * - `"none"`: deliver every new version, status-only writes included.
   *
   * In both modes an event whose resourceVersion equals the current one
   * (the same object seen again, e.g. after a relist) is not a change.
   */
  skip?: "statusOnly" | "none";
}

/**
 * Runtime options shared by both watchers: where logs go and how time and
 * chance are measured (tests inject both).
 *
 * @example
 * ```ts
 * import { consoleLogger, type WatcherOptions } from "@haptic/k8s-watcher";
 *
 * const options: WatcherOptions = { logger: consoleLogger({ level: "debug" }) };
 * ```
 */
export interface WatcherOptions {
  /** Defaults to `consoleLogger()`. */
  logger?: Logger;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Source of jitter in [0, 1). Defaults to `Math.random`. */
  random?: () => number;
  /**
   * A watch silent for this long is resumed, a LIST page whose body stops
   * for this long is requested again. Defaults to 3 minutes.
   */
  idleTimeoutMs?: number;
}

/**
 * Thrown by the watcher and `ListWatch` constructors when the configuration
 * is unusable; `field` names the offending option. A `TypeError`, as for
 * any unusable argument.
 *
 * @example
 * ```ts
 * import { Watcher, WatcherConfigError } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => new Watcher({ gvr: { group: "", version: "v1", resource: "" }, indexBy: ["metadata.name"], onChange: () => {} }, {} as never),
 *   (e) => e instanceof WatcherConfigError && e.field === "gvr.resource",
 * );
 * ```
 */
export class WatcherConfigError extends TypeError {
  /** The option that was wrong, e.g. `gvr.resource`. */
  readonly field: string;

  /**
   * Creates the error; the message names the option.
   *
   * @param field The option that was wrong.
   * @param message What was wrong with it.
   * @param options The underlying parse error, if any.
   */
  constructor(field: string, message: string, options?: ErrorOptions) {
    super(`Invalid watcher config: ${field}: ${message}`, options);
    this.name = "WatcherConfigError";
    this.field = field;
  }
}
