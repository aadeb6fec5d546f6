import assert from "node:assert/strict";
import { type ChangeRecorder, StoreWriter } from "./_store_writer.ts";
import type { ListPage } from "./list_watch_types.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { Indexer } from "../indexer/indexer.ts";
import { FieldSelector } from "../indexer/field_selector.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import type { KubeObject } from "../types.ts";

/** Counts what the writer records, as the debouncer would. */
class Counts implements ChangeRecorder {
  created = 0;
  modified = 0;
  deleted = 0;
  calls = 0;
  recordCreate(n = 1): void {
    this.calls++;
    this.created += n;
  }
  recordUpdate(n = 1): void {
    this.calls++;
    this.modified += n;
  }
  recordDelete(n = 1): void {
    this.calls++;
    this.deleted += n;
  }
  take(): { created: number; modified: number; deleted: number } {
    const { created, modified, deleted } = this;
    this.created = this.modified = this.deleted = 0;
    return { created, modified, deleted };
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

function setup(options: { selector?: string; indexBy?: string[] } = {}) {
  const store = new MemoryStore({ keyCount: 2 });
  const changes = new Counts();
  const logger = new RecordingLogger();
  const writer = new StoreWriter({
    store,
    indexer: new Indexer({
      indexBy: options.indexBy ?? ["metadata.namespace", "metadata.name"],
      ignoreFields: ["metadata.managedFields", "spec.class"],
    }),
    fieldSelector: options.selector
      ? new FieldSelector(options.selector)
      : undefined,
    changes,
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
  writer.commitList();
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
  writer.applyEvent("ADDED", cm("a", "1"));
  writer.applyEvent("MODIFIED", cm("a", "2"));
  writer.applyEvent("MODIFIED", cm("a", "2")); // same version: no change
  writer.applyEvent("MODIFIED", cm("b", "3")); // unknown: created
  assert.deepEqual(names(), ["a", "b"]);
  assert.equal(store.get("shop", "a")[0].metadata.resourceVersion, "2");
  assert.deepEqual(changes.take(), { created: 2, modified: 1, deleted: 0 });
  writer.applyEvent("DELETED", cm("a", "4"));
  writer.applyEvent("DELETED", cm("gone", "5")); // not stored: nothing
  assert.deepEqual(names(), ["b"]);
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 1 });
});

Deno.test("StoreWriter follows field selector transitions on events", () => {
  const { changes, writer, names } = setup({ selector: "spec.class=haproxy" });
  writer.applyEvent("ADDED", cm("a", "1", { class: "nginx" }));
  assert.deepEqual(names(), []);
  writer.applyEvent("MODIFIED", cm("a", "2")); // starts matching
  assert.deepEqual(names(), ["a"]);
  writer.applyEvent("MODIFIED", cm("a", "3", { class: "nginx" })); // stops
  assert.deepEqual(names(), []);
  assert.deepEqual(changes.take(), { created: 1, modified: 0, deleted: 1 });
});

Deno.test("StoreWriter skips what it cannot index, with a warning, and keeps the rest", () => {
  const { changes, writer, names, logger } = setup({
    indexBy: ["metadata.namespace", "metadata.labels.app"],
  });
  writer.stagePage(page([
    cm("a", "1", { labels: { app: "web" } }),
    cm("no-label", "2"),
    { metadata: { name: "bad", namespace: 7 } } as unknown as KubeObject,
  ], true));
  writer.commitList();
  assert.deepEqual(names(), ["a"]);
  assert.deepEqual(changes.take(), { created: 1, modified: 0, deleted: 0 });
  const warnings = logger.at("warn");
  assert.equal(warnings.length, 2);
  assert.equal(warnings[0].message, "Object skipped: an index key is missing");
  assert.deepEqual(warnings[0].fields, {
    resource: "configmaps",
    namespace: "shop",
    name: "no-label",
    missing: "metadata.labels.app",
  });
  assert.equal(
    warnings[1].message,
    "Object skipped: it is not a valid Kubernetes object",
  );

  writer.applyEvent("ADDED", { metadata: { namespace: "shop" } });
  assert.match(logger.text(), /Watch event without metadata\.name skipped/);
  // An object that can no longer be indexed leaves the store.
  writer.applyEvent("MODIFIED", cm("a", "3"));
  assert.deepEqual(names(), []);
  assert.deepEqual(changes.take(), { created: 0, modified: 0, deleted: 1 });
});
