import assert from "node:assert/strict";
import { FetchClient } from "./fetch_client.ts";
import {
  AlreadyExistsError,
  ApiError,
  ConflictError,
  InvalidError,
  NotFoundError,
  typedApiError,
} from "./api_error.ts";
import { ResourceClient } from "./resource_client.ts";
import { ResourceClientConfigError } from "./errors.ts";
import type { RequestOptions, RestClient } from "./rest_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";

type ConfigMap = {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    managedFields?: { manager: string; operation: string }[];
  };
  data?: Record<string, string>;
};
type Deployment = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; generation?: number };
  spec?: {
    replicas?: number;
    template?: { spec?: { containers?: { name: string; image?: string }[] } };
  };
  status?: { replicas?: number; observedGeneration?: number };
};

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };
const DEPLOYMENTS = { group: "apps", version: "v1", resource: "deployments" };

function setup() {
  const server = new FakeApiServer();
  const fetch = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  return {
    server,
    client,
    configMaps: new ResourceClient<ConfigMap>({
      client,
      gvr: CONFIGMAPS,
      namespace: "shop",
    }),
    [Symbol.asyncDispose]: async () => {
      client.close();
      fetch[Symbol.dispose]();
      await server.close();
    },
  };
}

Deno.test("ResourceClient creates, reads, replaces, lists and deletes; each answer is the stored object", async () => {
  await using t = setup();
  const made = await t.configMaps.create({
    metadata: { name: "a", labels: { app: "web" } },
    data: { n: "1" },
  });
  assert.equal(made.metadata?.namespace, "shop");
  assert.equal(
    made.metadata?.resourceVersion,
    t.server.get("configmaps", "shop", "a").metadata.resourceVersion,
  );
  await t.configMaps.create({ metadata: { name: "b" } });
  const replaced = await t.configMaps.replace({ ...made, data: { n: "2" } });
  assert.deepEqual(replaced.data, { n: "2" });
  assert.deepEqual((await t.configMaps.get("a")).data, { n: "2" });
  const page = await t.configMaps.list({ labelSelector: "app=web" });
  assert.deepEqual(page.items.map((cm) => cm.metadata?.name), ["a"]);
  assert.equal(page.resourceVersion, String(t.server.resourceVersion));
  const byField = await t.configMaps.list({ fieldSelector: "metadata.name=b" });
  assert.deepEqual(byField.items.map((cm) => cm.metadata?.name), ["b"]);
  const first = await t.configMaps.list({ limit: 1 });
  assert.equal(first.items.length, 1);
  assert.equal(first.remainingItemCount, 1);
  const rest = await t.configMaps.list({ limit: 1, continue: first.continue });
  assert.deepEqual(rest.items.map((cm) => cm.metadata?.name), ["b"]);
  assert.equal(rest.continue, undefined);
  assert.equal(await t.configMaps.delete("a"), undefined);
  assert.deepEqual(t.server.list("configmaps").map((o) => o.metadata.name), [
    "b",
  ]);
});

Deno.test("ResourceClient's namespace: the call's, else the client's, else the object's; a LIST without one spans all namespaces", async () => {
  await using t = setup();
  const anywhere = new ResourceClient<ConfigMap>({
    client: t.client,
    gvr: CONFIGMAPS,
  });
  await anywhere.create({ metadata: { name: "a", namespace: "blog" } });
  await anywhere.create({ metadata: { name: "b" } }, { namespace: "shop" });
  await t.configMaps.create({ metadata: { name: "c", namespace: "shop" } });
  const all = await anywhere.list();
  assert.deepEqual(
    all.items.map((cm) => `${cm.metadata?.namespace}/${cm.metadata?.name}`),
    ["blog/a", "shop/b", "shop/c"],
  );
  const blog = await t.configMaps.list({ namespace: "blog" });
  assert.deepEqual(blog.items.map((cm) => cm.metadata?.name), ["a"]);
  assert.equal(
    (await anywhere.get("a", { namespace: "blog" })).data,
    undefined,
  );
});

