/**
 * Pure helpers on one object, for a reconcile to read and write it with:
 * its key (`objectKey`, `splitObjectKey`), its controller owner reference
 * (`controllerOf`, `setControllerReference`), its finalizers
 * (`hasFinalizer`, `withFinalizer`, `withoutFinalizer`) and its status
 * conditions (`setCondition`, `findCondition`). Each writer answers a new
 * object (or list) and leaves its arguments unchanged.
 *
 * @module
 */
// The key a controller reconciles: `namespace/name`, or `name` for a
// cluster-scoped object, as client-go's `MetaNamespaceKeyFunc` writes it.

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

// Owner references: who controls an object. A `Controller`'s `owns` maps a
// child to its owner's key through `controllerOf`.

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

// Finalizers: names in `metadata.finalizers` that keep a deleted object
// stored (with a `deletionTimestamp`) until the controller that added one
// has cleaned up and removed it. Each helper returns a new object and leaves
// its argument unchanged, so the result can go to `ResourceClient.replace`
// or be diffed against the original for a patch.

// `object`, not `{ finalizers?: … }`: a weak type would refuse metadata
// that happens to lack finalizers, such as `{ name: "w" }`.
function finalizersOf(obj: { readonly metadata?: object }): readonly string[] {
  const list = (obj.metadata as { finalizers?: unknown } | undefined)
    ?.finalizers;
  return Array.isArray(list) ? list : [];
}

/**
 * Whether `obj` carries the finalizer `name`.
 *
 * @example
 * ```ts
 * import { hasFinalizer } from "@haptic/k8s-watcher/controller";
 *
 * const obj = { metadata: { finalizers: ["example.com/cleanup"] } };
 * console.log(hasFinalizer(obj, "example.com/cleanup")); // true
 * ```
 *
 * @param obj Any object with `metadata`.
 * @param name The finalizer, e.g. `example.com/cleanup`.
 * @returns Whether it is in `metadata.finalizers`.
 * @throws {TypeError} When `name` is not a non-empty string.
 */
export function hasFinalizer(
  obj: { readonly metadata?: object },
  name: string,
): boolean {
  checkName(name);
  return finalizersOf(obj).includes(name);
}

/**
 * A copy of `obj` with the finalizer `name` added at the end (once: an
 * object that has it comes back as an equal copy).
 *
 * @example Adding a finalizer before creating what must be cleaned up
 * ```ts
 * import { hasFinalizer, withFinalizer } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * const widget = { metadata: { name: "w" } };
 * const held = withFinalizer(widget, "example.com/cleanup");
 * assert.deepEqual(held.metadata.finalizers, ["example.com/cleanup"]);
 * assert.equal(hasFinalizer(widget, "example.com/cleanup"), false);
 * ```
 *
 * @typeParam T The object's type.
 * @param obj Any object with `metadata`.
 * @param name The finalizer.
 * @returns A new object with the finalizer.
 * @throws {TypeError} When `name` is not a non-empty string.
 */
export function withFinalizer<T extends { readonly metadata?: object }>(
  obj: T,
  name: string,
): T & { metadata: { finalizers: string[] } } {
  checkName(name);
  const current = finalizersOf(obj);
  const finalizers = current.includes(name) ? [...current] : [...current, name];
  return { ...obj, metadata: { ...obj.metadata, finalizers } };
}

/**
 * A copy of `obj` without the finalizer `name` (every occurrence). Once the
 * last finalizer of a deleting object is gone and written, the server
 * deletes the object.
 *
 * @example Letting a deleting object go after cleaning up
 * ```ts
 * import { withoutFinalizer } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * const deleting = {
 *   metadata: {
 *     name: "w",
 *     deletionTimestamp: "2026-01-01T00:00:00Z",
 *     finalizers: ["example.com/cleanup", "other.io/keep"],
 *   },
 * };
 * const released = withoutFinalizer(deleting, "example.com/cleanup");
 * assert.deepEqual(released.metadata.finalizers, ["other.io/keep"]);
 * ```
 *
 * @typeParam T The object's type.
 * @param obj Any object with `metadata`.
 * @param name The finalizer.
 * @returns A new object without it.
 * @throws {TypeError} When `name` is not a non-empty string.
 */
