import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { summary, WatchReader } from "./_watch_reader_test.ts";

function open(
  server: FakeApiServer,
  path: string,
  init?: RequestInit,
): Promise<WatchReader> {
  return server.handle(new Request(`${server.url}${path}`, init)).then(
    (res) => {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/json");
      return new WatchReader(res);
    },
  );
}

const cm = (
  name: string,
  labels?: Record<string, string>,
  namespace = "default",
) => ({
  metadata: { name, namespace, labels },
});

Deno.test("WATCH from a resourceVersion replays later writes of that resource, then streams", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("a"));
  const listRv = server.resourceVersion;
  server.create("configmaps", cm("b"));
  server.create("secrets", cm("s"));
  server.patch("configmaps", "default", "a", { data: { x: "1" } });
  server.delete("configmaps", "default", "b");

  const w = await open(
    server,
    `/api/v1/configmaps?watch=1&resourceVersion=${listRv}`,
  );
  const replay = await w.take(3);
  assert.deepEqual(summary(replay), ["ADDED b", "MODIFIED a", "DELETED b"]);
  assert.deepEqual(replay.map((e) => e.object.metadata.resourceVersion), [
    "2",
    "4",
    "5",
  ]);
  assert.equal(replay[0].object.kind, "ConfigMap");
  assert.equal(replay[0].object.apiVersion, "v1");
  assert.equal(server.openWatchCount, 1);

  server.create("configmaps", cm("c"));
  server.create("secrets", cm("t"));
  assert.deepEqual(summary(await w.take(1)), ["ADDED c"]);
  assert.deepEqual(await w.available(), []);
  await w.cancel();
  assert.equal(server.openWatchCount, 0);
});

Deno.test("WATCH without resourceVersion (or 0) starts with ADDED for current objects", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("b"));
  server.create("configmaps", cm("a"));
  for (const rv of ["", "&resourceVersion=0"]) {
    const w = await open(server, `/api/v1/configmaps?watch=true${rv}`);
    assert.deepEqual(summary(await w.available()), ["ADDED a", "ADDED b"], rv);
    server.patch("configmaps", "default", "a", { data: { n: rv } });
    assert.deepEqual(summary(await w.available()), ["MODIFIED a"]);
    await w.cancel();
  }
});

Deno.test("WATCH without resourceVersion and with bookmarks ends its initial events like a WatchList server", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("a"));
  const w = await open(
    server,
    "/api/v1/configmaps?watch=1&allowWatchBookmarks=true",
  );
  const events = await w.available();
  assert.deepEqual(summary(events), ["ADDED a", "BOOKMARK 1"]);
  assert.deepEqual(events[1].object.metadata.annotations, {
    "k8s.io/initial-events-end": "true",
  });
  await w.cancel();

  using old = new FakeApiServer({ supportsWatchList: false });
  old.create("configmaps", cm("a"));
  const w2 = await open(
    old,
    "/api/v1/configmaps?watch=1&allowWatchBookmarks=true",
  );
  assert.deepEqual(summary(await w2.available()), ["ADDED a"]);
  await w2.cancel();
});

Deno.test("WATCH from a compacted resourceVersion answers 200, then an ERROR 410 event, then ends", async () => {
  using server = new FakeApiServer({ historyLimit: 2 });
  for (const name of ["a", "b", "c", "d"]) {
    server.create("configmaps", cm(name));
  }
  // Versions 3 and 4 are kept; resuming from 2 needs only them.
  const ok = await open(server, "/api/v1/configmaps?watch=1&resourceVersion=2");
  assert.deepEqual(summary(await ok.take(2)), ["ADDED c", "ADDED d"]);
  await ok.cancel();

  const w = await open(server, "/api/v1/configmaps?watch=1&resourceVersion=1");
  const events = await w.drain();
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "ERROR");
  assert.deepEqual(events[0].object, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "too old resource version: 1 (2)",
    reason: "Expired",
    code: 410,
  });
  assert.equal(server.openWatchCount, 0);

  server.compactHistory();
  const w2 = await open(server, "/api/v1/configmaps?watch=1&resourceVersion=3");
  const [err] = await w2.drain();
  assert.equal((err.object as { code?: number }).code, 410);
  assert.equal(err.object.message, "too old resource version: 3 (4)");
  // The current version is still fine after a compaction.
  const w3 = await open(server, "/api/v1/configmaps?watch=1&resourceVersion=4");
  assert.deepEqual(await w3.available(), []);
  await w3.cancel();
});

Deno.test("WATCH from a future resourceVersion answers an ERROR event with ResourceVersionTooLarge", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("a"));
  const w = await open(server, "/api/v1/configmaps?watch=1&resourceVersion=50");
  const [err] = await w.drain();
  assert.equal(err.type, "ERROR");
  assert.equal((err.object as { code?: number }).code, 504);
  assert.equal(err.object.reason, "Timeout");
  assert.equal(
    err.object.message,
    "Too large resource version: 50, current: 1",
  );
  assert.deepEqual((err.object.details as { causes: unknown }).causes, [
    {
      reason: "ResourceVersionTooLarge",
      message: "Too large resource version",
    },
  ]);
});

