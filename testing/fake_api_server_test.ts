import assert from "node:assert/strict";
import { ApiError } from "../client/api_error.ts";
import { FakeApiError } from "./fake_api_error.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { call } from "./_call_test.ts";

const cm = (
  name: string,
  data: Record<string, string> = {},
  namespace = "default",
) => ({
  metadata: { name, namespace },
  data,
});

function assertStatus(
  fn: () => unknown,
  code: number,
  reason: string,
  message?: RegExp,
): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FakeApiError, String(err));
    assert.ok(err instanceof ApiError);
    assert.equal(err.name, "FakeApiError");
    assert.equal(err.code, code);
    assert.equal(err.reason, reason);
    assert.equal(err.status.kind, "Status");
    assert.equal(err.status.status, "Failure");
    assert.equal(err.status.code, code);
    if (message) assert.match(err.message, message);
    return true;
  });
}

Deno.test("FakeApiServer create sets server-owned fields", () => {
  const clock = new FakeClock({ now: Date.UTC(2024, 0, 2, 3, 4, 5, 678) });
  using server = new FakeApiServer({ clock });
  assert.equal(server.resourceVersion, "0");
  const a = server.create("configmaps", cm("a", { k: "v" }));
  assert.equal(a.apiVersion, "v1");
  assert.equal(a.kind, "ConfigMap");
  assert.equal(a.metadata.resourceVersion, "1");
  assert.equal(a.metadata.creationTimestamp, "2024-01-02T03:04:05Z");
  assert.match(a.metadata.uid!, /^[0-9a-f-]{36}$/);
  assert.equal(
    a.metadata.generation,
    undefined,
    "ConfigMaps have no generation",
  );
  const d = server.create("deployments", {
    metadata: { name: "web", namespace: "prod" },
    spec: { replicas: 1 },
  });
  assert.equal(d.apiVersion, "apps/v1");
  assert.equal(d.kind, "Deployment");
  assert.equal(d.metadata.generation, 1);
  assert.equal(d.metadata.resourceVersion, "2");
  assert.equal(server.resourceVersion, "2");
});

Deno.test("FakeApiServer programmatic API returns copies", () => {
  using server = new FakeApiServer();
  const input = cm("a", { k: "v" });
  const created = server.create("configmaps", input);
  assert.equal(input.metadata.name, "a");
  assert.equal(
    (input.metadata as Record<string, unknown>).uid,
    undefined,
    "input not modified",
  );
  (created.data as Record<string, string>).k = "changed";
  const got = server.get("configmaps", "default", "a");
  assert.equal((got.data as Record<string, string>).k, "v");
  (got.metadata.labels ??= {}).x = "y";
  assert.deepEqual(
    server.get("configmaps", "default", "a").metadata.labels,
    undefined,
  );
});

Deno.test("FakeApiServer resolves resources by name, short name, kind and GVR", () => {
  using server = new FakeApiServer();
  server.create("cm", cm("a"));
  server.create("ConfigMap", cm("b"));
  server.create({ group: "", version: "v1", resource: "configmaps" }, cm("c"));
  assert.deepEqual(server.list("configmaps").map((o) => o.metadata.name), [
    "a",
    "b",
    "c",
  ]);
  assert.equal(server.resourceInfo("ing").group, "networking.k8s.io");
  assert.equal(
    server.resourceInfo("ingresses.networking.k8s.io").kind,
    "Ingress",
  );
  assert.throws(
    () => server.get("widgets", "default", "x"),
    /Unknown resource "widgets"/,
  );
});

Deno.test("FakeApiServer create defaults the namespace and honours generateName", () => {
  using server = new FakeApiServer();
  const a = server.create("pods", { metadata: { name: "a" } });
  assert.equal(a.metadata.namespace, "default");
  const g1 = server.create("pods", { metadata: { generateName: "web-" } });
  const g2 = server.create("pods", { metadata: { generateName: "web-" } });
  assert.match(g1.metadata.name!, /^web-[a-z0-9]{5}$/);
  assert.notEqual(g1.metadata.name, g2.metadata.name);
  const node = server.create("nodes", {
    metadata: { name: "n1", namespace: "x" },
  });
  assert.equal(
    node.metadata.namespace,
    undefined,
    "cluster-scoped objects have no namespace",
  );
  assert.equal(server.get("nodes", "", "n1").metadata.name, "n1");
});

