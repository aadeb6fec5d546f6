import type { Gvr } from "../types.ts";

/**
 * The API root of a group/version: `/api/v1` for the core group,
 * `/apis/GROUP/VERSION` otherwise.
 *
 * @example Core and named API groups
 * ```ts
 * import { groupVersionPath } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * assert.equal(groupVersionPath({ group: "", version: "v1", resource: "pods" }), "/api/v1");
 * assert.equal(groupVersionPath({ group: "apps", version: "v1", resource: "deployments" }), "/apis/apps/v1");
 * ```
 *
 * @param gvr The resource.
 * @returns The path, without a trailing slash.
 */
export function groupVersionPath(gvr: Gvr): string {
  return gvr.group === ""
    ? `/api/${encodeURIComponent(gvr.version)}`
    : `/apis/${encodeURIComponent(gvr.group)}/${
      encodeURIComponent(gvr.version)
    }`;
}

/**
 * The path to list or watch a collection: in one namespace, or across all
 * namespaces (and for cluster-scoped resources) when `namespace` is empty.
 *
 * @example A namespace's collection and all namespaces
 * ```ts
 * import { collectionPath } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const ingresses = { group: "networking.k8s.io", version: "v1", resource: "ingresses" };
 * assert.equal(collectionPath(ingresses, "web"), "/apis/networking.k8s.io/v1/namespaces/web/ingresses");
 * assert.equal(collectionPath(ingresses), "/apis/networking.k8s.io/v1/ingresses");
 * ```
 *
 * @param gvr The resource.
 * @param namespace A namespace, or `""`/`undefined` for all.
 * @returns The path.
 */
export function collectionPath(gvr: Gvr, namespace?: string): string {
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${groupVersionPath(gvr)}${ns}/${encodeURIComponent(gvr.resource)}`;
}

/**
 * The path of one named object.
 *
 * @example One Secret
 * ```ts
 * import { objectPath } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const secrets = { group: "", version: "v1", resource: "secrets" };
 * assert.equal(objectPath(secrets, "haptic", "creds"), "/api/v1/namespaces/haptic/secrets/creds");
 * ```
 *
 * @param gvr The resource.
 * @param namespace The namespace, or `""` for a cluster-scoped object.
 * @param name The object name.
 * @returns The path.
 */
export function objectPath(gvr: Gvr, namespace: string, name: string): string {
  return `${collectionPath(gvr, namespace)}/${encodeURIComponent(name)}`;
}
