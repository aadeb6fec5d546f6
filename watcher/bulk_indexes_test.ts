// Several named indexes on one watcher (`indexes`), as client-go's informers
// take several indexers: each keys the stored copies by other fields and is
// queried by its name, through every way a watcher's store is read.
import assert from "node:assert/strict";
import type { KubeObject, KubeObjectLike, Store } from "../types.ts";
import { MemoryStore, type StoreFactory } from "../store/memory_store.ts";
import { cachedStore } from "../store/cached_store.ts";
import { StoreKeyError } from "../store/errors.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { WatcherConfigError, type WatcherOptions } from "./watcher_config.ts";
import { BY_IDENTITY } from "./_bulk_harness_test.ts";

const PODS = { group: "", version: "v1", resource: "pods" };

function pod(name: string, node: string | undefined, app = "web"): KubeObject {
  return {
    metadata: { namespace: "shop", name, labels: { app } },
    spec: node === undefined ? {} : { nodeName: node },
  };
}

const names = (objs: readonly { metadata: { name?: string } }[]) =>
  objs.map((o) => o.metadata.name ?? "");

class Cluster implements AsyncDisposable {
  readonly clock = new FakeClock();
  readonly server = new FakeApiServer({ clock: this.clock });
  readonly logger = new RecordingLogger();
  #fetch = mockFetch(this.server);
  readonly client = new FetchClient({ server: this.server.url });
  readonly options: WatcherOptions = { clock: this.clock, logger: this.logger };

  constructor() {
    this.server.create(PODS, pod("b", "n1"));
    this.server.create(PODS, pod("a", "n1", "api"));
    this.server.create(PODS, pod("c", "n2"));
    this.server.create(PODS, pod("pending", undefined));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.server.close();
    this.#fetch[Symbol.dispose]();
  }
}

Deno.test("Watcher indexes: each named index is queried by name, in callbacks and on store, and follows changes", async () => {
  await using c = new Cluster();
  const seen: string[][] = [];
  const watcher = new Watcher(
    {
      gvr: PODS,
      indexBy: BY_IDENTITY,
      indexes: {
        byNode: ["spec.nodeName"],
        byAppNode: ["metadata.labels.app", "spec.nodeName"],
      },
      onChange: (store, batch) => {
        if (!batch.isInitialSync) {
          seen.push(names(store.byIndex("byNode", "n2")));
        }
      },
      onSyncComplete: (store) => {
        seen.push(names(store.byIndex("byNode", "n1")));
      },
    },
    c.client,
    c.options,
  );
  watcher.start();
  await watcher.waitForSync();
  try {
    const store = watcher.store;
    await waitFor(() => seen.length === 1); // onSyncComplete's
    assert.deepEqual(seen, [["a", "b"]]);
    assert.deepEqual(names(store.byIndex("byNode")), ["a", "b", "c"]);
    assert.deepEqual(names(store.byIndex("byAppNode", "web")), ["b", "c"]);
    assert.deepEqual(names(store.byIndex("byAppNode", "api", "n1")), ["a"]);
    // Unscheduled: stored, and in none of byNode's answers.
    assert.deepEqual(names(store.get("shop", "pending")), ["pending"]);

    c.server.update(PODS, pod("pending", "n2"));
    await waitFor(() => seen.length === 2);
    assert.deepEqual(seen[1], ["c", "pending"]);
    c.server.delete(PODS, "shop", "c");
    await waitFor(() => store.byIndex("byNode", "n2").length === 1);
    assert.deepEqual(names(store.byIndex("byNode", "n2")), ["pending"]);
    assert.throws(() => store.byIndex("byHost"), StoreKeyError);
    assert.throws(() => store.byIndex("byNode", "n1", "x"), StoreKeyError);
  } finally {
    await watcher.stop();
  }
});

