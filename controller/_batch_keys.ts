/**
 * Which primary keys a watcher's batch concerns, by the resource's role:
 * the primary's own keys (less updates that left its generation alone,
 * when asked), children's owners, a mapping's keys.
 *
 * @module
 */
import type { KubeObject, ReadonlyFields } from "../types.ts";
import type { ChangeBatch } from "../watcher/change_batch.ts";
import { controllerOf, objectKey } from "./object_helpers.ts";
import type { ControllerPlan, ResourcePlan } from "./_controller_plan.ts";

type Obj = ReadonlyFields<KubeObject>;

/** What routing a change to keys needs of the plan. */
export type Routing = Pick<
  ControllerPlan<KubeObject>,
  "primary" | "generationChangedOnly"
>;

/** The keys of the objects a batch changed, for `resource`'s role. */
export function batchKeys(
  plan: Routing,
  resource: ResourcePlan,
  batch: ChangeBatch<Obj>,
  onMapError: (error: unknown) => void,
): Set<string> {
  const keys = new Set<string>();
  const { created, modified, deleted } = batch.objects;
  if (resource.role === "for") {
    for (const obj of created) keys.add(objectKey(obj));
    for (const { previous, current } of modified) {
      if (plan.generationChangedOnly && sameGeneration(previous, current)) {
        continue;
      }
      keys.add(objectKey(current));
    }
    for (const obj of deleted) keys.add(objectKey(obj));
    return keys;
  }
  const add = (obj: Obj) => objectKeys(plan, resource, obj, keys, onMapError);
  for (const obj of created) add(obj);
  for (const { previous, current } of modified) {
    add(previous);
    add(current);
  }
  for (const obj of deleted) add(obj);
  return keys;
}

/** Adds the primary keys `obj` of `resource` concerns to `keys`. */
export function objectKeys(
  plan: Routing,
  resource: ResourcePlan,
  obj: Obj,
  keys: Set<string>,
  onMapError: (error: unknown) => void,
): void {
  switch (resource.role) {
    case "for":
      keys.add(objectKey(obj));
      return;
    case "owns": {
      const key = ownerKey(plan, obj);
      if (key !== undefined) keys.add(key);
      return;
    }
    case "watches":
      try {
        for (const key of resource.map!(obj)) {
          if (typeof key === "string" && key !== "") keys.add(key);
        }
      } catch (error) {
        onMapError(error);
      }
      return;
    case "reconcileAllOn":
      return;
  }
}

/**
 * The primary key a child's controller reference names, when it names an
 * object of the primary's group and kind; an owner is in its child's
 * namespace, or cluster-scoped.
 */
export function ownerKey(
  plan: Routing,
  child: Obj,
): string | undefined {
  const ref = controllerOf(child);
  if (ref === undefined || ref.kind !== plan.primary.kind) return undefined;
  const slash = ref.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : ref.apiVersion.slice(0, slash);
  if (group !== plan.primary.group) return undefined;
  if (plan.primary.clusterScoped) return ref.name;
  const namespace = child.metadata.namespace;
  // A cluster-scoped child cannot be owned by a namespaced object.
  return namespace ? `${namespace}/${ref.name}` : undefined;
}

/**
 * An update that left the generation alone: nothing the spec says
 * changed. A deletion starting, or finalizers changing, still counts as a
 * change, so a deleting object is reconciled until it is gone.
 */
function sameGeneration(previous: Obj, current: Obj): boolean {
  const before = previous.metadata;
  const after = current.metadata;
  if (before.generation === undefined || after.generation === undefined) {
    return false;
  }
  return before.generation === after.generation &&
    before.deletionTimestamp === after.deletionTimestamp &&
    sameList(before.finalizers, after.finalizers);
}

function sameList(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const left = Array.isArray(a) ? a : [];
  const right = Array.isArray(b) ? b : [];
  return left.length === right.length &&
    left.every((value, i) => value === right[i]);
}
