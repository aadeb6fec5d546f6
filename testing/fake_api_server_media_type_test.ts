import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { summary, WatchReader } from "./_watch_reader_test.ts";

const LIST_V1 =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const OBJECT_V1 =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

async function call(
  server: FakeApiServer,
  path: string,
  accept?: string,
  init: RequestInit = {},
) {
  const headers = new Headers(init.headers);
  if (accept !== undefined) headers.set("accept", accept);
  const res = await server.handle(
    new Request(`${server.url}${path}`, { ...init, headers }),
  );
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: await res.json(),
  };
}

function seed(server: FakeApiServer): void {
  for (const name of ["a", "b", "c"]) {
    server.create("pods", {
      metadata: {
        name,
        namespace: "web",
        labels: { app: "web" },
        annotations: { note: name },
        ownerReferences: [{
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "web-1",
          uid: "u-1",
        }],
      },
      spec: { containers: [{ name: "c", image: "nginx" }] },
      status: { phase: "Running" },
    });
  }
}

Deno.test("LIST as PartialObjectMetadataList: only apiVersion, kind and metadata, pages kept", async () => {
  using server = new FakeApiServer();
  seed(server);
  const page = await call(
    server,
    "/api/v1/namespaces/web/pods?limit=2",
    LIST_V1,
  );
  assert.equal(page.status, 200);
  assert.equal(page.type, "application/json");
  assert.equal(page.body.kind, "PartialObjectMetadataList");
  assert.equal(page.body.apiVersion, "meta.k8s.io/v1");
  assert.equal(page.body.metadata.resourceVersion, "3");
  assert.ok(page.body.metadata.continue);
  assert.equal(page.body.items.length, 2);
  const [first] = page.body.items;
  assert.deepEqual(Object.keys(first).sort(), [
    "apiVersion",
    "kind",
    "metadata",
  ]);
  assert.equal(first.kind, "PartialObjectMetadata");
  assert.equal(first.apiVersion, "meta.k8s.io/v1");
  const full = server.get("pods", "web", "a");
  assert.deepEqual(first.metadata, full.metadata);

  const rest = await call(
    server,
    `/api/v1/namespaces/web/pods?limit=2&continue=${
      encodeURIComponent(page.body.metadata.continue)
    }`,
    LIST_V1,
  );
  assert.deepEqual(
    rest.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ["c"],
  );
  assert.equal(rest.body.metadata.continue, undefined);

  const beta = await call(
    server,
    "/api/v1/pods",
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1",
  );
  assert.equal(beta.body.apiVersion, "meta.k8s.io/v1beta1");
  assert.equal(beta.body.items[0].apiVersion, "meta.k8s.io/v1beta1");
});

Deno.test("Accept clauses are tried by q, then in order; the fallback gives full objects", async () => {
  using server = new FakeApiServer();
  seed(server);
  const cases: [string, string][] = [
    [`${LIST_V1},application/json`, "PartialObjectMetadataList"],
    [`application/json,${LIST_V1}`, "PodList"],
    [`application/json;q=0.5,${LIST_V1}`, "PartialObjectMetadataList"],
    [
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2,application/json",
      "PodList",
    ],
    [
      `application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,${LIST_V1}`,
      "PartialObjectMetadataList",
    ],
    ["*/*", "PodList"],
    ["application/*", "PodList"],
    ["", "PodList"],
    ["application/json;as=Table;g=meta.k8s.io;v=v1beta1", "Table"],
  ];
  for (const [accept, kind] of cases) {
    const answer = await call(server, "/api/v1/pods", accept);
    assert.equal(answer.status, 200, accept);
    assert.equal(answer.body.kind, kind, accept);
  }
  const table = await call(
    server,
    "/api/v1/pods",
    "application/json;as=Table;g=meta.k8s.io;v=v1beta1",
  );
  assert.equal(table.body.apiVersion, "meta.k8s.io/v1beta1");
  assert.equal(table.body.rows[0].object.apiVersion, "meta.k8s.io/v1beta1");
});

Deno.test("an Accept header the server cannot serve is a 406 NotAcceptable Status", async () => {
  using server = new FakeApiServer();
  seed(server);
  for (
    const accept of [
      "application/json;as=Widget;g=meta.k8s.io;v=v1",
      "application/json;as=PartialObjectMetadataList;g=example.com;v=v1",
      "application/json;as=PartialObjectMetadataList",
      "application/yaml",
      "text/html",
    ]
  ) {
    for (const path of ["/api/v1/pods", "/api/v1/pods?watch=1"]) {
      const answer = await call(server, path, accept);
      assert.equal(answer.status, 406, `${accept} ${path}`);
      assert.equal(answer.body.kind, "Status");
      assert.equal(answer.body.reason, "NotAcceptable");
      assert.equal(answer.body.code, 406);
      assert.match(answer.body.message, /application\/json/);
    }
  }
  assert.equal(server.openWatchCount, 0);
});

Deno.test("the singular and list kinds must match what is answered, as the API server converts them", async () => {
  using server = new FakeApiServer();
  seed(server);
  const listAsObject = await call(server, "/api/v1/pods", OBJECT_V1);
  assert.equal(listAsObject.status, 406);
  assert.match(listAsObject.body.message, /is a list/);

  const objectAsList = await call(
    server,
    "/api/v1/namespaces/web/pods/a",
    LIST_V1,
  );
  assert.equal(objectAsList.status, 406);
  assert.match(objectAsList.body.message, /is not a list/);

  const one = await call(server, "/api/v1/namespaces/web/pods/a", OBJECT_V1);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body, {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: server.get("pods", "web", "a").metadata,
  });

  const missing = await call(
    server,
    "/api/v1/namespaces/web/pods/zz",
    OBJECT_V1,
  );
  assert.equal(missing.status, 404);
  assert.equal(missing.body.reason, "NotFound");
});

