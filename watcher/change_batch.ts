/**
 * What one debounced batch of a `Watcher` carries: the counts of
 * {@linkcode ChangeStats} and the objects behind them.
 *
 * @module
 */
import type { ChangeStats, KubeObject, KubeObjectLike } from "../types.ts";

/**
 * An object replaced in the store during a batch: the version before the
 * batch and the version now.
 *
 * @example Reacting only to a changed spec
 * ```ts
 * import type { KubeObject, ModifiedObject } from "@haptic/k8s-watcher";
 *
 * function specChanged({ previous, current }: ModifiedObject<KubeObject>): boolean {
 *   return JSON.stringify(previous.spec) !== JSON.stringify(current.spec);
 * }
 * ```
 *
 * @typeParam T The watched objects.
 */
export interface ModifiedObject<T extends KubeObjectLike = KubeObject> {
  /**
   * The version the store held before the first change of this batch.
   * With `store: cachedStore()` the store keeps references, not objects:
   * this is the cached copy when there was one, else an object carrying
   * only `metadata.namespace`, `name` and `resourceVersion`.
   */
  readonly previous: T;
  /** The version stored now. */
  readonly current: T;
}

/**
 * The objects behind the counts of a {@linkcode ChangeBatch}, coalesced per
 * object (namespace/name) over the batch: an object appears at most once,
 * in the order of its first change in the batch.
 *
 * - created, then modified: one created entry, the latest version;
 * - created, then deleted: nothing (an object created again after that is
 *   placed by that creation);
 * - modified, then modified: one modified entry, the version before the
 *   batch as `previous` and the latest as `current`;
 * - modified, then deleted: one deleted entry, the last version stored;
 * - deleted, then created again: with a new `metadata.uid`, a deleted and a
 *   created entry; with the same uid (or none), one modified entry.
 *
 * @example Feeding a work queue
 * ```ts
 * import type { ChangedObjects } from "@haptic/k8s-watcher";
 *
 * function keysToReconcile(objects: ChangedObjects): string[] {
 *   const key = (o: { metadata: { namespace?: string; name?: string } }) =>
 *     `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
 *   return [
 *     ...objects.created.map(key),
 *     ...objects.modified.map((m) => key(m.current)),
 *     ...objects.deleted.map(key),
 *   ];
 * }
 * ```
 *
 * @typeParam T The watched objects.
 */
export interface ChangedObjects<T extends KubeObjectLike = KubeObject> {
  /** Objects added to the store, as stored now. */
  readonly created: readonly T[];
  /** Objects replaced in the store, with the version before the batch. */
  readonly modified: readonly ModifiedObject<T>[];
  /**
   * Objects removed from the store (deleted, no longer selected, dropped
   * by `transform`, or missing from a relist), as last stored. With
   * `store: cachedStore()`: the cached copy, else an object carrying only
   * `metadata.namespace`, `name` and `resourceVersion`.
   */
  readonly deleted: readonly T[];
}

/**
 * One debounced batch of a `Watcher`: how many objects were created,
 * modified and deleted ({@linkcode ChangeStats}) and which
 * ({@linkcode ChangedObjects}).
 *
 * Outside the initial sync, the counts equal the lengths of the arrays in
 * `objects`. A batch with `isInitialSync: true` carries only the counts of
 * the initial list: its objects are all in the store (`store.list()`), and
 * building arrays of a hundred thousand entries would cost time and memory
 * nobody asked for; changes that arrive after the list and land in that
 * same batch are in `objects`. A relist (after 410 Gone) is not an initial
 * sync: its differences are in `objects`, objects missing from the new
 * list among the deleted.
 *
 * @example Re-rendering only what changed
 * ```ts
 * import type { ChangeBatch, KubeObject } from "@haptic/k8s-watcher";
 *
 * function touchedNamespaces(batch: ChangeBatch<KubeObject>): Set<string> {
 *   const { created, modified, deleted } = batch.objects;
 *   const all = [...created, ...modified.map((m) => m.current), ...deleted];
 *   return new Set(all.map((o) => o.metadata.namespace ?? ""));
 * }
 * ```
 *
 * @typeParam T The watched objects.
 */
export interface ChangeBatch<T extends KubeObjectLike = KubeObject>
  extends ChangeStats {
  /** The objects behind the counts; empty for the initial list itself. */
  readonly objects: ChangedObjects<T>;
}
