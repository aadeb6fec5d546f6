/**
 * The store writer: the one component between the list-then-watch loop and
 * the store, as kube-rs's reflector writer and client-go's `Indexer` stand
 * behind their reflectors. The loop hands it pages, list ends and events;
 * it selects, prepares and keys each object, writes the store, and records
 * every change it made, with the old and new object, into the pending
 * batch.
 *
 * Two halves: the {@linkcode ObjectPreparer} makes the one stored copy of
 * an object (`ignoreFields`, `transform`), the same for anyone consuming
 * the stream; selection, index keys, the store and the batch are this
 * consumer's. A stream shared by several watchers would prepare once and
 * hand the copy to each consumer's half.
 *
 * @module
 */
import type { KubeObject, Logger, Store } from "../types.ts";
import type { Indexer } from "../indexer/indexer.ts";
import type { FieldSelector } from "../indexer/field_selector.ts";
import { JsonPath } from "../indexer/jsonpath.ts";
import { renderValue } from "../indexer/_render.ts";
import type {
  ListPage,
  WatchEventType,
} from "../listwatch/list_watch_types.ts";
import { write, writerLine, type WriterNote } from "../listwatch/_log_lines.ts";
import type { ChangeRecorder } from "./_batch_builder.ts";
import { type ObjectPreparer, SKIPPED } from "./_object_preparer.ts";

export type { ChangeRecorder } from "./_batch_builder.ts";

/** What a {@linkcode StoreWriter} writes, and how it prepares objects. */
export interface StoreWriterOptions<T extends KubeObject> {
  /** The store written to. */
  store: Store<T>;
  /** Makes the stored copy (`ignoreFields`, `transform`). */
  preparer: ObjectPreparer<T>;
  /** Extracts the index keys. */
  indexer: Indexer;
  /** The client-side field selector, if any. */
  fieldSelector?: FieldSelector | undefined;
  /** Receives every change made. */
  changes: ChangeRecorder<T>;
  /** Where skipped objects are reported. */
  logger: Logger;
  /** The resource, for log lines. */
  resource: string;
}

/** A staged list item: the object to store and its keys. */
interface Staged<T> {
  obj: T;
  keys: string[];
}

/**
 * Prepares list pages as they arrive (the raw page can then be collected),
 * applies a complete list as one synchronous diff (atomic for readers:
 * nobody sees a half-replaced store), and applies watch events.
 */
export class StoreWriter<T extends KubeObject = KubeObject> {
  #store: Store<T>;
  #preparer: ObjectPreparer<T>;
  #indexer: Indexer;
  #selector: FieldSelector | undefined;
  #changes: ChangeRecorder<T>;
  #logger: Logger;
  #resource: string;
  /** The prepared objects of the list being received. */
  #staged: Staged<T>[] = [];
  /** Identities of listed objects `transform` threw for: kept as stored. */
  #kept = new Set<string>();
  /** What the list being received says about the configured paths. */
  #paths: PathCensus;

  constructor(options: StoreWriterOptions<T>) {
    this.#store = options.store;
    this.#preparer = options.preparer;
    this.#indexer = options.indexer;
    this.#selector = options.fieldSelector;
    this.#changes = options.changes;
    this.#logger = options.logger;
    this.#resource = options.resource;
    this.#paths = new PathCensus(options.indexer, options.fieldSelector);
  }

  /**
   * Prepares one page of a list as it arrives. A `first` page drops what an
   * unfinished earlier list left.
   */
  stagePage(page: ListPage): void {
    if (page.first) {
      this.#staged = [];
      this.#kept = new Set();
      this.#paths.reset();
    }
    const staged = this.#staged;
    const selector = this.#selector;
    const paths = this.#paths;
    for (const raw of page.items) {
      paths.listed++;
      if (selector !== undefined) {
        paths.checkSelector(raw);
        if (!selector.matches(raw)) continue;
      }
      const obj = this.#preparer.prepare(raw);
      if (obj === SKIPPED) {
        const { namespace = "", name } = raw.metadata;
        this.#kept.add(`${namespace}/${name}`);
        continue;
      }
      if (obj === undefined) continue;
      paths.keyed++;
      const keys = this.#keysOf(obj, false);
      if (keys !== undefined) staged.push({ obj, keys });
    }
    this.#note({ kind: "listProgress", listed: page.listedSoFar });
  }