export function withoutFinalizer<T extends { readonly metadata?: object }>(
  obj: T,
  name: string,
): T & { metadata: { finalizers: string[] } } {
  checkName(name);
  const finalizers = finalizersOf(obj).filter((f) => f !== name);
  return { ...obj, metadata: { ...obj.metadata, finalizers } };
}

function checkName(name: unknown): void {
  if (typeof name !== "string" || name === "") {
    throw new TypeError(
      `Invalid finalizer: must be a non-empty string, got ${
        JSON.stringify(name) ?? String(name)
      }`,
    );
  }
}

// Conditions on an object's status (`meta.k8s.io/v1` `Condition`): the
// list a controller keeps in `status.conditions` to say what it observed.

/** A condition's status. */
export type ConditionStatus = "True" | "False" | "Unknown";

/**
 * One entry of `status.conditions` (`meta.k8s.io/v1` `Condition`).
 *
 * @example A Ready condition
 * ```ts
 * import type { Condition } from "@haptic/k8s-watcher/controller";
 *
 * const ready: Condition = {
 *   type: "Ready",
 *   status: "True",
 *   observedGeneration: 3,
 *   lastTransitionTime: "2026-01-01T00:00:00Z",
 *   reason: "Reconciled",
 *   message: "",
 * };
 * ```
 */
export interface Condition {
  /** The condition's type, in CamelCase (`Ready`, `Available`). */
  type: string;
  /** Whether it holds. */
  status: ConditionStatus;
  /** The `metadata.generation` the controller acted on. */
  observedGeneration?: number;
  /** When `status` last changed (RFC 3339, in seconds). */
  lastTransitionTime: string;
  /** Why, in CamelCase, for machines. */
  reason: string;
  /** Why, for people; may be empty. */
  message: string;
}

/**
 * What {@linkcode setCondition} is given: a condition whose
 * `lastTransitionTime` is optional (set from `now` when the status changes)
 * and whose `message` defaults to empty.
 */
export type ConditionInput =
  & Omit<Condition, "lastTransitionTime" | "message">
  & { lastTransitionTime?: string; message?: string };

/**
 * Thrown by {@linkcode setCondition} for a condition the API server would
 * refuse; {@linkcode ConditionError.field} names the field.
 *
 * @example A status that is not True, False or Unknown
 * ```ts
 * import { ConditionError, setCondition } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => setCondition([], { type: "Ready", status: "true" as "True", reason: "Ok" }, Date.now()),
 *   (e: unknown) => e instanceof ConditionError && e.field === "status",
 * );
 * ```
 */
export class ConditionError extends TypeError {
  /** The condition's field that was wrong. */
  readonly field: string;
  /**
   * Creates the error.
   *
   * @example
   * ```ts
   * import { ConditionError } from "@haptic/k8s-watcher/controller";
   *
   * const e = new ConditionError("reason", "must be CamelCase, got \"not ok\"");
   * console.log(e.message); // Invalid condition: reason: must be CamelCase, got "not ok"
   * ```
   *
   * @param field The condition's field.
   * @param message What was wrong with it.
   */
  constructor(field: string, message: string) {
    super(`Invalid condition: ${field}: ${message}`);
    this.name = "ConditionError";
    this.field = field;
  }
}

/**
 * The condition of `type` in `conditions`, or `undefined`.
 *
 * @example Is the object ready?
 * ```ts
 * import { findCondition } from "@haptic/k8s-watcher/controller";
 *
 * const status = {
 *   conditions: [{
 *     type: "Ready",
 *     status: "True" as const,
 *     lastTransitionTime: "2026-01-01T00:00:00Z",
 *     reason: "Reconciled",
 *     message: "",
 *   }],
 * };
 * console.log(findCondition(status.conditions, "Ready")?.status === "True"); // true
 * ```
 *
 * @param conditions An object's `status.conditions` (may be absent).
 * @param type The condition's type.
 * @returns The condition, if present.
 */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

