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
import type { KubeObject, KubeObjectLike, Logger, Store } from "../types.ts";
import type { Indexer } from "../selection/indexer.ts";
import type { FieldSelector } from "../selection/field_selector.ts";
import { JsonPath } from "../selection/jsonpath.ts";
import {
  asPartialObjectMetadata,
  deepFreeze,
  renderValue,
} from "../_internal/_objects.ts";
import type {
  ListPage,
  WatchEventType,
} from "../listwatch/list_watch_types.ts";
import { write, writerLine, type WriterNote } from "./_log_lines.ts";
import type { ChangeRecorder } from "./change_batch.ts";
import { assertKubeObject } from "../selection/invalid_object_error.ts";

export type { ChangeRecorder } from "./change_batch.ts";

// The first half of the store writer: what turns a decoded object into the
// one copy that is stored, the same for every consumer of a stream (checked,
// `ignoreFields` removed, `transform` applied). The second half (selection,
// index keys, the store, the batch) is each consumer's: see `StoreWriter`
// below.

/**
 * What {@linkcode ObjectPreparer.prepare} returns for an object `transform`
 * threw for: skip it, and keep what is stored.
 */
export const SKIPPED: unique symbol = Symbol("skipped");

/** A user's `transform`: `undefined` drops the object. */
export type Transform<T> = (obj: KubeObject) => T | undefined;

/** Options of an {@linkcode ObjectPreparer}. */
export interface ObjectPreparerOptions<T> {
  /** Removes `ignoreFields`. */
  indexer: Indexer;
  /** The user's transform, if any. */
  transform?: Transform<T> | undefined;
  /** Where skipped objects are reported. */
  logger: Logger;
  /** The resource, for log lines. */
  resource: string;
  /**
   * Keep only `apiVersion`, `kind` and `metadata`, in the form the API
   * server's `PartialObjectMetadata` has, whatever the client fetched.
   */
  metadataOnly?: boolean;
  /** Deep-freeze every object prepared (`freezeObjects`). */
  freeze?: boolean;
}

/**
 * Checks an object, removes `ignoreFields`, then runs `transform`. The
 * input is never mutated.
 */
export class ObjectPreparer<T extends KubeObjectLike> {
  #indexer: Indexer;
  #transform: Transform<T> | undefined;
  #logger: Logger;
  #resource: string;
  #metadataOnly: boolean;
  #freeze: boolean;
  /** The namespace string of the last object prepared. */
  #namespace: string | undefined;

  constructor(options: ObjectPreparerOptions<T>) {
    this.#metadataOnly = options.metadataOnly === true;
    this.#freeze = options.freeze === true;
    this.#indexer = options.indexer;
    this.#transform = options.transform;
    this.#logger = options.logger;
    this.#resource = options.resource;
  }

  /**
   * The object to store; `undefined` when it is not storable (invalid, or
   * dropped by `transform`): a stored version leaves the store. `SKIPPED`
   * when `transform` threw (or changed the object's identity): the stored
   * version, if any, stays. With `freeze`, what it returns is deep-frozen.
   */
  prepare(raw: KubeObject): T | undefined | typeof SKIPPED {
    try {
      assertKubeObject(raw);
    } catch (error) {
      this.#note({ kind: "invalidObject", error });
      return undefined;
    }
    // A client that ignored `accept` sent the full object: reduce it here,
    // so that what is stored does not depend on the client.
    const filtered = this.#indexer.filterFields(
      this.#metadataOnly ? asPartialObjectMetadata(raw) : raw,
    );
    this.#shareNamespace(filtered.metadata);
    const transform = this.#transform;
    if (transform === undefined) {
      if (this.#freeze) deepFreeze(filtered);
      return filtered as unknown as T;
    }
    const { namespace, name } = raw.metadata;
    try {
      const out = transform(filtered);
      if (out === undefined) return undefined;
      const meta = (out as KubeObjectLike | null)?.metadata;
      if (
        typeof meta !== "object" || meta === null || meta.name !== name ||
        (meta.namespace ?? "") !== (namespace ?? "")
      ) {
        throw new TypeError(
          "transform must return undefined or an object with the same metadata.namespace and metadata.name",
        );
      }
      if (this.#freeze) deepFreeze(out);
      return out;
    } catch (error) {
      this.#note({ kind: "transformFailed", namespace, name, error });
      return SKIPPED;
    }
  }

  /**
   * Gives an object the namespace string of the object before it when the
   * two are equal (a LIST comes sorted by namespace). Every decoded object
   * brings its own copy of the string, and each copy is hashed once by
   * the first Map it keys; on a large heap V8's string hashing is what
   * bends the sync curve (bench/ANALYSIS.md), and the copies cost memory.
   */
  #shareNamespace(meta: KubeObject["metadata"]): void {
    const namespace = meta.namespace;
    if (namespace === undefined) return;
    if (namespace !== this.#namespace) {
      this.#namespace = namespace;
      return;
    }
    try {
      meta.namespace = this.#namespace;
    } catch {
      // A frozen object (from a custom client) keeps its own copy.
    }
  }