Deno.test("Watcher indexes: watchers share a store only with the same indexes; a stopped one keeps its indexes", async () => {
  await using c = new Cluster();
  const make = (indexes?: Record<string, string[]>) =>
    new Watcher(
      {
        gvr: PODS,
        indexBy: BY_IDENTITY,
        ...(indexes ? { indexes } : {}),
        onChange: () => {},
      },
      c.client,
      c.options,
    );
  const byNode = make({ byNode: ["spec.nodeName"] });
  const again = make({ byNode: ["spec.nodeName"] });
  const byApp = make({ byNode: ["metadata.labels.app"] });
  const none = make();
  const all = [byNode, again, byApp, none];
  for (const w of all) w.start();
  for (const w of all) await w.waitForSync();
  try {
    assert.equal(
      c.server.requests.filter((r) => r.verb === "list").length,
      1,
      "one stream for all four",
    );
    assert.deepEqual(names(byNode.store.byIndex("byNode", "n1")), ["a", "b"]);
    assert.deepEqual(names(again.store.byIndex("byNode", "n1")), ["a", "b"]);
    // The same name over another path: another store, its own keys.
    assert.deepEqual(names(byApp.store.byIndex("byNode", "web")), [
      "b",
      "c",
      "pending",
    ]);
    assert.throws(() => none.store.byIndex("byNode"), StoreKeyError);

    // A watcher that left a shared store reads a copy, with its indexes.
    await again.stop();
    c.server.update(PODS, pod("a", "n2", "api"));
    await waitFor(() => byNode.store.byIndex("byNode", "n1").length === 1);
    assert.deepEqual(names(again.store.byIndex("byNode", "n1")), ["a", "b"]);
  } finally {
    await Promise.all(all.map((w) => w.stop()));
  }
});

Deno.test("Watcher indexes with a cached store: byIndex fetches the objects of the index", async () => {
  await using c = new Cluster();
  const watcher = new Watcher(
    {
      gvr: PODS,
      indexBy: BY_IDENTITY,
      indexes: { byNode: ["spec.nodeName"] },
      store: cachedStore(),
      onChange: () => {},
    },
    c.client,
    c.options,
  );
  watcher.start();
  await watcher.waitForSync();
  try {
    const gets = () => c.server.requests.filter((r) => r.verb === "get");
    assert.equal(gets().length, 0);
    assert.deepEqual(names(await watcher.store.byIndex("byNode", "n1")), [
      "a",
      "b",
    ]);
    assert.equal(gets().length, 2);
  } finally {
    await watcher.stop();
  }
});

Deno.test("Watcher indexes: a bad index, or a backend that keeps none, is a WatcherConfigError naming it", () => {
  const client = new FetchClient({ server: "http://127.0.0.1:1" });
  const options = { logger: new RecordingLogger() };
  /** A backend of its own that does not keep named indexes. */
  const plain: StoreFactory = {
    name: "plain",
    shareable: true,
    create: <T extends KubeObjectLike>(): Store<T> => {
      const store = new MemoryStore<T>();
      return {
        get size() {
          return store.size;
        },
        get modificationCount() {
          return store.modificationCount;
        },
        add: (obj, keys) => store.add(obj, keys),
        update: (obj, keys) => store.update(obj, keys),
        delete: (namespace, name) => store.delete(namespace, name),
        get: (...keys) => store.get(...keys),
        list: () => store.list(),
        resourceVersionOf: (ns, name) => store.resourceVersionOf(ns, name),
        peek: (ns, name) => store.peek(ns, name),
        identities: () => store.identities(),
        clear: () => store.clear(),
      };
    },
  };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["indexes", { indexes: ["spec.nodeName"] }, /must map index names/],
    ["indexes", { indexes: { "": ["spec.nodeName"] } }, /no name/],
    ["indexes.byNode", { indexes: { byNode: [] } }, /at least one JSONPath/],
    ["indexes.byNode", { indexes: { byNode: ["spec..x"] } }, /is invalid/],
    [
      "indexes.byNode",
      {
        indexes: { byNode: ["spec.nodeName"] },
        ignoreFields: ["spec"],
      },
      /Option ignoreFields\[0\] "spec" would remove indexes.byNode\[0\] "spec.nodeName"/,
    ],
    [
      "indexes",
      { indexes: { byNode: ["spec.nodeName"] }, store: plain },
      /the "plain" backend's has no byIndex/,
    ],
  ];
  for (const [field, change, message] of cases) {
    assert.throws(
      () =>
        new Watcher(
          {
            gvr: PODS,
            indexBy: BY_IDENTITY,
            onChange: () => {},
            ...change,
          } as never,
          client,
          options,
        ),
      (error: unknown) => {
        assert.ok(error instanceof WatcherConfigError, String(error));
        assert.equal(error.field, field, JSON.stringify(change));
        assert.match(error.message, message);
        return true;
      },
    );
  }
  // Without indexes, that backend is fine, and byIndex names none.
  const watcher = new Watcher(
    {
      gvr: PODS,
      indexBy: BY_IDENTITY,
      store: plain,
      onChange: () => {},
    },
    client,
    options,
  );
  assert.throws(
    () => watcher.store.byIndex("byNode"),
    /The store has no index named "byNode" \(it has none\)/,
  );
});
