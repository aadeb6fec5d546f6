/**
 * One list-then-watch stream (one loop per namespace) and the one stored
 * copy of each object, shared by every `Watcher` that asks for the same
 * objects in the same form, as client-go's shared informer: the stream is
 * read once and each object prepared once (`ObjectPreparer`); each
 * consumer's own half (field selector, index keys, store, batch) is a
 * view. Consumers with the same `indexBy` and field selector share a view:
 * one store and one index, the changes fanned out to each one's batch.
 *
 * A source others may join keeps every prepared object (`#objects`), so
 * that a view made for a consumer that joins late starts from the current
 * state; a private one (`shared: false`, a cached store) does not.
 *
 * @module
 */
import type { KubeObject, KubeObjectLike, Logger, Store } from "../types.ts";
import { removableBeforeSelection, type SourceForm } from "./_source_form.ts";
import type { Indexer } from "../selection/indexer.ts";
import type { FieldSelector } from "../selection/field_selector.ts";
import { ListWatch } from "../listwatch/list_watch.ts";
import {
  type ListInfo,
  type ListPage,
  type ListWatchFailure,
  sumListWatchStats,
  type WatchEventType,
} from "../listwatch/list_watch_types.ts";
import {
  type ObjectPreparer,
  type Prepared,
  SKIPPED,
  StoreWriter,
} from "./_store_writer.ts";
import { asPartialObjectMetadata } from "../_internal/_objects.ts";
import type { ChangeRecorder } from "./change_batch.ts";
import type { WatcherHealth } from "./watcher_health.ts";
import { ShardScope } from "./shard_filter.ts";

/** A consumer's own half of a view, built when it makes a new view. */
export interface ViewParts<T extends KubeObjectLike> {
  store: Store<T>;
  indexer: Indexer;
  fieldSelector: FieldSelector | undefined;
  logger: Logger;
  resource: string;
}

/** What a source asks of each consumer (a `Watcher`). */
export interface SourceConsumer<T extends KubeObjectLike> {
  /** Consumers with the same key share a view (store and index). */
  readonly viewKey: string;
  /** Builds the parts of a new view from this consumer's settings. */
  viewParts(): ViewParts<T>;
  /** The consumer's pending batch (read again by `SharedSource.rewire`). */
  readonly recorder: ChangeRecorder<T>;
  /** Joined `store` (its view's). */
  joined(store: Store<T>): void;
  /**
   * Left a view that others go on writing: the consumer keeps what it
   * held (a stopped watcher's view is no longer kept up to date).
   */
  leftShared(store: Store<T>): void;
  /**
   * Every loop has listed: the consumer's initial sync (once). `live` when
   * the consumer joined a synced source: the loops do not wait for this
   * sync, and go on writing its view meanwhile.
   */
  sourceSynced(live?: boolean): Promise<void> | undefined;
}

/** One namespace's loop and the list it is receiving. */
interface Loop<T> {
  readonly index: number;
  readonly namespace: string;
  readonly watch: ListWatch;
  /** Prepared objects of the list being received. */
  staged: T[];
  /** Identities `transform` threw for in that list: kept as they are. */
  kept: Set<string>;
  listing: boolean;
  listed: boolean;
}

/** A store shared by consumers with the same index and field selector. */
class View<T extends KubeObjectLike> {
  readonly store: Store<T>;
  /** One writer per loop, each scoped to its loop's namespace. */
  readonly writers: StoreWriter<T>[];
  readonly consumers: SourceConsumer<T>[] = [];

  constructor(parts: ViewParts<T>, namespaces: readonly string[]) {
    this.store = parts.store;
    const noChanges: ChangeRecorder<T> = {
      created() {},
      modified() {},
      deleted() {},
      createdInBulk() {},
      released() {},
    };
    this.writers = namespaces.map((namespace) =>
      new StoreWriter<T>({
        store: parts.store,
        indexer: parts.indexer,
        fieldSelector: parts.fieldSelector,
        changes: noChanges,
        logger: parts.logger,
        resource: parts.resource,
        scope: namespaces.length > 1 ? namespace : undefined,
      })
    );
  }

