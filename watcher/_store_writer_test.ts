import assert from "node:assert/strict";
import { ObjectPreparer, StoreWriter } from "./_store_writer.ts";
import { BatchBuilder, type ChangeBatch } from "./change_batch.ts";
import type { ListPage } from "../listwatch/list_watch_types.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { Indexer } from "../selection/indexer.ts";
import { FieldSelector } from "../selection/field_selector.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import type { KubeObject } from "../types.ts";

/** Collects what the writer records, as the watcher does. */
class Counts {
  readonly builder: BatchBuilder<KubeObject> = new BatchBuilder();
  calls = 0;
  /** The batch of the last take(). */
  last: ChangeBatch | undefined;
  constructor() {
    this.builder.onRecord = () => this.calls++;
  }
  take(): { created: number; modified: number; deleted: number } {
    const batch = this.last = this.builder.take(false);
    const { created, modified, deleted } = batch;
    return { created, modified, deleted };
  }
  /** Names in the last batch taken, per kind. */
  names(): { created: string[]; modified: string[]; deleted: string[] } {
    const name = (o: KubeObject) => o.metadata.name!;
    const { created, modified, deleted } = this.last!.objects;
    return {
      created: created.map(name),
      modified: modified.map((m) => name(m.current)),
      deleted: deleted.map(name),
    };
  }
}

function cm(
  name: string,
  rv: string,
  extra: { class?: string; labels?: Record<string, string> } = {},
): KubeObject {
  return {
    metadata: {
      namespace: "shop",
      name,
      resourceVersion: rv,
      managedFields: [{ manager: "kubectl" }],
      ...(extra.labels ? { labels: extra.labels } : {}),
    },
    spec: { class: extra.class ?? "haproxy" },
  };
}

let listed = 0;
function page(items: KubeObject[], first = false): ListPage {
  listed = first ? items.length : listed + items.length;
  return { type: "page", items, first, listedSoFar: listed };
}

function setup(
  options: {
    selector?: string;
    indexBy?: string[];
    transform?: (obj: KubeObject) => KubeObject | undefined;
  } = {},
) {
  const store = new MemoryStore({ keyCount: 2 });
  const changes = new Counts();
  const logger = new RecordingLogger();
  const indexer = new Indexer({
    indexBy: options.indexBy ?? ["metadata.namespace", "metadata.name"],
    ignoreFields: ["metadata.managedFields", "spec.class"],
  });
  const writer = new StoreWriter({
    store,
    preparer: new ObjectPreparer({
      indexer,
      transform: options.transform,
      logger,
      resource: "configmaps",
    }),
    indexer,
    fieldSelector: options.selector
      ? new FieldSelector(options.selector)
      : undefined,
    changes: changes.builder,
    logger,
    resource: "configmaps",
  });
  const names = () => store.list().map((o) => o.metadata.name);
  return { store, changes, logger, writer, names };
}

Deno.test("StoreWriter prepares pages as they arrive and writes nothing before the list ends", () => {
  const { store, changes, writer, names, logger } = setup({
    selector: "spec.class=haproxy",
  });
  const raw = [cm("a", "1"), cm("b", "2", { class: "nginx" })];
  writer.stagePage(page(raw, true));
  writer.stagePage(page([cm("c", "3")]));
  assert.equal(store.size, 0);
  assert.equal(store.modificationCount, 0);
  assert.equal(changes.calls, 0);
  // Selected on a field that ignoreFields removes: selection comes first.
  writer.commitList(true);
  assert.deepEqual(names(), ["a", "c"]);
  const [a] = store.get("shop", "a");
  assert.equal(a.metadata.managedFields, undefined);
  assert.deepEqual(a.spec, {});
  assert.equal(
    raw[0].metadata.managedFields !== undefined,
    true,
    "input untouched",
  );
  assert.deepEqual(changes.take(), { created: 2, modified: 0, deleted: 0 });
  assert.equal(changes.calls, 1, "one record for the whole initial list");
  assert.deepEqual(
    logger.at("debug").map((r) => r.fields.listed),
    [2, 3],
    "progress per page",
  );
});

Deno.test("StoreWriter applies a relist as one diff: added, changed, unchanged, gone", () => {
  const { store, changes, writer, names } = setup();
  writer.stagePage(page([cm("a", "1"), cm("b", "2"), cm("c", "3")], true));
  writer.commitList();
  changes.take();
  const before = store.modificationCount;

  writer.stagePage(page([cm("a", "1"), cm("b", "7")], true));
  writer.stagePage(page([cm("d", "8")]));
  assert.equal(store.modificationCount, before, "nothing written while paging");
  writer.commitList();
  assert.deepEqual(names(), ["a", "b", "d"]);
  assert.equal(store.get("shop", "b")[0].metadata.resourceVersion, "7");
  assert.deepEqual(changes.take(), { created: 1, modified: 1, deleted: 1 });
});

