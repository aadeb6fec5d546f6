/**
 * Finalizers: names in `metadata.finalizers` that keep a deleted object
 * stored (with a `deletionTimestamp`) until the controller that added one
 * has cleaned up and removed it. Each helper returns a new object and leaves
 * its argument unchanged, so the result can go to `ResourceClient.replace`
 * or be diffed against the original for a patch.
 *
 * @module
 */

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