Deno.test("writes answer in the metadata-only form; a 406 is decided before the write", async () => {
  using server = new FakeApiServer();
  const body = JSON.stringify({
    metadata: { name: "cm" },
    data: { secret: "value" },
  });
  const init = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  };
  const refused = await call(
    server,
    "/api/v1/namespaces/web/configmaps",
    "application/json;as=Widget;g=meta.k8s.io;v=v1",
    init,
  );
  assert.equal(refused.status, 406);
  assert.equal(server.list("configmaps").length, 0);

  const created = await call(
    server,
    "/api/v1/namespaces/web/configmaps",
    OBJECT_V1,
    init,
  );
  assert.equal(created.status, 201);
  assert.equal(created.body.kind, "PartialObjectMetadata");
  assert.equal(created.body.data, undefined);
  assert.equal(created.body.metadata.name, "cm");
  assert.deepEqual(server.get("configmaps", "web", "cm").data, {
    secret: "value",
  });

  // A DELETE answers a Status, which no form converts; a Pod's answers
  // the Pod, converted.
  const deleted = await call(
    server,
    "/api/v1/namespaces/web/configmaps/cm",
    OBJECT_V1,
    { method: "DELETE" },
  );
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.kind, "Status");
  server.create("pods", { metadata: { name: "p", namespace: "web" } });
  const pod = await call(
    server,
    "/api/v1/namespaces/web/pods/p",
    OBJECT_V1,
    { method: "DELETE" },
  );
  assert.equal(pod.status, 200);
  assert.equal(pod.body.kind, "PartialObjectMetadata");
});

Deno.test("WATCH as PartialObjectMetadata converts every event's object, bookmarks included", async () => {
  using server = new FakeApiServer();
  seed(server);
  const res = await server.handle(
    new Request(
      `${server.url}/api/v1/namespaces/web/pods?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
      { headers: { accept: `${OBJECT_V1},application/json` } },
    ),
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  const w = new WatchReader(res);
  const initial = await w.take(4);
  assert.deepEqual(summary(initial.slice(0, 3)), [
    "ADDED a",
    "ADDED b",
    "ADDED c",
  ]);
  const end = initial[3];
  assert.equal(end.type, "BOOKMARK");
  assert.equal(end.object.kind, "PartialObjectMetadata");
  assert.equal(end.object.apiVersion, "meta.k8s.io/v1");
  assert.equal(
    end.object.metadata.annotations?.["k8s.io/initial-events-end"],
    "true",
  );

  server.patch("pods", "web", "a", { status: { phase: "Failed" } });
  server.patch("pods", "web", "b", { metadata: { labels: { v: "2" } } });
  server.delete("pods", "web", "c");
  const later = await w.take(3);
  assert.deepEqual(summary(later), ["MODIFIED a", "MODIFIED b", "DELETED c"]);
  for (const event of [...initial.slice(0, 3), ...later]) {
    assert.deepEqual(Object.keys(event.object).sort(), [
      "apiVersion",
      "kind",
      "metadata",
    ]);
    assert.equal(event.object.kind, "PartialObjectMetadata");
    assert.equal(event.object.apiVersion, "meta.k8s.io/v1");
  }
  assert.equal(later[1].object.metadata.labels?.v, "2");
  await w.cancel();
});

Deno.test("WATCH asked for PartialObjectMetadataList sends full objects, as the API server falls back", async () => {
  using server = new FakeApiServer();
  seed(server);
  const res = await server.handle(
    new Request(`${server.url}/api/v1/namespaces/web/pods?watch=1`, {
      headers: { accept: LIST_V1 },
    }),
  );
  assert.equal(res.status, 200);
  const w = new WatchReader(res);
  const events = await w.take(3);
  assert.equal(events[0].object.kind, "Pod");
  assert.deepEqual(events[0].object.status, { phase: "Running" });
  await w.cancel();
});

Deno.test("listen: metadata-only LIST and WATCH over raw HTTP", async () => {
  await using server = new FakeApiServer();
  seed(server);
  await using listener = await server.listen();
  const res = await fetch(`${listener.url}/api/v1/pods`, {
    headers: { accept: `${LIST_V1},application/json` },
  });
  assert.equal(res.status, 200);
  const list = await res.json();
  assert.equal(list.kind, "PartialObjectMetadataList");
  assert.deepEqual(
    list.items.map((i: { kind: string }) => i.kind),
    Array(3).fill("PartialObjectMetadata"),
  );

  const watch = await fetch(
    `${listener.url}/api/v1/pods?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
    { headers: { accept: `${OBJECT_V1},application/json` } },
  );
  assert.equal(watch.status, 200);
  const w = new WatchReader(watch);
  server.patch("pods", "web", "a", { spec: { nodeName: "n1" } });
  const [event] = await w.take(1);
  assert.equal(event.type, "MODIFIED");
  assert.deepEqual(Object.keys(event.object).sort(), [
    "apiVersion",
    "kind",
    "metadata",
  ]);
  assert.equal(event.object.kind, "PartialObjectMetadata");
  await w.cancel();

  const refused = await fetch(`${listener.url}/api/v1/pods`, {
    headers: { accept: "application/json;as=Widget;g=meta.k8s.io;v=v1" },
  });
  assert.equal(refused.status, 406);
  assert.equal((await refused.json()).reason, "NotAcceptable");
});
