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

/** A key handed out, and since when it waited (the queue's clock). */
export interface ReadyKey<K> {
  readonly key: K;
  /** When it was added, for the queue-duration metric. */
  readonly since: number;
}

/**
 * A first-in-first-out line of keys and their times, over two arrays: no
 * object per key, and the times unboxed in a double array. `shift()` moves
 * a head index (an array's own `shift()` is linear), and the front is cut
 * off once it is the larger half. Each entry has a position that never
 * changes: how many were pushed before it.
 */
class Line<K> {
  #keys: (K | undefined)[] = [];
  #sinces: number[] = [];
  #head = 0;
  /** The position of `#keys[0]`. */
  #base = 0;

  /** Adds an entry; returns its position. */
  push(key: K, since: number): number {
    this.#keys.push(key);
    this.#sinces.push(since);
    return this.#base + this.#keys.length - 1;
  }

  get empty(): boolean {
    return this.#head >= this.#keys.length;
  }

  /** The first entry's key (only when not `empty`). */
  get headKey(): K {
    return this.#keys[this.#head] as K;
  }

  /** The first entry's position. */
  get headPosition(): number {
    return this.#base + this.#head;
  }

  /** The time of the entry at `position` (still in the line). */
  sinceAt(position: number): number {
    return this.#sinces[position - this.#base];
  }

  shift(): void {
    this.#keys[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#keys.length) {
      this.#keys = this.#keys.slice(this.#head);
      this.#sinces = this.#sinces.slice(this.#head);
      this.#base += this.#head;
      this.#head = 0;
    }
  }

  clear(): void {
    this.#base += this.#keys.length;
    this.#keys = [];
    this.#sinces = [];
    this.#head = 0;
  }
}

/**
 * The two lines, and where each waiting key's entry is. A waiting key maps
 * to the position of its entry: `p` in the live line, `-p - 1` in the low
 * one (a small integer, so the map holds no boxed number per key). An
 * entry whose key does not map to it is spent.
 */
export class ReadyKeys<K> {
  readonly #agingMs: number;
  readonly #live = new Line<K>();
  readonly #low = new Line<K>();
  /** Each waiting key's entry, as above. */
  readonly #entries = new Map<K, number>();
  /**
   * Keys moved to the live line that still have their entry in the low
   * one (whichever line reaches the key first serves it): that entry's
   * position.
   */
  readonly #moved = new Map<K, number>();
  /** The last key handed out was an aged low-priority one: a live one next. */
  #agedTurn = false;

  constructor(agingMs: number) {
    this.#agingMs = agingMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Whether `key` waits; if it does, a live add (`low` false) moves it to
   * the live line, keeping its waiting time (a key waits once).
   */
  raise(key: K, low: boolean): boolean {
    const waiting = this.#entries.get(key);
    if (waiting === undefined) return false;
    if (low || waiting >= 0) return true;
    // In both lines, with its waiting time: the first to reach it serves it.
    const lowPosition = -waiting - 1;
    this.#moved.set(key, lowPosition);
    this.#entries.set(
      key,
      this.#live.push(key, this.#low.sinceAt(lowPosition)),
    );
    return true;
  }

  /** Adds `key`, or moves it to the live line (a key waits once). */
  push(key: K, low: boolean, since: number): void {
    if (this.raise(key, low)) return;
    this.#entries.set(
      key,
      low ? -this.#low.push(key, since) - 1 : this.#live.push(key, since),
    );
  }

  /** The next key to hand out, taken off its line. */
  shift(now: number): ReadyKey<K> | undefined {
    const live = this.#ready(this.#live, false);
    const low = this.#ready(this.#low, true);
    let line: Line<K>;
    if (!low) {
      if (!live) return undefined;
      line = this.#live;
    } else if (!live) {
      line = this.#low;
    } else if (
      !this.#agedTurn &&
      now - this.#low.sinceAt(this.#low.headPosition) >= this.#agingMs
    ) {
      line = this.#low;
    } else {
      line = this.#live;
    }
    const key = line.headKey;
    const since = line.sinceAt(line.headPosition);
    line.shift();
    this.#agedTurn = line === this.#low && live;
    this.#entries.delete(key);
    this.#moved.delete(key);
    return { key, since };
  }

  clear(): void {
    this.#live.clear();
    this.#low.clear();
    this.#entries.clear();
    this.#moved.clear();
  }

  /**
   * Whether the line has an entry that is still its key's, dropping spent
   * ones from its front.
   */
  #ready(line: Line<K>, low: boolean): boolean {
    for (; !line.empty; line.shift()) {
      const key = line.headKey;
      const position = line.headPosition;
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      if (low ? entry === -position - 1 : entry === position) return true;
      if (low && this.#moved.get(key) === position) return true;
    }
    return false;
  }
}
