// dryRun=All: every write is checked and answered as if done, and nothing
// is stored, counted or sent to a watch (tests/control_plane/conformance_test.ts
// holds the same answers against kube-apiserver).
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { call } from "./_call_test.ts";

const CM = "/api/v1/namespaces/shop/configmaps";
const MERGE = { "content-type": "application/merge-patch+json" };

/** Opens a watch of the ConfigMaps in `shop` from now; `events()` ends it. */
async function watchFromNow(server: FakeApiServer) {
  const controller = new AbortController();
  const res = await server.handle(
    new Request(
      `${server.url}${CM}?watch=1&resourceVersion=${server.resourceVersion}`,
      { signal: controller.signal },
    ),
  );
  return {
    async events(): Promise<string[]> {
      server.closeAllWatches();
      const text = await res.text();
      return text.split("\n").filter((l) => l).map((l) => JSON.parse(l).type);
    },
  };
}

Deno.test("dryRun=All: a create answers the object without a resourceVersion and stores nothing", async () => {
  using server = new FakeApiServer();
  const watch = await watchFromNow(server);
  const created = await call(server, "POST", `${CM}?dryRun=All`, {
    metadata: { generateName: "settings-" },
    data: { mode: "fast" },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.match(created.body.metadata.name, /^settings-/);
  assert.equal(typeof created.body.metadata.uid, "string");
  assert.equal(created.body.metadata.resourceVersion, undefined);
  assert.deepEqual(created.body.data, { mode: "fast" });
  assert.deepEqual(server.list("configmaps"), []);
  assert.equal(server.resourceVersion, "0");
  assert.deepEqual(await watch.events(), []);
});

Deno.test("dryRun=All: an update, a patch and a delete answer as if done and change nothing", async () => {
  using server = new FakeApiServer();
  const stored = server.create("configmaps", {
    metadata: { name: "a", namespace: "shop" },
    data: { v: "1" },
  });
  const watch = await watchFromNow(server);
  const updated = await call(server, "PUT", `${CM}/a?dryRun=All`, {
    ...stored,
    data: { v: "2" },
  });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.deepEqual(updated.body.data, { v: "2" });
  assert.equal(updated.body.metadata.resourceVersion, "1");
  const patched = await call(
    server,
    "PATCH",
    `${CM}/a?dryRun=All`,
    { data: { v: "3" } },
    MERGE,
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.deepEqual(patched.body.data, { v: "3" });
  assert.equal(patched.body.metadata.resourceVersion, "1");
  const deleted = await call(server, "DELETE", `${CM}/a?dryRun=All`);
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  assert.equal(deleted.body.status, "Success");
  // DeleteOptions in the body, as `kubectl delete --dry-run=server` sends it.
  const fromBody = await call(server, "DELETE", `${CM}/a`, {
    dryRun: ["All"],
  });
  assert.equal(fromBody.status, 200, JSON.stringify(fromBody.body));
  const collection = await call(server, "DELETE", `${CM}?dryRun=All`);
  assert.equal(collection.status, 200, JSON.stringify(collection.body));
  assert.deepEqual(
    collection.body.items.map((i: { metadata: { name: string } }) =>
      i.metadata.name
    ),
    ["a"],
  );
  assert.deepEqual(server.get("configmaps", "shop", "a"), stored);
  assert.equal(server.resourceVersion, "1");
  assert.deepEqual(await watch.events(), []);
});

Deno.test("dryRun=All still checks the write: a duplicate, a stale resourceVersion and a missing object are refused", async () => {
  using server = new FakeApiServer();
  const stored = server.create("configmaps", {
    metadata: { name: "a", namespace: "shop" },
  });
  server.patch("configmaps", "shop", "a", { data: { v: "1" } });
  const again = await call(server, "POST", `${CM}?dryRun=All`, {
    metadata: { name: "a" },
  });
  assert.equal(again.status, 409);
  assert.equal(again.body.reason, "AlreadyExists");
  const stale = await call(server, "PUT", `${CM}/a?dryRun=All`, stored);
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, "Conflict");
  const missing = await call(server, "DELETE", `${CM}/b?dryRun=All`);
  assert.equal(missing.status, 404);
});

Deno.test("dryRun=All of an object finalizers hold answers it marked, and leaves it unmarked", async () => {
  using server = new FakeApiServer();
  const stored = server.create("configmaps", {
    metadata: { name: "a", namespace: "shop", finalizers: ["example.com/x"] },
  });
  const marked = await call(server, "DELETE", `${CM}/a?dryRun=All`);
  assert.equal(marked.status, 200, JSON.stringify(marked.body));
  assert.equal(marked.body.kind, "ConfigMap");
  assert.equal(typeof marked.body.metadata.deletionTimestamp, "string");
  assert.deepEqual(server.get("configmaps", "shop", "a"), stored);
});

Deno.test("a dryRun other than All is 422 Invalid naming the verb's options", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
  const answers = [
    await call(server, "POST", `${CM}?dryRun=Some`, {
      metadata: { name: "b" },
    }),
    await call(server, "PUT", `${CM}/a?dryRun=`, { metadata: { name: "a" } }),
    await call(server, "PATCH", `${CM}/a?dryRun=true`, {}, MERGE),
    await call(server, "DELETE", `${CM}/a?dryRun=All&dryRun=x`),
    await call(server, "DELETE", `${CM}/a`, { dryRun: ["Everything"] }),
  ];
  assert.deepEqual(
    answers.map((a) => [a.status, a.body.reason, a.body.details]),
    [
      "CreateOptions",
      "UpdateOptions",
      "PatchOptions",
      "DeleteOptions",
      "DeleteOptions",
    ].map((kind, i) => [422, "Invalid", {
      group: "meta.k8s.io",
      kind,
      causes: [{
        reason: "FieldValueNotSupported",
        field: "dryRun",
        message: `Unsupported value: ${
          JSON.stringify(
            [["Some"], [""], ["true"], ["All", "x"], [
              "Everything",
            ]][i],
          )
        }: supported values: "All"`,
      }],
    }]),
  );
  assert.equal(server.list("configmaps").length, 1);
  assert.equal(server.resourceVersion, "1");
});
