/**
 * Field ownership for server-side apply, as far as a fake needs it: the
 * fields a manager set, as paths; a structural merge of an apply
 * configuration into an object; the fields an applier no longer sets
 * removed; conflicts with other managers; `metadata.managedFields` in the
 * `FieldsV1` form kube-apiserver writes.
 *
 * Lists merge by key where the type's strategic merge keys say so (a
 * built-in type's containers by `name`, conditions by `type`, owner
 * references by `uid`), `metadata.finalizers` is a set, and every other
 * list is atomic (owned, and replaced, as a whole), as a custom resource's
 * lists are without a schema saying otherwise.
 *
 * @module
 */
import { isJsonObject, jsonEqual } from "./_json.ts";
import { listMergeKey } from "./kubectl/_strategic_merge.ts";

type Json = Record<string, unknown>;

/** One path segment: `f:<field>`, `k:<key json>` (a keyed element), `v:<value json>` (a set member). */
type Segment = string;
/** Segments joined by NUL (no field name holds one). */
type PathKey = string;

const SEP = "\u0000";

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: Json;
  subresource?: string;
}

/** Top-level and metadata fields that identify an object: never owned. */
const IDENTITY = new Set(["apiVersion", "kind"]);
const SERVER_META = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
]);

/** How lists are keyed, for one kind. */
export interface ListKeys {
  /** The merge key of the list at `path` (dotted field names), or undefined when atomic. */
  keyOf(path: string): string | undefined;
  /** Whether the list at `path` is a set of primitives. */
  isSet(path: string): boolean;
}

/** The list keys of a kind: strategic merge keys for built-in types, metadata's for all. */
export function listKeysFor(kind: string, builtin: boolean): ListKeys {
  return {
    keyOf(path) {
      if (path === "metadata.ownerReferences") return "uid";
      return builtin ? listMergeKey(path, kind) : undefined;
    },
    isSet: (path) => path === "metadata.finalizers",
  };
}

/** The paths a configuration sets: every leaf, keyed list element and set member. */
export function fieldSet(config: Json, keys: ListKeys): Set<PathKey> {
  const out = new Set<PathKey>();
  for (const [field, value] of Object.entries(config)) {
    if (IDENTITY.has(field)) continue;
    if (field === "metadata" && isJsonObject(value)) {
      for (const [m, v] of Object.entries(value)) {
        if (SERVER_META.has(m)) continue;
        walk(v, [`f:metadata`, `f:${m}`], `metadata.${m}`, keys, out);
      }
      continue;
    }
    walk(value, [`f:${field}`], field, keys, out);
  }
  return out;
}

function walk(
  value: unknown,
  path: Segment[],
  dotted: string,
  keys: ListKeys,
  out: Set<PathKey>,
): void {
  if (isJsonObject(value) && Object.keys(value).length > 0) {
    for (const [field, child] of Object.entries(value)) {
      walk(child, [...path, `f:${field}`], `${dotted}.${field}`, keys, out);
    }
    return;
  }
  if (Array.isArray(value)) {
    const key = keys.keyOf(dotted);
    if (key !== undefined && value.every((e) => isJsonObject(e) && key in e)) {
      for (const element of value as Json[]) {
        const at = [...path, `k:${JSON.stringify({ [key]: element[key] })}`];
        out.add(at.join(SEP));
        for (const [field, child] of Object.entries(element)) {
          walk(child, [...at, `f:${field}`], `${dotted}.${field}`, keys, out);
        }
      }
      return;
    }
    if (keys.isSet(dotted)) {
      for (const element of value) {
        out.add([...path, `v:${JSON.stringify(element)}`].join(SEP));
      }
      return;
    }
  }
  out.add(path.join(SEP));
}

function segmentsOf(path: PathKey): Segment[] {
  return path.split(SEP);
}

/** The value at a path, or undefined. */
export function valueAt(obj: unknown, path: PathKey): unknown {
  let current: unknown = obj;
  for (const segment of segmentsOf(path)) {
    current = step(current, segment);
    if (current === undefined) return undefined;
  }
  return current;
}