// The API's rules for `reason` and `type` (a qualified name's last part is
// what most types are); checked here so a bad condition fails where it is
// made, not as a 422 from the status write.
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const TYPE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;

/**
 * A new list with `condition` set: added when its type is absent; else
 * `reason`, `message` and `observedGeneration` are updated, and
 * `lastTransitionTime` changes only when `status` does (to the given
 * `lastTransitionTime`, or `now`). The list's order is kept; the input is
 * not changed.
 *
 * @example Ready once reconciled; a later reconcile keeps the transition time
 * ```ts
 * import { setCondition } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * let conditions = setCondition([], {
 *   type: "Ready",
 *   status: "True",
 *   reason: "Reconciled",
 *   observedGeneration: 1,
 * }, Date.UTC(2026, 0, 1));
 * conditions = setCondition(conditions, {
 *   type: "Ready",
 *   status: "True",
 *   reason: "Reconciled",
 *   observedGeneration: 2,
 * }, Date.UTC(2026, 0, 2));
 * assert.equal(conditions[0].lastTransitionTime, "2026-01-01T00:00:00Z");
 * assert.equal(conditions[0].observedGeneration, 2);
 * ```
 *
 * @param conditions The current `status.conditions` (may be absent).
 * @param condition The condition to set.
 * @param now The time of a transition: milliseconds since the epoch (a
 * `Clock`'s `now()`) or a `Date`.
 * @returns The new list.
 * @throws {ConditionError} When a field is one the API server would refuse.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  condition: ConditionInput,
  now: number | Date,
): Condition[] {
  check(condition);
  const list = [...(conditions ?? [])];
  const at = list.findIndex((c) => c.type === condition.type);
  const old = at < 0 ? undefined : list[at];
  const transitioned = old === undefined || old.status !== condition.status;
  const next: Condition = {
    type: condition.type,
    status: condition.status,
    ...(condition.observedGeneration === undefined
      ? {}
      : { observedGeneration: condition.observedGeneration }),
    lastTransitionTime: transitioned
      ? condition.lastTransitionTime ?? rfc3339(now)
      : old.lastTransitionTime,
    reason: condition.reason,
    message: condition.message ?? "",
  };
  if (at < 0) list.push(next);
  else list[at] = next;
  return list;
}

function check(c: ConditionInput): void {
  if (typeof c.type !== "string" || c.type.length > 316 || !TYPE.test(c.type)) {
    throw new ConditionError(
      "type",
      `must be a qualified name such as Ready or example.com/Ready, got ${
        JSON.stringify(c.type)
      }`,
    );
  }
  if (c.status !== "True" && c.status !== "False" && c.status !== "Unknown") {
    throw new ConditionError(
      "status",
      `must be True, False or Unknown, got ${JSON.stringify(c.status)}`,
    );
  }
  if (
    typeof c.reason !== "string" || c.reason.length > 1024 ||
    !REASON.test(c.reason)
  ) {
    throw new ConditionError(
      "reason",
      `must be CamelCase (a letter, then letters, digits, _ , or :), got ${
        JSON.stringify(c.reason)
      }`,
    );
  }
  if (c.message !== undefined && typeof c.message !== "string") {
    throw new ConditionError("message", "must be a string");
  }
  if (
    c.observedGeneration !== undefined &&
    (!Number.isSafeInteger(c.observedGeneration) || c.observedGeneration < 0)
  ) {
    throw new ConditionError(
      "observedGeneration",
      `must be a non-negative integer, got ${c.observedGeneration}`,
    );
  }
}

/** The API's `Time`: RFC 3339 in whole seconds, UTC. */
function rfc3339(now: number | Date): string {
  const ms = typeof now === "number" ? now : now.getTime();
  if (!Number.isFinite(ms)) {
    throw new ConditionError("lastTransitionTime", `now is not a time: ${now}`);
  }
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
