// metadata.generation as the API server keeps it: 1 on create for types
// that track it, bumped by desired-state changes (not status or other
// metadata), and bumped once when a delete marks a finalized object.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import type { KubeObject } from "../types.ts";
import { SingleWatcher } from "../watcher/single.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock, waitFor } from "./fake_clock.ts";
import { mockFetch } from "./mock_fetch.ts";
import { builtinResources } from "./resources.ts";
import { call, WIDGETS } from "./_call_test.ts";

Deno.test("generation is 1 on create exactly for the types that track it", () => {
  using server = new FakeApiServer();
  const tracked: string[] = [];
  for (const def of builtinResources) {
    const obj = server.create(def, {
      metadata: { name: "x", generation: 7 },
      spec: {},
    });
    if (obj.metadata.generation !== undefined) {
      assert.equal(obj.metadata.generation, 1, def.resource);
      tracked.push(def.resource);
    }
  }
  assert.deepEqual(tracked, [
    "pods",
    "deployments",
    "replicasets",
    "statefulsets",
    "daemonsets",
    "ingresses",
    "ingressclasses",
    "endpointslices",
  ]);
  server.registerResource(WIDGETS);
  assert.equal(
    server.create("widgets", { metadata: { name: "w" } }).metadata.generation,
    1,
  );
});

Deno.test("generation: spec changes bump it; labels, status and a client's generation do not", () => {
  using server = new FakeApiServer();
  const d = server.create("deployments", {
    metadata: { name: "web" },
    spec: { replicas: 1 },
  });
  const labelled = server.patch("deployments", "default", "web", {
    metadata: { labels: { a: "b" }, generation: 42 },
  });
  assert.equal(labelled.metadata.generation, 1);
  const status = server.updateStatus("deployments", {
    ...labelled,
    status: { replicas: 1 },
  });
  assert.equal(status.metadata.generation, 1);
  const scaled = server.patch("deployments", "default", "web", {
    spec: { replicas: 2 },
  });
  assert.equal(scaled.metadata.generation, 2);
  // Deployments (only) also count annotations, which their controller
  // copies to ReplicaSets.
  const annotated = server.patch("deployments", "default", "web", {
    metadata: { annotations: { note: "x" } },
  });
  assert.equal(annotated.metadata.generation, 3);
  server.create("replicasets", { metadata: { name: "rs" }, spec: {} });
  assert.equal(
    server.patch("replicasets", "default", "rs", {
      metadata: { annotations: { note: "x" } },
    }).metadata.generation,
    1,
  );
  assert.equal(d.metadata.uid, annotated.metadata.uid);
});

Deno.test("generation of EndpointSlices follows their content and labels", () => {
  using server = new FakeApiServer();
  server.create("endpointslices", {
    metadata: { name: "s" },
    addressType: "IPv4",
    endpoints: [],
    ports: [],
  });
  const patch = (p: Record<string, unknown>) =>
    server.patch("endpointslices", "default", "s", p).metadata.generation;
  assert.equal(patch({ metadata: { annotations: { a: "1" } } }), 1);
  assert.equal(patch({ endpoints: [{ addresses: ["10.0.0.1"] }] }), 2);
  assert.equal(patch({ metadata: { labels: { a: "1" } } }), 3);
});

Deno.test("generation of custom resources: anything outside metadata, and status only without a status subresource", () => {
  using server = new FakeApiServer({
    resources: [
      WIDGETS,
      {
        ...WIDGETS,
        resource: "gadgets",
        kind: "Gadget",
        statusSubresource: false,
      },
    ],
  });
  server.create("widgets", { metadata: { name: "w" }, spec: { a: 1 } });
  const widget = (p: Record<string, unknown>) =>
    server.patch("widgets", "default", "w", p).metadata.generation;
  assert.equal(widget({ status: { ready: true } }), 1);
  assert.equal(widget({ data: { extra: 1 } }), 2, "top-level data counts");
  assert.equal(widget({ spec: { a: 2 } }), 3);

  server.create("gadgets", { metadata: { name: "g" }, spec: { a: 1 } });
  const gadget = server.patch("gadgets", "default", "g", {
    status: { ready: true },
  });
  assert.equal(gadget.metadata.generation, 2, "status is ordinary content");
  assert.throws(
    () => server.updateStatus("gadgets", gadget),
    (err: unknown) => (err as { code?: number }).code === 404,
    "no /status subresource",
  );
});