Deno.test("FakeApiServer create errors: AlreadyExists and Invalid", () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("a"));
  assertStatus(
    () => server.create("configmaps", cm("a")),
    409,
    "AlreadyExists",
    /configmaps "a" already exists/,
  );
  assertStatus(
    () =>
      server.create("deployments", { metadata: { name: "x" } }) &&
      server.create("deployments", { metadata: { name: "x" } }),
    409,
    "AlreadyExists",
    /deployments\.apps "x" already exists/,
  );
  assertStatus(
    () => server.create("configmaps", { metadata: {} }),
    422,
    "Invalid",
    /metadata\.name: Required value/,
  );
  assertStatus(
    () => server.create("configmaps", cm("Not_Valid")),
    422,
    "Invalid",
    /RFC 1123/,
  );
  // Nothing already stored was lost.
  assert.equal(server.list("configmaps").length, 1);
});

Deno.test("FakeApiServer update: conflict check, generation and no-op writes", () => {
  using server = new FakeApiServer();
  const d = server.create("deployments", {
    metadata: { name: "web", namespace: "default" },
    spec: { replicas: 1 },
  });
  // Metadata-only change: new version, same generation.
  const labelled = server.update("deployments", {
    ...d,
    metadata: { ...d.metadata, labels: { a: "b" } },
  });
  assert.equal(labelled.metadata.resourceVersion, "2");
  assert.equal(labelled.metadata.generation, 1);
  // Spec change bumps the generation.
  const scaled = server.update("deployments", {
    ...labelled,
    spec: { replicas: 3 },
  });
  assert.equal(scaled.metadata.generation, 2);
  assert.equal(scaled.metadata.uid, d.metadata.uid);
  assert.equal(scaled.metadata.creationTimestamp, d.metadata.creationTimestamp);
  // A stale resourceVersion conflicts.
  assertStatus(
    () => server.update("deployments", { ...labelled, spec: { replicas: 5 } }),
    409,
    "Conflict",
    /Operation cannot be fulfilled on deployments\.apps "web": the object has been modified/,
  );
  // Without a resourceVersion the update is unconditional.
  const { resourceVersion: _, ...meta } = scaled.metadata;
  const forced = server.update("deployments", {
    ...scaled,
    metadata: meta,
    spec: { replicas: 4 },
  });
  assert.equal(forced.metadata.generation, 3);
  // Writing the same content again changes nothing.
  const same = server.update("deployments", forced);
  assert.equal(same.metadata.resourceVersion, forced.metadata.resourceVersion);
  assert.equal(server.resourceVersion, forced.metadata.resourceVersion);
  assertStatus(
    () => server.update("deployments", { metadata: { name: "nope" } }),
    404,
    "NotFound",
  );
});

Deno.test("FakeApiServer status updates leave the generation alone", () => {
  using server = new FakeApiServer();
  const p = server.create("pods", {
    metadata: { name: "p" },
    spec: { nodeName: "" },
  });
  const running = server.updateStatus("pods", {
    ...p,
    spec: { nodeName: "ignored" },
    status: { phase: "Running" },
  });
  assert.deepEqual(running.status, { phase: "Running" });
  assert.deepEqual(running.spec, { nodeName: "" });
  assert.equal(running.metadata.generation, 1);
});

Deno.test("FakeApiServer patch merges, removes with null, checks preconditions", () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("a", { x: "1", y: "2" }));
  const patched = server.patch("configmaps", "default", "a", {
    data: { y: null, z: "3" },
    metadata: { labels: { l: "v" } },
  });
  assert.deepEqual(patched.data, { x: "1", z: "3" });
  assert.deepEqual(patched.metadata.labels, { l: "v" });
  assertStatus(
    () =>
      server.patch("configmaps", "default", "a", {
        metadata: { resourceVersion: "1" },
      }),
    409,
    "Conflict",
  );
  assertStatus(
    () => server.patch("configmaps", "default", "zz", { data: {} }),
    404,
    "NotFound",
  );
  assertStatus(
    () =>
      server.patch("configmaps", "default", "a", { metadata: { name: "b" } }),
    400,
    "BadRequest",
  );
});

