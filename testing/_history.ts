import type { KubeObject } from "../types.ts";

/** A watch event type for a stored change. */
export type ChangeType = "ADDED" | "MODIFIED" | "DELETED";

/** One write, as kept in the bounded history. */
export interface HistoryEntry {
  /** The resourceVersion the write produced. */
  readonly rv: number;
  /** Registry key of the resource type (`group/version/resource`). */
  readonly gvrKey: string;
  /** Object key within the type: `namespace/name` or `name`. */
  readonly key: string;
  readonly type: ChangeType;
  /** State after the write; for DELETED, the last state at the delete's version. */
  readonly object: KubeObject;
  /** State before the write (absent for ADDED). */
  readonly prev: KubeObject | undefined;
  /** Encoded watch lines, filled lazily and shared by every watch. */
  lines?: Partial<Record<ChangeType, Uint8Array>>;
  /** `prev` at this entry's version, for objects leaving a selector. */
  prevAtRv?: KubeObject;
}

/**
 * The last `limit` writes across every resource type, in version order. A
 * watch or a continue token can resume from version `v` only while every
 * write after `v` is still here, i.e. while `v >= compactedThrough`.
 */
export class EventHistory {
  #entries: HistoryEntry[] = [];
  #head = 0;
  #limit: number;
  #compactedThrough = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 0) {
      throw new RangeError(
        `History limit must be a non-negative integer, got ${limit}`,
      );
    }
    this.#limit = limit;
  }

  /** The newest version whose writes are no longer available. */
  get compactedThrough(): number {
    return this.#compactedThrough;
  }

  /** How many writes are kept. */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  push(entry: HistoryEntry): void {
    this.#entries.push(entry);
    while (this.size > this.#limit) {
      this.#compactedThrough = this.#entries[this.#head].rv;
      this.#head++;
    }
    // Drop the consumed prefix now and then, keeping pushes amortised O(1).
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Forgets everything up to and including `rv`. */
  compact(rv: number): void {
    while (
      this.#head < this.#entries.length && this.#entries[this.#head].rv <= rv
    ) {
      this.#head++;
    }
    this.#compactedThrough = Math.max(this.#compactedThrough, rv);
  }

  /** Whether every write after `rv` is still kept. */
  covers(rv: number): boolean {
    return rv >= this.#compactedThrough;
  }

  /** The writes after `rv`, oldest first. */
  *since(rv: number): Generator<HistoryEntry> {
    const entries = this.#entries;
    let lo = this.#head;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entries[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < entries.length; i++) yield entries[i];
  }

  /** The writes after `rv`, newest first. */
  *newestFirstAfter(rv: number): Generator<HistoryEntry> {
    const entries = this.#entries;
    for (let i = entries.length - 1; i >= this.#head; i--) {
      if (entries[i].rv <= rv) return;
      yield entries[i];
    }
  }
}
