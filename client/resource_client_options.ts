/**
 * The options of `ResourceClient` and of each of its calls.
 *
 * @module
 */
import type { Gvr } from "../types.ts";
import type { RestClient } from "./rest_client.ts";

/**
 * What a `ResourceClient` is made from.
 *
 * @example ConfigMaps of one namespace
 * ```ts
 * import type { ResourceClientOptions } from "@haptic/k8s-watcher/client";
 * import { FetchClient } from "@haptic/k8s-watcher";
 *
 * using client = new FetchClient({ server: "http://127.0.0.1:1" });
 * const options: ResourceClientOptions = {
 *   client,
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   namespace: "shop",
 * };
 * ```
 */
export interface ResourceClientOptions {
  /** The client requests go through (`FetchClient`, or any `RestClient`). */
  client: RestClient;
  /** The resource. */
  gvr: Gvr;
  /**
   * The namespace of every call that names none. Absent or `""`: a
   * write goes to its object's `metadata.namespace`, and a read without
   * one is cluster-scoped (a LIST: across all namespaces).
   */
  namespace?: string;
}

/**
 * What every call takes.
 *
 * @example A call that gives up after five seconds
 * ```ts
 * import type { CallOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: CallOptions = { namespace: "shop", signal: AbortSignal.timeout(5_000) };
 * ```
 */
export interface CallOptions {
  /** The namespace, instead of the client's (or the object's). */
  namespace?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/**
 * What a write takes besides {@linkcode CallOptions}.
 *
 * @example A dry-run create under a field manager
 * ```ts
 * import type { WriteOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: WriteOptions = { dryRun: true, fieldManager: "widget-controller" };
 * ```
 */
export interface WriteOptions extends CallOptions {
  /** Check and answer the write, store nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** The manager recorded in `metadata.managedFields` for this write. */
  fieldManager?: string;
}

/**
 * A LIST's selectors and page.
 *
 * @example Labelled ConfigMaps of all namespaces
 * ```ts
 * import type { ListOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: ListOptions = { namespace: "", labelSelector: "app=web", limit: 100 };
 * ```
 */
export interface ListOptions extends CallOptions {
  /** A label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** A field selector, e.g. `metadata.name=settings`. */
  fieldSelector?: string;
  /** At most this many items; the answer's `continue` fetches the rest. */
  limit?: number;
  /** The `continue` token of the previous page. */
  continue?: string;
  /** Read at least as new as this version (`"0"`: any, from a cache). */
  resourceVersion?: string;
}

/**
 * How a patch is read: a JSON merge patch (RFC 7386,
 * `application/merge-patch+json`), a JSON patch (RFC 6902, a list of
 * operations, `application/json-patch+json`), or a strategic merge patch
 * (`application/strategic-merge-patch+json`, built-in types only: lists
 * merge by their keys).
 *
 * @example
 * ```ts
 * import type { PatchType } from "@haptic/k8s-watcher/client";
 *
 * const type: PatchType = "json";
 * ```
 */
export type PatchType = "merge" | "json" | "strategic";

/**
 * One JSON patch (RFC 6902) operation.
 *
 * @example Replacing a value if it is still the one read
 * ```ts
 * import type { JsonPatchOperation } from "@haptic/k8s-watcher/client";
 *
 * const ops: JsonPatchOperation[] = [
 *   { op: "test", path: "/data/mode", value: "slow" },
 *   { op: "replace", path: "/data/mode", value: "fast" },
 * ];
 * ```
 */
export type JsonPatchOperation =
  | {
    readonly op: "add" | "replace" | "test";
    readonly path: string;
    readonly value: unknown;
  }
  | { readonly op: "remove"; readonly path: string }
  | {
    readonly op: "move" | "copy";
    readonly from: string;
    readonly path: string;
  };

/**
 * What a patch takes besides {@linkcode WriteOptions}.
 *
 * @example A JSON patch
 * ```ts
 * import type { PatchOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: PatchOptions = { type: "json" };
 * ```
 */
export interface PatchOptions extends WriteOptions {
  /** How the patch is read; `"merge"` by default. */
  type?: PatchType;
}

/**
 * What a server-side apply takes.
 *
 * @example Taking fields another manager owns
 * ```ts
 * import type { ApplyOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: ApplyOptions = { fieldManager: "widget-controller", force: true };
 * ```
 */
export interface ApplyOptions extends CallOptions {
  /** Who owns the applied fields: required by the API server. */
  fieldManager: string;
  /**
   * Take the fields other managers own instead of failing with a
   * `ConflictError` (a controller applying what it alone decides should).
   */
  force?: boolean;
  /** Check and answer the apply, store nothing (`dryRun=All`). */
  dryRun?: boolean;
}

/**
 * What a delete takes.
 *
 * @example Delete only the version that was read, and its children first
 * ```ts
 * import type { DeleteOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: DeleteOptions = {
 *   preconditions: { resourceVersion: "42" },
 *   propagationPolicy: "Foreground",
 * };
 * ```
 */
export interface DeleteOptions extends CallOptions {
  /**
   * The object must still have this uid (not a new one of the same name)
   * and resourceVersion, else a `ConflictError`.
   */
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * What happens to the objects it owns: deleted in the background
   * (`Background`), first (`Foreground`), or left (`Orphan`). The type's
   * default when absent.
   */
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  /** Seconds before the object is removed (Pods); `0` at once. */
  gracePeriodSeconds?: number;
  /** Check and answer the delete, change nothing (`dryRun=All`). */
  dryRun?: boolean;
}

/**
 * One page of a LIST.
 *
 * @example The names in a page
 * ```ts
 * import type { ResourceList } from "@haptic/k8s-watcher/client";
 *
 * function names(page: ResourceList<{ metadata?: { name?: string } }>): string[] {
 *   return page.items.map((item) => item.metadata?.name ?? "");
 * }
 * ```
 */
export interface ResourceList<T> {
  /** The objects. */
  items: T[];
  /** The version the page was read at. */
  resourceVersion: string;
  /** The token of the next page, when there is one. */
  continue?: string;
  /** How many items follow this page, when the server says. */
  remainingItemCount?: number;
}

/**
 * An apply configuration of `T`: every field optional, at every depth.
 * It must carry `apiVersion`, `kind` and `metadata.name`, and only the
 * fields its manager has an opinion on.
 *
 * @example What a controller applies of a ConfigMap
 * ```ts
 * import type { ApplyConfiguration } from "@haptic/k8s-watcher/client";
 *
 * type ConfigMap = { apiVersion?: string; kind?: string; metadata?: { name?: string }; data?: Record<string, string> };
 * const desired: ApplyConfiguration<ConfigMap> = {
 *   apiVersion: "v1",
 *   kind: "ConfigMap",
 *   metadata: { name: "settings" },
 *   data: { mode: "fast" },
 * };
 * ```
 */
export type ApplyConfiguration<T> = unknown extends T ? T
  : T extends (...args: never[]) => unknown ? T
  : T extends Date ? T
  : T extends readonly (infer E)[] ? readonly ApplyConfiguration<E>[]
  : T extends object ? { readonly [K in keyof T]?: ApplyConfiguration<T[K]> }
  : T;
