import assert from "node:assert/strict";
import type { ChangeStats, KubeObject, ReadableStore } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { cachedStore } from "../store/cached_store.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import { Watcher } from "./watcher.ts";
import { type WatcherConfig, WatcherConfigError } from "./watcher_config.ts";
import {
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  Harness,
  identities,
} from "./_bulk_harness_test.ts";
import { seeded } from "../testing/_seeded_random.ts";

function stats(
  created: number,
  modified: number,
  deleted: number,
  isInitialSync: boolean,
): Pick<ChangeStats, "created" | "modified" | "deleted" | "isInitialSync"> {
  return { created, modified, deleted, isInitialSync };
}

function pick(s: ChangeStats) {
  return stats(s.created, s.modified, s.deleted, s.isInitialSync);
}

async function storeList(store: ReadableStore): Promise<KubeObject[]> {
  return await store.list();
}

Deno.test("Watcher calls onSyncComplete after an async initial batch has finished", async () => {
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  await using h = new Harness({
    config: {
      onChange: async (_store, s) => {
        order.push(`onChange start initial=${s.isInitialSync}`);
        await held;
        order.push("onChange end");
      },
      onSyncComplete: () => {
        order.push("onSyncComplete");
      },
    },
    seed: (server) => server.create("configmaps", configMap("shop", "a")),
  });
  assert.equal(await h.watcher.waitForSync(), 1);
  await waitFor(() => order.length === 1, { description: "the initial batch" });
  await h.clock.tick(0);
  assert.deepEqual(order, ["onChange start initial=true"]);
  release();
  await waitFor(() => order.length === 3, { description: "onSyncComplete" });
  assert.deepEqual(order, [
    "onChange start initial=true",
    "onChange end",
    "onSyncComplete",
  ]);
});

Deno.test("Watcher syncs a paginated list once, then reports it in one batch", async () => {
  const order: string[] = [];
  let syncStore: ReadableStore | undefined;
  await using h = new Harness({
    config: {
      pageSize: 3,
      onChange: (_store, s) => {
        order.push(`onChange initial=${s.isInitialSync}`);
      },
      onSyncComplete: (store, count) => {
        syncStore = store;
        order.push(`onSyncComplete ${count}`);
      },
    },
    seed: (server) => {
      for (let i = 0; i < 4; i++) {
        server.create("configmaps", configMap("alpha", `cm-${i}`));
        server.create("configmaps", configMap("beta", `cm-${i}`));
      }
    },
  });

  assert.equal(await h.watcher.waitForSync(), 8);
  assert.equal(h.watcher.isSynced(), true);

  const lists = h.requests("list");
  assert.equal(lists.length, 3, "8 objects in pages of 3 take 3 requests");
  assert.equal(lists[0].query.limit, "3");
  assert.equal(lists[0].query.continue, undefined);
  for (const page of lists.slice(1)) {
    assert.equal(page.query.limit, "3");
    assert.ok(page.query.continue, "later pages carry the continue token");
  }
  await h.waitForWatches(1);
  assert.equal(h.requests("watch")[0].query.resourceVersion, "8");

  // Time passes; nothing else is reported.
  await h.clock.tick(10_000);
  assert.equal(h.recorded.batches.length, 1);
  assert.deepEqual(pick(h.recorded.batches[0]), stats(8, 0, 0, true));
  assert.deepEqual(h.recorded.syncs, [8]);
  assert.deepEqual(order, ["onChange initial=true", "onSyncComplete 8"]);
  assert.equal(syncStore, h.watcher.store);

  assert.deepEqual(
    identities(await storeList(h.watcher.store)),
    identities(h.server.list("configmaps")),
  );
  assert.equal(h.watcher.store.size, 8);
  assert.equal((await h.watcher.store.get("alpha")).length, 4);
  assert.equal(h.watcher.health().synced, true);
});

