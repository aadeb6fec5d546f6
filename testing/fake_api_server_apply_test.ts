// Server-side apply over HTTP: what kube-apiserver 1.37 answered to the
// same requests (tests/control_plane/conformance_test.ts holds the two
// together).
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { call } from "./_call_test.ts";

const APPLY = { "content-type": "application/apply-patch+yaml" };
const CM = "/api/v1/namespaces/default/configmaps";
const config = (data: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "a" },
  data,
});
// deno-lint-ignore no-explicit-any
const owners = (obj: any) =>
  Object.fromEntries(
    // deno-lint-ignore no-explicit-any
    obj.metadata.managedFields.map((e: any) => [
      `${e.manager}/${e.operation}`,
      e.fieldsV1,
    ]),
  );

Deno.test("apply needs a field manager: 422 Invalid against PatchOptions", async () => {
  using server = new FakeApiServer();
  const res = await call(server, "PATCH", `${CM}/a`, config({ x: "1" }), APPLY);
  assert.equal(res.status, 422);
  assert.deepEqual(res.body.details, {
    group: "meta.k8s.io",
    kind: "PatchOptions",
    causes: [{
      reason: "FieldValueRequired",
      message: "Required value: is required for apply patch",
      field: "fieldManager",
    }],
  });
  assert.deepEqual(server.list("configmaps"), []);
});

Deno.test("apply creates (201) with the manager's fields, shares a field set to the same value, conflicts on another, takes it with force", async () => {
  using server = new FakeApiServer();
  const created = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=one`,
    config({ x: "1", y: "2" }),
    APPLY,
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(owners(created.body), {
    "one/Apply": { "f:data": { "f:x": {}, "f:y": {} } },
  });
  const shared = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=two`,
    config({ x: "1" }),
    APPLY,
  );
  assert.equal(shared.status, 200);
  assert.deepEqual(owners(shared.body), {
    "one/Apply": { "f:data": { "f:x": {}, "f:y": {} } },
    "two/Apply": { "f:data": { "f:x": {} } },
  });
  const conflict = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=three`,
    config({ x: "9" }),
    APPLY,
  );
  assert.equal(conflict.status, 409);
  assert.equal(conflict.body.reason, "Conflict");
  assert.deepEqual(
    conflict.body.details.causes.map((
      c: { reason: string; message: string; field: string },
    ) => [c.reason, c.message, c.field]),
    [
      ["FieldManagerConflict", 'conflict with "one"', ".data.x"],
      ["FieldManagerConflict", 'conflict with "two"', ".data.x"],
    ],
  );
  assert.deepEqual(server.get("configmaps", "default", "a").data, {
    x: "1",
    y: "2",
  });
  const forced = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=three&force=true`,
    config({ x: "9" }),
    APPLY,
  );
  assert.equal(forced.status, 200);
  assert.deepEqual(forced.body.data, { x: "9", y: "2" });
  assert.deepEqual(owners(forced.body), {
    "one/Apply": { "f:data": { "f:y": {} } },
    "three/Apply": { "f:data": { "f:x": {} } },
  });
});

Deno.test("apply removes the fields its manager no longer applies, unless another owns them; an update takes the fields it changes", async () => {
  using server = new FakeApiServer();
  await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=one`,
    config({ x: "1", y: "2", z: "3" }),
    APPLY,
  );
  await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=two`,
    config({ z: "3" }),
    APPLY,
  );
  const dropped = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=one`,
    config({ x: "1" }),
    APPLY,
  );
  assert.deepEqual(dropped.body.data, { x: "1", z: "3" });
  const put = await call(server, "PUT", `${CM}/a?fieldManager=editor`, {
    ...dropped.body,
    data: { x: "5", z: "3" },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(owners(put.body), {
    "two/Apply": { "f:data": { "f:z": {} } },
    "editor/Update": { "f:data": { "f:x": {} } },
  });
  // A no-op apply writes nothing.
  const again = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=two`,
    config({ z: "3" }),
    APPLY,
  );
  assert.equal(
    again.body.metadata.resourceVersion,
    put.body.metadata.resourceVersion,
  );
});

