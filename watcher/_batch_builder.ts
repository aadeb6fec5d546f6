/**
 * The pending batch of a `Watcher`: every change the store writer makes,
 * coalesced per object (namespace/name) until the batch is delivered. One
 * entry per object, one lookup per change; the arrays a
 * {@linkcode ChangeBatch} carries are built only when it is taken.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import type { ChangeBatch, ModifiedObject } from "./change_batch.ts";
import { changeStats } from "./change_stats.ts";
import type { PendingBatch } from "./_debounce_scheduler.ts";

/**
 * One object's changes in the batch: what the store held before the batch
 * (`before`), what it holds now (`after`), and the version last removed
 * (`gone`, for a delete). `undefined` means absent. `dropped` marks an
 * entry that came to nothing (created, then deleted).
 */
interface Entry<T> {
  readonly before: T | undefined;
  after: T | undefined;
  gone: T | undefined;
  dropped: boolean;
}

/**
 * Where the store writer records its changes, per object (namespace and
 * name); the objects are as stored.
 */
export interface ChangeRecorder<T extends KubeObject = KubeObject> {
  /** `obj` was added to the store. */
  created(namespace: string, name: string, obj: T): void;
  /** `previous` was replaced by `current` in the store. */
  modified(namespace: string, name: string, previous: T, current: T): void;
  /** `last` (as stored) was removed from the store. */
  deleted(namespace: string, name: string, last: T): void;
  /** `count` objects of an initial list were added: counted, not listed. */
  createdInBulk(count: number): void;
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * Coalesces changes per object (see `ChangedObjects` for the rules) and
 * hands them out as one {@linkcode ChangeBatch} per delivery.
 *
 * Entries are found by namespace, then name: two lookups of the strings the
 * event brought, where one lookup of a `namespace/name` key would first
 * have to build and hash that key (ten times slower in a watch flood).
 * `#order` keeps them in the order of their first change.
 */
export class BatchBuilder<T extends KubeObject = KubeObject>
  implements ChangeRecorder<T>, PendingBatch<ChangeBatch<T>> {
  #byNamespace = new Map<string, Map<string, Entry<T>>>();
  #order: Entry<T>[] = [];
  #live = 0;
  #bulk = 0;
  #changed: () => void = () => {};

  /** Called after every record: schedules a delivery. */
  set onRecord(changed: () => void) {
    this.#changed = changed;
  }

  /** Whether nothing waits. */
  get isEmpty(): boolean {
    return this.#bulk === 0 && this.#live === 0;
  }

  created(namespace: string, name: string, obj: T): void {
    const entry = this.#entry(namespace, name);
    if (entry === undefined) {
      this.#add(namespace, name, undefined, obj);
    } else {
      if (entry.dropped) {
        // Created, deleted and created again: the one entry comes back.
        entry.dropped = false;
        this.#live++;
      }
      entry.after = obj;
    }
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
      // Created in this batch and gone again: nobody needs to hear of it.
      // The entry stays (dropped), so the object never has two.
      if (!entry.dropped) this.#live--;
      entry.dropped = true;
      entry.after = undefined;
    } else {
      entry.after = undefined;
      entry.gone = last;
    }
    this.#changed();
  }

  createdInBulk(count: number): void {
    if (count === 0) return;
    this.#bulk += count;
    this.#changed();
  }

  /** Takes the batch and starts an empty one. */
  take(isInitialSync: boolean): ChangeBatch<T> {
    const order = this.#order;
    const bulk = this.#bulk;
    this.#byNamespace = new Map();
    this.#order = [];
    this.#live = 0;
    this.#bulk = 0;
    let created: T[] | undefined;
    let modified: ModifiedObject<T>[] | undefined;
    let deleted: T[] | undefined;
    for (const { before, after, gone, dropped } of order) {
      if (dropped) continue;
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

  #entry(namespace: string, name: string): Entry<T> | undefined {
    return this.#byNamespace.get(namespace)?.get(name);
  }

  #add(
    namespace: string,
    name: string,
    before: T | undefined,
    after: T | undefined,
  ): Entry<T> {
    const entry: Entry<T> = { before, after, gone: undefined, dropped: false };
    let names = this.#byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.#byNamespace.set(namespace, names);
    }
    names.set(name, entry);
    this.#order.push(entry);
    this.#live++;
    return entry;
  }
}

/** A new incarnation (another uid) under the same name: a delete and a create. */
function isReplacement(before: KubeObject, after: KubeObject): boolean {
  const was = before.metadata.uid;
  const is = after.metadata.uid;
  return was !== undefined && is !== undefined && was !== is;
}