Deno.test("HTTP writes keep the status of types with a status subresource", async () => {
  using server = new FakeApiServer();
  const base = "/apis/apps/v1/namespaces/default/deployments";
  const created = await call(server, "POST", base, {
    metadata: { name: "web" },
    spec: { replicas: 1 },
    status: { replicas: 9 },
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.status, undefined, "create drops the status");
  server.updateStatus("deployments", {
    ...server.get("deployments", "default", "web"),
    status: { replicas: 1 },
  });
  const current = server.get("deployments", "default", "web");
  const put = await call(server, "PUT", `${base}/web`, {
    ...current,
    spec: { replicas: 2 },
    status: { replicas: 5 },
  });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body.status, { replicas: 1 });
  assert.equal(put.body.metadata.generation, 2);
  const patched = await call(server, "PATCH", `${base}/web`, {
    status: { replicas: 7 },
  }, { "content-type": "application/merge-patch+json" });
  assert.deepEqual(patched.body.status, { replicas: 1 });
  assert.equal(
    patched.body.metadata.resourceVersion,
    put.body.metadata.resourceVersion,
    "a write that changes nothing is no write",
  );
  const viaStatus = await call(server, "PATCH", `${base}/web/status`, {
    status: { replicas: 2 },
  }, { "content-type": "application/merge-patch+json" });
  assert.deepEqual(viaStatus.body.status, { replicas: 2 });
  assert.equal(viaStatus.body.metadata.generation, 2);
  // Types without a status subresource have no /status.
  server.create("configmaps", { metadata: { name: "c" } });
  const none = await call(
    server,
    "GET",
    "/api/v1/namespaces/default/configmaps/c/status",
  );
  assert.equal(none.status, 404);
});

Deno.test("generation is bumped once when a delete first marks an object held by finalizers", () => {
  using server = new FakeApiServer();
  server.create("deployments", {
    metadata: { name: "web", finalizers: ["example.com/cleanup"] },
    spec: { replicas: 1 },
  });
  const marked = server.delete("deployments", "default", "web");
  assert.ok(marked.metadata.deletionTimestamp);
  assert.equal(marked.metadata.generation, 2);
  const again = server.delete("deployments", "default", "web");
  assert.equal(again.metadata.generation, 2);
  assert.equal(again.metadata.resourceVersion, marked.metadata.resourceVersion);
  // Types without a generation get none.
  server.create("configmaps", {
    metadata: { name: "c", finalizers: ["example.com/cleanup"] },
  });
  const cm = server.delete("configmaps", "default", "c");
  assert.ok(cm.metadata.deletionTimestamp);
  assert.equal(cm.metadata.generation, undefined);
  // Removing the last finalizer completes the deletion.
  server.patch("deployments", "default", "web", {
    metadata: { finalizers: null },
  });
  assert.deepEqual(server.list("deployments"), []);
});

Deno.test("SingleWatcher sees a finalized Deployment marked for deletion, with its generation bumped", async () => {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  using server = new FakeApiServer({ clock, initialResourceVersion: 100 });
  using _fetch = mockFetch(server);
  server.create("deployments", {
    metadata: {
      name: "web",
      namespace: "prod",
      finalizers: ["example.com/cleanup"],
    },
    spec: { replicas: 1 },
  });
  const changes: (KubeObject | null)[] = [];
  const watcher = new SingleWatcher(
    {
      gvr: { group: "apps", version: "v1", resource: "deployments" },
      namespace: "prod",
      name: "web",
      onChange: (obj) => void changes.push(obj),
    },
    new FetchClient({ server: server.url }),
    { clock },
  );
  watcher.start();
  try {
    await watcher.waitForSync(AbortSignal.timeout(5_000));
    // A status-only write is skipped (same generation, nothing else).
    server.updateStatus("deployments", {
      ...server.get("deployments", "prod", "web"),
      status: { replicas: 1 },
    });
    server.delete("deployments", "prod", "web");
    await waitFor(() => changes.length >= 1, {
      description: "onChange for the deletion mark",
    });
    assert.equal(changes.length, 1);
    const seen = changes[0];
    assert.ok(seen?.metadata.deletionTimestamp, "deletionTimestamp is set");
    assert.equal(seen?.metadata.generation, 2);
  } finally {
    await watcher.stop();
  }
});
