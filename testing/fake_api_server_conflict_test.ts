// Optimistic concurrency: every write that carries a stale
// metadata.resourceVersion is refused with 409 Conflict and changes nothing.
import assert from "node:assert/strict";
import { FakeApiError } from "./fake_api_error.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { call, type CallResult, WIDGETS } from "./_call_test.ts";

const LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

function lease(server: FakeApiServer) {
  return server.create("leases", {
    metadata: { name: "controller", namespace: "kube-system" },
    spec: { holderIdentity: "a", leaseDurationSeconds: 15 },
  });
}

function assertConflict(res: CallResult, qualified: string, name: string) {
  assert.equal(res.status, 409, JSON.stringify(res.body));
  assert.equal(res.body.kind, "Status");
  assert.equal(res.body.reason, "Conflict");
  assert.equal(res.body.code, 409);
  assert.equal(
    res.body.message,
    `Operation cannot be fulfilled on ${qualified} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  );
}

Deno.test("Leases are built in: coordination.k8s.io/v1, namespaced, no generation", async () => {
  using server = new FakeApiServer();
  const info = server.resourceInfo({
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
  });
  assert.equal(info.kind, "Lease");
  assert.equal(info.namespaced, true);
  const created = lease(server);
  assert.equal(created.apiVersion, "coordination.k8s.io/v1");
  assert.equal(created.metadata.generation, undefined);
  const discovery = await call(server, "GET", "/apis/coordination.k8s.io/v1");
  assert.deepEqual(
    discovery.body.resources.map((r: { name: string }) => r.name),
    ["leases"],
  );
});

Deno.test("HTTP PUT with a stale resourceVersion is a 409 Conflict and changes nothing", async () => {
  using server = new FakeApiServer();
  const first = lease(server);
  const renewed = await call(server, "PUT", `${LEASES}/controller`, {
    ...first,
    spec: { ...first.spec as object, holderIdentity: "b" },
  });
  assert.equal(renewed.status, 200);
  const before = server.resourceVersion;
  // A second candidate still holding the first version loses.
  const stale = await call(server, "PUT", `${LEASES}/controller`, {
    ...first,
    spec: { ...first.spec as object, holderIdentity: "c" },
  });
  assertConflict(stale, "leases.coordination.k8s.io", "controller");
  assert.deepEqual(stale.body.details, {
    name: "controller",
    group: "coordination.k8s.io",
    kind: "leases",
  });
  assert.equal(server.resourceVersion, before);
  assert.equal(
    (server.get("leases", "kube-system", "controller").spec as {
      holderIdentity: string;
    }).holderIdentity,
    "b",
  );
});

Deno.test("HTTP PUT without a resourceVersion: 422 for Leases and custom resources, allowed for ConfigMaps", async () => {
  using server = new FakeApiServer({
    resources: [WIDGETS],
  });
  const l = lease(server);
  const { resourceVersion: _rv, ...leaseMeta } = l.metadata;
  const unconditional = await call(server, "PUT", `${LEASES}/controller`, {
    ...l,
    metadata: leaseMeta,
  });
  assert.equal(unconditional.status, 422);
  assert.equal(unconditional.body.reason, "Invalid");
  assert.equal(
    unconditional.body.message,
    'leases.coordination.k8s.io "controller" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
  );

  server.create("widgets", { metadata: { name: "w" }, spec: { size: 1 } });
  const widget = await call(
    server,
    "PUT",
    "/apis/example.com/v1/namespaces/default/widgets/w",
    {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: { size: 2 },
    },
  );
  assert.equal(widget.status, 422);

  server.create("configmaps", { metadata: { name: "c" }, data: {} });
  const cm = await call(
    server,
    "PUT",
    "/api/v1/namespaces/default/configmaps/c",
    { metadata: { name: "c" }, data: { k: "v" } },
  );
  assert.equal(cm.status, 200);
  // The programmatic API stays lenient: it is how tests set state up.
  const forced = server.update("leases", { ...l, metadata: leaseMeta });
  assert.equal(forced.metadata.name, "controller");
});

Deno.test("HTTP PATCH of every content type refuses a stale resourceVersion", async () => {
  using server = new FakeApiServer();
  const created = lease(server);
  server.patch("leases", "kube-system", "controller", {
    spec: { holderIdentity: "b" },
  });
  const stale = created.metadata.resourceVersion!;
  const before = server.resourceVersion;
  const url = `${LEASES}/controller`;
  const mergeBody = {
    metadata: { resourceVersion: stale },
    spec: { holderIdentity: "c" },
  };
  for (
    const type of [
      "application/merge-patch+json",
      "application/strategic-merge-patch+json",
    ]
  ) {
    const res = await call(server, "PATCH", url, mergeBody, {
      "content-type": type,
    });
    assertConflict(res, "leases.coordination.k8s.io", "controller");
  }
  const jsonPatch = await call(server, "PATCH", url, [
    { op: "replace", path: "/metadata/resourceVersion", value: stale },
    { op: "replace", path: "/spec/holderIdentity", value: "c" },
  ], { "content-type": "application/json-patch+json" });
  assertConflict(jsonPatch, "leases.coordination.k8s.io", "controller");
  assert.equal(server.resourceVersion, before);

  // With the current version, or none, the patch applies.
  const current = await call(server, "PATCH", url, {
    metadata: { resourceVersion: before },
    spec: { holderIdentity: "c" },
  }, { "content-type": "application/merge-patch+json" });
  assert.equal(current.status, 200);
  assert.equal(current.body.spec.holderIdentity, "c");
  const unconditional = await call(server, "PATCH", url, {
    spec: { holderIdentity: "d" },
  }, { "content-type": "application/merge-patch+json" });
  assert.equal(unconditional.status, 200);
  assert.equal(unconditional.body.spec.holderIdentity, "d");
});

Deno.test("HTTP writes to /status refuse a stale resourceVersion", async () => {
  using server = new FakeApiServer();
  const d = server.create("deployments", {
    metadata: { name: "web" },
    spec: { replicas: 1 },
  });
  server.updateStatus("deployments", { ...d, status: { replicas: 1 } });
  const before = server.resourceVersion;
  const put = await call(server, "PUT", `${DEPLOYMENTS}/web/status`, {
    ...d,
    status: { replicas: 2 },
  });
  assertConflict(put, "deployments.apps", "web");
  const patch = await call(server, "PATCH", `${DEPLOYMENTS}/web/status`, {
    metadata: { resourceVersion: d.metadata.resourceVersion },
    status: { replicas: 2 },
  }, { "content-type": "application/merge-patch+json" });
  assertConflict(patch, "deployments.apps", "web");
  assert.equal(server.resourceVersion, before);
  assert.deepEqual(server.get("deployments", "default", "web").status, {
    replicas: 1,
  });
});

Deno.test("HTTP DELETE with a stale resourceVersion precondition is a 409 Conflict", async () => {
  using server = new FakeApiServer();
  const created = lease(server);
  server.patch("leases", "kube-system", "controller", {
    spec: { holderIdentity: "b" },
  });
  const res = await call(server, "DELETE", `${LEASES}/controller`, {
    preconditions: { resourceVersion: created.metadata.resourceVersion },
  });
  assert.equal(res.status, 409);
  assert.equal(res.body.reason, "Conflict");
  // kube-apiserver names the kind here, where other conflicts name the
  // resource.
  assert.deepEqual(res.body.details, {
    name: "controller",
    group: "coordination.k8s.io",
    kind: "Lease",
  });
  assert.match(
    res.body.message,
    /^Operation cannot be fulfilled on Lease "controller": the ResourceVersion in the precondition \(\d+\) does not match the ResourceVersion in record \(\d+\)/,
  );
  const uid = await call(server, "DELETE", `${LEASES}/controller`, {
    preconditions: { uid: "not-its-uid" },
  });
  assert.equal(uid.status, 409);
  assert.equal(uid.body.details.kind, "Lease");
  assert.match(uid.body.message, /the UID in the precondition \(not-its-uid\)/);
  assert.equal(server.list("leases").length, 1);
});

Deno.test("Programmatic update, updateStatus and patch refuse a stale resourceVersion", () => {
  using server = new FakeApiServer();
  const l = lease(server);
  const d = server.create("deployments", {
    metadata: { name: "web" },
    spec: { replicas: 1 },
  });
  server.patch("leases", "kube-system", "controller", {
    spec: { holderIdentity: "b" },
  });
  server.patch("deployments", "default", "web", { spec: { replicas: 2 } });
  const before = server.resourceVersion;
  const conflicts: Array<() => unknown> = [
    () => server.update("leases", l),
    () =>
      server.patch("leases", "kube-system", "controller", {
        metadata: { resourceVersion: l.metadata.resourceVersion },
      }),
    () => server.updateStatus("deployments", { ...d, status: { ready: 1 } }),
  ];
  for (const write of conflicts) {
    assert.throws(write, (err: unknown) => {
      assert.ok(err instanceof FakeApiError);
      assert.equal(err.code, 409);
      assert.equal(err.reason, "Conflict");
      return true;
    });
  }
  assert.equal(server.resourceVersion, before);
});
