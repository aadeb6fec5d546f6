/**
 * The store writer: the one component between the list-then-watch loop and
 * the store, as kube-rs's reflector writer and client-go's `Indexer` stand
 * behind their reflectors. The loop hands it pages, list ends and events;
 * it selects, filters and keys each object, writes the store, and records
 * every change it made into the batch being collected.
 *
 * @module
 */
import type { KubeObject, Logger, Store } from "../types.ts";
import type { Indexer, ProcessedObject } from "../indexer/indexer.ts";
import type { FieldSelector } from "../indexer/field_selector.ts";
import type { ListPage, WatchEventType } from "./list_watch_types.ts";
import { write, writerLine, type WriterNote } from "./_log_lines.ts";

/**
 * Where the writer records the changes it made, until a batch is delivered
 * (the `Debouncer` is one). Each call site holds the new object and can read
 * the old one from the store before writing: that is where per-object
 * change details would be recorded.
 */
export interface ChangeRecorder {
  /** `count` objects were added to the store. */
  recordCreate(count?: number): void;
  /** `count` objects were replaced in the store. */
  recordUpdate(count?: number): void;
  /** `count` objects were removed from the store. */
  recordDelete(count?: number): void;
}

/** What a {@linkcode StoreWriter} writes, and how it prepares objects. */
export interface StoreWriterOptions {
  /** The store written to. */
  store: Store;
  /** Removes `ignoreFields` and extracts the index keys. */
  indexer: Indexer;
  /** The client-side field selector, if any. */
  fieldSelector?: FieldSelector | undefined;
  /** Receives every change made. */
  changes: ChangeRecorder;
  /** Where skipped objects are reported. */
  logger: Logger;
  /** The resource, for log lines. */
  resource: string;
}

/** The result of writing one object. */
type Written = "created" | "modified" | "unchanged";

/**
 * Prepares list pages as they arrive (the raw page can then be collected),
 * applies a complete list as one synchronous diff (atomic for readers:
 * nobody sees a half-replaced store), and applies watch events.
 */
export class StoreWriter {
  #store: Store;
  #indexer: Indexer;
  #selector: FieldSelector | undefined;
  #changes: ChangeRecorder;
  #logger: Logger;
  #resource: string;
  /** The prepared objects of the list being received. */
  #staged: ProcessedObject[] = [];

  constructor(options: StoreWriterOptions) {
    this.#store = options.store;
    this.#indexer = options.indexer;
    this.#selector = options.fieldSelector;
    this.#changes = options.changes;
    this.#logger = options.logger;
    this.#resource = options.resource;
  }

  /**
   * Prepares one page of a list as it arrives. A `first` page drops what an
   * unfinished earlier list left.
   */
  stagePage(page: ListPage): void {
    if (page.first) this.#staged = [];
    const staged = this.#staged;
    for (const raw of page.items) {
      const item = this.#prepare(raw);
      if (item !== undefined) staged.push(item);
    }
    this.#note({ kind: "listProgress", listed: page.listedSoFar });
  }

  /**
   * Brings the store to the staged list in one synchronous step: new
   * objects are added, changed ones replaced, and what the list lacks is
   * deleted (it went while nobody watched).
   */
  commitList(): void {
    const staged = this.#staged;
    this.#staged = [];
    const store = this.#store;
    if (store.size === 0) {
      // Nothing to diff against (the initial sync, or a relist after
      // everything went): no seen-set, no per-object lookups.
      for (const item of staged) store.add(item.obj, item.keys);
      this.#changes.recordCreate(store.size);
      return;
    }
    const seen = new Set<string>();
    let created = 0, modified = 0, deleted = 0;
    for (const item of staged) {
      const { namespace = "", name = "" } = item.obj.metadata;
      seen.add(`${namespace}/${name}`);
      const written = this.#write(item, namespace, name);
      if (written === "created") created++;
      else if (written === "modified") modified++;
    }
    for (const [namespace, name] of store.identities()) {
      if (!seen.has(`${namespace}/${name}`)) {
        store.delete(namespace, name);
        deleted++;
      }
    }
    this.#changes.recordCreate(created);
    this.#changes.recordUpdate(modified);
    this.#changes.recordDelete(deleted);
  }

  /**
   * Applies one watch event. An object that is deleted, or no longer
   * selected or indexable, leaves the store.
   */
  applyEvent = (type: WatchEventType, raw: KubeObject): void => {
    const { namespace = "", name } = raw.metadata;
    if (!name) {
      this.#note({ kind: "eventWithoutName", type });
      return;
    }
    const item = type === "DELETED" ? undefined : this.#prepare(raw);
    if (item === undefined) {
      if (this.#store.delete(namespace, name)) this.#changes.recordDelete();
      return;
    }
    const written = this.#write(item, namespace, name);
    if (written === "created") this.#changes.recordCreate();
    else if (written === "modified") this.#changes.recordUpdate();
  };

  /** Adds or replaces one object; an unchanged resourceVersion is skipped. */
  #write(item: ProcessedObject, namespace: string, name: string): Written {
    const previous = this.#store.resourceVersionOf(namespace, name);
    if (previous === undefined) {
      this.#store.add(item.obj, item.keys);
      return "created";
    }
    const next = item.obj.metadata.resourceVersion;
    if (previous === next && previous) return "unchanged";
    this.#store.update(item.obj, item.keys);
    return "modified";
  }

  /** Selects, filters and keys one object; `undefined` means "not stored". */
  #prepare(raw: KubeObject): ProcessedObject | undefined {
    if (this.#selector !== undefined && !this.#selector.matches(raw)) {
      return undefined;
    }
    let item: ProcessedObject | undefined;
    try {
      item = this.#indexer.process(raw);
    } catch (error) {
      this.#note({ kind: "invalidObject", error });
      return undefined;
    }
    if (item === undefined) {
      this.#note({
        kind: "missingKey",
        namespace: raw.metadata?.namespace,
        name: raw.metadata?.name,
        missing: this.#indexer.missingKey(raw),
      });
    }
    return item;
  }

  #note(note: WriterNote): void {
    write(this.#logger, writerLine(note, this.#resource));
  }
}