Deno.test("ResourceClient patches by merge, JSON patch and strategic merge", async () => {
  await using t = setup();
  await t.configMaps.create({
    metadata: { name: "a", labels: { old: "yes" } },
    data: { x: "1" },
  });
  const merged = await t.configMaps.patch("a", {
    metadata: { labels: { old: null } },
    data: { y: "2" },
  });
  // A null removes the key. (The real server then omits the emptied map;
  // the fake keeps `{}`, see testing/CONFORMANCE.md.)
  assert.equal(merged.metadata?.labels?.old, undefined);
  assert.deepEqual(merged.data, { x: "1", y: "2" });
  const json = await t.configMaps.patch("a", [
    { op: "test", path: "/data/x", value: "1" },
    { op: "remove", path: "/data/x" },
  ], { type: "json" });
  assert.deepEqual(json.data, { y: "2" });
  const failed = await t.configMaps.patch("a", [
    { op: "test", path: "/data/x", value: "1" },
  ], { type: "json" }).catch((e) => e);
  assert.ok(failed instanceof InvalidError, String(failed));

  const deployments = new ResourceClient<Deployment>({
    client: t.client,
    gvr: DEPLOYMENTS,
    namespace: "shop",
  });
  await deployments.create({
    metadata: { name: "web" },
    spec: {
      template: {
        spec: {
          containers: [{ name: "web", image: "nginx:1" }, { name: "side" }],
        },
      },
    },
  });
  const strategic = await deployments.patch("web", {
    spec: {
      template: { spec: { containers: [{ name: "web", image: "nginx:2" }] } },
    },
  }, { type: "strategic" });
  assert.deepEqual(strategic.spec?.template?.spec?.containers, [
    { name: "web", image: "nginx:2" },
    { name: "side" },
  ]);
});

Deno.test("ResourceClient applies server-side: create, update, a conflict with another manager, force", async () => {
  await using t = setup();
  const config = (x: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a" },
    data: { x },
  });
  const created = await t.configMaps.apply(config("1"), {
    fieldManager: "one",
  });
  assert.deepEqual(
    created.metadata?.managedFields?.map((e) => [e.manager, e.operation]),
    [["one", "Apply"]],
  );
  assert.deepEqual(
    (await t.configMaps.apply(config("2"), { fieldManager: "one" })).data,
    { x: "2" },
  );
  const conflict = await t.configMaps.apply(config("3"), {
    fieldManager: "two",
  })
    .catch((e) => e);
  assert.ok(conflict instanceof ConflictError, String(conflict));
  assert.ok(!(conflict instanceof AlreadyExistsError));
  assert.equal(
    (t.server.get("configmaps", "shop", "a") as ConfigMap).data?.x,
    "2",
  );
  const forced = await t.configMaps.apply(config("3"), {
    fieldManager: "two",
    force: true,
  });
  assert.deepEqual(forced.data, { x: "3" });
  const dry = await t.configMaps.apply(config("4"), {
    fieldManager: "two",
    dryRun: true,
  });
  assert.deepEqual(dry.data, { x: "4" });
  assert.equal(
    (t.server.get("configmaps", "shop", "a") as ConfigMap).data?.x,
    "3",
  );
});

Deno.test("ResourceClient's status methods write the status alone; the object's writes leave it", async () => {
  await using t = setup();
  const deployments = new ResourceClient<Deployment>({
    client: t.client,
    gvr: DEPLOYMENTS,
    namespace: "shop",
  });
  const made = await deployments.create({
    metadata: { name: "web" },
    spec: { replicas: 1 },
    status: { replicas: 9 },
  });
  assert.equal(made.status, undefined);
  const replaced = await deployments.replaceStatus({
    ...made,
    spec: { replicas: 5 },
    status: { observedGeneration: 1 },
  });
  assert.deepEqual(replaced.spec, { replicas: 1 });
  assert.deepEqual(replaced.status, { observedGeneration: 1 });
  assert.equal(replaced.metadata?.generation, 1);
  const patched = await deployments.patchStatus("web", {
    status: { replicas: 2 },
  });
  assert.deepEqual(patched.status, { observedGeneration: 1, replicas: 2 });
  const applied = await deployments.applyStatus({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    status: { replicas: 3 },
  }, { fieldManager: "me" });
  assert.equal(applied.status?.replicas, 3);
  assert.equal((await deployments.getStatus("web")).status?.replicas, 3);
  const spec = await deployments.patch("web", {
    spec: { replicas: 4 },
    status: { replicas: 0 },
  });
  assert.equal(spec.status?.replicas, 3);
  assert.equal(spec.metadata?.generation, 2);
});

Deno.test("ResourceClient deletes with preconditions and answers the object while finalizers hold it", async () => {
  await using t = setup();
  const read = await t.configMaps.create({
    metadata: { name: "a", finalizers: ["example.com/cleanup"] },
  });
  await t.configMaps.patch("a", { data: { changed: "yes" } });
  const stale = await t.configMaps.delete("a", {
    preconditions: { resourceVersion: read.metadata?.resourceVersion },
  }).catch((e) => e);
  assert.ok(stale instanceof ConflictError, String(stale));
  const otherUid = await t.configMaps.delete("a", {
    preconditions: { uid: "not-this-one" },
  }).catch((e) => e);
  assert.ok(otherUid instanceof ConflictError, String(otherUid));
  const dry = await t.configMaps.delete("a", { dryRun: true });
  assert.ok(dry?.metadata?.deletionTimestamp);
  assert.equal(
    t.server.get("configmaps", "shop", "a").metadata.deletionTimestamp,
    undefined,
  );
  const held = await t.configMaps.delete("a", {
    preconditions: { uid: read.metadata?.uid },
    propagationPolicy: "Foreground",
    gracePeriodSeconds: 0,
  });
  assert.ok(held?.metadata?.deletionTimestamp);
  await t.configMaps.patch("a", { metadata: { finalizers: null } });
  await assert.rejects(t.configMaps.get("a"), NotFoundError);
});