Deno.test("FakeApiServer delete and finalizers", () => {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  using server = new FakeApiServer({ clock });
  server.create("configmaps", cm("a"));
  const gone = server.delete("configmaps", "default", "a");
  assert.equal(
    gone.metadata.resourceVersion,
    "2",
    "the deletion has its own version",
  );
  assertStatus(
    () => server.get("configmaps", "default", "a"),
    404,
    "NotFound",
    /configmaps "a" not found/,
  );
  assertStatus(
    () => server.delete("configmaps", "default", "a"),
    404,
    "NotFound",
  );

  server.create("configmaps", { metadata: { name: "f", finalizers: ["x/y"] } });
  const marked = server.delete("configmaps", "default", "f");
  assert.ok(marked.metadata.deletionTimestamp);
  assert.equal(
    server.get("configmaps", "default", "f").metadata.deletionTimestamp,
    marked.metadata.deletionTimestamp,
  );
  server.patch("configmaps", "default", "f", {
    metadata: { finalizers: null },
  });
  assertStatus(() => server.get("configmaps", "default", "f"), 404, "NotFound");
});

Deno.test("FakeApiServer list orders by namespace then name and filters by namespace", () => {
  using server = new FakeApiServer();
  server.create("configmaps", cm("b", {}, "ns1"));
  server.create("configmaps", cm("a", {}, "ns2"));
  server.create("configmaps", cm("a", {}, "ns1"));
  assert.deepEqual(
    server.list("configmaps").map((o) =>
      `${o.metadata.namespace}/${o.metadata.name}`
    ),
    ["ns1/a", "ns1/b", "ns2/a"],
  );
  assert.deepEqual(
    server.list("configmaps", "ns2").map((o) => o.metadata.name),
    ["a"],
  );
  assert.deepEqual(server.list("secrets"), []);
});

// ---------------------------------------------------------------------------
// HTTP CRUD

Deno.test("HTTP create, get, update, patch and delete", async () => {
  using server = new FakeApiServer();
  const base = "/api/v1/namespaces/default/configmaps";
  const created = await call(server, "POST", base, {
    metadata: { name: "a" },
    data: { k: "1" },
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.metadata.namespace, "default");
  assert.equal(created.body.kind, "ConfigMap");
  assert.equal(created.headers.get("content-type"), "application/json");

  const got = await call(server, "GET", `${base}/a`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body.data, { k: "1" });

  const updated = await call(server, "PUT", `${base}/a`, {
    ...got.body,
    data: { k: "2" },
  });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.metadata.resourceVersion, "2");

  const stale = await call(server, "PUT", `${base}/a`, {
    ...got.body,
    data: { k: "3" },
  });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, "Conflict");
  assert.equal(stale.body.kind, "Status");

  const merged = await call(
    server,
    "PATCH",
    `${base}/a`,
    { data: { m: "x" } },
    {
      "content-type": "application/merge-patch+json",
    },
  );
  assert.equal(merged.status, 200);
  assert.deepEqual(merged.body.data, { k: "2", m: "x" });

  const strategic = await call(server, "PATCH", `${base}/a`, {
    metadata: { labels: { s: "1" } },
  }, {
    "content-type": "application/strategic-merge-patch+json",
  });
  assert.deepEqual(strategic.body.metadata.labels, { s: "1" });

  const jsonPatch = await call(server, "PATCH", `${base}/a`, [
    { op: "test", path: "/data/k", value: "2" },
    { op: "replace", path: "/data/k", value: "j" },
    { op: "remove", path: "/data/m" },
    { op: "add", path: "/metadata/annotations", value: { "a/b": "c" } },
  ], { "content-type": "application/json-patch+json" });
  assert.equal(jsonPatch.status, 200, JSON.stringify(jsonPatch.body));
  assert.deepEqual(jsonPatch.body.data, { k: "j" });
  assert.deepEqual(jsonPatch.body.metadata.annotations, { "a/b": "c" });

  const failedTest = await call(server, "PATCH", `${base}/a`, [
    { op: "test", path: "/data/k", value: "nope" },
  ], { "content-type": "application/json-patch+json" });
  assert.equal(failedTest.status, 422);

  // Server-side apply needs a field manager (see fake_api_server_apply_test.ts).
  const apply = await call(server, "PATCH", `${base}/a`, "{}", {
    "content-type": "application/apply-patch+yaml",
  });
  assert.equal(apply.status, 422);

  const deleted = await call(server, "DELETE", `${base}/a`);
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.kind, "Status");
  assert.equal(deleted.body.details.name, "a");
  const missing = await call(server, "GET", `${base}/a`);
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'configmaps "a" not found',
    reason: "NotFound",
    details: { name: "a", kind: "configmaps" },
    code: 404,
  });
});