Deno.test("WATCH sends periodic bookmarks on the injected clock", async () => {
  const clock = new FakeClock();
  using server = new FakeApiServer({ clock, bookmarkIntervalMs: 1_000 });
  server.create("configmaps", cm("a"));
  const w = await open(
    server,
    "/api/v1/configmaps?watch=1&resourceVersion=1&allowWatchBookmarks=true",
  );
  await clock.tick(999);
  assert.deepEqual(await w.available(), []);
  server.create("secrets", cm("s"));
  await clock.tick(1);
  const [bookmark] = await w.take(1);
  assert.deepEqual(bookmark, {
    type: "BOOKMARK",
    object: {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { resourceVersion: "2" },
    },
  });
  await clock.tick(1_000);
  assert.deepEqual(summary(await w.take(1)), ["BOOKMARK 2"]);
  // Without allowWatchBookmarks no bookmark is sent.
  const plain = await open(
    server,
    "/api/v1/configmaps?watch=1&resourceVersion=2",
  );
  await clock.tick(5_000);
  assert.deepEqual(await plain.available(), []);
  await plain.cancel();
  await w.cancel();
  assert.equal(clock.pendingTimers, 0, "no timer outlives the watches");
});

Deno.test("WATCH closes cleanly after timeoutSeconds, with a last bookmark", async () => {
  const clock = new FakeClock();
  using server = new FakeApiServer({ clock });
  server.create("configmaps", cm("a"));
  const w = await open(
    server,
    "/api/v1/configmaps?watch=1&resourceVersion=1&timeoutSeconds=30&allowWatchBookmarks=1",
  );
  const plain = await open(
    server,
    "/api/v1/configmaps?watch=1&resourceVersion=1&timeoutSeconds=10",
  );
  await clock.tick(9_999);
  assert.equal(server.openWatchCount, 2);
  await clock.tick(1);
  assert.deepEqual(await plain.drain(), []);
  assert.ok(plain.ended && !plain.error, "closed cleanly");
  assert.equal(server.openWatchCount, 1);
  server.create("configmaps", cm("b"));
  await clock.tick(20_000);
  assert.deepEqual(summary(await w.drain()), ["ADDED b", "BOOKMARK 2"]);
  assert.ok(w.ended && !w.error);
  assert.equal(server.openWatchCount, 0);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("WATCH with sendInitialEvents sends every object, then the initial-events-end bookmark", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("b"));
  server.create("configmaps", cm("a", { skip: "yes" }));
  server.create("configmaps", cm("c"));
  const w = await open(
    server,
    "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=!skip",
  );
  const events = await w.take(3);
  assert.deepEqual(summary(events), ["ADDED b", "ADDED c", "BOOKMARK 3"]);
  assert.deepEqual(events[2].object, {
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: {
      resourceVersion: "3",
      annotations: { "k8s.io/initial-events-end": "true" },
    },
  });
  server.create("configmaps", cm("d"));
  assert.deepEqual(summary(await w.take(1)), ["ADDED d"]);
  await w.cancel();

  // With a resourceVersion the state is still "not older than" it.
  const w2 = await open(
    server,
    "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=2",
  );
  assert.deepEqual(summary(await w2.take(5)), [
    "ADDED a",
    "ADDED b",
    "ADDED c",
    "ADDED d",
    "BOOKMARK 4",
  ]);
  await w2.cancel();
});