Deno.test("ResourceClient's errors: 404 NotFoundError, 409 AlreadyExistsError and ConflictError, 422 InvalidError with causes; all ApiErrors", async () => {
  await using t = setup();
  const missing = await t.configMaps.get("nope").catch((e) => e);
  assert.ok(missing instanceof NotFoundError && missing instanceof ApiError);
  assert.equal(missing.code, 404);
  assert.equal(missing.method, "GET");
  assert.equal(missing.path, "/api/v1/namespaces/shop/configmaps/nope");
  assert.ok(missing.cause instanceof ApiError);
  const read = await t.configMaps.create({ metadata: { name: "a" } });
  const taken = await t.configMaps.create({ metadata: { name: "a" } })
    .catch((e) => e);
  assert.ok(
    taken instanceof AlreadyExistsError && taken instanceof ConflictError,
  );
  assert.equal(taken.reason, "AlreadyExists");
  await t.configMaps.replace({ ...read, data: { n: "1" } });
  const stale = await t.configMaps.replace({ ...read, data: { n: "2" } })
    .catch((e) => e);
  assert.ok(
    stale instanceof ConflictError && !(stale instanceof AlreadyExistsError),
  );
  const invalid = await t.configMaps.create({
    metadata: { name: "Not_A_Name" },
  })
    .catch((e) => e);
  assert.ok(invalid instanceof InvalidError, String(invalid));
  assert.deepEqual(invalid.causes.map((c) => c.field), ["metadata.name"]);
  assert.equal(invalid.causes[0].reason, "FieldValueInvalid");
  assert.match(invalid.causes[0].message ?? "", /RFC 1123/);
  const noManager = await t.server.handle(
    new Request(`${t.server.url}/api/v1/namespaces/shop/configmaps/a`, {
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml" },
      body: "{}",
    }),
  );
  assert.equal(noManager.status, 422);
  await noManager.body?.cancel();
});

Deno.test("ResourceClient's errors from another client: the same classes, from the error's code and Status", async () => {
  const status = {
    kind: "Status",
    code: 422,
    reason: "Invalid",
    details: { causes: [{ field: "data", reason: "FieldValueInvalid" }] },
  };
  const other = {
    performRequest(_opts: RequestOptions) {
      return Promise.reject(
        Object.assign(new Error("HTTP 422"), { httpCode: 422, status }),
      );
    },
  } as RestClient;
  const cms = new ResourceClient<ConfigMap>({ client: other, gvr: CONFIGMAPS });
  const err = await cms.get("a", { namespace: "x" }).catch((e) => e);
  assert.ok(err instanceof InvalidError);
  assert.deepEqual(err.causes, [{
    field: "data",
    reason: "FieldValueInvalid",
  }]);
  assert.equal(err.path, "/api/v1/namespaces/x/configmaps/a");
  // A failure without an answer passes through as it was.
  const refused = new TypeError("connection refused");
  assert.equal(typedApiError(refused), refused);
  const unavailable = new ApiError({ code: 503 });
  assert.equal(typedApiError(unavailable), unavailable);
});

