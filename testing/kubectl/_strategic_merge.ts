import { isJsonObject, jsonEqual } from "../_json.ts";

/**
 * A strategic merge patch the fake cannot apply: an unknown directive or a
 * value of the wrong shape.
 */
export class StrategicMergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StrategicMergeError";
  }
}

type Json = Record<string, unknown>;

const ORDER = "$setElementOrder/";
const DELETE_PRIMITIVES = "$deleteFromPrimitiveList/";

/**
 * Merge keys of the object lists of built-in types that merge rather than
 * replace, by field path (list indices left out). kubectl's patches name
 * the key themselves in `$setElementOrder/<field>`; this table serves
 * patches written by hand.
 */
const MERGE_KEYS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\.)(containers|initContainers|ephemeralContainers)$/, "name"],
  [
    /(^|\.)(containers|initContainers|ephemeralContainers)\.ports$/,
    "containerPort",
  ],
  [/(^|\.)(containers|initContainers|ephemeralContainers)\.env$/, "name"],
  [
    /(^|\.)(containers|initContainers|ephemeralContainers)\.volumeMounts$/,
    "mountPath",
  ],
  [
    /(^|\.)(containers|initContainers|ephemeralContainers)\.volumeDevices$/,
    "devicePath",
  ],
  [/(^|\.)(volumes|imagePullSecrets|schedulingGates|resourceClaims)$/, "name"],
  [/(^|\.)hostAliases$/, "ip"],
  [/(^|\.)topologySpreadConstraints$/, "topologyKey"],
  [/^metadata\.ownerReferences$/, "uid"],
  [/^status\.conditions$/, "type"],
];

/** Primitive lists that merge as sets rather than replace. */
const MERGED_PRIMITIVE_LISTS = new Set(["metadata.finalizers"]);

/**
 * Applies a strategic merge patch to an object of a built-in type, as the
 * API server does for the patches kubectl sends: maps merge (`null`
 * deletes), lists with a merge key merge element by element, other lists
 * are replaced, and the directives `$patch` (`merge`, `replace`, `delete`),
 * `$retainKeys`, `$setElementOrder/<field>` and
 * `$deleteFromPrimitiveList/<field>` are honoured. Service `spec.ports`
 * merge on `port`. Elements the patch does not order keep their place
 * after the ordered ones. Returns a new value; the inputs are not modified.
 *
 * @param kind The object's kind (Service ports merge differently).
 */
export function applyStrategicMergePatch(
  target: Json,
  patch: unknown,
  kind: string,
): Json {
  if (!isJsonObject(patch)) {
    throw new StrategicMergeError(
      "a strategic merge patch must be a JSON object",
    );
  }
  const merged = mergeMap(target, patch, "", kind);
  if (merged === undefined) {
    throw new StrategicMergeError(
      "a strategic merge patch cannot delete the whole object",
    );
  }
  return merged;
}

function mergeMap(
  target: Json,
  patch: Json,
  path: string,
  kind: string,
): Json | undefined {
  const directive = patch.$patch;
  if (directive === "delete") return undefined;
  if (directive === "replace") return strip(patch);
  if (directive !== undefined && directive !== "merge") {
    throw new StrategicMergeError(
      `unknown $patch directive ${JSON.stringify(directive)} at ${
        path || "the root"
      }`,
    );
  }
  const result: Json = { ...target };
  const retain = patch.$retainKeys;
  if (retain !== undefined) {
    if (!Array.isArray(retain)) {
      throw new StrategicMergeError(`$retainKeys at ${path} must be a list`);
    }
    for (const key of Object.keys(result)) {
      if (!retain.includes(key)) delete result[key];
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith("$")) continue;
    const at = path ? `${path}.${key}` : key;
    if (value === null) {
      delete result[key];
    } else if (isJsonObject(value)) {
      const merged = mergeMap(
        isJsonObject(result[key]) ? result[key] : {},
        value,
        at,
        kind,
      );
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(
        result[key],
        value,
        patch[`${ORDER}${key}`],
        at,
        kind,
      );
    } else {
      result[key] = value;
    }
  }
  for (const [directiveKey, value] of Object.entries(patch)) {
    if (directiveKey.startsWith(DELETE_PRIMITIVES)) {
      const key = directiveKey.slice(DELETE_PRIMITIVES.length);
      if (!Array.isArray(value) || !Array.isArray(result[key])) continue;
      result[key] = (result[key] as unknown[]).filter((item) =>
        !value.some((v) => jsonEqual(v, item))
      );
    } else if (directiveKey.startsWith(ORDER)) {
      const key = directiveKey.slice(ORDER.length);
      if (Array.isArray(value) && Array.isArray(result[key])) {
        result[key] = reorder(result[key] as unknown[], value);
      }
    } else if (
      directiveKey.startsWith("$") && directiveKey !== "$patch" &&
      directiveKey !== "$retainKeys"
    ) {
      throw new StrategicMergeError(
        `unknown strategic merge patch directive ${
          JSON.stringify(directiveKey)
        } at ${path || "the root"}`,
      );
    }
  }
  return result;
}

