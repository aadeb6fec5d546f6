import type { ChangeBatch, KubeObject, ReadableStore } from "../mod.ts";
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

  /** Use as (part of) the watcher's `onChange`: counts and prints a batch. */
  onChange = (store: ReadableStore, batch: ChangeBatch): void => {
    if (!this.count(batch)) return;
    this.#printer.line(
      "batch",
      `${this.label.padEnd(22)} ${this.#printer.stats(batch)} ${
        this.#printer.style("dim", `→ ${store.size} in store`)
      }${this.#printer.style("dim", ` ${names(batch)}`)}`,
    );
  };

  /** Counts a batch; `false` for the initial one and empty ones. */
  count(batch: ChangeBatch): boolean {
    if (batch.isInitialSync) {
      this.initial += batch.created - batch.deleted;
      return false;
    }
    if (batch.isEmpty) return false;
    this.batches++;
    this.created += batch.created;
    this.modified += batch.modified;
    this.deleted += batch.deleted;
    return true;
  }

  /** What the delivered batches say the store size must be. */
  get expectedSize(): number {
    return this.initial + this.created - this.deleted;
  }
}

/** The first few changed objects of a batch: `+shop/web ~shop/api -old`. */
export function names(batch: ChangeBatch, most = 3): string {
  const id = (o: KubeObject) =>
    o.metadata.namespace
      ? `${o.metadata.namespace}/${o.metadata.name}`
      : `${o.metadata.name}`;
  const { created, modified, deleted } = batch.objects;
  const all = [
    ...created.map((o) => `+${id(o)}`),
    ...modified.map((m) => `~${id(m.current)}`),
    ...deleted.map((o) => `-${id(o)}`),
  ];
  return all.length > most
    ? `${all.slice(0, most).join(" ")} …+${all.length - most}`
    : all.join(" ");
}