  #note(note: WriterNote): void {
    write(this.#logger, writerLine(note, this.#resource));
  }
}

/** What a {@linkcode StoreWriter} writes, and how it prepares objects. */
export interface StoreWriterOptions<T extends KubeObjectLike> {
  /** The store written to. */
  store: Store<T>;
  /**
   * Makes the stored copy (`ignoreFields`, `transform`) for `stagePage` and
   * `applyEvent`; a writer fed prepared objects by a shared source needs
   * none.
   */
  preparer?: ObjectPreparer<T>;
  /**
   * The namespace whose objects a complete list replaces (one loop of a
   * `namespaces` watcher); absent: every stored object.
   */
  scope?: string | undefined;
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

/** What the preparer made of one object (see `ObjectPreparer.prepare`). */
export type Prepared<T> = T | undefined | typeof SKIPPED;

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
export class StoreWriter<T extends KubeObjectLike = KubeObject> {
  #store: Store<T>;
  #preparer: ObjectPreparer<T> | undefined;
  #scope: string | undefined;
  #indexer: Indexer;
  #selector: FieldSelector | undefined;
  #changes: ChangeRecorder<T>;
  #logger: Logger;
  #resource: string;
  /** The prepared objects of the list being received. */
  #staged: Staged<T>[] = [];
  /** The list being received goes straight into the store (see `#restartList`). */
  #direct = false;
  /** Objects the direct list added. */
  #directCount = 0;
  /** Identities of listed objects `transform` threw for: kept as stored. */
  #kept = new Set<string>();
  /** What the list being received says about the configured paths. */
  #paths: PathCensus;

  constructor(options: StoreWriterOptions<T>) {
    this.#store = options.store;
    this.#preparer = options.preparer;
    this.#scope = options.scope;
    this.#indexer = options.indexer;
    this.#selector = options.fieldSelector;
    this.#changes = options.changes;
    this.#logger = options.logger;
    this.#resource = options.resource;
    this.#paths = new PathCensus(options.indexer, options.fieldSelector);
  }

  /** Receives the changes from now on (a shared view's consumers). */
  set changes(recorder: ChangeRecorder<T>) {
    this.#changes = recorder;
  }

  /**
   * Prepares one page of a list as it arrives. A `first` page drops what an
   * unfinished earlier list left.
   */
  stagePage(page: ListPage): void {
    const preparer = this.#preparer!;
    this.stagePrepared(page, page.items.map((raw) => preparer.prepare(raw)));
  }