Deno.test("ResourceClient sends what the options say: dryRun=All, fieldManager, force, DeleteOptions, the patch content type", async () => {
  const seen: RequestOptions[] = [];
  const recorder = {
    performRequest(opts: RequestOptions) {
      seen.push(opts);
      return Promise.resolve({ kind: "ConfigMap", metadata: { name: "a" } });
    },
  } as unknown as RestClient;
  const cms = new ResourceClient<ConfigMap>({
    client: recorder,
    gvr: CONFIGMAPS,
    namespace: "shop",
  });
  await cms.create({ metadata: { name: "a" } }, {
    dryRun: true,
    fieldManager: "me",
  });
  await cms.apply({ metadata: { name: "a" } }, {
    fieldManager: "me",
    force: true,
  });
  await cms.patch("a", { data: {} }, { type: "strategic" });
  await cms.delete("a", {
    preconditions: { uid: "u", resourceVersion: "7" },
    propagationPolicy: "Orphan",
    dryRun: true,
  });
  assert.deepEqual(
    seen.map((o) => [
      o.method,
      o.path,
      o.querystring?.toString(),
      o.contentType,
      o.bodyJson,
    ]),
    [
      [
        "POST",
        "/api/v1/namespaces/shop/configmaps",
        "dryRun=All&fieldManager=me",
        undefined,
        { metadata: { name: "a" } },
      ],
      [
        "PATCH",
        "/api/v1/namespaces/shop/configmaps/a",
        "fieldManager=me&force=true",
        "application/apply-patch+yaml",
        { metadata: { name: "a" } },
      ],
      [
        "PATCH",
        "/api/v1/namespaces/shop/configmaps/a",
        "",
        "application/strategic-merge-patch+json",
        { data: {} },
      ],
      [
        "DELETE",
        "/api/v1/namespaces/shop/configmaps/a",
        "dryRun=All",
        undefined,
        {
          apiVersion: "v1",
          kind: "DeleteOptions",
          preconditions: { uid: "u", resourceVersion: "7" },
          propagationPolicy: "Orphan",
        },
      ],
    ],
  );
});

Deno.test("ResourceClient refuses wrong options before anything is sent, naming the option", () => {
  const never = {
    performRequest() {
      throw new Error("nothing may be sent");
    },
  } as unknown as RestClient;
  const wrong = (fn: () => unknown, component: string, field: string) =>
    assert.throws(
      fn,
      (e: unknown) =>
        e instanceof ResourceClientConfigError && e.component === component &&
        e.field === field,
    );
  wrong(
    // @ts-expect-error: a typo
    () => new ResourceClient({ client: never, gvr: CONFIGMAPS, namespac: "x" }),
    "ResourceClient",
    "namespac",
  );
  wrong(
    () =>
      new ResourceClient({
        client: never,
        gvr: { ...CONFIGMAPS, resource: "" },
      }),
    "ResourceClient",
    "gvr.resource",
  );
  wrong(
    // @ts-expect-error: not a client
    () => new ResourceClient({ client: {}, gvr: CONFIGMAPS }),
    "ResourceClient",
    "client",
  );
  assert.match(
    String(
      (() => {
        try {
          // @ts-expect-error: a typo
          new ResourceClient({ client: never, gvr: CONFIGMAPS, namespac: "x" });
        } catch (e) {
          return (e as Error).message;
        }
      })(),
    ),
    /^Invalid ResourceClient options: namespac: is not a ResourceClient option \(did you mean namespace\?\)$/,
  );
});

Deno.test("ResourceClient's calls refuse wrong options with a rejected promise, naming the call", async () => {
  const never = {
    performRequest() {
      throw new Error("nothing may be sent");
    },
  } as unknown as RestClient;
  const cms = new ResourceClient<ConfigMap>({ client: never, gvr: CONFIGMAPS });
  const wrong = async (p: Promise<unknown>, component: string, field: string) =>
    await assert.rejects(
      p,
      (e: unknown) =>
        e instanceof ResourceClientConfigError && e.component === component &&
        e.field === field,
    );
  await wrong(
    // @ts-expect-error: fieldManager is required
    cms.apply({ metadata: { name: "a" } }, {}),
    "ResourceClient.apply",
    "fieldManager",
  );
  await wrong(
    cms.apply({ metadata: {} }, { fieldManager: "me" }),
    "ResourceClient.apply",
    "config.metadata.name",
  );
  await wrong(cms.get(""), "ResourceClient.get", "name");
  await wrong(
    // @ts-expect-error: not a list option
    cms.list({ labelSelectr: "a=b" }),
    "ResourceClient.list",
    "labelSelectr",
  );
  await wrong(cms.list({ limit: 0 }), "ResourceClient.list", "limit");
  await wrong(
    // @ts-expect-error: not a patch type
    cms.patch("a", {}, { type: "yaml" }),
    "ResourceClient.patch",
    "type",
  );
  await wrong(
    cms.patch("a", [], { type: "merge" }),
    "ResourceClient.patch",
    "patch",
  );
  await wrong(
    cms.patch("a", {}, { type: "json" }),
    "ResourceClient.patch",
    "patch",
  );
  await wrong(
    cms.delete("a", { preconditions: { uid: "" } }),
    "ResourceClient.delete",
    "preconditions.uid",
  );
  await wrong(
    // @ts-expect-error: not a policy
    cms.delete("a", { propagationPolicy: "Later" }),
    "ResourceClient.delete",
    "propagationPolicy",
  );
  await wrong(
    cms.replaceStatus({ metadata: {} }),
    "ResourceClient.replaceStatus",
    "obj.metadata.name",
  );
});