Deno.test("HTTP errors: bad bodies, mismatched names, unknown paths and methods", async () => {
  using server = new FakeApiServer();
  const base = "/api/v1/namespaces/default/configmaps";
  const notJson = await call(server, "POST", base, "<html>");
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.reason, "BadRequest");

  const otherNs = await call(server, "POST", base, {
    metadata: { name: "a", namespace: "other" },
  });
  assert.equal(otherNs.status, 400);
  assert.match(
    otherNs.body.message,
    /namespace of the provided object does not match/,
  );

  const withRv = await call(server, "POST", base, {
    metadata: { name: "a", resourceVersion: "5" },
  });
  assert.equal(withRv.status, 500);
  assert.match(withRv.body.message, /resourceVersion should not be set/);

  await call(server, "POST", base, { metadata: { name: "a" } });
  const dup = await call(server, "POST", base, { metadata: { name: "a" } });
  assert.equal(dup.status, 409);
  assert.equal(dup.body.reason, "AlreadyExists");

  const rename = await call(server, "PUT", `${base}/a`, {
    metadata: { name: "b" },
  });
  assert.equal(rename.status, 400);
  assert.match(rename.body.message, /does not match the name on the URL/);

  const unknown = await call(server, "GET", "/apis/example.com/v1/widgets");
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.reason, "NotFound");

  const post = await call(server, "POST", "/api/v1/pods", {
    metadata: { name: "x" },
  });
  assert.equal(post.status, 405);
  assert.equal(post.body.reason, "MethodNotAllowed");

  const precondition = await call(server, "DELETE", `${base}/a`, {
    preconditions: { resourceVersion: "999" },
  });
  assert.equal(precondition.status, 409);
  assert.equal(server.list("configmaps").length, 1);
});

Deno.test("HTTP DELETE answers a Status naming what it deleted; Pods, Services, Namespaces and objects finalizers hold answer the object", async () => {
  using server = new FakeApiServer();
  const cm = server.create("configmaps", {
    metadata: { name: "a", namespace: "shop" },
  });
  const deleted = await call(
    server,
    "DELETE",
    "/api/v1/namespaces/shop/configmaps/a",
  );
  assert.equal(deleted.status, 200);
  assert.deepEqual(deleted.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { name: "a", kind: "configmaps", uid: cm.metadata.uid },
  });
  const lease = server.create("leases", {
    metadata: { name: "l", namespace: "shop" },
  });
  const grouped = await call(
    server,
    "DELETE",
    "/apis/coordination.k8s.io/v1/namespaces/shop/leases/l",
  );
  assert.deepEqual(grouped.body.details, {
    name: "l",
    group: "coordination.k8s.io",
    kind: "leases",
    uid: lease.metadata.uid,
  });

  server.create("pods", { metadata: { name: "p", namespace: "shop" } });
  server.create("services", { metadata: { name: "s", namespace: "shop" } });
  server.create("namespaces", { metadata: { name: "gone" } });
  server.create("secrets", {
    metadata: {
      name: "held",
      namespace: "shop",
      finalizers: ["example.com/x"],
    },
  });
  const answers = [];
  for (
    const path of [
      "/api/v1/namespaces/shop/pods/p",
      "/api/v1/namespaces/shop/services/s",
      "/api/v1/namespaces/gone",
      "/api/v1/namespaces/shop/secrets/held",
    ]
  ) {
    const { status, body } = await call(server, "DELETE", path);
    answers.push([status, body.kind, body.metadata.name]);
  }
  assert.deepEqual(answers, [
    [200, "Pod", "p"],
    [200, "Service", "s"],
    [200, "Namespace", "gone"],
    [200, "Secret", "held"],
  ]);
  // The programmatic delete answers the object, as before.
  server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
  assert.equal(server.delete("configmaps", "shop", "b").metadata.name, "b");
});

Deno.test("HTTP status subresource and delete collection", async () => {
  using server = new FakeApiServer();
  server.create("pods", {
    metadata: { name: "a", labels: { app: "x" } },
    spec: {},
  });
  server.create("pods", {
    metadata: { name: "b", labels: { app: "y" } },
    spec: {},
  });
  const status = await call(
    server,
    "PUT",
    "/api/v1/namespaces/default/pods/a/status",
    {
      metadata: { name: "a" },
      status: { phase: "Running" },
    },
  );
  assert.equal(status.status, 200);
  assert.deepEqual(server.get("pods", "default", "a").status, {
    phase: "Running",
  });

  const removed = await call(
    server,
    "DELETE",
    "/api/v1/namespaces/default/pods?labelSelector=app%3Dx",
  );
  assert.equal(removed.status, 200);
  assert.deepEqual(
    removed.body.items.map((p: { metadata: { name: string } }) =>
      p.metadata.name
    ),
    ["a"],
  );
  assert.deepEqual(server.list("pods").map((p) => p.metadata.name), ["b"]);
});