  /**
   * Stages one page whose items were prepared already (`prepared[i]` is
   * what the preparer made of `page.items[i]`); selection looks at the
   * item as sent (the selection rule, `_source_form.ts`). A `first` page drops what an
   * unfinished earlier list left.
   */
  stagePrepared(
    page: ListPage,
    prepared: readonly Prepared<T>[],
    initial = false,
  ): void {
    if (page.first) this.#restartList(initial);
    const items = page.items;
    for (let i = 0; i < items.length; i++) {
      const raw = items[i];
      if (!this.#listedSelected(raw)) continue;
      const obj = prepared[i];
      if (obj === SKIPPED) {
        const { namespace = "", name } = raw.metadata;
        this.#kept.add(`${namespace}/${name}`);
        continue;
      }
      if (obj !== undefined) this.#stage(obj);
    }
    this.#note({ kind: "listProgress", listed: page.listedSoFar });
  }

  /**
   * Stages the part of a list received before this writer existed (a view
   * made while its source was listing): stored copies, and the identities
   * `transform` threw for. With `selectStored`, the stored copies answer
   * the selector as the objects sent would; without, the source kept only
   * what this writer's selector chose (the selection rule, `_source_form.ts`).
   */
  stageStored(
    objs: Iterable<T>,
    kept: Iterable<string>,
    selectStored: boolean,
  ): void {
    this.#restartList(false);
    for (const obj of objs) {
      if (this.#listedSelected(selectStored ? obj : undefined)) {
        this.#stage(obj);
      }
    }
    for (const id of kept) this.#kept.add(id);
  }

  /**
   * Fills the store with stored copies, recording nothing: the view made
   * for a consumer that joins a running source. Selects as `stageStored`
   * does, and counts the paths as a list does (`reportSeed` warns as a
   * list's end would).
   *
   * @returns How many objects went into the store.
   */
  seed(objs: Iterable<T>, selectStored: boolean): number {
    this.#paths.reset();
    const store = this.#store;
    const before = store.size;
    for (const obj of objs) {
      if (!this.#listedSelected(selectStored ? obj : undefined)) continue;
      this.#paths.keyed++;
      const keys = this.#keysOf(obj, false);
      if (keys !== undefined) store.add(obj, keys);
    }
    return store.size - before;
  }

  /** Warns about the seeded objects as the end of a list would. */
  reportSeed(): void {
    for (const note of this.#paths.report()) this.#note(note);
  }

  /**
   * Warns about `objs` as the end of a list of them would, storing nothing
   * and leaving a list under way alone: for a consumer that joins the view
   * of a running one, whose own list alone would warn. Selects as `seed`
   * does.
   */
  reportOn(objs: Iterable<T>, selectStored: boolean): void {
    const paths = new PathCensus(this.#indexer, this.#selector);
    const selector = this.#selector;
    const indexer = this.#indexer;
    for (const obj of objs) {
      paths.listed++;
      if (selector !== undefined) {
        if (!selectStored) paths.selectorSeenElsewhere();
        else {
          paths.checkSelector(obj);
          if (!selector.matches(obj)) continue;
        }
      }
      paths.keyed++;
      if (indexer.extractKeys(obj) === undefined) paths.unindexable(obj);
    }
    for (const note of paths.report()) this.#note(note);
  }

  /**
   * Whether a listed object is selected, counted into the path census:
   * `sent` is the object as sent (or a stored copy that answers the same);
   * `undefined` when the source selected it already.
   */
  #listedSelected(sent: KubeObjectLike | undefined): boolean {
    const paths = this.#paths;
    paths.listed++;
    const selector = this.#selector;
    if (selector === undefined) return true;
    if (sent === undefined) {
      paths.selectorSeenElsewhere();
      return true;
    }
    paths.checkSelector(sent);
    return selector.matches(sent);
  }

  /** Keys a selected list item and stages it (or stores it, when direct). */
  #stage(obj: T): void {
    this.#paths.keyed++;
    const keys = this.#keysOf(obj, false);
    if (keys === undefined) return;
    if (this.#direct) this.#addDirectly(obj, keys);
    else this.#staged.push({ obj, keys });
  }

  /**
   * A new list begins. An initial list into a store holding nothing of its
   * scope goes into the store page by page (`#direct`): there is nothing
   * to diff against, and a million staged entries, then a million adds in
   * one synchronous step on a large heap, cost more than the adds as pages
   * arrive (bench/ANALYSIS.md). What an unfinished earlier direct list
   * added is taken out again.
   */
  #restartList(initial: boolean): void {
    if (this.#direct) this.#undoDirect();
    this.#staged = [];
    this.#kept = new Set();
    this.#paths.reset();
    this.#direct = initial &&
      (this.#store.size === 0 || this.#scope !== undefined);
    this.#directCount = 0;
  }

  /**
   * Objects an initial list under way has put into the store so far: its
   * end counts them (as created, in bulk) to whoever records then.
   */
  get pendingInBulk(): number {
    return this.#direct ? this.#directCount : 0;
  }

  /**
   * Takes over an initial list already under way into the store (a view
   * seeded with its first pages): later pages go in directly. The `seeded`
   * objects count as added by this list, so that the list's end counts
   * them (and warns about their paths with the rest), and a restarted list
   * takes them out uncounted.
   */
  continueDirect(seeded: number): void {
    this.#staged = [];
    this.#kept = new Set();
    this.#direct = true;
    this.#directCount = seeded;
  }

  #addDirectly(obj: T, keys: string[]): void {
    const store = this.#store;
    const before = store.size;
    store.add(obj, keys);
    this.#directCount += store.size - before;
  }

  #undoDirect(): void {
    const store = this.#store;
    const scope = this.#scope;
    if (scope === undefined) {
      store.clear();
      return;
    }
    const gone: string[] = [];
    for (const [namespace, name] of store.identities()) {
      if (namespace === scope) gone.push(name);
    }
    for (const name of gone) store.delete(scope, name);
  }

  /**
   * Brings the store to the staged list in one synchronous step: new
   * objects are added, changed ones replaced, and what the list lacks is
   * deleted (it went while nobody watched). With `countsOnly` (the initial
   * list) the objects added are counted, not recorded one by one.
   */
  commitList(countsOnly = false, keep?: (obj: T) => boolean): void {
    const staged = this.#staged;
    const kept = this.#kept;
    this.#staged = [];
    this.#kept = new Set();
    for (const note of this.#paths.report()) this.#note(note);
    const store = this.#store;
    const changes = this.#changes;
    if (this.#direct) {
      this.#direct = false;
      changes.createdInBulk(this.#directCount);
      return;
    }
    // Nothing to diff against (the initial sync): no seen-set, no
    // per-object lookups. A scoped initial list finds nothing of its
    // namespace stored: only its own loop writes there, and this is that
    // loop's first list.
    if (countsOnly && (store.size === 0 || this.#scope !== undefined)) {
      const before = store.size;
      for (const item of staged) store.add(item.obj, item.keys);
      changes.createdInBulk(store.size - before);
      return;
    }
    const seen = new Set<string>(kept);
    for (const item of staged) {
      // Staged before the shard changed, and no longer its own.
      if (keep !== undefined && !keep(item.obj)) continue;
      const { namespace = "", name = "" } = item.obj.metadata!;
      seen.add(`${namespace}/${name}`);
      this.#write(item.obj, item.keys, namespace, name);
    }
    const scope = this.#scope;
    for (const [namespace, name] of store.identities()) {
      if (scope !== undefined && namespace !== scope) continue;
      if (seen.has(`${namespace}/${name}`)) continue;
      // Missing from the list because the shard no longer holds it: not a
      // deletion (a sharded watcher's store answers peek with every object).
      const last = keep === undefined ? undefined : store.peek(namespace, name);
      if (last !== undefined && !keep!(last)) {
        this.#release(namespace, name, last);
      } else this.#remove(namespace, name);
    }
  }

  /**
   * Drops from the store, without reporting a deletion, every object of
   * this writer's scope that `keep` refuses (the shard no longer holds
   * it). Needs a store whose `peek` answers every object it holds.
   *
   * @returns How many were dropped.
   */
  release(keep: (obj: T) => boolean): number {
    const store = this.#store;
    const scope = this.#scope;
    const gone: [string, string, T][] = [];
    for (const [namespace, name] of store.identities()) {
      if (scope !== undefined && namespace !== scope) continue;
      const obj = store.peek(namespace, name);
      if (obj !== undefined && !keep(obj)) gone.push([namespace, name, obj]);
    }
    for (const [namespace, name, obj] of gone) {
      this.#release(namespace, name, obj);
    }
    return gone.length;
  }

  #release(namespace: string, name: string, last: T): void {
    if (this.#store.delete(namespace, name)) {
      this.#changes.released(namespace, name, last);
    }
  }

  /**
   * Applies one watch event. An object that is deleted, or no longer
   * selected, dropped by `transform` or indexable, leaves the store; one
   * `transform` threw for stays as stored.
   */
  applyEvent = (type: WatchEventType, raw: KubeObject): void => {
    this.applyPrepared(
      type,
      raw,
      type === "DELETED" || !raw.metadata.name
        ? undefined
        : this.#preparer!.prepare(raw),
    );
  };

  /**
   * Applies one watch event whose object was prepared already (`prepared`
   * is not looked at for a DELETED event).
   */
  applyPrepared(
    type: WatchEventType,
    raw: KubeObject,
    prepared: Prepared<T>,
  ): void {
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
    if (prepared === SKIPPED) return;
    const keys = prepared === undefined
      ? undefined
      : this.#keysOf(prepared, true);
    if (keys === undefined) {
      this.#remove(namespace, name);
      return;
    }
    this.#write(prepared!, keys, namespace, name);
  }

  /** Adds or replaces one object; an unchanged resourceVersion is skipped. */
  #write(obj: T, keys: string[], namespace: string, name: string): void {
    const store = this.#store;
    let previous = store.peek(namespace, name);
    const version = previous === undefined
      ? store.resourceVersionOf(namespace, name)
      : previous.metadata?.resourceVersion ?? "";
    if (version === undefined) {
      store.add(obj, keys);
      this.#changes.created(namespace, name, obj);
      return;
    }
    if (version === obj.metadata?.resourceVersion && version) return;
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
      namespace: obj.metadata?.namespace,
      name: obj.metadata?.name,
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
function reference<T extends KubeObjectLike>(
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

  /** The selector's paths count as seen (a source selected on them). */
  selectorSeenElsewhere(): void {
    this.#selectorSeen.fill(true);
    this.#selectorUnseen = 0;
  }

  /** Notes which selector paths `raw` has, until each was seen once. */
  checkSelector(raw: KubeObjectLike): void {
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
  unindexable(obj: KubeObjectLike): void {
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