Deno.test("Watcher batches changes after the sync: leading edge, then one batch per interval", async () => {
  await using h = new Harness({
    config: { debounceInterval: 2_000 },
    seed: (server) => {
      server.create("configmaps", configMap("shop", "a"));
      server.create("configmaps", configMap("shop", "b"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 2);
  await h.waitForBatches(1);
  await h.waitForWatches(1);
  await h.clock.tick(5_000); // a quiet period

  // The first change after the quiet period fires at once.
  const t0 = h.clock.now();
  h.server.create("configmaps", configMap("shop", "c"));
  await h.waitForBatches(2);
  assert.equal(h.clock.now(), t0, "no time had to pass");
  assert.deepEqual(pick(h.recorded.batches[1]), stats(1, 0, 0, false));

  // Changes inside the interval are held and summed.
  h.server.create("configmaps", configMap("shop", "d"));
  h.server.create("configmaps", configMap("other", "e"));
  h.server.patch("configmaps", "shop", "a", { data: { v: "1" } });
  h.server.delete("configmaps", "shop", "b");
  await waitFor(() => h.watcher.health().events === 5, {
    description: "five watch events applied",
  });
  await h.clock.tick(1_999);
  assert.equal(h.recorded.batches.length, 2, "held until the interval ends");
  await h.clock.tick(1);
  await h.waitForBatches(3);
  assert.deepEqual(pick(h.recorded.batches[2]), stats(2, 1, 1, false));

  // An update that does not change the object sends nothing and counts nothing.
  h.server.update("configmaps", h.server.get("configmaps", "shop", "a"));
  await h.clock.tick(10_000);
  assert.equal(h.recorded.batches.length, 3);

  assert.deepEqual(
    identities(await storeList(h.watcher.store)),
    identities(h.server.list("configmaps")),
  );
  assert.deepEqual((await h.watcher.store.get("shop", "a"))[0].data, {
    v: "1",
  });
  assert.equal(h.recorded.syncs.length, 1);
});

Deno.test("Watcher evaluates the field selector client-side, with transitions", async () => {
  const tiered = (name: string, tier: string) => ({
    metadata: { namespace: "shop", name },
    data: { tier },
  });
  await using h = new Harness({
    config: { fieldSelector: "data.tier=web" },
    seed: (server) => {
      server.create("configmaps", tiered("a", "web"));
      server.create("configmaps", tiered("b", "db"));
      server.create("configmaps", tiered("c", "web"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 2);
  assert.equal(h.requests("list")[0].query.fieldSelector, undefined);
  await h.waitForWatches(1);
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["a", "c"],
  );
  await h.clock.tick(5_000);

  // a stops matching: it leaves the store and counts as deleted.
  h.server.patch("configmaps", "shop", "a", { data: { tier: "db" } });
  await h.waitForBatches(2);
  assert.deepEqual(pick(h.recorded.batches[1]), stats(0, 0, 1, false));
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["c"],
  );

  // b starts matching: it enters and counts as created.
  await h.clock.tick(5_000);
  h.server.patch("configmaps", "shop", "b", { data: { tier: "web" } });
  await h.waitForBatches(3);
  assert.deepEqual(pick(h.recorded.batches[2]), stats(1, 0, 0, false));
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["b", "c"],
  );

  // A non-matching object that changes is not reported at all.
  await h.clock.tick(5_000);
  h.server.patch("configmaps", "shop", "a", { data: { tier: "db", x: "1" } });
  await waitFor(() => h.watcher.health().events === 3, {
    description: "third event",
  });
  await h.clock.tick(5_000);
  assert.equal(h.recorded.batches.length, 3);
});

Deno.test("Watcher selects on a field that ignoreFields removes, in lists and in events alike", async () => {
  const tiered = (name: string, tier: string) => ({
    metadata: { namespace: "shop", name, annotations: { tier } },
    data: {},
  });
  await using h = new Harness({
    config: {
      fieldSelector: "metadata.annotations.tier=web",
      ignoreFields: ["metadata.annotations"],
      pageSize: 1,
    },
    seed: (server) => {
      server.create("configmaps", tiered("a", "web"));
      server.create("configmaps", tiered("b", "db"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 1);
  const [a] = await storeList(h.watcher.store);
  assert.equal(a.metadata.name, "a");
  assert.equal(a.metadata.annotations, undefined);

  // After a relist the same objects are selected (the list path prepares
  // pages before the list applies; it must not select twice).
  await h.clock.tick(5_000); // a healthy watch, so no backoff on its close
  h.server.closeAllWatches();
  h.server.create("configmaps", tiered("d", "db")); // missed…
  h.server.compactHistory(); // …and gone from history: 410
  await waitFor(() => h.watcher.health().relists === 1, {
    description: "a relist",
  });
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["a"],
  );
  h.server.create("configmaps", tiered("c", "web"));
  await waitFor(() => h.watcher.store.size === 2, {
    description: "c stored from its event",
  });
});

Deno.test("Watcher sends a string label selector and follows label transitions", async () => {
  await using h = new Harness({
    config: { labelSelector: "app=web" },
    seed: (server) => {
      server.create(
        "configmaps",
        configMap("shop", "a", { labels: { app: "web" } }),
      );
      server.create(
        "configmaps",
        configMap("shop", "b", { labels: { app: "db" } }),
      );
      server.create("configmaps", configMap("shop", "c"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 1);
  await h.waitForWatches(1);
  assert.equal(h.requests("list")[0].query.labelSelector, "app=web");
  assert.equal(h.requests("watch")[0].query.labelSelector, "app=web");
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["a"],
  );
  await h.clock.tick(5_000);

  h.server.patch("configmaps", "shop", "a", {
    metadata: { labels: { app: "db" } },
  });
  await h.waitForBatches(2);
  assert.deepEqual(pick(h.recorded.batches[1]), stats(0, 0, 1, false));
  assert.equal(h.watcher.store.size, 0);

  await h.clock.tick(5_000);
  h.server.patch("configmaps", "shop", "c", {
    metadata: { labels: { app: "web" } },
  });
  await h.waitForBatches(3);
  assert.deepEqual(pick(h.recorded.batches[2]), stats(1, 0, 0, false));
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["c"],
  );
});

Deno.test("Watcher sends a label selector object in its string form", async () => {
  await using h = new Harness({
    config: {
      labelSelector: {
        matchLabels: { app: "web" },
        matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
      },
    },
    seed: (server) => {
      server.create(
        "configmaps",
        configMap("shop", "x", { labels: { app: "web", tier: "a" } }),
      );
      server.create(
        "configmaps",
        configMap("shop", "y", { labels: { app: "web", tier: "c" } }),
      );
      server.create(
        "configmaps",
        configMap("shop", "z", { labels: { app: "db", tier: "b" } }),
      );
      server.create(
        "configmaps",
        configMap("shop", "w", { labels: { app: "web", tier: "b" } }),
      );
    },
  });
  assert.equal(await h.watcher.waitForSync(), 2);
  await h.waitForWatches(1);
  const selector = h.requests("list")[0].query.labelSelector;
  assert.equal(selector, "app=web,tier in (a,b)");
  assert.equal(h.requests("watch")[0].query.labelSelector, selector);
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["w", "x"],
  );

  await h.clock.tick(5_000);
  h.server.patch("configmaps", "shop", "y", {
    metadata: { labels: { tier: "b" } },
  });
  await h.waitForBatches(2);
  assert.deepEqual(pick(h.recorded.batches[1]), stats(1, 0, 0, false));
  assert.deepEqual(
    (await storeList(h.watcher.store)).map((o) => o.metadata.name),
    ["w", "x", "y"],
  );
});

Deno.test("Watcher watches one namespace, all namespaces, or the client's", async (t) => {
  const seed = (server: FakeApiServer) => {
    server.create("configmaps", configMap("team", "a"));
    server.create("configmaps", configMap("team", "b"));
    server.create("configmaps", configMap("other", "c"));
  };

  await t.step("namespace", async () => {
    await using h = new Harness({ config: { namespace: "other" }, seed });
    assert.equal(await h.watcher.waitForSync(), 1);
    await h.waitForWatches(1);
    assert.equal(h.requests("list")[0].namespace, "other");
    assert.ok(
      h.server.requests.every((r) =>
        r.path.startsWith("/api/v1/namespaces/other/configmaps")
      ),
    );
    h.server.create("configmaps", configMap("team", "d"));
    h.server.create("configmaps", configMap("other", "e"));
    await waitFor(() => h.watcher.store.size === 2, {
      description: "the event in the watched namespace",
    });
    await h.clock.tick(1_000);
    assert.deepEqual(
      identities(await storeList(h.watcher.store)),
      identities(h.server.list("configmaps", "other")),
    );
  });

  await t.step("all namespaces", async () => {
    await using h = new Harness({ config: { namespace: "" }, seed });
    assert.equal(await h.watcher.waitForSync(), 3);
    assert.equal(h.requests("list")[0].namespace, undefined);
    assert.ok(
      h.server.requests.every((r) => r.path.startsWith("/api/v1/configmaps")),
    );
  });

  await t.step(
    "namespacedWatch uses the client's defaultNamespace",
    async () => {
      await using h = new Harness({
        config: { namespacedWatch: true },
        clientNamespace: "team",
        seed,
      });
      assert.equal(h.client.defaultNamespace, "team");
      assert.equal(await h.watcher.waitForSync(), 2);
      await h.waitForWatches(1);
      assert.ok(
        h.server.requests.every((r) =>
          r.path === "/api/v1/namespaces/team/configmaps"
        ),
      );
      assert.deepEqual(
        (await storeList(h.watcher.store)).map((o) => o.metadata.name),
        ["a", "b"],
      );
    },
  );

  await t.step("an explicit namespace wins over namespacedWatch", async () => {
    await using h = new Harness({
      config: { namespacedWatch: true, namespace: "other" },
      clientNamespace: "team",
      seed,
    });
    assert.equal(await h.watcher.waitForSync(), 1);
    assert.equal(h.requests("list")[0].namespace, "other");
  });
});

Deno.test("Watcher removes ignoreFields and skips objects without an index key", async () => {
  const managed = [{ manager: "kubectl", operation: "Apply" }];
  await using h = new Harness({
    config: {
      indexBy: ["metadata.namespace", "metadata.labels.app"],
      ignoreFields: ["metadata.managedFields"],
    },
    seed: (server) => {
      server.create("configmaps", {
        metadata: {
          namespace: "shop",
          name: "a",
          labels: { app: "web" },
          managedFields: managed,
        },
        data: {},
      });
      server.create("configmaps", {
        metadata: {
          namespace: "shop",
          name: "nolabel",
          managedFields: managed,
        },
        data: {},
      });
    },
  });
  assert.equal(await h.watcher.waitForSync(), 1);
  await h.waitForWatches(1);
  assert.deepEqual(
    h.server.get("configmaps", "shop", "a").metadata.managedFields,
    managed,
    "the server keeps managedFields",
  );
  const [a] = await h.watcher.store.get("shop", "web");
  assert.equal(a.metadata.name, "a");
  assert.equal(a.metadata.managedFields, undefined);
  assert.equal(a.metadata.resourceVersion, "1");

  // One warning for the path, with the count; the object is named at debug.
  const warnings = h.logger.at("warn").filter((r) =>
    r.message.includes("metadata.labels.app")
  );
  assert.equal(warnings.length, 1);
  assert.deepEqual(warnings[0].fields, {
    resource: "configmaps",
    path: "metadata.labels.app",
    skipped: 1,
    listed: 2,
  });
  assert.equal(
    h.logger.at("warn").filter((r) => r.message.includes("index key")).length,
    0,
    "no warning per object",
  );
  const skipped = h.logger.at("debug").filter((r) =>
    r.message === "Object skipped: an index key is missing"
  );
  assert.deepEqual(skipped.map((r) => [r.fields.name, r.fields.missing]), [
    ["nolabel", "metadata.labels.app"],
  ]);

  // An object that loses its key on the watch leaves the store.
  await h.clock.tick(5_000);
  h.server.patch("configmaps", "shop", "a", {
    metadata: { labels: { app: null } },
  });
  await h.waitForBatches(2);
  assert.deepEqual(pick(h.recorded.batches[1]), stats(0, 0, 1, false));
  assert.equal(h.watcher.store.size, 0);

  // One that gains it enters (managedFields removed again).
  await h.clock.tick(5_000);
  h.server.patch("configmaps", "shop", "nolabel", {
    metadata: { labels: { app: "db" } },
  });
  await h.waitForBatches(3);
  assert.deepEqual(pick(h.recorded.batches[2]), stats(1, 0, 0, false));
  const [gained] = await h.watcher.store.get("shop", "db");
  assert.equal(gained.metadata.name, "nolabel");
  assert.equal(gained.metadata.managedFields, undefined);
});

Deno.test("Watcher with a cached store GETs on read, filters, and sees updates", async () => {
  await using h = new Harness({
    config: {
      store: cachedStore(),
      ignoreFields: ["metadata.managedFields"],
    },
    seed: (server) => {
      server.create("configmaps", {
        metadata: {
          namespace: "shop",
          name: "a",
          managedFields: [{ manager: "kubectl" }],
        },
        data: { v: "1" },
      });
      server.create("configmaps", configMap("shop", "b"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 2);
  await h.waitForWatches(1);
  assert.equal(h.watcher.store.size, 2);
  assert.equal(h.requests("get").length, 0, "listing GETs nothing");

  const [a] = await h.watcher.store.get("shop", "a");
  assert.equal(h.requests("get").length, 1);
  assert.deepEqual(a.data, { v: "1" });
  assert.equal(
    a.metadata.managedFields,
    undefined,
    "filtered like the memory store",
  );

  const [again] = await h.watcher.store.get("shop", "a");
  assert.equal(h.requests("get").length, 1, "served from the cache");
  assert.deepEqual(again.data, { v: "1" });

  h.server.patch("configmaps", "shop", "a", { data: { v: "2" } });
  await waitFor(() => h.watcher.health().events === 1, {
    description: "the update is seen",
  });
  const [updated] = await h.watcher.store.get("shop", "a");
  assert.equal(
    h.requests("get").length,
    2,
    "the update dropped the cached copy",
  );
  assert.deepEqual(updated.data, { v: "2" });
  assert.equal(updated.metadata.resourceVersion, "3");

  const all = await h.watcher.store.get("shop");
  assert.deepEqual(all.map((o) => o.metadata.name), ["a", "b"]);
  assert.equal(h.requests("get").length, 3, "only b was fetched");
  assert.deepEqual(h.requests("get").map((r) => r.name), ["a", "a", "b"]);
});

Deno.test("IndexSynchronizationTracker resolves once every real watcher synced", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  for (let i = 0; i < 3; i++) {
    server.create("configmaps", configMap("shop", `cm-${i}`));
  }
  server.create("secrets", { metadata: { namespace: "shop", name: "s1" } });
  server.create("secrets", { metadata: { namespace: "shop", name: "s2" } });
  // A list that fails first, so the watchers sync at different times.
  server.injectFault({
    verb: "list",
    resource: "secrets",
    kind: "status",
    code: 503,
  });
  const client = new FetchClient({ server: server.url });
  const logger = new RecordingLogger();
  const make = (resource: string) =>
    new Watcher(
      {
        gvr: { group: "", version: "v1", resource },
        indexBy: BY_IDENTITY,
        onChange: () => {},
      },
      client,
      { clock, logger, random: seeded(7) },
    );
  const configmaps = make("configmaps");
  const secrets = make("secrets");
  const tracker = new IndexSynchronizationTracker(["configmaps", "secrets"], {
    logger,
  });
  const tracked = [
    tracker.track("configmaps", configmaps),
    tracker.track("secrets", secrets),
  ];
  const runs = [configmaps.start(), secrets.start()];
  let counts: ReadonlyMap<string, number> | undefined;
  tracker.synchronized.then((c) => counts = c);

  await waitFor(() => tracker.isResourceSynced("configmaps"), {
    description: "configmaps synced",
  });
  assert.equal(tracker.allSynced(), false);
  assert.equal(counts, undefined);
  await clock.tick(1_000); // the secrets list's backoff
  await Promise.all(tracked);
  assert.equal(tracker.allSynced(), true);
  assert.deepEqual(
    await tracker.synchronized,
    new Map([["configmaps", 3], ["secrets", 2]]),
  );
  assert.equal(tracker.getResourceCount("secrets"), 2);

  await configmaps.stop();
  await secrets.stop();
  await Promise.all(runs);
  assert.equal(server.openWatchCount, 0);
});

Deno.test("Watcher logs throwing and rejecting callbacks, goes on, and delivers the failed changes again", async (t) => {
  for (const mode of ["throws", "rejects"] as const) {
    await t.step(`onChange ${mode}`, async () => {
      let calls = 0;
      await using h = new Harness({
        config: {
          onChange: () => {
            calls++;
            if (mode === "throws") throw new Error(`boom ${calls}`);
            return Promise.reject(new Error(`boom ${calls}`));
          },
        },
        seed: (server) => server.create("configmaps", configMap("shop", "a")),
      });
      assert.equal(await h.watcher.waitForSync(), 1);
      await h.waitForWatches(1);
      await waitFor(() => h.logger.at("error").length === 1, {
        description: "the initial batch's failure is logged",
      });
      assert.deepEqual(h.recorded.syncs, [1], "onSyncComplete still ran");
      // A change before the retry: the next call carries the failed
      // initial batch with it.
      h.server.create("configmaps", configMap("shop", "n0"));
      await h.waitForBatches(2);
      await waitFor(() => h.logger.at("error").length === 2, {
        description: "its failure is logged",
      });
      // No change: the retry, 2 s after the second failure.
      await h.clock.tick(2_000);
      await h.waitForBatches(3);
      await waitFor(() => h.logger.at("error").length === 3, {
        description: "the retry's failure is logged",
      });
      assert.equal(calls, 3);
      const errors = h.logger.at("error");
      assert.ok(errors.every((r) => r.message === "Change callback failed"));
      assert.equal((errors[2].fields.error as Error).message, "boom 3");
      assert.deepEqual(
        pick(errors[2].fields.stats as ChangeStats),
        stats(2, 0, 0, true),
      );
      assert.deepEqual(
        h.recorded.full[2].objects.created.map((o) => o.metadata.name),
        ["n0"],
      );
      assert.equal(h.watcher.store.size, 2);
    });

    await t.step(`onSyncComplete ${mode}`, async () => {
      await using h = new Harness({
        config: {
          onSyncComplete: () => {
            if (mode === "throws") throw new Error("sync boom");
            return Promise.reject(new Error("sync boom"));
          },
        },
        seed: (server) => server.create("configmaps", configMap("shop", "a")),
      });
      assert.equal(await h.watcher.waitForSync(), 1);
      await h.waitForWatches(1);
      await waitFor(() => h.logger.at("error").length === 1, {
        description: "the failure is logged",
      });
      const [error] = h.logger.at("error");
      assert.match(error.message, /onSyncComplete for configmaps failed/);
      assert.equal((error.fields.error as Error).message, "sync boom");

      await h.clock.tick(5_000);
      h.server.create("configmaps", configMap("shop", "b"));
      await h.waitForBatches(2);
      assert.deepEqual(pick(h.recorded.batches[1]), stats(1, 0, 0, false));
    });
  }
});

Deno.test("Watcher rejects unusable configurations naming the field", () => {
  const client = new FetchClient({ server: "http://k8s.fake" });
  const valid: WatcherConfig = {
    gvr: CONFIGMAPS,
    indexBy: BY_IDENTITY,
    onChange: () => {},
  };
  const cases: [string, Record<string, unknown>][] = [
    ["gvr.resource", { gvr: { group: "", version: "v1", resource: "" } }],
    ["gvr.resource", { gvr: { group: "", version: "v1" } }],
    ["gvr", { gvr: undefined }],
    ["indexBy", { indexBy: [] }],
    ["indexBy", { indexBy: undefined }],
    ["indexBy", { indexBy: ["metadata..name"] }],
    ["indexBy", { indexBy: ["metadata.labels['app"] }],
    ["ignoreFields", { ignoreFields: ["metadata[managedFields"] }],
    ["onChange", { onChange: undefined }],
    ["onChange", { onChange: "not a function" }],
    ["onSyncComplete", { onSyncComplete: 42 }],
    ["fieldSelector", { fieldSelector: "spec.ingressClassName" }],
    ["fieldSelector", { fieldSelector: "=haproxy" }],
    ["labelSelector", { labelSelector: "app in (" }],
    ["labelSelector", {
      labelSelector: { matchExpressions: [{ key: "a", operator: "Bogus" }] },
    }],
    ["debounceInterval", { debounceInterval: -1 }],
    ["pageSize", { pageSize: 2.5 }],
    ["store", { store: "disk" as never }],
    ["namespacedWatch", { namespacedWatch: true }],
  ];
  const noNamespace = { performRequest: client.performRequest.bind(client) };
  for (const [field, change] of cases) {
    const config = { ...valid, ...change } as WatcherConfig;
    const target = field === "namespacedWatch" ? noNamespace : client;
    assert.throws(
      () => new Watcher(config, target, { logger: new RecordingLogger() }),
      (error: unknown) => {
        assert.ok(
          error instanceof WatcherConfigError,
          `${field}: ${error} is a WatcherConfigError`,
        );
        assert.equal(error.name, "WatcherConfigError");
        assert.equal(error.field, field, `for ${JSON.stringify(change)}`);
        assert.ok(error.message.includes(field), error.message);
        return true;
      },
    );
  }
  assert.throws(
    () => new Watcher(valid, {} as never),
    (e: unknown) => e instanceof WatcherConfigError && e.field === "client",
  );
  for (const idleTimeoutMs of [0, -1, Number.NaN]) {
    assert.throws(
      () => new Watcher(valid, client, { idleTimeoutMs }),
      (e: unknown) =>
        e instanceof WatcherConfigError && e.field === "idleTimeoutMs",
    );
  }
  // The valid base builds, and building requests nothing.
  new Watcher(valid, client, { logger: new RecordingLogger() });
});

Deno.test("Watcher streams the initial list when asked, and falls back to LIST", async (t) => {
  await t.step("streamed, then relisted by stream after 410", async () => {
    await using h = new Harness({
      config: { initialList: "stream" },
      seed: (server) => {
        for (let i = 0; i < 4; i++) {
          server.create("configmaps", configMap("shop", `cm-${i}`));
        }
      },
    });
    assert.equal(await h.watcher.waitForSync(), 4);
    await h.waitForWatches(1);
    assert.equal(h.requests("list").length, 0);
    const [first] = h.requests("watch");
    assert.equal(first.query.sendInitialEvents, "true");
    assert.equal(first.query.resourceVersionMatch, "NotOlderThan");
    assert.deepEqual(pick(h.recorded.batches[0]), stats(4, 0, 0, true));
    assert.deepEqual(h.recorded.syncs, [4]);

    // An event, so that the next watch is not straight after the list.
    h.server.create("configmaps", configMap("shop", "x"));
    await waitFor(() => h.watcher.store.size === 5, { description: "x" });
    await h.clock.tick(5_000);
    h.server.closeAllWatches();
    h.server.delete("configmaps", "shop", "cm-2");
    h.server.compactHistory();
    await waitFor(() => h.watcher.health().relists === 1, {
      description: "a relist",
    });
    await h.waitForBatches(3);
    assert.deepEqual(pick(h.recorded.batches[2]), stats(0, 0, 1, false));
    assert.equal(h.requests("list").length, 0, "relisted by stream too");
    assert.deepEqual(
      identities(await storeList(h.watcher.store)),
      identities(h.server.list("configmaps")),
    );
    assert.deepEqual(h.recorded.syncs, [4]);
  });

  await t.step("a server without WatchList gets a LIST", async () => {
    await using h = new Harness({
      config: { initialList: "stream" },
      server: { supportsWatchList: false },
      seed: (server) => server.create("configmaps", configMap("shop", "a")),
    });
    assert.equal(await h.watcher.waitForSync(), 1);
    await h.waitForWatches(1);
    assert.equal(h.requests("list").length, 1);
    const watches = h.requests("watch");
    assert.equal(watches.length, 2);
    assert.equal(watches[1].query.resourceVersion, "1");
    assert.deepEqual(h.recorded.syncs, [1]);
  });
});

Deno.test("Watcher.forceSync() delivers what the debouncer holds at once", async () => {
  await using h = new Harness({
    config: { debounceInterval: 10_000 },
    seed: (server) => server.create("configmaps", configMap("shop", "a")),
  });
  assert.equal(await h.watcher.waitForSync(), 1);
  await h.waitForWatches(1);
  await h.waitForBatches(1);
  // The first change after the sync fires at once and opens the interval.
  h.server.create("configmaps", configMap("shop", "z"));
  await h.waitForBatches(2);
  h.server.create("configmaps", configMap("shop", "b"));
  h.server.delete("configmaps", "shop", "a");
  await waitFor(() => h.watcher.health().events === 3, {
    description: "three events",
  });
  assert.equal(h.recorded.batches.length, 2, "held for the interval");
  await h.watcher.forceSync();
  assert.equal(h.recorded.batches.length, 3);
  assert.deepEqual(pick(h.recorded.batches[2]), stats(1, 0, 1, false));
  // Nothing is left for the interval's end.
  await h.clock.tick(20_000);
  assert.equal(h.recorded.batches.length, 3);
  const health = h.watcher.health();
  assert.equal(health.objects, 2);
  assert.equal(health.events, 3);
  assert.equal(health.resourceVersion, h.server.resourceVersion);
});

Deno.test("Watcher skips a listed object whose namespace is not a string, and still syncs", async () => {
  // Only a broken server sends this; one such object must not keep the
  // rest of the list out of the store, nor the sync from completing.
  const client = {
    performRequest(opts: {
      querystring?: URLSearchParams;
      abortSignal?: AbortSignal;
    }): Promise<unknown> {
      if (opts.querystring?.get("watch") !== "1") {
        // A LIST body, read as a stream.
        return Promise.resolve(
          new Blob([JSON.stringify({
            metadata: { resourceVersion: "5" },
            items: [
              {
                metadata: {
                  name: "a",
                  namespace: "shop",
                  resourceVersion: "3",
                },
              },
              { metadata: { name: "b", namespace: 7, resourceVersion: "4" } },
              {
                metadata: {
                  name: "c",
                  namespace: "shop",
                  resourceVersion: "5",
                },
              },
            ],
          })]).stream(),
        );
      }
      return Promise.resolve(
        new ReadableStream<Uint8Array>({
          start(controller) {
            opts.abortSignal?.addEventListener(
              "abort",
              () => controller.error(opts.abortSignal?.reason),
            );
          },
        }),
      );
    },
  };
  const logger = new RecordingLogger();
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      onChange: () => {},
    },
    client as never,
    { logger, clock: new FakeClock() },
  );
  watcher.start();
  try {
    assert.equal(await watcher.waitForSync(AbortSignal.timeout(5_000)), 2);
    assert.deepEqual(
      (await storeList(watcher.store)).map((o) => o.metadata.name),
      ["a", "c"],
    );
  } finally {
    await watcher.stop();
  }
});

Deno.test("Watcher still syncs, and calls onSyncComplete, when its logger throws", async () => {
  const throwing = () => {
    throw new Error("log sink broken");
  };
  await using h = new Harness({
    options: {
      logger: {
        debug: throwing,
        info: throwing,
        warn: throwing,
        error: throwing,
      },
    },
    seed: (server) => {
      server.create("configmaps", configMap("shop", "a"));
      server.create("configmaps", configMap("shop", "b"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 2);
  // "Initial sync complete" is logged (and throws) before onSyncComplete.
  await waitFor(() => h.recorded.syncs.length === 1, {
    description: "onSyncComplete",
  });
});
