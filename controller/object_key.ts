/**
 * The key a controller reconciles: `namespace/name`, or `name` for a
 * cluster-scoped object, as client-go's `MetaNamespaceKeyFunc` writes it.
 *
 * @module
 */

/**
 * The key of an object: `namespace/name`, or `name` when it has no
 * namespace. A `watches` mapping returns keys of this form.
 *
 * @example A namespaced and a cluster-scoped object
 * ```ts
 * import { objectKey } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * assert.equal(objectKey({ metadata: { namespace: "shop", name: "a" } }), "shop/a");
 * assert.equal(objectKey({ metadata: { name: "node-1" } }), "node-1");
 * ```
 *
 * @param obj An object with `metadata.name` (and `metadata.namespace`).
 * @returns Its key.
 * @throws {TypeError} When the object has no name.
 */
export function objectKey(
  obj: {
    readonly metadata?: { readonly namespace?: string; readonly name?: string };
  },
): string {
  const name = obj.metadata?.name;
  if (typeof name !== "string" || name === "") {
    throw new TypeError("An object key needs metadata.name");
  }
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * A key's namespace and name: what comes before the first `/` and what
 * comes after it (no namespace when there is no `/`).
 *
 * @example Both forms
 * ```ts
 * import { splitObjectKey } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(splitObjectKey("shop/a"), { namespace: "shop", name: "a" });
 * assert.deepEqual(splitObjectKey("node-1"), { namespace: undefined, name: "node-1" });
 * ```
 *
 * @param key A key as {@linkcode objectKey} writes it.
 * @returns Its parts.
 */
export function splitObjectKey(
  key: string,
): { namespace: string | undefined; name: string } {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
