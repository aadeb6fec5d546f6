/**
 * What one debounced batch of a `Watcher` carries: the counts of
 * {@linkcode ChangeStats} and the objects behind them; `changeStats()`, a
 * batch's counts; `mergeChangeBatches`, two batches as one (a group's
 * `merge`); and the pending batch they are taken from (`BatchBuilder`,
 * internal).
 *
 * @module
 */
import type { ChangeStats, KubeObject, KubeObjectLike } from "../types.ts";
import type { PendingBatch } from "./_debounce_scheduler.ts";

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

/**
 * The counts {@linkcode changeStats} builds a {@linkcode ChangeStats} from.
 * Missing counts are zero; `isInitialSync` defaults to `false`.
 *
 * @example The counts of an initial list
 * ```ts
 * import type { ChangeStatsInit } from "@haptic/k8s-watcher/watcher";
 *
 * const init: ChangeStatsInit = { created: 3, isInitialSync: true };
 * ```
 */
export interface ChangeStatsInit {
  /**
   * Objects added to the store.
   *
   * @default {0}
   */
  created?: number;
  /**
   * Objects replaced in the store.
   *
   * @default {0}
   */
  modified?: number;
  /**
   * Objects removed from the store.
   *
   * @default {0}
   */
  deleted?: number;
  /**
   * Whether the batch belongs to the initial list.
   *
   * @default {false}
   */
  isInitialSync?: boolean;
}

/**
 * Builds a frozen {@linkcode ChangeStats}, deriving `total` and `isEmpty`.
 *
 * @example Counts with a total
 * ```ts
 * import { changeStats } from "@haptic/k8s-watcher/watcher";
 * import assert from "node:assert/strict";
 *
 * const stats = changeStats({ created: 2, deleted: 1 });
 * assert.equal(stats.total, 3);
 * assert.equal(stats.isEmpty, false);
 * assert.equal(stats.isInitialSync, false);
 * assert.ok(Object.isFrozen(stats));
 * ```
 *
 * @param init The counts; each must be a non-negative integer.
 * @returns The frozen statistics.
 * @throws {RangeError} When a count is negative, fractional or not a number.
 */
export function changeStats(init?: ChangeStatsInit): ChangeStats {
  if (init === undefined) init = {};
  const created = count("created", init.created);
  const modified = count("modified", init.modified);
  const deleted = count("deleted", init.deleted);
  const total = created + modified + deleted;
  return Object.freeze({
    created,
    modified,
    deleted,
    isInitialSync: init.isInitialSync ?? false,
    total,
    isEmpty: total === 0,
  });
}

