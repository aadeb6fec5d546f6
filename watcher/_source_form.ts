/**
 * A source's form, as one value: everything that decides what a shared
 * source fetches, stores, and how its loops run. A `Watcher` builds its
 * form once; the source runs with the form it was made from, and the
 * registry finds a running source by the form's key (`formKey`), so two
 * watchers share exactly when their forms are equal. `FORM_FIELDS` says,
 * for every field, how it compares (plain data by value, objects and
 * functions by identity); its type requires an entry for each field of
 * `SourceForm` and of its `LoopSettings`, so a field added to either cannot
 * be left out of the key. The selection rule is here too: what a field
 * selector and index keys read, and when the selector joins the form.
 *
 * @module
 */
import type { Gvr, KubeObject, KubeObjectLike, Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import type { RestClient } from "../client/rest_client.ts";
import type { FieldSelector } from "../selection/field_selector.ts";
import type { InitialListMode } from "../listwatch/list_watch_types.ts";
import type { ShardFilter } from "./shard_filter.ts";
import {
  LOOP_TIMEOUTS,
  type LoopTimeout,
  type LoopTimeoutValues,
} from "../_internal/_option_checks.ts";
import { JsonPath } from "../selection/jsonpath.ts";
import { mayCover } from "../selection/_prune.ts";
import { WatcherConfigError } from "../config_error.ts";

/** What makes two watchers share a source, and what the source runs with. */
export interface SourceForm {
  readonly client: RestClient;
  readonly gvr: Gvr;
  /** One loop per entry; `""` is every namespace. */
  readonly namespaces: readonly string[];
  /** In its string form. */
  readonly labelSelector: string | undefined;
  readonly metadataOnly: boolean;
  /** The preparer's (as the stored copies are made). */
  readonly ignoreFields: readonly string[];
  readonly transform:
    | ((obj: KubeObject) => KubeObjectLike | undefined)
    | undefined;
  /** The stored copies are deep-frozen (`freezeObjects`). */
  readonly freezeObjects: boolean;
  /** The user's logger (the source logs through the stream's context). */
  readonly logger: Logger | undefined;
  /**
   * The field selector of every consumer, when its stored copies may not
   * answer it as the objects sent would (the selection rule, below): the source
   * then keeps only the objects it chose, as sent.
   */
  readonly preselect: FieldSelector | undefined;
  /** Only this shard's objects are fetched and kept (`shard`). */
  readonly shard: ShardFilter | undefined;
  /** How each loop runs. */
  readonly loop: LoopSettings;
}

/**
 * The settings every list-watch loop of a watcher runs with, as one value:
 * checked in the watcher's plan, passed through as they are to each
 * `ListWatch` (as its options of the same names), and part of the form.
 * The loop's timeouts come by their one list (`LOOP_TIMEOUTS`).
 */
export interface LoopSettings extends LoopTimeoutValues {
  readonly pageSize: number | undefined;
  readonly initialList: InitialListMode | undefined;
  readonly clock: Clock | undefined;
  readonly random: (() => number) | undefined;
  /** Where the loops' metrics go, and their `watcher` label (with a meter). */
  readonly meter: Meter | undefined;
  readonly name: string | undefined;
}

/** The fields a form's key compares: its own, and its loop settings. */
type FlatForm = Omit<SourceForm, "loop"> & LoopSettings;

/** A field a form's key compares. */
export type FormField = keyof FlatForm;

/** A field's part of a key: a JSON value, equal when the fields are alike. */
type Compare<V> = (value: V) => unknown;

const byValue = <V>(value: V): unknown => value ?? null;
const sorted = (list: readonly string[]): string[] => [...list].sort();

/** The loop's timeouts compare by value. */
function timeoutsByValue(): Record<LoopTimeout, Compare<number | undefined>> {
  return Object.fromEntries(
    LOOP_TIMEOUTS.map((name) => [name, byValue]),
  ) as Record<LoopTimeout, Compare<number | undefined>>;
}

/**
 * How each field of a form compares: the one list of what makes two
 * watchers share.
 */
export const FORM_FIELDS: {
  readonly [K in FormField]-?: Compare<FlatForm[K]>;
} = {
  client: identity,
  gvr: (gvr) => [gvr.group, gvr.version, gvr.resource],
  namespaces: sorted,
  labelSelector: byValue,
  metadataOnly: byValue,
  ignoreFields: sorted,
  transform: identity,
  freezeObjects: byValue,
  pageSize: byValue,
  initialList: (mode) => mode ?? "list",
  ...timeoutsByValue(),
  clock: identity,
  logger: identity,
  random: identity,
  preselect: (selector) => selector === undefined ? null : String(selector),
  shard: identity,
  meter: identity,
  name: byValue,
};

/** The fields of a form, in key order. */
export const SOURCE_FORM_FIELDS: readonly FormField[] = Object.freeze(
  Object.keys(FORM_FIELDS) as FormField[],
);

/** The registry's key of `form`: equal exactly when the forms are. */
export function formKey(form: SourceForm): string {
  const flat: FlatForm = { ...form, ...form.loop };
  return JSON.stringify(
    SOURCE_FORM_FIELDS.map((field) =>
      (FORM_FIELDS[field] as Compare<unknown>)(flat[field])
    ),
  );
}

const ids = new WeakMap<object, number>();
let nextId = 1;

/** A stable name for a value in a key: objects and functions by identity. */
export function identity(value: unknown): string | number | boolean | null {
  if (value === undefined) return null;
  if (
    (typeof value === "object" && value !== null) || typeof value === "function"
  ) {
    let id = ids.get(value);
    if (id === undefined) ids.set(value, id = nextId++);
    return `#${id}`;
  }
  return value as string | number | boolean;
}

// The one rule for what selection and keys read, for every path an object
// takes into a store (a first consumer's list, a late joiner's view, a
// consumer joining mid-relist, an unshared watcher, a relist, an event):
//
// - a client-side **field selector** reads the object as the server sent
//   it (in its metadata-only form with `metadataOnly`), before
//   `ignoreFields` and `transform`: trimming what is stored never changes
//   what is selected;
// - **index keys** read the stored copy, after `ignoreFields` and
//   `transform`: what the store is queried by is what it holds.
//
// A shared source keeps only stored copies, so a view made for a consumer
// that joins late can select on them only where they answer as the sent
// object would. Where they may not (a `transform`, or an `ignoreFields`
// path under or above a selector path), the selector becomes part of the
// source's form: only consumers with that selector share the source, and
// the source keeps only the objects the selector chose, as sent.

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
 * out of the text before the parse, `_json_cut.ts`): all of them but those
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
