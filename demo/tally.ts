import type { ChangeStats, ReadableStore } from "../mod.ts";
import type { Printer } from "./output.ts";

/**
 * Counts what one bulk watcher delivered and prints each batch. The
 * initial-sync batch is counted apart, so that at the end
 * `initial + created - deleted` must equal the store size.
 */
export class Tally {
  readonly label: string;
  initial = 0;
  batches = 0;
  created = 0;
  modified = 0;
  deleted = 0;
  readonly #printer: Printer;

  constructor(label: string, printer: Printer) {
    this.label = label;
    this.#printer = printer;
  }

  /** Use as (part of) the watcher's `onChange`. */
  onChange = (store: ReadableStore, stats: ChangeStats): void => {
    if (stats.isInitialSync) {
      this.initial += stats.created - stats.deleted;
      return;
    }
    if (stats.isEmpty) return;
    this.batches++;
    this.created += stats.created;
    this.modified += stats.modified;
    this.deleted += stats.deleted;
    this.#printer.line(
      "batch",
      `${this.label.padEnd(22)} ${this.#printer.stats(stats)} ${
        this.#printer.style("dim", `→ ${store.size} in store`)
      }`,
    );
  };

  /** What the delivered batches say the store size must be. */
  get expectedSize(): number {
    return this.initial + this.created - this.deleted;
  }
}
