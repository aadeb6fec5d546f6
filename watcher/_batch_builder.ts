/**
 * The pending batch of a `Watcher`: every change the store writer makes,
 * coalesced per object (namespace/name) until the batch is delivered. One
 * entry per object, one Map lookup per change; the arrays a
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
 * (`gone`, for a delete). `undefined` means absent.
 */
interface Entry<T> {
  readonly before: T | undefined;
  after: T | undefined;
  gone: T | undefined;
}

/**
 * Where the store writer records its changes. `key` identifies the object
 * (`namespace/name`); the objects are as stored.
 */
export interface ChangeRecorder<T extends KubeObject = KubeObject> {
  /** `obj` was added to the store. */
  created(key: string, obj: T): void;
  /** `previous` was replaced by `current` in the store. */
  modified(key: string, previous: T, current: T): void;
  /** `last` (as stored) was removed from the store. */
  deleted(key: string, last: T): void;
  /** `count` objects of an initial list were added: counted, not listed. */
  createdInBulk(count: number): void;
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * Coalesces changes per object (see `ChangedObjects` for the rules) and
 * hands them out as one {@linkcode ChangeBatch} per delivery.
 */
export class BatchBuilder<T extends KubeObject = KubeObject>
  implements ChangeRecorder<T>, PendingBatch<ChangeBatch<T>> {
  #entries = new Map<string, Entry<T>>();
  #bulk = 0;
  #changed: () => void = () => {};

  /** Called after every record: schedules a delivery. */
  set onRecord(changed: () => void) {
    this.#changed = changed;
  }

  /** Whether nothing waits. */
  get isEmpty(): boolean {
    return this.#bulk === 0 && this.#entries.size === 0;
  }

  created(key: string, obj: T): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#entries.set(key, {
        before: undefined,
        after: obj,
        gone: undefined,
      });
    } else {
      entry.after = obj;
    }
    this.#changed();
  }

  modified(key: string, previous: T, current: T): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#entries.set(key, {
        before: previous,
        after: current,
        gone: undefined,
      });
    } else {
      // The first previous stays: it is what the store held before the batch.
      entry.after = current;
    }
    this.#changed();
  }

  deleted(key: string, last: T): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#entries.set(key, { before: last, after: undefined, gone: last });
    } else if (entry.before === undefined) {
      // Created in this batch and gone again: nobody needs to hear of it.
      this.#entries.delete(key);
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
    const entries = this.#entries;
    const bulk = this.#bulk;
    this.#entries = new Map();
    this.#bulk = 0;
    let created: T[] | undefined;
    let modified: ModifiedObject<T>[] | undefined;
    let deleted: T[] | undefined;
    for (const { before, after, gone } of entries.values()) {
      if (before === undefined) {
        if (after !== undefined) (created ??= []).push(after);
      } else if (after === undefined) {
        (deleted ??= []).push(gone ?? before);
      } else if (isReplacement(before, after)) {
        (deleted ??= []).push(gone ?? before);
        (created ??= []).push(after);
      } else {
        (modified ??= []).push(
          Object.freeze({ previous: before, current: after }),
        );
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
}

/** A new incarnation (another uid) under the same name: a delete and a create. */
function isReplacement(before: KubeObject, after: KubeObject): boolean {
  const was = before.metadata.uid;
  const is = after.metadata.uid;
  return was !== undefined && is !== undefined && was !== is;
}
