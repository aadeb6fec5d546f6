import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { waitFor } from "../testing/fake_clock.ts";
import { cachedStore } from "../store/cached_store.ts";
import type { ChangeBatch } from "./change_batch.ts";
import { configMap, Harness, syncedHarness } from "./_bulk_harness_test.ts";

const INTERVAL = 10_000;

/** A watcher over `names` in namespace shop, synced, its watch open. */
function synced(
  names: string[],
  config: ConstructorParameters<typeof Harness>[0] = {},
): Promise<Harness> {
  return syncedHarness({
    config: { debounceInterval: INTERVAL },
    ...config,
    seed: (server) => {
      for (const name of names) {
        server.create("configmaps", configMap("shop", name));
      }
    },
  });
}

/** Waits until the watcher has seen `n` events in all. */
async function events(h: Harness, n: number): Promise<void> {
  await waitFor(() => h.watcher.health().events === n, {
    description: `${n} events (have ${h.watcher.health().events})`,
  });
}

/** A batch as `name` lists and `name:v→v` for modified objects. */
function described(batch: ChangeBatch) {
  const v = (o: KubeObject) => (o.data as { v: string }).v;
  return {
    created: batch.objects.created.map((o) => o.metadata.name),
    modified: batch.objects.modified.map((m) =>
      `${m.current.metadata.name}:${v(m.previous)}→${v(m.current)}`
    ),
    deleted: batch.objects.deleted.map((o) => o.metadata.name),
  };
}

Deno.test("Watcher's initial-sync batch carries counts only, and the first change after it fires at once", async () => {
  await using h = await synced(["a", "b", "c"]);
  const [initial] = h.recorded.full;
  assert.equal(initial.isInitialSync, true);
  assert.equal(initial.created, 3);
  assert.deepEqual(described(initial), {
    created: [],
    modified: [],
    deleted: [],
  });

  // No debounce interval was opened by the initial batch: no waiting for
  // INTERVAL, the change is delivered on the same tick.
  const t0 = h.clock.now();
  h.server.patch("configmaps", "shop", "a", { data: { v: "1" } });
  await h.waitForBatches(2);
  assert.equal(h.clock.now(), t0, "delivered without the clock moving");
  assert.deepEqual(described(h.recorded.full[1]), {
    created: [],
    modified: ["a:0→1"],
    deleted: [],
  });

  // That one did open the interval.
  h.server.patch("configmaps", "shop", "b", { data: { v: "1" } });
  await events(h, 2);
  await h.clock.tick(INTERVAL - 1);
  assert.equal(h.recorded.batches.length, 2);
  await h.clock.tick(1);
  await h.waitForBatches(3);
  assert.deepEqual(described(h.recorded.full[2]).modified, ["b:0→1"]);
});

Deno.test("Watcher coalesces each object's events within a batch", async () => {
  await using h = await synced(["a", "b", "c", "d"]);
  // Open the interval, so that the burst below lands in one batch.
  h.server.patch("configmaps", "shop", "d", { data: { v: "1" } });
  await h.waitForBatches(2);

  const server = h.server;
  server.create("configmaps", configMap("shop", "x")); // created →
  server.patch("configmaps", "shop", "x", { data: { v: "1" } }); // modified
  server.create("configmaps", configMap("shop", "y")); // created →
  server.delete("configmaps", "shop", "y"); // deleted: nothing
  server.patch("configmaps", "shop", "a", { data: { v: "1" } }); // modified →
  server.patch("configmaps", "shop", "a", { data: { v: "2" } }); // modified
  server.patch("configmaps", "shop", "b", { data: { v: "1" } }); // modified →
  server.delete("configmaps", "shop", "b"); // deleted
  const oldUid = server.get("configmaps", "shop", "c").metadata.uid;
  server.delete("configmaps", "shop", "c"); // deleted →
  server.create("configmaps", configMap("shop", "c", { data: { v: "new" } }));
  await events(h, 11);
  await h.clock.tick(INTERVAL);
  await h.waitForBatches(3);

  const batch = h.recorded.full[2];
  assert.deepEqual(described(batch), {
    created: ["x", "c"],
    modified: ["a:0→2"],
    deleted: ["b", "c"],
  });
  assert.deepEqual(
    [batch.created, batch.modified, batch.deleted],
    [2, 1, 2],
    "the counts are the coalesced entries",
  );
  // created → modified: the latest version.
  assert.deepEqual(batch.objects.created[0].data, { v: "1" });
  // modified → deleted: the last version stored.
  assert.deepEqual(batch.objects.deleted[0].data, { v: "1" });
  // Re-created under a new uid: the old one deleted, the new one created.
  assert.equal(batch.objects.deleted[1].metadata.uid, oldUid);
  assert.notEqual(batch.objects.created[1].metadata.uid, oldUid);
  assert.equal(h.watcher.store.size, 4);
});

Deno.test("Watcher lists field-selector transitions as created and deleted objects", async () => {
  await using h = await synced(["a"], {
    config: { debounceInterval: INTERVAL, fieldSelector: "data.v!=off" },
  });
  h.server.patch("configmaps", "shop", "a", { data: { v: "off" } });
  await h.waitForBatches(2);
  assert.deepEqual(described(h.recorded.full[1]), {
    created: [],
    modified: [],
    deleted: ["a"],
  });
  assert.deepEqual(h.recorded.full[1].objects.deleted[0].data, { v: "0" });
  h.server.patch("configmaps", "shop", "a", { data: { v: "on" } });
  await events(h, 2);
  await h.clock.tick(INTERVAL);
  await h.waitForBatches(3);
  assert.deepEqual(described(h.recorded.full[2]).created, ["a"]);
});