Deno.test("apply merges a Deployment's containers by name; a YAML body is read too", async () => {
  using server = new FakeApiServer();
  server.create("deployments", {
    metadata: { name: "web" },
    spec: {
      template: { spec: { containers: [{ name: "side", image: "envoy:1" }] } },
    },
  });
  const yaml = [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    "  name: web",
    "spec:",
    "  template:",
    "    spec:",
    "      containers:",
    "      - name: web",
    "        image: nginx:1",
  ].join("\n");
  const res = await call(
    server,
    "PATCH",
    "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=me",
    yaml,
    APPLY,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.spec.template.spec.containers, [
    { name: "side", image: "envoy:1" },
    { name: "web", image: "nginx:1" },
  ]);
  assert.deepEqual(owners(res.body)["me/Apply"], {
    "f:spec": {
      "f:template": {
        "f:spec": {
          "f:containers": {
            'k:{"name":"web"}': { ".": {}, "f:name": {}, "f:image": {} },
          },
        },
      },
    },
  });
  assert.equal(res.body.metadata.generation, 2);
});

Deno.test("apply of the status subresource writes only the status, does not bump the generation, and is 404 for a missing object", async () => {
  using server = new FakeApiServer();
  const base = "/apis/apps/v1/namespaces/default/deployments";
  const made = await call(server, "PATCH", `${base}/web?fieldManager=one`, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 1 },
    status: { replicas: 7 },
  }, APPLY);
  assert.equal(made.status, 201);
  assert.equal(made.body.status, undefined); // a create ignores the status
  const status = await call(
    server,
    "PATCH",
    `${base}/web/status?fieldManager=st`,
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { replicas: 3 },
      status: { replicas: 5 },
    },
    APPLY,
  );
  assert.equal(status.status, 200, JSON.stringify(status.body));
  assert.deepEqual(status.body.spec, { replicas: 1 });
  assert.deepEqual(status.body.status, { replicas: 5 });
  assert.equal(status.body.metadata.generation, 1);
  // deno-lint-ignore no-explicit-any
  const entry = status.body.metadata.managedFields.find((e: any) =>
    e.manager === "st"
  );
  assert.equal(entry.subresource, "status");
  assert.deepEqual(entry.fieldsV1, { "f:status": { "f:replicas": {} } });
  const missing = await call(
    server,
    "PATCH",
    `${base}/nope/status?fieldManager=st`,
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "nope" },
      status: { replicas: 5 },
    },
    APPLY,
  );
  assert.equal(missing.status, 404);
});

Deno.test("apply refuses a body without kind, another name, a stale resourceVersion; a dry run stores nothing", async () => {
  using server = new FakeApiServer();
  const noKind = await call(server, "PATCH", `${CM}/a?fieldManager=me`, {
    metadata: { name: "a" },
  }, APPLY);
  assert.equal(noKind.status, 400);
  const renamed = await call(server, "PATCH", `${CM}/a?fieldManager=me`, {
    ...config({}),
    metadata: { name: "b" },
  }, APPLY);
  assert.equal(renamed.status, 400);
  assert.match(renamed.body.message, /does not match the name on the URL/);
  const dry = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=me&dryRun=All`,
    config({ x: "1" }),
    APPLY,
  );
  assert.equal(dry.status, 201);
  assert.deepEqual(server.list("configmaps"), []);
  await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=me`,
    config({ x: "1" }),
    APPLY,
  );
  const stale = await call(server, "PATCH", `${CM}/a?fieldManager=me`, {
    ...config({ x: "2" }),
    metadata: { name: "a", resourceVersion: "999" },
  }, APPLY);
  assert.equal(stale.status, 409);
  assert.deepEqual(stale.body.details, { name: "a", kind: "configmaps" });
});