  /** Points the writers at the consumers' batches: one, or all of them. */
  rewire(): void {
    const targets = this.consumers.map((c) => c.recorder);
    const recorder: ChangeRecorder<T> = targets.length === 1 ? targets[0] : {
      created(namespace, name, obj) {
        for (const t of targets) t.created(namespace, name, obj);
      },
      modified(namespace, name, previous, current) {
        for (const t of targets) t.modified(namespace, name, previous, current);
      },
      deleted(namespace, name, last) {
        for (const t of targets) t.deleted(namespace, name, last);
      },
      createdInBulk(count) {
        for (const t of targets) t.createdInBulk(count);
      },
      released(namespace, name, last) {
        for (const t of targets) t.released(namespace, name, last);
      },
    };
    for (const writer of this.writers) writer.changes = recorder;
  }
}

/**
 * The loops, the prepared objects and the views of one form. Runs from the
 * first consumer's `join` to the last one's `leave`; a closed source does
 * not run again (the registry makes a new one).
 */
export class SharedSource<T extends KubeObjectLike> {
  #form: SourceForm;
  #preparer: ObjectPreparer<T>;
  #loops: Loop<T>[];
  /** Every prepared object, by namespace, then name. */
  #objects = new Map<string, Map<string, T>>();
  #views = new Map<string, View<T>>();
  /** The views, for the hot path (no Map iterator per event). */
  #viewList: View<T>[] = [];
  #members = new Set<SourceConsumer<T>>();
  #controller = new AbortController();
  #runs: Promise<void>[] = [];
  #synced = false;
  /**
   * While the consumers' initial syncs run (their `onSyncComplete`): the
   * other loops' pages, lists and events wait for it, as the last loop to
   * list does, so that no consumer's store changes under its callback.
   */
  #settling: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #onClose: () => void;
  #sharable: boolean;
  /** The form's shard, when it has one (`shard`). */
  #shard: ShardScope | undefined;

