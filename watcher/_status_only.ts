import type { KubeObject } from "../types.ts";

/**
 * Whether `next` differs from `previous` only where the API server or a
 * controller records observed state: `status`, `metadata.resourceVersion`
 * and `metadata.managedFields`. Both must be the same incarnation (same
 * `uid`) at the same `metadata.generation`, and that generation must be a
 * positive number: an object that does not track its generation gives no
 * such promise, so every change of it counts.
 *
 * Labels, annotations, finalizers, owner references and `deletionTimestamp`
 * are compared like everything else: Kubernetes does not bump the
 * generation when the first four change (it does when it sets
 * `deletionTimestamp`, but a server need not), yet a controller must hear
 * of them all.
 *
 * Walks both objects side by side and stops at the first difference;
 * nothing is serialised or copied. Values compare as JSON does: a key whose
 * value is `undefined` equals a missing key, key order does not matter,
 * array order does.
 */
export function isStatusOnlyChange(
  previous: KubeObject,
  next: KubeObject,
): boolean {
  const a = previous.metadata, b = next.metadata;
  if (!a || !b || a.uid !== b.uid) return false;
  const generation = a.generation;
  if (
    typeof generation !== "number" || !(generation > 0) ||
    generation !== b.generation
  ) {
    return false;
  }
  return sameType(previous.apiVersion, next.apiVersion) &&
    sameType(previous.kind, next.kind) &&
    sameOutside(previous, next, TOP_LEVEL_IGNORED) &&
    sameOutside(a, b, METADATA_IGNORED);
}

/**
 * kube-apiserver leaves `apiVersion` and `kind` out of the items of a LIST
 * of a built-in type, and sends them with every watch event: one side
 * without them is no change.
 */
function sameType(a: unknown, b: unknown): boolean {
  return a === undefined || b === undefined || a === b;
}

/** Top-level fields compared apart, or that a status-only write may change. */
const TOP_LEVEL_IGNORED: ReadonlySet<string> = new Set([
  "status",
  "metadata",
  "apiVersion",
  "kind",
]);
/** Metadata fields that change on every write, whatever it changed. */
const METADATA_IGNORED: ReadonlySet<string> = new Set([
  "resourceVersion",
  "managedFields",
]);

/** Whether `a` and `b` hold equal values under every key not in `ignored`. */
function sameOutside(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  ignored: ReadonlySet<string>,
): boolean {
  for (const key in a) {
    if (!ignored.has(key) && !jsonEqual(a[key], b[key])) return false;
  }
  // Keys only `b` has (with a defined value) are a difference too.
  for (const key in b) {
    if (!ignored.has(key) && a[key] === undefined && b[key] !== undefined) {
      return false;
    }
  }
  return true;
}

/** Deep equality of two decoded JSON values. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null || b === null
  ) {
    return false;
  }
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  if (isArray) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!jsonEqual(a[i], other[i])) return false;
    }
    return true;
  }
  return sameOutside(
    a as Record<string, unknown>,
    b as Record<string, unknown>,
    NOTHING_IGNORED,
  );
}

const NOTHING_IGNORED: ReadonlySet<string> = new Set();