Deno.test("Watcher's transform reshapes list items and events before keys are taken", async () => {
  interface Setting extends KubeObject {
    mode: string;
  }
  await using h = new Harness({
    config: {
      debounceInterval: INTERVAL,
      indexBy: ["mode", "metadata.name"],
      ignoreFields: ["metadata.labels"],
      // Runs after ignoreFields: no labels left to see.
      transform: (obj) =>
        obj.metadata.labels !== undefined ? undefined : {
          metadata: obj.metadata,
          mode: (obj.data as { v: string }).v === "0" ? "off" : "on",
        },
    },
    seed: (server) => {
      server.create(
        "configmaps",
        configMap("shop", "a", { labels: { x: "1" } }),
      );
      server.create("configmaps", configMap("shop", "b"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 2);
  await h.waitForWatches(1);
  const [a] = await h.watcher.store.get("off", "a");
  assert.deepEqual(a, {
    metadata: {
      namespace: "shop",
      name: "a",
      resourceVersion: "1",
      uid: a.metadata.uid,
      creationTimestamp: a.metadata.creationTimestamp,
    },
    mode: "off",
  });
  h.server.patch("configmaps", "shop", "b", { data: { v: "1" } });
  await h.waitForBatches(2);
  assert.deepEqual(
    (await h.watcher.store.get("on")).map((o) => o.metadata.name),
    ["b"],
  );
  assert.deepEqual(
    h.recorded.full[1].objects.modified.map((
      m,
    ) => [(m.previous as Setting).mode, (m.current as Setting).mode]),
    [["off", "on"]],
  );
});

Deno.test("Watcher's transform: undefined drops (a delete), a throw skips with one error and keeps what is stored", async () => {
  await using h = await synced(["a", "b", "skip-me"], {
    config: {
      debounceInterval: INTERVAL,
      transform: (obj) => {
        const v = (obj.data as { v: string }).v;
        if (v === "drop") return undefined;
        if (v === "boom" || obj.metadata.name === "skip-me") {
          throw new Error(`cannot read ${v}`);
        }
        return obj;
      },
    },
  });
  // Thrown for in the list: skipped, logged once, naming it.
  assert.equal(h.watcher.store.size, 2);
  const errors = () => h.logger.at("error");
  assert.equal(errors().length, 1);
  assert.match(errors()[0].message, /transform threw for shop\/skip-me/);
  assert.deepEqual(
    [errors()[0].fields.namespace, errors()[0].fields.name],
    ["shop", "skip-me"],
  );

  // A throw on an event: skipped, the stored version stays.
  h.server.patch("configmaps", "shop", "a", { data: { v: "boom" } });
  await events(h, 1);
  assert.equal(errors().length, 2);
  assert.match(errors()[1].message, /shop\/a.*stored version.*kept/);
  assert.deepEqual((await h.watcher.store.get("shop", "a"))[0].data, {
    v: "0",
  });
  // undefined: the stored object is deleted, and listed so.
  h.server.patch("configmaps", "shop", "b", { data: { v: "drop" } });
  await h.waitForBatches(2);
  assert.deepEqual(described(h.recorded.full[1]), {
    created: [],
    modified: [],
    deleted: ["b"],
  });
  assert.deepEqual(
    (await h.watcher.store.list()).map((o) => o.metadata.name),
    ["a"],
  );

  // A relist keeps what transform throws for: nothing stored is lost.
  h.server.injectFault({ verb: "watch", kind: "status", code: 410 });
  h.server.closeAllWatches();
  await waitFor(() => h.watcher.health().relists === 1, {
    description: "a relist",
  });
  await h.waitForWatches(1);
  assert.deepEqual((await h.watcher.store.get("shop", "a"))[0].data, {
    v: "0",
  });
});

Deno.test("Watcher's transform must keep the object's identity", async () => {
  await using h = new Harness({
    config: {
      transform: (obj) => ({
        ...obj,
        metadata: { ...obj.metadata, name: "renamed" },
      }),
    },
    seed: (server) => server.create("configmaps", configMap("shop", "a")),
  });
  assert.equal(await h.watcher.waitForSync(), 0);
  const [error] = h.logger.at("error");
  assert.match(error.message, /transform threw for shop\/a/);
  assert.match(
    String(error.fields.error),
    /same metadata\.namespace and metadata\.name/,
  );
});

Deno.test("Watcher with a cached store lists what it knows of previous and deleted objects", async () => {
  await using h = await synced(["a", "b"], {
    config: {
      debounceInterval: INTERVAL,
      store: cachedStore(),
      // Fetched objects go through transform too.
      transform: (obj) => ({ ...obj, seen: true }),
    },
  });
  // Nothing cached: the previous version is only what the store keeps.
  h.server.patch("configmaps", "shop", "a", { data: { v: "1" } });
  await h.waitForBatches(2);
  const [{ previous, current }] = h.recorded.full[1].objects.modified;
  assert.deepEqual(previous, {
    metadata: { namespace: "shop", name: "a", resourceVersion: "1" },
  });
  assert.deepEqual(current.data, { v: "1" });
  assert.equal(current.seen, true);

  // Read (so cached), then deleted: the cached copy is the last known state.
  const [b] = await h.watcher.store.get("shop", "b");
  assert.equal(b.seen, true, "a fetched object went through transform");
  h.server.delete("configmaps", "shop", "b");
  await events(h, 2);
  await h.clock.tick(INTERVAL);
  await h.waitForBatches(3);
  const [gone] = h.recorded.full[2].objects.deleted;
  assert.equal(gone, b);
});
