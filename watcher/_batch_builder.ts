/**
 * The pending batch of a `Watcher`: every change the store writer makes,
 * coalesced per object (namespace/name) until the batch is delivered. One
 * entry per object, one lookup per change; the arrays a
 * {@linkcode ChangeBatch} carries are built only when it is taken.
 *
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../types.ts";
import type { ChangeBatch, ModifiedObject } from "./change_batch.ts";
import { changeStats } from "./change_stats.ts";
import type { PendingBatch } from "./_debounce_scheduler.ts";

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