Deno.test("WATCH with sendInitialEvents is rejected by a server without WatchList", async () => {
  using server = new FakeApiServer({ supportsWatchList: false });
  const res = await server.handle(
    new Request(
      `${server.url}/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    ),
  );
  assert.equal(res.status, 422);
  const status = await res.json();
  assert.equal(status.reason, "Invalid");
  assert.match(
    status.message,
    /sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/,
  );
  assert.equal(server.openWatchCount, 0);
});

Deno.test("WATCH validates sendInitialEvents and resourceVersionMatch like Kubernetes", async () => {
  using server = new FakeApiServer();
  const cases: [string, RegExp][] = [
    [
      "sendInitialEvents=true",
      /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/,
    ],
    [
      "resourceVersionMatch=NotOlderThan",
      /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/,
    ],
    [
      "sendInitialEvents=true&resourceVersionMatch=Exact",
      /Unsupported value: "Exact"/,
    ],
  ];
  for (const [query, message] of cases) {
    const res = await server.handle(
      new Request(`${server.url}/api/v1/pods?watch=1&${query}`),
    );
    assert.equal(res.status, 422, query);
    assert.match((await res.json()).message, message);
  }
});

Deno.test("WATCH with sendInitialEvents=false starts at the given version", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("a"));
  const w = await open(
    server,
    "/api/v1/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan",
  );
  assert.deepEqual(await w.available(), []);
  server.create("configmaps", cm("b"));
  assert.deepEqual(summary(await w.take(1)), ["ADDED b"]);
  await w.cancel();
});

Deno.test("WATCH applies label selectors with transitions", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("a", { app: "web" }));
  const w = await open(
    server,
    "/api/v1/configmaps?watch=1&resourceVersion=1&labelSelector=app%3Dweb",
  );
  server.create("configmaps", cm("b", { app: "db" }));
  server.patch("configmaps", "default", "a", {
    metadata: { labels: { app: "db" } },
  }); // leaves
  server.patch("configmaps", "default", "b", {
    metadata: { labels: { app: "web" } },
  }); // enters
  server.patch("configmaps", "default", "b", { data: { x: "1" } }); // stays
  server.delete("configmaps", "default", "a"); // already out
  server.delete("configmaps", "default", "b"); // in
  const events = await w.take(4);
  assert.deepEqual(summary(events), [
    "DELETED a",
    "ADDED b",
    "MODIFIED b",
    "DELETED b",
  ]);
  // An object leaving the selector is reported with its previous content at the new version.
  assert.deepEqual(events[0].object.metadata.labels, { app: "web" });
  assert.equal(events[0].object.metadata.resourceVersion, "3");
  assert.deepEqual(await w.available(), []);
  await w.cancel();
});

Deno.test("WATCH applies field selectors and namespaces", async () => {
  using server = new FakeApiServer();
  const byName = await open(
    server,
    "/api/v1/configmaps?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dwanted",
  );
  const inNs = await open(
    server,
    "/api/v1/namespaces/team/configmaps?watch=1&resourceVersion=0",
  );
  const single = await open(
    server,
    "/api/v1/namespaces/default/configmaps/wanted?watch=1&resourceVersion=0",
  );
  server.create("configmaps", cm("wanted"));
  server.create("configmaps", cm("other"));
  server.create("configmaps", cm("wanted", undefined, "team"));
  assert.deepEqual(summary(await byName.available()), [
    "ADDED wanted",
    "ADDED wanted",
  ]);
  assert.deepEqual(
    (await inNs.available()).map((e) =>
      `${e.object.metadata.namespace}/${e.object.metadata.name}`
    ),
    ["team/wanted"],
  );
  assert.deepEqual(
    (await single.available()).map((e) =>
      `${e.object.metadata.namespace}/${e.object.metadata.name}`
    ),
    ["default/wanted"],
  );
  for (const w of [byName, inNs, single]) await w.cancel();
});

Deno.test("WATCH ends and clears its timers when the request aborts", async () => {
  const clock = new FakeClock();
  using server = new FakeApiServer({ clock });
  const controller = new AbortController();
  const w = await open(
    server,
    "/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=300",
    {
      signal: controller.signal,
    },
  );
  assert.equal(server.openWatchCount, 1);
  assert.equal(clock.pendingTimers, 2);
  controller.abort();
  await w.available();
  assert.ok(w.error instanceof DOMException);
  assert.equal((w.error as DOMException).name, "AbortError");
  assert.equal(server.openWatchCount, 0);
  assert.equal(clock.pendingTimers, 0);
  server.create("pods", cm("after"));
});

Deno.test("WATCH ends when the reader cancels, and close() ends the rest cleanly", async () => {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  const a = await open(server, "/api/v1/pods?watch=1&allowWatchBookmarks=true");
  const b = await open(server, "/api/v1/pods?watch=1&allowWatchBookmarks=true");
  const c = await open(server, "/api/v1/pods?watch=1");
  assert.equal(server.openWatchCount, 3);
  await a.cancel();
  assert.equal(server.openWatchCount, 2);
  server.closeAllWatches();
  assert.deepEqual(await c.drain(), []);
  assert.ok(c.ended && !c.error);
  assert.equal(server.openWatchCount, 0);
  const d = await open(server, "/api/v1/pods?watch=1&allowWatchBookmarks=true");
  await server.close();
  await b.drain();
  await d.drain();
  assert.ok(d.ended && !d.error);
  assert.equal(server.openWatchCount, 0);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("WATCH events of one write are shared between watches but filtered per watch", async () => {
  using server = new FakeApiServer();
  const watches = await Promise.all(
    [0, 1, 2].map(() =>
      open(server, "/api/v1/configmaps?watch=1&resourceVersion=0")
    ),
  );
  const filtered = await open(
    server,
    "/api/v1/configmaps?watch=1&resourceVersion=0&labelSelector=x",
  );
  server.create("configmaps", cm("a"));
  for (const w of watches) {
    assert.deepEqual(summary(await w.take(1)), ["ADDED a"]);
  }
  assert.deepEqual(await filtered.available(), []);
  for (const w of [...watches, filtered]) await w.cancel();
});