  /**
   * Builds the loops (which check their options: a bad option throws a
   * `WatcherConfigError` here).
   *
   * @param form What the loops fetch and how they run.
   * @param logger The stream's: the form's logger, in the stream's context.
   * @param preparer Makes the stored copies (from the form's
   * `ignoreFields`, `transform` and `metadataOnly`).
   * @param sharable Whether other consumers may join (the registry's).
   * @param onClose Runs when the last consumer left.
   */
  constructor(
    form: SourceForm,
    logger: Logger,
    preparer: ObjectPreparer<T>,
    sharable: boolean,
    onClose: () => void = () => {},
  ) {
    this.#form = form;
    this.#preparer = preparer;
    this.#sharable = sharable;
    this.#onClose = onClose;
    const shard = this.#shard = form.shard === undefined
      ? undefined
      : new ShardScope(form.shard, logger, form.gvr.resource);
    this.#loops = form.namespaces.map((namespace, index) => {
      const loop: Loop<T> = {
        index,
        namespace,
        staged: [],
        kept: new Set(),
        listing: false,
        listed: false,
        watch: new ListWatch(form.client, {
          onListPage: (page) =>
            this.#settling === undefined
              ? this.#page(loop, page)
              : this.#afterSettling(() => this.#page(loop, page)),
          onListEnd: (info) =>
            this.#settling === undefined
              ? this.#listed(loop, info)
              : this.#afterSettling(() => this.#listed(loop, info)),
          onEvent: (type, obj) =>
            this.#settling === undefined
              ? this.#event(loop, type, obj)
              : this.#afterSettling(() => this.#event(loop, type, obj)),
        }, {
          ...form.loop,
          gvr: form.gvr,
          namespace,
          labelSelector: form.labelSelector,
          shardSelector: shard?.requestSelector,
          metadataOnly: form.metadataOnly,
          ignoreFields: removableBeforeSelection(
            form.ignoreFields,
            form.preselect,
          ),
          logger,
        }),
      };
      return loop;
    });
  }

  /** Whether the source has run (it never runs twice). */
  get used(): boolean {
    return this.#runs.length > 0;
  }

  /** Whether the last consumer left. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** Whether every loop has listed once. */
  get synced(): boolean {
    return this.#synced;
  }

  /**
   * Adds a consumer: into the view of its key (made, and filled with the
   * current objects, when new). The loops start with the first consumer;
   * a consumer joining a synced source has its initial sync at once.
   */
  join(consumer: SourceConsumer<T>): void {
    if (this.#closing) throw new Error("This source is closed");
    let view = this.#views.get(consumer.viewKey);
    if (view === undefined) {
      view = new View(consumer.viewParts(), this.#form.namespaces);
      this.#fill(view);
      this.#views.set(consumer.viewKey, view);
      this.#viewList = [...this.#views.values()];
    } else this.#report(view);
    view.consumers.push(consumer);
    view.rewire();
    this.#members.add(consumer);
    consumer.joined(view.store);
    // What the view holds already is this consumer's share of the initial
    // list (counted, as an initial list is), but for what an initial list
    // under way will count when it ends.
    let pending = 0;
    for (const writer of view.writers) pending += writer.pendingInBulk;
    consumer.recorder.createdInBulk(view.store.size - pending);
    if (this.#runs.length === 0) {
      const signal = this.#controller.signal;
      const shard = this.#shard;
      if (shard === undefined) {
        this.#runs = this.#loops.map((loop) => loop.watch.run(signal));
      } else {
        // The loops start once the shard holds something.
        shard.open({ changed: (selector) => this.#shardChanged(selector) });
        this.#runs = this.#loops.map((loop) =>
          shard.ready.then(() => loop.watch.run(signal))
        );
      }
    } else if (this.#synced) {
      void consumer.sourceSynced(true);
    }
  }

  /** The consumer's `recorder` changed: its view records into the new one. */
  rewire(consumer: SourceConsumer<T>): void {
    if (!this.#members.has(consumer)) return;
    this.#views.get(consumer.viewKey)?.rewire();
  }

  /**
   * Removes a consumer; its view goes with its last consumer, and the loops
   * with the last consumer (resolving once they ended).
   */
  leave(consumer: SourceConsumer<T>): Promise<void> {
    if (!this.#members.delete(consumer)) return this.#closing ?? done;
    const view = this.#views.get(consumer.viewKey)!;
    view.consumers.splice(view.consumers.indexOf(consumer), 1);
    if (view.consumers.length === 0) {
      this.#views.delete(consumer.viewKey);
      this.#viewList = [...this.#views.values()];
    } else {
      view.rewire();
      consumer.leftShared(view.store);
    }
    if (this.#members.size > 0) return done;
    this.#onClose();
    this.#controller.abort();
    this.#shard?.close();
    this.#closing = Promise.all(this.#runs).then(() => {});
    return this.#closing;
  }

  /** The shared part of each consumer's health: its loops' records. */
  health(): Omit<WatcherHealth, "state" | "synced" | "objects" | "notShared"> {
    const loops = this.#loops;
    return {
      resourceVersion: loops.length === 1
        ? loops[0].watch.resourceVersion
        : undefined,
      ...sumListWatchStats(loops.map((l) => l.watch.stats)),
      idleTimeoutMs: loops[0].watch.idleTimeoutMs,
      lastError: this.lastError,
      shared: this.#sharable
        ? { consumers: Math.max(1, this.#members.size) }
        : false,
      shard: this.#shard?.health(),
      namespaces: loops.length === 1 ? undefined : Object.fromEntries(
        loops.map((l) => [l.namespace, {
          synced: l.listed,
          resourceVersion: l.watch.resourceVersion,
          lastError: l.watch.lastError,
          lastActivityTime: l.watch.lastActivityTime,
          retryAt: l.watch.stats.retryAt,
        }]),
      ),
    };
  }

  /** The latest failure of any loop. */
  get lastError(): ListWatchFailure | undefined {
    let last: ListWatchFailure | undefined;
    for (const { watch } of this.#loops) {
      const e = watch.lastError;
      if (e !== undefined && (last === undefined || e.time >= last.time)) {
        last = e;
      }
    }
    return last;
  }

  /**
   * A new view: each loop's writer seeded with the current objects of its
   * namespace, then joined to the list that loop is receiving, if any. A
   * loop that has listed warns about the seeded objects' paths now: they
   * are what the consumer syncs with, at once (a relist under way warns
   * again at its end). An initial list under way warns at its end, when
   * the consumer syncs.
   */
  #fill(view: View<T>): void {
    const selectStored = this.#form.preselect === undefined;
    for (const loop of this.#loops) {
      const writer = view.writers[loop.index];
      const seeded = writer.seed(this.#scopeObjects(loop), selectStored);
      if (loop.listed) writer.reportSeed();
      if (!loop.listing) continue;
      if (loop.listed) writer.stageStored(loop.staged, loop.kept, selectStored);
      // An initial list under way is in `#objects`: seeded already.
      else writer.continueDirect(seeded);
    }
  }

  /**
   * A consumer joins an existing view: each loop that has listed warns
   * about the objects of its namespace, which the consumer syncs with at
   * once, as its own list alone would (an initial list under way warns at
   * its end, for the view).
   */
  #report(view: View<T>): void {
    const selectStored = this.#form.preselect === undefined;
    for (const loop of this.#loops) {
      if (!loop.listed) continue;
      view.writers[loop.index].reportOn(this.#scopeObjects(loop), selectStored);
    }
  }

  /** The prepared objects a loop's namespace holds (all, for one loop). */
  #scopeObjects(loop: Loop<T>): Iterable<T> {
    const all = this.#objects;
    if (this.#loops.length > 1) return all.get(loop.namespace)?.values() ?? [];
    return (function* () {
      for (const names of all.values()) yield* names.values();
    })();
  }

  /** Whether the source keeps `sent` (see `SourceForm.preselect`). */
  #keeps(sent: KubeObject): boolean {
    const preselect = this.#form.preselect;
    return preselect === undefined || preselect.matches(sent);
  }

  #page(loop: Loop<T>, page: ListPage): void {
    const shard = this.#shard;
    if (shard !== undefined) {
      // Another shard's objects are not prepared, staged nor stored.
      const mine = page.items.filter((item) => shard.keeps(item));
      if (mine.length !== page.items.length) page = { ...page, items: mine };
    }
    // A loop's initial list finds nothing of its namespace here: its
    // objects go straight in, as they do into the views' stores.
    const initial = !loop.listed;
    if (page.first) {
      loop.staged = [];
      loop.kept = new Set();
      if (initial) this.#clearScope(loop);
    }
    loop.listing = true;
    const preparer = this.#preparer;
    // Selection and preparation see the metadata-only form even when the
    // client fetched full objects.
    if (this.#form.metadataOnly) page = reducedPage(page);
    const items = page.items;
    const prepared = new Array<Prepared<T>>(items.length);
    const staged = loop.staged;
    const objects = this.#objects;
    const sharable = this.#sharable;
    for (let i = 0; i < items.length; i++) {
      const out = preparer.prepare(items[i]);
      prepared[i] = out;
      if (out === SKIPPED) {
        const { namespace = "", name } = items[i].metadata;
        loop.kept.add(`${namespace}/${name}`);
      } else if (out === undefined || !sharable || !this.#keeps(items[i])) {
        continue;
      } else if (initial) {
        const { namespace = "", name = "" } = out.metadata!;
        let names = objects.get(namespace);
        if (names === undefined) objects.set(namespace, names = new Map());
        names.set(name, out);
      } else {
        staged.push(out);
      }
    }
    for (const view of this.#viewList) {
      view.writers[loop.index].stagePrepared(page, prepared, initial);
    }
  }

  #listed(loop: Loop<T>, info: ListInfo): Promise<void> | undefined {
    if (loop.listed && this.#sharable) this.#replace(loop);
    loop.listing = false;
    loop.listed = true;
    const shard = this.#shard;
    if (info.streamed !== true) shard?.listed(info.shardSelector);
    for (const view of this.#viewList) {
      view.writers[loop.index].commitList(info.initial, shard?.holds);
    }
    if (this.#synced || !this.#loops.every((l) => l.listed)) return undefined;
    this.#synced = true;
    // The loop waits for every consumer's initial sync (its onChange and
    // onSyncComplete), as a watcher alone does, and so do the others: a
    // watcher of several namespaces gets no change during its
    // onSyncComplete, as one of a single namespace and a late joiner
    // (whose store reads as synced meanwhile) get none.
    const pending = [...this.#members].map((c) => c.sourceSynced());
    const settling = Promise.all(pending).then(() => {
      this.#settling = undefined;
    });
    if (this.#loops.length > 1) this.#settling = settling;
    return settling;
  }

  /** `apply`, once the initial syncs settled; nothing when stopped by then. */
  #afterSettling(apply: () => Promise<void> | void): Promise<void> {
    return this.#settling!.then(() => {
      if (!this.#controller.signal.aborted) return apply();
    });
  }

  /** Forgets what the loop's namespace holds (a restarted initial list). */
  #clearScope(loop: Loop<T>): void {
    if (this.#loops.length === 1) this.#objects = new Map();
    else this.#objects.delete(loop.namespace);
  }

  /** The loop's complete list replaces what its namespace held. */
  #replace(loop: Loop<T>): void {
    const old = this.#objects;
    const scoped = this.#loops.length > 1;
    const next = new Map<string, Map<string, T>>();
    for (let obj of loop.staged) {
      const { namespace = "", name = "" } = obj.metadata!;
      // An unchanged object keeps the copy held: the views' stores keep it
      // too (an unchanged resourceVersion is not written), so a relist
      // does not leave two copies of everything it did not change.
      const held = old.get(namespace)?.get(name);
      const version = obj.metadata!.resourceVersion;
      if (
        held !== undefined && version &&
        held.metadata?.resourceVersion === version
      ) {
        obj = held;
      }
      let names = next.get(namespace);
      if (names === undefined) next.set(namespace, names = new Map());
      names.set(name, obj);
    }
    for (const id of loop.kept) {
      const slash = id.indexOf("/");
      const namespace = id.slice(0, slash), name = id.slice(slash + 1);
      const obj = old.get(namespace)?.get(name);
      if (obj === undefined) continue;
      let names = next.get(namespace);
      if (names === undefined) next.set(namespace, names = new Map());
      names.set(name, obj);
    }
    loop.staged = [];
    loop.kept = new Set();
    if (!scoped) {
      this.#objects = next;
      return;
    }
    const names = next.get(loop.namespace);
    if (names === undefined) old.delete(loop.namespace);
    else old.set(loop.namespace, names);
  }

  #event(loop: Loop<T>, type: WatchEventType, raw: KubeObject): void {
    // Another shard's event: nothing of it is held (a stored object the
    // shard lost goes when the shard's change is handled).
    if (this.#shard !== undefined && !this.#shard.keeps(raw)) return;
    if (this.#form.metadataOnly) raw = asPartialObjectMetadata(raw);
    const { namespace = "", name } = raw.metadata;
    let prepared: Prepared<T> = undefined;
    if (name) {
      if (type !== "DELETED") prepared = this.#preparer.prepare(raw);
      if (prepared !== SKIPPED && this.#sharable) {
        let names = this.#objects.get(namespace);
        if (prepared === undefined || !this.#keeps(raw)) {
          if (names?.delete(name) && names.size === 0) {
            this.#objects.delete(namespace);
          }
        } else {
          if (names === undefined) {
            this.#objects.set(namespace, names = new Map());
          }
          names.set(name, prepared);
        }
      }
    }
    const views = this.#viewList;
    const index = loop.index;
    for (let i = 0; i < views.length; i++) {
      views[i].writers[index].applyPrepared(type, raw, prepared);
    }
  }

  /**
   * The shard changed: what it no longer holds leaves the stored objects
   * and every view, without a deletion reported (each consumer's pending
   * batch forgets it too); then, unless it now holds nothing, every loop
   * lists again for what it gained. Waits for the initial syncs under way.
   */
  async #shardChanged(selector: string): Promise<void> {
    if (this.#settling !== undefined) await this.#settling;
    const shard = this.#shard!;
    if (this.#controller.signal.aborted) return;
    const holds = shard.holds;
    for (const [namespace, names] of this.#objects) {
      for (const [name, obj] of names) if (!holds(obj)) names.delete(name);
      if (names.size === 0) this.#objects.delete(namespace);
    }
    for (const loop of this.#loops) {
      if (loop.staged.length > 0) loop.staged = loop.staged.filter(holds);
    }
    let released = 0;
    for (const view of this.#viewList) {
      let count = 0;
      for (const writer of view.writers) count += writer.release(holds);
      released = Math.max(released, count);
    }
    shard.released(released);
    if (selector === "") return;
    for (const loop of this.#loops) loop.watch.relist();
  }
}

const done: Promise<void> = Promise.resolve();

/** A source's health before it ran: nothing counted. */
export const UNSTARTED_HEALTH: Omit<
  ReturnType<SharedSource<KubeObject>["health"]>,
  "idleTimeoutMs"
> = Object.freeze({
  resourceVersion: undefined,
  ...sumListWatchStats([]),
  lastError: undefined,
  shared: Object.freeze({ consumers: 1 }),
  namespaces: undefined,
});

/** `page` with its items in the metadata-only form (the same page if so). */
function reducedPage(page: ListPage): ListPage {
  const items = page.items;
  let reduced: KubeObject[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = asPartialObjectMetadata(items[i]);
    if (item !== items[i]) (reduced ??= items.slice())[i] = item;
  }
  return reduced === undefined ? page : { ...page, items: reduced };
}
