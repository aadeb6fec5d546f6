/**
 * The keys a `WorkQueue` can hand out now, in the order it hands them out:
 * first in, first out, live keys before low-priority ones (an initial list,
 * a resync), but a low-priority key that has waited `agingMs` takes turns
 * with the live ones, so neither kind starves the other.
 *
 * A key is here at most once. A live add of a key that waits as a
 * low-priority one puts it in the live line too, keeping its waiting time:
 * whichever line reaches it first hands it out (so the event never makes
 * it wait longer than it would have), and the other entry is dropped.
 *
 * @module
 */

/** One waiting key: since when, and in which line. */
export interface ReadyKey<K> {
  readonly key: K;
  /** When it was added (the queue's clock), for the queue-duration metric. */
  readonly since: number;
  low: boolean;
}

/**
 * A first-in-first-out line over an array: `shift()` moves a head index
 * (an array's own `shift()` is linear), and the front is cut off once it is
 * the larger half.
 */
class Line<T> {
  #items: T[] = [];
  #head = 0;

  push(item: T): void {
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined as T;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}

/** The two lines, and which entry of a key is its live one. */
export class ReadyKeys<K> {
  readonly #agingMs: number;
  readonly #live = new Line<ReadyKey<K>>();
  readonly #low = new Line<ReadyKey<K>>();
  /** Each waiting key's entry; an entry in a line that is not here is spent. */
  readonly #entries = new Map<K, ReadyKey<K>>();
  /** The last key handed out was an aged low-priority one: a live one next. */
  #agedTurn = false;

  constructor(agingMs: number) {
    this.#agingMs = agingMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Adds `key`, or moves it to the live line (a key waits once). */
  push(key: K, low: boolean, since: number): void {
    const waiting = this.#entries.get(key);
    if (waiting !== undefined) {
      if (low || !waiting.low) return;
      // The same entry in both lines: the first to reach it serves it.
      waiting.low = false;
      this.#live.push(waiting);
      return;
    }
    const entry: ReadyKey<K> = { key, since, low };
    this.#entries.set(key, entry);
    (low ? this.#low : this.#live).push(entry);
  }

  /** The next key to hand out, taken off its line. */
  shift(now: number): ReadyKey<K> | undefined {
    const live = this.#head(this.#live);
    const low = this.#head(this.#low);
    let line: Line<ReadyKey<K>>;
    if (low === undefined) {
      if (live === undefined) return undefined;
      line = this.#live;
    } else if (live === undefined) {
      line = this.#low;
    } else if (!this.#agedTurn && now - low.since >= this.#agingMs) {
      line = this.#low;
    } else {
      line = this.#live;
    }
    const entry = line.shift()!;
    this.#agedTurn = line === this.#low && live !== undefined;
    this.#entries.delete(entry.key);
    return entry;
  }

  clear(): void {
    this.#live.clear();
    this.#low.clear();
    this.#entries.clear();
  }

  /** The line's first entry that is still its key's, dropping moved ones. */
  #head(line: Line<ReadyKey<K>>): ReadyKey<K> | undefined {
    for (let entry = line.peek(); entry !== undefined; entry = line.peek()) {
      if (this.#entries.get(entry.key) === entry) return entry;
      line.shift();
    }
    return undefined;
  }
}