function mergeList(
  target: unknown,
  patch: unknown[],
  order: unknown,
  path: string,
  kind: string,
): unknown[] {
  const replaceAll = patch.some((item) =>
    isJsonObject(item) && item.$patch === "replace" &&
    Object.keys(item).length === 1
  );
  if (replaceAll) {
    return patch.filter((item) => !(isJsonObject(item) && item.$patch))
      .map((item) => isJsonObject(item) ? strip(item) : item);
  }
  const existing = Array.isArray(target) ? target : [];
  const key = mergeKeyOf(path, kind, order, patch);
  if (key !== undefined) {
    const result = [...existing];
    for (const item of patch) {
      if (!isJsonObject(item) || item[key] === undefined) {
        throw new StrategicMergeError(
          `${path} merges on ${key}, so each element must be an object with a ${key}`,
        );
      }
      const at = result.findIndex((e) =>
        isJsonObject(e) && jsonEqual(e[key], item[key])
      );
      if (item.$patch === "delete") {
        if (at >= 0) result.splice(at, 1);
        continue;
      }
      const base = at >= 0 && isJsonObject(result[at])
        ? result[at] as Json
        : {};
      const merged = item.$patch === "replace"
        ? strip(item)
        : mergeMap(base, item, path, kind) ?? {};
      if (at >= 0) result[at] = merged;
      else result.push(merged);
    }
    return Array.isArray(order)
      ? result
      : patchOrder(result, existing, patch, key);
  }
  const primitiveMerge = MERGED_PRIMITIVE_LISTS.has(path) ||
    (Array.isArray(order) && order.every((o) => !isJsonObject(o)) &&
      patch.every((p) => !isJsonObject(p)));
  if (primitiveMerge) {
    const result = [...existing];
    for (const item of patch) {
      if (!result.some((e) => jsonEqual(e, item))) result.push(item);
    }
    return result;
  }
  return patch.map((item) => isJsonObject(item) ? strip(item) : item);
}

/**
 * The merge key a built-in type's list at `path` (field names, indices
 * left out) has, or undefined when the list is replaced as a whole.
 */
export function listMergeKey(path: string, kind: string): string | undefined {
  if (kind === "Service" && path === "spec.ports") return "port";
  for (const [pattern, key] of MERGE_KEYS) {
    if (pattern.test(path)) return key;
  }
  return undefined;
}

/** The merge key of a list: named by the patch's element order, else known. */
function mergeKeyOf(
  path: string,
  kind: string,
  order: unknown,
  patch: unknown[],
): string | undefined {
  if (Array.isArray(order) && order.length > 0 && isJsonObject(order[0])) {
    const keys = Object.keys(order[0]);
    if (keys.length === 1) return keys[0];
  }
  const known = listMergeKey(path, kind);
  if (known !== undefined) return known;
  // A deletion names its element by the merge key alone.
  const deletion = patch.find((p) => isJsonObject(p) && p.$patch === "delete");
  if (isJsonObject(deletion)) {
    const keys = Object.keys(deletion).filter((k) => k !== "$patch");
    if (keys.length === 1) return keys[0];
  }
  return undefined;
}

/**
 * A merged keyed list in the order kube-apiserver gives it when the patch
 * sets none: the patch's elements in the patch's order, merged with the
 * others in their stored order, the two interleaved by their stored
 * positions; an element the store did not have goes before any stored one
 * still to place (so a new container comes first), and elements the patch
 * names all take the patch's order.
 */
function patchOrder(
  merged: unknown[],
  existing: unknown[],
  patch: unknown[],
  key: string,
): unknown[] {
  const keyOf = (item: unknown) => isJsonObject(item) ? item[key] : undefined;
  const stored = (item: unknown) =>
    existing.findIndex((e) => jsonEqual(keyOf(e), keyOf(item)));
  const patched: unknown[] = [];
  for (const p of patch) {
    if (isJsonObject(p) && p.$patch === "delete") continue;
    const element = merged.find((m) => jsonEqual(keyOf(m), keyOf(p)));
    if (element !== undefined && !patched.includes(element)) {
      patched.push(element);
    }
  }
  const others = merged.filter((m) => !patched.includes(m));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < patched.length && j < others.length) {
    if (stored(patched[i]) < stored(others[j])) out.push(patched[i++]);
    else out.push(others[j++]);
  }
  return [...out, ...patched.slice(i), ...others.slice(j)];
}

/**
 * The elements named in `order` first, in that order, then the others in
 * their current order.
 */
function reorder(items: unknown[], order: unknown[]): unknown[] {
  const matches = (item: unknown, o: unknown) =>
    isJsonObject(o)
      ? isJsonObject(item) &&
        Object.entries(o).every(([k, v]) => jsonEqual(item[k], v))
      : jsonEqual(item, o);
  const ordered: unknown[] = [];
  const rest = [...items];
  for (const o of order) {
    const at = rest.findIndex((item) => matches(item, o));
    if (at >= 0) ordered.push(...rest.splice(at, 1));
  }
  return [...ordered, ...rest];
}

/** A copy without directives, for content the patch adds or replaces. */
function strip(value: Json): Json {
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith("$")) continue;
    out[key] = isJsonObject(v)
      ? strip(v)
      : Array.isArray(v)
      ? v.map((e) => isJsonObject(e) ? strip(e) : e)
      : v;
  }
  return out;
}