Deno.test("StoreWriter drops an unfinished list when a new one starts", () => {
  const { changes, writer, names } = setup();
  writer.stagePage(page([cm("stale", "1")], true));
  // The continue token expired: the list starts over in one request.
  writer.stagePage(page([cm("a", "2"), cm("b", "3")], true));
  writer.commitList();
  assert.deepEqual(names(), ["a", "b"]);
  assert.deepEqual(changes.take(), { created: 2, modified: 0, deleted: 0 });
  // A relist that comes back empty: everything went meanwhile.
  writer.stagePage(page([], true));
  writer.commitList();
  assert.deepEqual(names(), []);
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 2 });
});

Deno.test("StoreWriter applies watch events: add, update by resourceVersion, delete", () => {
  const { changes, writer, names, store } = setup();
  // One batch per event here: coalescing has its own test.
  writer.applyEvent("ADDED", cm("a", "1"));
  assert.deepEqual(changes.take(), { created: 1, modified: 0, deleted: 0 });
  writer.applyEvent("MODIFIED", cm("a", "2"));
  assert.deepEqual(changes.take(), { created: 0, modified: 1, deleted: 0 });
  assert.equal(
    changes.last!.objects.modified[0].previous.metadata.resourceVersion,
    "1",
  );
  writer.applyEvent("MODIFIED", cm("a", "2")); // same version: no change
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 0 });
  writer.applyEvent("MODIFIED", cm("b", "3")); // unknown: created
  assert.deepEqual(changes.take(), { created: 1, modified: 0, deleted: 0 });
  assert.deepEqual(names(), ["a", "b"]);
  assert.equal(store.get("shop", "a")[0].metadata.resourceVersion, "2");
  writer.applyEvent("DELETED", cm("a", "4"));
  writer.applyEvent("DELETED", cm("gone", "5")); // not stored: nothing
  assert.deepEqual(names(), ["b"]);
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 1 });
  // The deleted object is the version last stored (ignoreFields applied).
  const [gone] = changes.last!.objects.deleted;
  assert.equal(gone.metadata.resourceVersion, "2");
  assert.equal(gone.metadata.managedFields, undefined);
});

Deno.test("StoreWriter follows field selector transitions on events", () => {
  const { changes, writer, names } = setup({ selector: "spec.class=haproxy" });
  writer.applyEvent("ADDED", cm("a", "1", { class: "nginx" }));
  assert.deepEqual(names(), []);
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 0 });
  writer.applyEvent("MODIFIED", cm("a", "2")); // starts matching
  assert.deepEqual(names(), ["a"]);
  assert.deepEqual(changes.take(), { created: 1, modified: 0, deleted: 0 });
  writer.applyEvent("MODIFIED", cm("a", "3", { class: "nginx" })); // stops
  assert.deepEqual(names(), []);
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 1 });
  // Deleted as last stored: the version that still matched.
  assert.equal(
    changes.last!.objects.deleted[0].metadata.resourceVersion,
    "2",
  );
});

Deno.test("StoreWriter skips what it cannot index, with one warning per path, and keeps the rest", () => {
  const { changes, writer, names, logger } = setup({
    indexBy: ["metadata.namespace", "metadata.labels.app"],
  });
  writer.stagePage(page([
    cm("a", "1", { labels: { app: "web" } }),
    cm("no-label", "2"),
    cm("no-label-either", "3"),
    { metadata: { name: "bad", namespace: 7 } } as unknown as KubeObject,
  ], true));
  writer.commitList(true);
  assert.deepEqual(names(), ["a"]);
  assert.deepEqual(changes.take(), { created: 1, modified: 0, deleted: 0 });
  const warnings = logger.at("warn");
  assert.equal(warnings.length, 2);
  assert.equal(
    warnings[0].message,
    "Object skipped: it is not a valid Kubernetes object",
  );
  // One line for the path, however many objects lack it.
  assert.equal(
    warnings[1].message,
    "indexBy path metadata.labels.app is absent on 2 of 3 listed objects of configmaps; they were skipped",
  );
  assert.deepEqual(warnings[1].fields, {
    resource: "configmaps",
    path: "metadata.labels.app",
    skipped: 2,
    listed: 3,
  });

  writer.applyEvent("ADDED", { metadata: { namespace: "shop" } });
  assert.match(logger.text(), /Watch event without metadata\.name skipped/);
  // An object that can no longer be indexed leaves the store, named in a
  // debug line only.
  writer.applyEvent("MODIFIED", cm("a", "3"));
  assert.deepEqual(names(), []);
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 1 });
  const debug = logger.at("debug").filter((r) =>
    r.message === "Object skipped: an index key is missing"
  );
  assert.deepEqual(debug.map((r) => r.fields.name), [
    "no-label",
    "no-label-either",
    "a",
  ]);
  assert.deepEqual(debug.slice(2).map((r) => r.fields), [{
    resource: "configmaps",
    namespace: "shop",
    name: "a",
    missing: "metadata.labels.app",
  }]);
  assert.equal(
    logger.at("warn").length,
    3,
    "the nameless event's warning, none per unindexable object",
  );
});
