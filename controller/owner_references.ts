/**
 * Owner references: who controls an object. A `Controller`'s `owns` maps a
 * child to its owner's key through {@linkcode controllerOf}.
 *
 * @module
 */
/**
 * One entry of `metadata.ownerReferences` (`meta.k8s.io/v1`
 * `OwnerReference`).
 *
 * @example The reference a Widget's ConfigMap carries
 * ```ts
 * import type { OwnerReference } from "@haptic/k8s-watcher/controller";
 *
 * const ref: OwnerReference = {
 *   apiVersion: "example.com/v1",
 *   kind: "Widget",
 *   name: "w",
 *   uid: "0b4c…",
 *   controller: true,
 *   blockOwnerDeletion: true,
 * };
 * ```
 */
export interface OwnerReference {
  /** The owner's `group/version`. */
  apiVersion: string;
  /** The owner's kind. */
  kind: string;
  /** The owner's name (in the child's namespace, or cluster-scoped). */
  name: string;
  /** The owner's uid: a reference names one incarnation of its owner. */
  uid: string;
  /** Whether this owner is the managing controller (at most one is). */
  controller?: boolean;
  /** Whether foreground deletion of the owner waits for this child. */
  blockOwnerDeletion?: boolean;
}

/**
 * The owner reference of `obj` that has `controller: true`, or `undefined`
 * when no owner controls it. A malformed entry (no kind, name or uid) is not
 * a controller.
 *
 * @example The Widget a ConfigMap belongs to
 * ```ts
 * import { controllerOf } from "@haptic/k8s-watcher/controller";
 *
 * const owner = controllerOf({
 *   metadata: {
 *     name: "w-config",
 *     namespace: "shop",
 *     ownerReferences: [
 *       { apiVersion: "example.com/v1", kind: "Widget", name: "w", uid: "1", controller: true },
 *     ],
 *   },
 * });
 * console.log(owner?.name); // "w"
 * ```
 *
 * @typeParam T The child's type: any object with `metadata`.
 * @param obj The child.
 * @returns Its controlling owner reference, if any.
 */
export function controllerOf<
  T extends { readonly metadata?: { readonly ownerReferences?: unknown } },
>(
  obj: T,
): Readonly<OwnerReference> | undefined {
  const refs: unknown = obj.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  for (const ref of refs) {
    if (isControllerReference(ref)) return ref;
  }
  return undefined;
}

function isControllerReference(ref: unknown): ref is OwnerReference {
  if (typeof ref !== "object" || ref === null) return false;
  const r = ref as Record<string, unknown>;
  return r.controller === true && typeof r.kind === "string" &&
    r.kind !== "" && typeof r.name === "string" && r.name !== "" &&
    typeof r.uid === "string" && typeof r.apiVersion === "string";
}
