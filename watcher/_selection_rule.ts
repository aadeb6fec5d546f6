/**
 * The one rule for what selection and keys read, for every path an object
 * takes into a store (a first consumer's list, a late joiner's view, a
 * consumer joining mid-relist, an unshared watcher, a relist, an event):
 *
 * - a client-side **field selector** reads the object as the server sent
 *   it (in its metadata-only form with `metadataOnly`), before
 *   `ignoreFields` and `transform`: trimming what is stored never changes
 *   what is selected;
 * - **index keys** read the stored copy, after `ignoreFields` and
 *   `transform`: what the store is queried by is what it holds.
 *
 * A shared source keeps only stored copies, so a view made for a consumer
 * that joins late can select on them only where they answer as the sent
 * object would. Where they may not (a `transform`, or an `ignoreFields`
 * path under or above a selector path), the selector becomes part of the
 * source's form: only consumers with that selector share the source, and
 * the source keeps only the objects the selector chose, as sent.
 *
 * @module
 */
import type { FieldSelector } from "../selection/field_selector.ts";
import { JsonPath } from "../selection/jsonpath.ts";
import { mayCover } from "../selection/_prune.ts";
import { WatcherConfigError } from "../config_error.ts";

/**
 * Whether `selector` may answer differently on a stored copy than on the
 * object as sent, given what preparation removes or rewrites.
 */
export function selectsOnlyAsSent(
  selector: FieldSelector | undefined,
  ignoreFields: readonly string[],
  transform: unknown,
): boolean {
  if (selector === undefined || selector.isEmpty) return false;
  if (transform !== undefined) return true;
  const removed = ignoreFields.map((e) => new JsonPath(e).segments);
  return selector.terms.some(({ path }) =>
    removed.some((r) =>
      mayCover(r, path.segments) || mayCover(path.segments, r) ||
      // `a['0']` and `a[0]` may name the same field: say they may meet.
      mixesKeyAndIndex(r, path.segments)
    )
  );
}

/**
 * The `ignoreFields` paths the loop may remove before selection (and cut
 * out of the text before the parse, `_json.ts`): all of them but those
 * the source's `preselect`, which reads the object as sent, may read.
 * Without a `preselect`, no selector's path meets an ignored one; index keys
 * and `transform` read the stored copy, which lacks them anyway.
 */
export function removableBeforeSelection(
  ignoreFields: readonly string[],
  preselect: FieldSelector | undefined,
): readonly string[] {
  if (preselect === undefined) return ignoreFields;
  return ignoreFields.filter((path) =>
    !selectsOnlyAsSent(preselect, [path], undefined)
  );
}

function mixesKeyAndIndex(
  a: JsonPath["segments"],
  b: JsonPath["segments"],
): boolean {
  const n = Math.min(a.length, b.length);
  let mixed = false;
  for (let i = 0; i < n; i++) {
    const x = a[i], y = b[i];
    if (x.kind === "wildcard" || y.kind === "wildcard") continue;
    if (x.kind === y.kind) {
      if (x.kind === "key" && x.key !== (y as typeof x).key) return false;
      if (x.kind === "index" && x.index !== (y as typeof x).index) return false;
      continue;
    }
    const key = x.kind === "key" ? x.key : (y as { key: string }).key;
    const index = x.kind === "index" ? x.index : (y as { index: number }).index;
    if (key !== String(index)) return false;
    mixed = true;
  }
  return mixed;
}

/** What a metadata-only object has: anything else is never present. */
const METADATA_ONLY_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/**
 * Refuses the configured paths that can never be present, so never match
 * or key anything: with `metadataOnly`, a selector path outside the
 * metadata-only form (selection reads that form), and an `indexBy` path
 * outside it when no `transform` may add it. Refused rather than warned
 * about: the constructor sees the mistake, and a warning after a list of
 * objects that all lack the path comes too late, once the watcher runs
 * with a store that can never fill.
 *
 * @throws {WatcherConfigError} Naming `fieldSelector` or `indexBy`.
 */
export function checkPathsPresent(
  options: {
    selector: FieldSelector | undefined;
    indexBy: readonly string[];
    metadataOnly: boolean;
    transform: unknown;
  },
): void {
  if (!options.metadataOnly) return;
  const absent = (path: JsonPath) => {
    const first = path.segments[0];
    return first !== undefined && first.kind === "key" &&
      !METADATA_ONLY_FIELDS.has(first.key);
  };
  const never = (field: string, path: string, instead: string) =>
    new WatcherConfigError(
      field,
      `path ${path} can never match with metadataOnly: a metadata-only object has only apiVersion, kind and metadata (${instead})`,
    );
  for (const { path } of options.selector?.terms ?? []) {
    if (absent(path)) {
      throw never(
        "fieldSelector",
        path.expression,
        "select on a metadata path, or drop metadataOnly",
      );
    }
  }
  if (options.transform !== undefined) return;
  for (const expression of options.indexBy) {
    if (absent(new JsonPath(expression))) {
      throw never(
        "indexBy",
        expression,
        "index by a metadata path, add the field in a transform, or drop metadataOnly",
      );
    }
  }
}
