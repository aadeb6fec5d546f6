/**
 * A source's form, as one value: everything that decides what a shared
 * source fetches, stores, and how its loops run. A `Watcher` builds its
 * form once; the source runs with the form it was made from, and the
 * registry finds a running source by the form's key (`formKey`), so two
 * watchers share exactly when their forms are equal. `FORM_FIELDS` says,
 * for every field, how it compares (plain data by value, objects and
 * functions by identity); its type requires an entry for each field of
 * `SourceForm` and of its `LoopSettings`, so a field added to either cannot
 * be left out of the key.
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
   * answer it as the objects sent would (`_selection_rule.ts`): the source
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