  /**
   * Brings the store to the staged list in one synchronous step: new
   * objects are added, changed ones replaced, and what the list lacks is
   * deleted (it went while nobody watched). With `countsOnly` (the initial
   * list) the objects added are counted, not recorded one by one.
   */
  commitList(countsOnly = false): void {
    const staged = this.#staged;
    const kept = this.#kept;
    this.#staged = [];
    this.#kept = new Set();
    for (const note of this.#paths.report()) this.#note(note);
    const store = this.#store;
    const changes = this.#changes;
    if (store.size === 0) {
      // Nothing to diff against (the initial sync, or a relist after
      // everything went): no seen-set, no per-object lookups.
      if (countsOnly) {
        for (const item of staged) store.add(item.obj, item.keys);
        changes.createdInBulk(store.size);
        return;
      }
    }
    const seen = new Set<string>(kept);
    for (const item of staged) {
      const { namespace = "", name = "" } = item.obj.metadata;
      seen.add(`${namespace}/${name}`);
      this.#write(item.obj, item.keys, namespace, name);
    }
    for (const [namespace, name] of store.identities()) {
      if (!seen.has(`${namespace}/${name}`)) this.#remove(namespace, name);
    }
  }

  /**
   * Applies one watch event. An object that is deleted, or no longer
   * selected, dropped by `transform` or indexable, leaves the store; one
   * `transform` threw for stays as stored.
   */
  applyEvent = (type: WatchEventType, raw: KubeObject): void => {
    const { namespace = "", name } = raw.metadata;
    if (!name) {
      this.#note({ kind: "eventWithoutName", type });
      return;
    }
    if (
      type === "DELETED" ||
      (this.#selector !== undefined && !this.#selector.matches(raw))
    ) {
      this.#remove(namespace, name);
      return;
    }
    const obj = this.#preparer.prepare(raw);
    if (obj === SKIPPED) return;
    const keys = obj === undefined ? undefined : this.#keysOf(obj, true);
    if (keys === undefined) {
      this.#remove(namespace, name);
      return;
    }
    this.#write(obj!, keys, namespace, name);
  };

  /** Adds or replaces one object; an unchanged resourceVersion is skipped. */
  #write(obj: T, keys: string[], namespace: string, name: string): void {
    const store = this.#store;
    let previous = store.peek(namespace, name);
    const version = previous === undefined
      ? store.resourceVersionOf(namespace, name)
      : previous.metadata.resourceVersion ?? "";
    if (version === undefined) {
      store.add(obj, keys);
      this.#changes.created(namespace, name, obj);
      return;
    }
    if (version === obj.metadata.resourceVersion && version) return;
    previous ??= reference(namespace, name, version);
    store.update(obj, keys);
    this.#changes.modified(namespace, name, previous, obj);
  }

  /** Removes one object, recording its last stored version. */
  #remove(namespace: string, name: string): void {
    const store = this.#store;
    const last = store.peek(namespace, name);
    const version = last === undefined
      ? store.resourceVersionOf(namespace, name)
      : undefined;
    if (!store.delete(namespace, name)) return;
    this.#changes.deleted(
      namespace,
      name,
      last ?? reference(namespace, name, version ?? ""),
    );
  }

  /** The index keys of a prepared object; `undefined` skips it. */
  #keysOf(obj: T, fromEvent: boolean): string[] | undefined {
    const keys = this.#indexer.extractKeys(obj);
    if (keys !== undefined) return keys;
    // Named at debug level; a list also counts it into one warning per path.
    this.#note({
      kind: "missingKey",
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
      missing: this.#indexer.missingKey(obj),
    });
    if (!fromEvent) this.#paths.unindexable(obj);
    return undefined;
  }

  #note(note: WriterNote): void {
    write(this.#logger, writerLine(note, this.#resource));
  }
}

/**
 * What a cached store knows of an object it holds no copy of: its identity
 * and version (see `ChangedObjects`).
 */
function reference<T extends KubeObject>(
  namespace: string,
  name: string,
  resourceVersion: string,
): T {
  const metadata = namespace === ""
    ? { name, resourceVersion }
    : { namespace, name, resourceVersion };
  return { metadata } as T;
}

/**
 * Counts, over one list, the objects lacking each `indexBy` path, and
 * whether each field-selector path was found on any object: a path absent
 * on every object is most likely a typo, and is reported once per list
 * instead of never (selector) or once per object (index keys).
 */
class PathCensus {
  /** Objects listed. */
  listed = 0;
  /** Objects listed that were selected and prepared: those needing keys. */
  keyed = 0;
  #keyPaths: JsonPath[];
  #missing: number[];
  #selectorPaths: JsonPath[];
  #selectorSeen: boolean[];
  #selectorUnseen: number;

  constructor(indexer: Indexer, selector: FieldSelector | undefined) {
    this.#keyPaths = indexer.indexBy.map((e) => new JsonPath(e));
    this.#missing = this.#keyPaths.map(() => 0);
    this.#selectorPaths = selector?.terms.map((t) => t.path) ?? [];
    this.#selectorSeen = this.#selectorPaths.map(() => false);
    this.#selectorUnseen = this.#selectorPaths.length;
  }

  reset(): void {
    this.listed = this.keyed = 0;
    this.#missing.fill(0);
    this.#selectorSeen.fill(false);
    this.#selectorUnseen = this.#selectorPaths.length;
  }

  /** Notes which selector paths `raw` has, until each was seen once. */
  checkSelector(raw: KubeObject): void {
    if (this.#selectorUnseen === 0) return;
    const paths = this.#selectorPaths;
    for (let i = 0; i < paths.length; i++) {
      if (this.#selectorSeen[i]) continue;
      const path = paths[i];
      const present = path.hasWildcard
        ? path.getAll(raw).some((v) => v !== undefined && v !== null)
        : path.get(raw) !== undefined;
      if (present) {
        this.#selectorSeen[i] = true;
        this.#selectorUnseen--;
      }
    }
  }

  /** Counts the key paths `obj` lacks. */
  unindexable(obj: KubeObject): void {
    const paths = this.#keyPaths;
    for (let i = 0; i < paths.length; i++) {
      if (renderValue(paths[i].get(obj)) === undefined) this.#missing[i]++;
    }
  }

  /** The warnings for the list just received; resets the census. */
  report(): WriterNote[] {
    const notes: WriterNote[] = [];
    const listed = this.listed;
    if (listed > 0) {
      this.#keyPaths.forEach((path, i) => {
        const skipped = this.#missing[i];
        if (skipped > 0) {
          notes.push({
            kind: "keyPathMissing",
            path: path.expression,
            skipped,
            listed: this.keyed,
          });
        }
      });
      this.#selectorPaths.forEach((path, i) => {
        if (!this.#selectorSeen[i]) {
          notes.push({
            kind: "selectorPathAbsent",
            path: path.expression,
            listed,
          });
        }
      });
    }
    this.reset();
    return notes;
  }
}