function count(field: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Change count "${field}" must be a non-negative integer, got ${value}`,
    );
  }
  return value;
}

// Two batches of one watcher as one: the `merge` of a `DebounceGroup` of
// watchers' batches.

/**
 * Coalesces two batches of one watcher, `pending` first, into the batch a
 * caller would have received had they been one (the rules of
 * {@linkcode ChangedObjects}). The `merge` of a
 * `DebounceGroup<ChangeBatch>` whose members watchers feed through their
 * `group` option: a watcher hands its batch to the group whole, so the
 * group calls `merge` only for batches added by hand with `member.add()`.
 * The merged arrays hold `pending`'s objects first (its deleted, modified
 * and created, in that order), then `next`'s.
 *
 * @example A group for watchers
 * ```ts
 * import { type ChangeBatch, DebounceGroup, mergeChangeBatches } from "@haptic/k8s-watcher";
 *
 * const group = new DebounceGroup<ChangeBatch>({
 *   interval: 1_000,
 *   merge: mergeChangeBatches,
 *   onChange: (batches) => {
 *     for (const [name, batch] of batches) console.log(name, batch.total);
 *   },
 * });
 * await group.stop();
 * ```
 *
 * Typed by its batches, so that it is the `merge` of a group whose
 * members watch different types (`DebounceGroup<{ ingresses:
 * ChangeBatch<Ingress>; services: ChangeBatch<Service> }>`, or a union of
 * `ChangeBatch` types): the group merges only batches of one member.
 *
 * @typeParam B The batches, `ChangeBatch<T>` for objects of type `T`.
 * @param pending The earlier batch.
 * @param next The later batch.
 * @returns One batch with both, coalesced per object.
 */
export function mergeChangeBatches<B extends ChangeBatch<KubeObjectLike>>(
  pending: B,
  next: B,
): B {
  const builder = new BatchBuilder<KubeObjectLike>();
  for (const batch of [pending, next]) {
    const { created, modified, deleted } = batch.objects;
    // The initial list is counted, not listed.
    builder.createdInBulk(batch.created - created.length);
    // A replacement (deleted and created under one name) replays in order.
    for (const obj of deleted) builder.deleted(ns(obj), name(obj), obj);
    for (const m of modified) {
      builder.modified(ns(m.current), name(m.current), m.previous, m.current);
    }
    for (const obj of created) builder.created(ns(obj), name(obj), obj);
  }
  // Holds the objects of `pending` and `next`: of B's object type.
  return builder.take(pending.isInitialSync || next.isInitialSync) as B;
}

const ns = (obj: KubeObjectLike): string => obj.metadata?.namespace ?? "";
const name = (obj: KubeObjectLike): string => obj.metadata?.name ?? "";

// The pending batch of a `Watcher`: every change the store writer makes,
// coalesced per object (namespace/name) until the batch is delivered. One
// entry per object, one lookup per change; the arrays a `ChangeBatch`
// carries are built only when it is taken.

/**
 * One object's changes in the batch: what the store held before the batch
 * (`before`), what it holds now (`after`), and the version last removed
 * (`gone`, for a delete). `undefined` means absent. Entries form a list in
 * the order of their first change (`prev`, `next`), so that one can leave
 * from anywhere in it at once.
 */
interface Entry<T> {
  readonly namespace: string;
  readonly name: string;
  readonly before: T | undefined;
  after: T | undefined;
  gone: T | undefined;
  prev: Entry<T> | undefined;
  next: Entry<T> | undefined;
}

/**
 * Where the store writer records its changes, per object (namespace and
 * name); the objects are as stored.
 */
export interface ChangeRecorder<T extends KubeObjectLike = KubeObject> {
  /** `obj` was added to the store. */
  created(namespace: string, name: string, obj: T): void;
  /** `previous` was replaced by `current` in the store. */
  modified(namespace: string, name: string, previous: T, current: T): void;
  /** `last` (as stored) was removed from the store. */
  deleted(namespace: string, name: string, last: T): void;
  /** `count` objects of an initial list were added: counted, not listed. */
  createdInBulk(count: number): void;
  /**
   * `last` (as stored) was removed from the store because the watcher's
   * shard no longer holds it: not a deletion, and nothing to deliver.
   */
  released(namespace: string, name: string, last: T): void;
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * Coalesces changes per object (see `ChangedObjects` for the rules) and
 * hands them out as one {@linkcode ChangeBatch} per delivery.
 *
 * Entries are found by namespace, then name: two lookups of the strings the
 * event brought, where one lookup of a `namespace/name` key would first
 * have to build and hash that key (ten times slower in a watch flood).
 * `#first` to `#last` keeps them in the order of their first change.
 *
 * An object created and deleted again within the batch leaves no entry:
 * a batch that is not taken for long (a `namespaces` watcher one of whose
 * namespaces cannot list yet) holds one entry per object the store held
 * when it began or holds now, not one per name that ever existed.
 */
export class BatchBuilder<T extends KubeObjectLike = KubeObject>
  implements ChangeRecorder<T>, PendingBatch<ChangeBatch<T>> {
  #byNamespace = new Map<string, Map<string, Entry<T>>>();
  #first: Entry<T> | undefined;
  #last: Entry<T> | undefined;
  #size = 0;
  #bulk = 0;
  /** The next batch is an initial sync's, delivered even when empty. */
  #initialDue = false;
  /** What the batch taken last held, until its call has ended. */
  #taken: Taken<T> | undefined;
  #changed: () => void = () => {};

  /** Called after every record: schedules a delivery. */
  set onRecord(changed: () => void) {
    this.#changed = changed;
  }

  /** How many objects have an entry (what the pending batch holds). */
  get size(): number {
    return this.#size;
  }

  /** Whether nothing waits (an initial batch that is due waits, empty or not). */
  get isEmpty(): boolean {
    return this.#bulk === 0 && this.#size === 0 && !this.#initialDue;
  }

  /** Whether the batch waiting is an initial sync's (see `initialDue`). */
  get isInitialDue(): boolean {
    return this.#initialDue;
  }

  /**
   * The initial list is in: the next batch is taken as an initial sync's,
   * and is due even when the list was empty, so that a caller rendering
   * from its batches renders once on an empty cluster too.
   */
  initialDue(): void {
    this.#initialDue = true;
  }

  created(namespace: string, name: string, obj: T): void {
    const entry = this.#entry(namespace, name);
    if (entry === undefined) this.#add(namespace, name, undefined, obj);
    else entry.after = obj;
    this.#changed();
  }

  modified(namespace: string, name: string, previous: T, current: T): void {
    const entry = this.#entry(namespace, name);
    if (entry === undefined) this.#add(namespace, name, previous, current);
    // The first previous stays: it is what the store held before the batch.
    else entry.after = current;
    this.#changed();
  }

  deleted(namespace: string, name: string, last: T): void {
    const entry = this.#entry(namespace, name);
    if (entry === undefined) {
      this.#add(namespace, name, last, undefined).gone = last;
    } else if (entry.before === undefined) {
      // Created in this batch and gone again: nobody needs to hear of it,
      // and nothing of it is kept.
      this.#remove(namespace, name, entry);
    } else {
      entry.after = undefined;
      entry.gone = last;
    }
    this.#changed();
  }

  /**
   * The object left the shard: whatever the pending batch says of it is
   * dropped, and nothing is delivered for it (the watcher no longer holds
   * it, and another replica now does).
   */
  released(namespace: string, name: string, _last: T): void {
    const entry = this.#entry(namespace, name);
    if (entry !== undefined) this.#remove(namespace, name, entry);
  }

  createdInBulk(count: number): void {
    if (count === 0) return;
    this.#bulk += count;
    this.#changed();
  }

  /**
   * Takes the batch and starts an empty one. What it held is kept until
   * {@linkcode ended} says whether its call failed.
   */
  take(isInitialSync: boolean): ChangeBatch<T> {
    const first = this.#first;
    const bulk = this.#bulk;
    isInitialSync ||= this.#initialDue;
    this.#initialDue = false;
    this.#byNamespace = new Map();
    this.#first = this.#last = undefined;
    this.#size = 0;
    this.#bulk = 0;
    this.#taken = first === undefined && bulk === 0 && !isInitialSync
      ? undefined
      : { first, bulk, isInitialSync };
    let created: T[] | undefined;
    let modified: ModifiedObject<T>[] | undefined;
    let deleted: T[] | undefined;
    for (let entry = first; entry !== undefined; entry = entry.next) {
      const { before, after, gone } = entry;
      if (before === undefined) {
        if (after !== undefined) (created ??= []).push(after);
      } else if (after === undefined) {
        (deleted ??= []).push(gone ?? before);
      } else if (isReplacement(before, after)) {
        (deleted ??= []).push(gone ?? before);
        (created ??= []).push(after);
      } else {
        // Not frozen one by one: a flood's batch holds thousands.
        (modified ??= []).push({ previous: before, current: after });
      }
    }
    const stats = changeStats({
      created: bulk + (created?.length ?? 0),
      modified: modified?.length ?? 0,
      deleted: deleted?.length ?? 0,
      isInitialSync,
    });
    return Object.freeze({
      ...stats,
      objects: Object.freeze({
        created: created ?? NONE,
        modified: modified ?? NONE,
        deleted: deleted ?? NONE,
      }),
    });
  }

  /**
   * The call of the batch taken last has ended. `retry`: it failed, and its
   * changes go back into the pending batch before those recorded since,
   * coalesced with them as one batch would have been, for the next call.
   * Without `retry` they are let go.
   */
  ended(retry: boolean): void {
    const taken = this.#taken;
    this.#taken = undefined;
    if (!retry || taken === undefined) return;
    const since = this.#first;
    this.#byNamespace = new Map();
    this.#first = this.#last = undefined;
    this.#size = 0;
    this.#bulk += taken.bulk;
    if (taken.isInitialSync) this.#initialDue = true;
    for (let entry = taken.first; entry !== undefined; entry = entry.next) {
      this.#add(entry.namespace, entry.name, entry.before, entry.after).gone =
        entry.gone;
    }
    for (let entry = since; entry !== undefined; entry = entry.next) {
      const { namespace, name, after, gone } = entry;
      const earlier = this.#entry(namespace, name);
      if (earlier === undefined) {
        this.#add(namespace, name, entry.before, after).gone = gone;
      } else if (after === undefined && earlier.before === undefined) {
        // Created in the failed batch, deleted since: nothing to tell.
        this.#remove(namespace, name, earlier);
      } else {
        earlier.after = after;
        if (gone !== undefined) earlier.gone = gone;
      }
    }
  }

  #entry(namespace: string, name: string): Entry<T> | undefined {
    return this.#byNamespace.get(namespace)?.get(name);
  }

  #add(
    namespace: string,
    name: string,
    before: T | undefined,
    after: T | undefined,
  ): Entry<T> {
    const last = this.#last;
    const entry: Entry<T> = {
      namespace,
      name,
      before,
      after,
      gone: undefined,
      prev: last,
      next: undefined,
    };
    let names = this.#byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.#byNamespace.set(namespace, names);
    }
    names.set(name, entry);
    if (last === undefined) this.#first = entry;
    else last.next = entry;
    this.#last = entry;
    this.#size++;
    return entry;
  }

  #remove(namespace: string, name: string, entry: Entry<T>): void {
    const names = this.#byNamespace.get(namespace)!;
    names.delete(name);
    if (names.size === 0) this.#byNamespace.delete(namespace);
    const { prev, next } = entry;
    if (prev === undefined) this.#first = next;
    else prev.next = next;
    if (next === undefined) this.#last = prev;
    else next.prev = prev;
    this.#size--;
  }
}

/** The entries of a batch taken, kept for its retry. */
interface Taken<T> {
  readonly first: Entry<T> | undefined;
  readonly bulk: number;
  readonly isInitialSync: boolean;
}

/** A new incarnation (another uid) under the same name: a delete and a create. */
function isReplacement(
  before: KubeObjectLike,
  after: KubeObjectLike,
): boolean {
  const was = before.metadata?.uid;
  const is = after.metadata?.uid;
  return was !== undefined && is !== undefined && was !== is;
}
