// PATCH content types over HTTP: strategic merge for built-in types only,
// server-side apply in testing/fake_api_server_apply_test.ts.
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { call, WIDGETS } from "./_call_test.ts";

const SMP = { "content-type": "application/strategic-merge-patch+json" };

Deno.test("HTTP strategic merge patch merges a Deployment's containers by name", async () => {
  using server = new FakeApiServer();
  server.create("deployments", {
    metadata: { name: "web" },
    spec: {
      template: {
        spec: {
          containers: [
            { name: "web", image: "nginx:1", ports: [{ containerPort: 80 }] },
            { name: "sidecar", image: "envoy:1" },
          ],
        },
      },
    },
  });
  const res = await call(
    server,
    "PATCH",
    "/apis/apps/v1/namespaces/default/deployments/web",
    {
      spec: {
        template: { spec: { containers: [{ name: "web", image: "nginx:2" }] } },
      },
    },
    SMP,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.spec.template.spec.containers, [
    { name: "web", image: "nginx:2", ports: [{ containerPort: 80 }] },
    { name: "sidecar", image: "envoy:1" },
  ]);
  assert.equal(res.body.metadata.generation, 2);

  const bad = await call(
    server,
    "PATCH",
    "/apis/apps/v1/namespaces/default/deployments/web",
    { spec: { $patch: "explode" } },
    SMP,
  );
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /unknown \$patch directive "explode" at spec/);
});

Deno.test("HTTP strategic merge patch of a custom resource is 415, as in Kubernetes", async () => {
  using server = new FakeApiServer({ resources: [WIDGETS] });
  server.create("widgets", { metadata: { name: "w" }, spec: { a: 1 } });
  const res = await call(
    server,
    "PATCH",
    "/apis/example.com/v1/namespaces/default/widgets/w",
    { spec: { a: 2 } },
    SMP,
  );
  assert.equal(res.status, 415);
  assert.equal(res.body.reason, "UnsupportedMediaType");
  assert.match(
    res.body.message,
    /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml \(got "application\/strategic-merge-patch\+json"\)/,
  );
  assert.deepEqual(server.get("widgets", "default", "w").spec, { a: 1 });
});

Deno.test("OpenAPI v3: an index of every group-version and PATCH operations with fieldValidation; no v2", async () => {
  using server = new FakeApiServer();
  server.registerResource(WIDGETS);
  const index = await call(server, "GET", "/openapi/v3");
  assert.equal(index.status, 200);
  const paths = Object.keys(index.body.paths);
  for (
    const gv of [
      "api/v1",
      "apis/apps/v1",
      "apis/coordination.k8s.io/v1",
      "apis/example.com/v1",
    ]
  ) {
    assert.ok(paths.includes(gv), gv);
  }
  const url: string = index.body.paths["apis/example.com/v1"].serverRelativeURL;
  assert.match(
    url,
    /^\/openapi\/v3\/apis\/example\.com\/v1\?hash=[0-9A-F]{8}$/,
  );
  const doc = await call(server, "GET", url);
  assert.equal(doc.status, 200);
  const op =
    doc.body.paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]
      .patch;
  assert.deepEqual(op["x-kubernetes-group-version-kind"], {
    group: "example.com",
    version: "v1",
    kind: "Widget",
  });
  assert.ok(
    op.parameters.some((p: { name: string }) => p.name === "fieldValidation"),
  );
  assert.equal(
    (await call(server, "GET", "/openapi/v3/apis/nope/v1")).status,
    404,
  );
  assert.equal((await call(server, "GET", "/openapi/v2")).status, 404);
});