function step(current: unknown, segment: Segment): unknown {
  const body = segment.slice(2);
  switch (segment[0]) {
    case "f":
      return isJsonObject(current) ? current[body] : undefined;
    case "k": {
      if (!Array.isArray(current)) return undefined;
      const [[k, v]] = Object.entries(JSON.parse(body) as Json);
      return current.find((e) => isJsonObject(e) && jsonEqual(e[k], v));
    }
    default: {
      if (!Array.isArray(current)) return undefined;
      const v = JSON.parse(body);
      return current.find((e) => jsonEqual(e, v));
    }
  }
}

/**
 * `config` merged into `target`: maps field by field, keyed lists element
 * by element, sets member by member; anything else replaced. Returns a
 * new object.
 */
export function mergeApplied(
  target: Json,
  config: Json,
  keys: ListKeys,
): Json {
  return mergeMap(target, config, "", keys);
}

function mergeMap(target: Json, config: Json, dotted: string, keys: ListKeys) {
  const out: Json = { ...target };
  for (const [field, value] of Object.entries(config)) {
    const at = dotted ? `${dotted}.${field}` : field;
    out[field] = mergeValue(out[field], value, at, keys);
  }
  return out;
}

function mergeValue(
  target: unknown,
  value: unknown,
  dotted: string,
  keys: ListKeys,
): unknown {
  if (isJsonObject(value) && isJsonObject(target)) {
    return mergeMap(target, value, dotted, keys);
  }
  if (Array.isArray(value) && Array.isArray(target)) {
    const key = keys.keyOf(dotted);
    if (
      key !== undefined &&
      [...value, ...target].every((e) => isJsonObject(e) && key in e)
    ) {
      const out = [...target] as Json[];
      for (const element of value as Json[]) {
        const i = out.findIndex((e) => jsonEqual(e[key], element[key]));
        if (i < 0) out.push(structuredClone(element));
        else out[i] = mergeMap(out[i], element, dotted, keys);
      }
      return out;
    }
    if (keys.isSet(dotted)) {
      const out = [...target];
      for (const v of value) if (!out.some((e) => jsonEqual(e, v))) out.push(v);
      return out;
    }
  }
  return structuredClone(value);
}

/** `obj` without the field, element or member at `path` (a new object). */
export function removeAt(obj: Json, path: PathKey): Json {
  return removeIn(obj, segmentsOf(path)) as Json;
}

function removeIn(current: unknown, segments: Segment[]): unknown {
  const [segment, ...rest] = segments;
  const body = segment.slice(2);
  if (segment[0] === "f") {
    if (!isJsonObject(current) || !(body in current)) return current;
    const out = { ...current };
    if (rest.length === 0) delete out[body];
    else {
      const child = removeIn(out[body], rest);
      // A map left empty by the removal was there for what it held.
      if (
        isJsonObject(child) && Object.keys(child).length === 0 &&
        child !== out[body]
      ) delete out[body];
      else out[body] = child;
    }
    return out;
  }
  if (!Array.isArray(current)) return current;
  const match = segment[0] === "k"
    ? (() => {
      const [[k, v]] = Object.entries(JSON.parse(body) as Json);
      return (e: unknown) => isJsonObject(e) && jsonEqual(e[k], v);
    })()
    : (() => {
      const v = JSON.parse(body);
      return (e: unknown) => jsonEqual(e, v);
    })();
  if (rest.length === 0) return current.filter((e) => !match(e));
  return current.map((e) => match(e) ? removeIn(e, rest) : e);
}

/** A path as kube-apiserver names it in a conflict: `.spec.containers[name="web"].image`. */
export function describePath(path: PathKey): string {
  let out = "";
  for (const segment of segmentsOf(path)) {
    const body = segment.slice(2);
    if (segment[0] === "f") out += `.${body}`;
    else if (segment[0] === "k") {
      const [[k, v]] = Object.entries(JSON.parse(body) as Json);
      out += `[${k}=${JSON.stringify(v)}]`;
    } else out += `[=${body}]`;
  }
  return out;
}

