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
  T extends { readonly metadata?: object },
>(
  obj: T,
): Readonly<OwnerReference> | undefined {
  const refs: unknown =
    (obj.metadata as { ownerReferences?: unknown } | undefined)
      ?.ownerReferences;
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

/** What {@linkcode setControllerReference} needs of the owner. */
export interface OwnerObject {
  /** The owner's `group/version`. */
  readonly apiVersion?: string;
  /** The owner's kind. */
  readonly kind?: string;
  /** The owner's name, namespace and uid. */
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
  };
}

/** Options of {@linkcode setControllerReference}. */
export interface SetControllerReferenceOptions {
  /**
   * Whether the owner's foreground deletion waits for the child; default
   * true. (Setting it needs `update` on the owner's `finalizers` subresource
   * where the OwnerReferencesPermissionEnforcement admission plugin runs.)
   */
  blockOwnerDeletion?: boolean;
}

/**
 * Thrown by {@linkcode setControllerReference} when the owner cannot own the
 * child: it lacks its `apiVersion`, `kind`, name or uid (an object read back
 * from the server has them), or it lives in another namespace than the child.
 *
 * @example An owner that was never stored has no uid
 * ```ts
 * import {
 *   OwnerReferenceError,
 *   setControllerReference,
 * } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () =>
 *     setControllerReference(
 *       { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } },
 *       { metadata: { name: "w-config" } },
 *     ),
 *   (e: unknown) => e instanceof OwnerReferenceError && e.field === "metadata.uid",
 * );
 * ```
 */
export class OwnerReferenceError extends TypeError {
  /** The owner's field that was wrong, e.g. `metadata.uid`. */
  readonly field: string;
  /**
   * Creates the error.
   *
   * @example
   * ```ts
   * import { OwnerReferenceError } from "@haptic/k8s-watcher/controller";
   *
   * const e = new OwnerReferenceError("kind", "must be a non-empty string");
   * console.log(e.message); // "Invalid owner: kind: must be a non-empty string"
   * ```
   *
   * @param field The owner's field.
   * @param message What was wrong with it.
   */
  constructor(field: string, message: string) {
    super(`Invalid owner: ${field}: ${message}`);
    this.name = "OwnerReferenceError";
    this.field = field;
  }
}

/**
 * Thrown by {@linkcode setControllerReference} when another owner already
 * controls the child: an object has at most one controller, and taking it
 * over silently would make two controllers fight.
 *
 * @example The existing controller is on the error
 * ```ts
 * import {
 *   AlreadyOwnedError,
 *   setControllerReference,
 * } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * const child = {
 *   metadata: {
 *     name: "w-config",
 *     ownerReferences: [
 *       { apiVersion: "example.com/v1", kind: "Widget", name: "a", uid: "1", controller: true },
 *     ],
 *   },
 * };
 * const owner = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "b", uid: "2" } };
 * assert.throws(
 *   () => setControllerReference(owner, child),
 *   (e: unknown) => e instanceof AlreadyOwnedError && e.existing.name === "a",
 * );
 * ```
 */
export class AlreadyOwnedError extends Error {
  /** The controller reference the child already has. */
  readonly existing: Readonly<OwnerReference>;
  /**
   * Creates the error.
   *
   * @example
   * ```ts
   * import { AlreadyOwnedError } from "@haptic/k8s-watcher/controller";
   *
   * const e = new AlreadyOwnedError(
   *   { apiVersion: "v1", kind: "Widget", name: "a", uid: "1", controller: true },
   *   "Widget/b",
   * );
   * console.log(e.message);
   * ```
   *
   * @param existing The child's controller reference.
   * @param wanted The owner that was refused, as `Kind/name`.
   */
  constructor(existing: Readonly<OwnerReference>, wanted: string) {
    super(
      `Cannot make ${wanted} the controller: ${existing.kind}/${existing.name} (uid ${existing.uid}) already controls the object`,
    );
    this.name = "AlreadyOwnedError";
    this.existing = existing;
  }
}

