import type { KubeObjectLike } from "../types.ts";
import { StoreObjectError } from "./errors.ts";

/**
 * The identity key of namespace/name. NUL sorts before every other code
 * unit, so comparing keys as strings orders by namespace, then name; and
 * since {@linkcode identityOf} refuses NUL in either part, keys are unambiguous.
 */
export function identityKey(namespace: string, name: string): string {
  return namespace + "\0" + name;
}

/**
 * The namespace (`""` when cluster-scoped) and name of an object a store is
 * asked to hold; throws a {@linkcode StoreObjectError} naming what is missing.
 */
export function identityOf(
  obj: KubeObjectLike,
): [namespace: string, name: string] {
  const meta = (obj as { metadata?: unknown } | null | undefined)?.metadata;
  if (meta === null || typeof meta !== "object") {
    throw new StoreObjectError("Object has no metadata");
  }
  const { name, namespace = "" } = meta as {
    name?: unknown;
    namespace?: unknown;
  };
  if (typeof name !== "string" || name === "") {
    throw new StoreObjectError("Object has no metadata.name");
  }
  if (typeof namespace !== "string") {
    throw new StoreObjectError(
      `Object "${name}" has a metadata.namespace that is not a string`,
    );
  }
  if (name.includes("\0") || namespace.includes("\0")) {
    throw new StoreObjectError(
      `Object "${name}" has a NUL character in its namespace or name`,
    );
  }
  return [namespace, name];
}
