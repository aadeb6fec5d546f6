import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock, waitFor } from "./fake_clock.ts";
import { humanDuration } from "./kubectl/_table.ts";
import { summary, WatchReader } from "./_watch_reader_test.ts";

async function getJson(server: FakeApiServer, path: string, accept?: string) {
  const res = await server.handle(
    new Request(`${server.url}${path}`, { headers: accept ? { accept } : {} }),
  );
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: await res.json(),
  };
}

Deno.test("discovery: /version, /api, /api/v1, /apis, /apis/G, /apis/G/V", async () => {
  using server = new FakeApiServer({
    resources: [{
      group: "example.com",
      version: "v1alpha1",
      resource: "widgets",
      kind: "Widget",
      namespaced: true,
      shortNames: ["wd"],
    }],
  });
  const version = await getJson(server, "/version");
  assert.equal(version.body.major, "1");
  assert.match(version.body.gitVersion, /^v1\.\d+/);

  const api = await getJson(server, "/api");
  assert.equal(api.body.kind, "APIVersions");
  assert.deepEqual(api.body.versions, ["v1"]);

  const core = await getJson(server, "/api/v1");
  assert.equal(core.body.kind, "APIResourceList");
  assert.equal(core.body.groupVersion, "v1");
  const pods = core.body.resources.find((r: { name: string }) =>
    r.name === "pods"
  );
  assert.deepEqual(pods.shortNames, ["po"]);
  assert.equal(pods.namespaced, true);
  assert.equal(pods.kind, "Pod");
  assert.ok(pods.verbs.includes("watch"));
  const nodes = core.body.resources.find((r: { name: string }) =>
    r.name === "nodes"
  );
  assert.equal(nodes.namespaced, false);

  const groups = await getJson(server, "/apis");
  assert.equal(groups.body.kind, "APIGroupList");
  const names = groups.body.groups.map((g: { name: string }) => g.name);
  for (
    const g of [
      "apps",
      "networking.k8s.io",
      "discovery.k8s.io",
      "coordination.k8s.io",
      "example.com",
    ]
  ) {
    assert.ok(names.includes(g), g);
  }
  const example = groups.body.groups.find((g: { name: string }) =>
    g.name === "example.com"
  );
  assert.deepEqual(example.preferredVersion, {
    groupVersion: "example.com/v1alpha1",
    version: "v1alpha1",
  });

  const apps = await getJson(server, "/apis/apps");
  assert.equal(apps.body.kind, "APIGroup");
  const appsV1 = await getJson(server, "/apis/apps/v1");
  assert.equal(appsV1.body.groupVersion, "apps/v1");
  assert.ok(
    appsV1.body.resources.some((r: { name: string }) =>
      r.name === "deployments"
    ),
  );
  const widgets = await getJson(server, "/apis/example.com/v1alpha1");
  assert.equal(widgets.body.resources[0].kind, "Widget");

  assert.equal((await getJson(server, "/apis/nope/v1")).status, 404);
  assert.equal((await getJson(server, "/api/v2")).status, 404);
  const health = await server.handle(new Request(`${server.url}/readyz`));
  assert.equal(await health.text(), "ok");
});

Deno.test("Table answers for kubectl get: NAME and AGE, with continue and metadata", async () => {
  const clock = new FakeClock({ now: Date.UTC(2024, 0, 1) });
  using server = new FakeApiServer({ clock });
  server.create("pods", { metadata: { name: "a", namespace: "x" } });
  await clock.tick(90_000);
  server.create("pods", { metadata: { name: "b", namespace: "y" } });
  await clock.tick(30_000);
  const accept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
  const page = await getJson(server, "/api/v1/pods?limit=1", accept);
  assert.equal(page.status, 200);
  assert.equal(page.type, "application/json;as=Table;v=v1;g=meta.k8s.io");
  assert.equal(page.body.kind, "Table");
  assert.equal(page.body.apiVersion, "meta.k8s.io/v1");
  assert.deepEqual(
    page.body.columnDefinitions.map((c: { name: string }) => c.name),
    ["Name", "Age"],
  );
  assert.deepEqual(page.body.rows.map((r: { cells: string[] }) => r.cells), [[
    "a",
    "2m",
  ]]);
  assert.equal(page.body.rows[0].object.kind, "PartialObjectMetadata");
  assert.equal(page.body.rows[0].object.metadata.namespace, "x");
  assert.ok(page.body.metadata.continue);
  assert.equal(page.body.metadata.resourceVersion, "2");

  const full = await getJson(
    server,
    "/api/v1/namespaces/y/pods/b?includeObject=Object",
    accept,
  );
  assert.deepEqual(full.body.rows[0].cells, ["b", "30s"]);
  assert.equal(full.body.rows[0].object.kind, "Pod");

  const plain = await getJson(server, "/api/v1/pods");
  assert.equal(plain.body.kind, "PodList");
});

Deno.test("humanDuration prints ages like kubectl", () => {
  const s = 1000;
  const cases: [number, string][] = [
    [-5 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [119 * s, "119s"],
    [150 * s, "2m30s"],
    [600 * s, "10m"],
    [3 * 3600 * s + 5 * 60 * s, "3h5m"],
    [30 * 3600 * s, "30h"],
    [3 * 86400 * s + 4 * 3600 * s, "3d4h"],
    [30 * 86400 * s, "30d"],
    [3 * 365 * 86400 * s + 10 * 86400 * s, "3y10d"],
    [9 * 365 * 86400 * s, "9y"],
  ];
  for (const [ms, text] of cases) {
    assert.equal(humanDuration(ms), text, String(ms));
  }
});

Deno.test("listen serves the API over HTTP and close ends open watches", async () => {
  await using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a" } });
  const listener = await server.listen();
  assert.match(listener.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const list = await (await fetch(`${listener.url}/api/v1/configmaps`)).json();
  assert.deepEqual(
    list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ["a"],
  );

  const res = await fetch(
    `${listener.url}/api/v1/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
  );
  const w = new WatchReader(res);
  await waitFor(() => server.openWatchCount === 1, {
    description: "watch registered",
  });
  server.create("configmaps", { metadata: { name: "b" } });
  assert.deepEqual(summary(await w.take(1)), ["ADDED b"]);
  await listener.close();
  assert.deepEqual(await w.drain(), []);
  assert.ok(w.ended && !w.error, "the watch ended cleanly");
  assert.equal(server.openWatchCount, 0);
});

Deno.test("listen: a client disconnect ends the watch; server close stops listeners", async () => {
  const server = new FakeApiServer();
  const listener = await server.listen();
  const controller = new AbortController();
  const res = await fetch(
    `${listener.url}/api/v1/pods?watch=1&resourceVersion=0`,
    {
      signal: controller.signal,
    },
  );
  await waitFor(() => server.openWatchCount === 1, {
    description: "watch registered",
  });
  controller.abort();
  await res.body?.cancel().catch(() => {});
  await waitFor(() => server.openWatchCount === 0, {
    description: "watch ended",
  });
  await server.close();
  await assert.rejects(fetch(`${listener.url}/version`));
});