/**
 * A copy of `child` whose `metadata.ownerReferences` name `owner` as its
 * controller (`controller: true`, `blockOwnerDeletion: true` unless told
 * otherwise). A reference to the same owner (same uid, or same group, kind
 * and name) is replaced; other, non-controlling references stay. Neither
 * argument is changed.
 *
 * @example A Widget owns its ConfigMap
 * ```ts
 * import {
 *   controllerOf,
 *   setControllerReference,
 * } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * const widget = {
 *   apiVersion: "example.com/v1",
 *   kind: "Widget",
 *   metadata: { name: "w", namespace: "shop", uid: "0b4c" },
 * };
 * const config = setControllerReference(widget, {
 *   metadata: { name: "w-config", namespace: "shop" },
 *   data: { mode: "fast" },
 * });
 * assert.equal(controllerOf(config)?.uid, "0b4c");
 * ```
 *
 * @typeParam T The child's type.
 * @param owner The controlling object, as read from the server.
 * @param child The object it controls.
 * @param options Whether to block the owner's deletion.
 * @returns A new child with the reference (its type says it has owner
 * references).
 * @throws {OwnerReferenceError} When the owner lacks a field or is in
 * another namespace.
 * @throws {AlreadyOwnedError} When another owner controls the child.
 */
export function setControllerReference<
  T extends { readonly metadata?: object },
>(
  owner: OwnerObject,
  child: T,
  options?: SetControllerReferenceOptions,
): T & { metadata: { ownerReferences: OwnerReference[] } } {
  const ref = referenceTo(owner, options?.blockOwnerDeletion ?? true);
  const ownerNamespace = owner.metadata?.namespace ?? "";
  const childMeta = child.metadata as
    | { namespace?: unknown; ownerReferences?: unknown }
    | undefined;
  const childNamespace = typeof childMeta?.namespace === "string"
    ? childMeta.namespace
    : "";
  // A cluster-scoped owner may own anything; a namespaced one only objects
  // in its own namespace (the garbage collector deletes the child otherwise).
  if (ownerNamespace !== "" && ownerNamespace !== childNamespace) {
    throw new OwnerReferenceError(
      "metadata.namespace",
      childNamespace === ""
        ? `a namespaced owner (${ownerNamespace}) cannot own a cluster-scoped object`
        : `the owner is in ${ownerNamespace}, the object in ${childNamespace}`,
    );
  }
  const refs: unknown[] = Array.isArray(childMeta?.ownerReferences)
    ? childMeta.ownerReferences
    : [];
  const existing = controllerOf(child);
  if (existing !== undefined && !sameOwner(existing, ref)) {
    throw new AlreadyOwnedError(existing, `${ref.kind}/${ref.name}`);
  }
  // Entries that are not references at all are kept as they were: the
  // server validates them, not this helper.
  const kept = refs.filter((r) =>
    !isReference(r) || !sameOwner(r as OwnerReference, ref)
  );
  // Typed as references, which the kept entries were meant to be: a model
  // type whose metadata declares `ownerReferences` takes the result.
  const ownerReferences = [...kept, ref] as OwnerReference[];
  return { ...child, metadata: { ...child.metadata, ownerReferences } };
}

function referenceTo(owner: OwnerObject, block: boolean): OwnerReference {
  const fields: [string, unknown][] = [
    ["apiVersion", owner.apiVersion],
    ["kind", owner.kind],
    ["metadata.name", owner.metadata?.name],
    ["metadata.uid", owner.metadata?.uid],
  ];
  for (const [field, value] of fields) {
    if (typeof value !== "string" || value === "") {
      throw new OwnerReferenceError(
        field,
        `must be a non-empty string, got ${
          JSON.stringify(value) ?? "undefined"
        }`,
      );
    }
  }
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    controller: true,
    blockOwnerDeletion: block,
  };
}

/** Same uid, or the same group, kind and name (the version may differ). */
function sameOwner(a: Readonly<OwnerReference>, b: OwnerReference): boolean {
  if (a.uid === b.uid) return true;
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind &&
    a.name === b.name;
}

function isReference(r: unknown): boolean {
  return typeof r === "object" && r !== null &&
    typeof (r as OwnerReference).uid === "string" &&
    typeof (r as OwnerReference).apiVersion === "string";
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}