/** The `FieldsV1` form of a set of paths. */
export function toFieldsV1(paths: Iterable<PathKey>): Json {
  const root: Json = {};
  for (const path of paths) {
    let node = root;
    const segments = segmentsOf(path);
    for (const segment of segments) {
      node = (node[segment] ??= {}) as Json;
    }
    // A keyed element or set member owned as such is marked with ".".
    const last = segments[segments.length - 1];
    if (last[0] === "k") node["."] = {};
  }
  return root;
}

/** The set of paths a `FieldsV1` holds (its leaves and "." marks). */
export function fromFieldsV1(fields: unknown): Set<PathKey> {
  const out = new Set<PathKey>();
  const visit = (node: unknown, path: Segment[]) => {
    if (!isJsonObject(node)) return;
    const children = Object.keys(node).filter((k) => k !== ".");
    if ("." in node && path.length > 0) out.add(path.join(SEP));
    if (children.length === 0 && path.length > 0) out.add(path.join(SEP));
    for (const child of children) visit(node[child], [...path, child]);
  };
  visit(fields, []);
  return out;
}

/** The managedFields entries of an object (malformed ones dropped). */
export function entriesOf(obj: { metadata?: unknown }): ManagedFieldsEntry[] {
  const meta = obj.metadata;
  if (!isJsonObject(meta) || !Array.isArray(meta.managedFields)) return [];
  return meta.managedFields.filter((e): e is ManagedFieldsEntry =>
    isJsonObject(e) && typeof e.manager === "string" &&
    (e.operation === "Apply" || e.operation === "Update")
  );
}

/** Whether an entry is the one of `manager`'s `operation` through `subresource`. */
export function sameEntry(
  e: ManagedFieldsEntry,
  manager: string,
  operation: "Apply" | "Update",
  subresource: string,
): boolean {
  return e.manager === manager && e.operation === operation &&
    (e.subresource ?? "") === subresource;
}

/** Paths whose value differs between `before` and `after` (set, changed or removed). */
export function changedPaths(
  before: Json,
  after: Json,
  keys: ListKeys,
): Set<PathKey> {
  const out = new Set<PathKey>();
  const now = fieldSet(after, keys);
  for (const path of now) {
    if (!jsonEqual(valueAt(before, path), valueAt(after, path))) out.add(path);
  }
  for (const path of fieldSet(before, keys)) {
    if (!now.has(path) && valueAt(after, path) === undefined) out.add(path);
  }
  return out;
}

/**
 * The managedFields after a write that is not an apply (create, update,
 * patch): the fields it changed pass from every other manager to
 * `manager`'s `Update` entry; entries left with no field go.
 */
export function recordUpdate(
  entries: ManagedFieldsEntry[],
  changed: Set<PathKey>,
  manager: string,
  subresource: string,
  apiVersion: string,
  time: string,
): ManagedFieldsEntry[] {
  if (changed.size === 0) return entries;
  const out: ManagedFieldsEntry[] = [];
  let mine: Set<PathKey> | undefined;
  for (const e of entries) {
    const owned = fromFieldsV1(e.fieldsV1);
    if (sameEntry(e, manager, "Update", subresource)) {
      mine = owned;
      continue;
    }
    for (const path of changed) owned.delete(path);
    if (owned.size > 0) out.push({ ...e, fieldsV1: toFieldsV1(owned) });
  }
  mine ??= new Set();
  for (const path of changed) mine.add(path);
  out.push(entry(manager, "Update", subresource, apiVersion, time, mine));
  return out;
}

/** One entry. */
export function entry(
  manager: string,
  operation: "Apply" | "Update",
  subresource: string,
  apiVersion: string,
  time: string,
  paths: Set<PathKey>,
): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = {
    manager,
    operation,
    apiVersion,
    time,
    fieldsType: "FieldsV1",
    fieldsV1: toFieldsV1(paths),
  };
  if (subresource) e.subresource = subresource;
  return e;
}