Deno.test("HTTP cluster-scoped resources and custom resources", async () => {
  using server = new FakeApiServer({
    resources: [{
      group: "example.com",
      version: "v1",
      resource: "widgets",
      kind: "Widget",
      namespaced: false,
    }],
  });
  const node = await call(server, "POST", "/api/v1/nodes", {
    metadata: { name: "n1" },
  });
  assert.equal(node.status, 201);
  assert.equal(
    (await call(server, "GET", "/api/v1/nodes/n1")).body.kind,
    "Node",
  );
  const ns = await call(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  assert.equal(ns.status, 201);
  assert.equal(
    (await call(server, "GET", "/api/v1/namespaces/team")).body.kind,
    "Namespace",
  );
  const w = await call(server, "POST", "/apis/example.com/v1/widgets", {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: {},
  });
  assert.equal(w.status, 201);
  assert.equal(w.body.apiVersion, "example.com/v1");
  const list = await call(server, "GET", "/apis/example.com/v1/widgets");
  assert.equal(list.body.kind, "WidgetList");
});

Deno.test("FakeApiServer records requests", async () => {
  using server = new FakeApiServer();
  await call(
    server,
    "GET",
    "/api/v1/namespaces/kube-system/pods?limit=2&labelSelector=a%3Db",
  );
  await call(server, "GET", "/api/v1/namespaces/default/pods/x");
  assert.deepEqual(server.requests, [
    {
      method: "GET",
      path: "/api/v1/namespaces/kube-system/pods",
      query: { limit: "2", labelSelector: "a=b" },
      verb: "list",
      resource: "pods",
      namespace: "kube-system",
    },
    {
      method: "GET",
      path: "/api/v1/namespaces/default/pods/x",
      query: {},
      verb: "get",
      resource: "pods",
      namespace: "default",
      name: "x",
    },
  ]);
  server.clearRequests();
  assert.equal(server.requests.length, 0);
});

Deno.test("FakeApiServer answers 503 after close", async () => {
  const server = new FakeApiServer();
  await server.close();
  const res = await call(server, "GET", "/api/v1/pods");
  assert.equal(res.status, 503);
  // The programmatic API still works for assertions after the test.
  server.create("pods", { metadata: { name: "late" } });
});

Deno.test("FakeApiServer can start at a resourceVersion other than 0", async () => {
  using server = new FakeApiServer({ initialResourceVersion: 100 });
  assert.equal(server.resourceVersion, "100");
  const list = await call(server, "GET", "/api/v1/pods");
  assert.equal(list.body.metadata.resourceVersion, "100");
  assert.equal(
    server.create("pods", { metadata: { name: "a" } }).metadata.resourceVersion,
    "101",
  );
});

Deno.test("FakeApiServer rejects a bookmarkIntervalMs a timer cannot wait (2³¹−1 ms)", () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms on Deno, Node and Bun.
  assert.throws(
    () => new FakeApiServer({ bookmarkIntervalMs: 2 ** 31 }),
    (e: unknown) =>
      e instanceof RangeError &&
      e.message ===
        "FakeApiServer option bookmarkIntervalMs must be at most 2147483647 ms (2³¹−1), got 2147483648",
  );
  using _server = new FakeApiServer({ bookmarkIntervalMs: 2 ** 31 - 1 });
});

Deno.test("FakeApiServer rejects bad options", () => {
  assert.throws(
    () => new FakeApiServer({ initialResourceVersion: -1 }),
    RangeError,
  );
  assert.throws(() => new FakeApiServer({ url: "ftp://x" }), TypeError);
  assert.throws(() => new FakeApiServer({ historyLimit: -1 }), RangeError);
  assert.throws(() => new FakeApiServer({ bookmarkIntervalMs: 0 }), RangeError);
  using server = new FakeApiServer();
  assert.throws(
    () =>
      server.registerResource({
        group: "x",
        version: "v1",
        resource: "",
        kind: "X",
        namespaced: true,
      }),
    /non-empty resource/,
  );
});
