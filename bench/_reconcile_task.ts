/**
 * The task and outcome of the reconcile rows of `bench:compare`
 * (`bench/_reconcile.ts` runs them), and the stopping point every
 * contender shares.
 *
 * Workloads:
 * - `queue`: `adds` adds over `keys` keys (key `i % keys`) from one
 *   producer, `workers` workers, a no-op reconcile;
 * - `dedup`: `bursts + 1` rounds of every key once, `burstGapMs` apart,
 *   against a reconcile that takes `reconcileMs`: how many reconciles per
 *   key the queue's de-duplication leaves;
 * - `queueHeap`: heap held by the queue with `keys` keys waiting;
 * - `reconcileLatency`: the bench server's flood of `events` MODIFIED
 *   events, each reconciled through a watch → queue → workers; the
 *   latency of an event is from the server sending it to the start of the
 *   first reconcile of its key after it arrived.
 *
 * Why "covered" is the stopping point: a queue that de-duplicates may run
 * fewer reconciles than adds, and how many depends on how the producer and
 * workers interleave. What every contender must do is the same: every add
 * is followed, eventually, by a reconcile of its key that starts after it.
 * A key is dirty from its add until a reconcile of it starts; the run ends
 * when the producer is done, no key is dirty and no reconcile is running.
 *
 * @module
 */

/** The task `bench/_reconcile.ts` hands a reconcile contender. */
export interface ReconcileTask {
  /** `http://127.0.0.1:PORT` of the bench server. */
  server: string;
  workload: "queue" | "dedup" | "queueHeap" | "reconcileLatency";
  /** Distinct keys (`bench-NN/pod-i`). */
  keys?: number;
  /** Queue: adds in all. */
  adds?: number;
  /** Concurrent reconciles. */
  workers?: number;
  /** Dedup: rounds after the first, their gap (ms), the reconcile's length (ms). */
  bursts?: number;
  burstGapMs?: number;
  reconcileMs?: number;
  /** Latency: pods listed, and flood events to wait for. */
  objects?: number;
  events?: number;
  /** Give up after this many ms. */
  timeoutMs: number;
}

/** What a reconcile contender reports; the fields depend on the workload. */
export interface ReconcileOutcome {
  /** Queue, dedup: ms from the first add to every add covered. */
  elapsedMs?: number;
  /** Queue, dedup: ms the producer took for its adds. */
  producerMs?: number;
  adds?: number;
  /** Reconciles run. */
  reconciles?: number;
  keys?: number;
  /** Latency: ms from the server sending each event to its reconcile. */
  latencies?: number[];
  /** Server clock minus ours, as measured. */
  clockOffset?: number;
  /** Heap: bytes in use (after collections) before and after the adds. */
  heapBefore?: number;
  heapAfter?: number;
  rssBefore?: number;
  rssAfter?: number;
  heapPerKey?: number;
  notes?: string[];
}

/** The key of index `i`, the same in every contender. */
export function benchKey(i: number): string {
  return `bench-${String(i % 16).padStart(2, "0")}/pod-${i}`;
}

/** Tracks when every add has been covered (see the module doc). */
export class Coverage {
  readonly #dirty: Uint8Array;
  #dirtyCount = 0;
  #inflight = 0;
  #producerDone = false;
  #onDone: () => void;
  /** Reconciles started. */
  reconciles = 0;

  /** A tracker for `keys` keys, calling `onDone` once all is covered. */
  constructor(keys: number, onDone: () => void) {
    this.#dirty = new Uint8Array(keys);
    this.#onDone = onDone;
  }

  /** Called before each add of key `i`. */
  added(i: number): void {
    if (this.#dirty[i] === 0) {
      this.#dirty[i] = 1;
      this.#dirtyCount++;
    }
  }

  /** Called as a reconcile of key `i` begins. */
  started(i: number): void {
    this.#inflight++;
    this.reconciles++;
    if (this.#dirty[i] === 1) {
      this.#dirty[i] = 0;
      this.#dirtyCount--;
    }
  }

  /** Called as a reconcile ends. */
  finished(): void {
    this.#inflight--;
    this.#check();
  }

  /** Called once every add has been made. */
  produced(): void {
    this.#producerDone = true;
    this.#check();
  }

  #check(): void {
    if (this.#producerDone && this.#dirtyCount === 0 && this.#inflight === 0) {
      const onDone = this.#onDone;
      this.#onDone = () => {};
      onDone();
    }
  }
}
