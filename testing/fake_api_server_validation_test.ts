// What kube-apiserver refuses in a written object, refused alike over HTTP:
// a body of another type (400), values its decoder cannot read (400), and
// labels, annotation keys and data keys its validation rejects (422). The
// programmatic methods set up state as a test needs it and check none of
// this. tests/control_plane/conformance_test.ts holds the same answers
// against kube-apiserver.
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { call, type CallResult, WIDGETS } from "./_call_test.ts";

const CM = "/api/v1/namespaces/shop/configmaps";
const SECRETS = "/api/v1/namespaces/shop/secrets";
const W = "/apis/example.com/v1/namespaces/shop/widgets";
const MERGE = { "content-type": "application/merge-patch+json" };

/** Status code, reason and the fields of the causes. */
function refusal(res: CallResult) {
  return {
    code: res.status,
    reason: res.body.reason,
    causes: res.body.details?.causes?.map((c: { field: string }) => c.field),
  };
}

const badRequest = { code: 400, reason: "BadRequest", causes: undefined };
const invalid = (...causes: string[]) => ({
  code: 422,
  reason: "Invalid",
  causes,
});

Deno.test("a body of another kind or apiVersion is 400; without either it takes the URL's", async () => {
  using server = new FakeApiServer();
  const post = (body: unknown) => call(server, "POST", CM, body);
  assert.deepEqual(
    refusal(await post({ kind: "Secret", metadata: { name: "a" } })),
    badRequest,
  );
  const group = await post({
    apiVersion: "apps/v1",
    kind: "ConfigMap",
    metadata: { name: "a" },
  });
  assert.deepEqual(refusal(group), badRequest);
  assert.match(group.body.message, /apps\/v1/);
  const bare = await post({ metadata: { name: "a" } });
  assert.equal(bare.status, 201);
  assert.equal(bare.body.kind, "ConfigMap");
  const put = await call(server, "PUT", `${CM}/a`, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "a" },
  });
  assert.deepEqual(refusal(put), badRequest);
  assert.match(put.body.message, /Secret .* cannot be handled as a ConfigMap/);
  // What a patch makes of the object is decoded too: 422, the patch's fault.
  const patched = await call(server, "PATCH", `${CM}/a`, {
    kind: "Secret",
  }, MERGE);
  assert.deepEqual(refusal(patched), invalid("patch"));
  assert.equal(
    server.get("configmaps", "shop", "a").metadata.resourceVersion,
    "1",
  );
});

Deno.test("a custom resource's body must carry its apiVersion and kind: 400 without, 422 for another kind", async () => {
  using server = new FakeApiServer({ resources: [WIDGETS] });
  const post = (body: Record<string, unknown>) =>
    call(server, "POST", W, { metadata: { name: "w" }, ...body });
  assert.deepEqual(refusal(await post({})), badRequest);
  assert.deepEqual(
    refusal(await post({ apiVersion: "example.com/v1" })),
    badRequest,
  );
  assert.deepEqual(
    refusal(await post({ apiVersion: "example.com/v2", kind: "Widget" })),
    badRequest,
  );
  const other = await post({ apiVersion: "example.com/v1", kind: "Gadget" });
  assert.deepEqual(refusal(other), invalid("kind"));
  assert.deepEqual(
    { name: other.body.details.name, kind: other.body.details.kind },
    { name: "w", kind: "Gadget" },
  );
  const right = await post({ apiVersion: "example.com/v1", kind: "Widget" });
  assert.equal(right.status, 201, JSON.stringify(right.body));
});

Deno.test("labels and annotation keys are validated on every type: 422 naming metadata.labels or metadata.annotations", async () => {
  using server = new FakeApiServer({ resources: [WIDGETS] });
  const cm = (metadata: Record<string, unknown>) =>
    call(server, "POST", CM, { metadata: { name: "a", ...metadata } });
  for (
    const labels of [
      { a: "bad value" },
      { a: "-starts-with-a-dash" },
      { a: "x".repeat(64) },
      { "bad key": "x" },
      { "": "x" },
      { "Example.com/a": "x" },
      { "a/b/c": "x" },
      { [`${"x".repeat(64)}`]: "x" },
      { "/a": "x" },
    ]
  ) {
    assert.deepEqual(
      refusal(await cm({ labels })),
      invalid("metadata.labels"),
      JSON.stringify(labels),
    );
  }
  assert.deepEqual(
    refusal(await cm({ annotations: { "not/a/key": "x" } })),
    invalid("metadata.annotations"),
  );
  const widget = await call(server, "POST", W, {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w", labels: { a: "b c" } },
  });
  assert.deepEqual(refusal(widget), invalid("metadata.labels"));
  const fine = await cm({
    labels: { "example.com/a_b.c-d": "", A: "Z9", "k8s.io/x": "a.b_c-d" },
    annotations: { "Example.COM/Note": "any text at all" },
  });
  assert.equal(fine.status, 201, JSON.stringify(fine.body));
  // A PUT and a patch are validated as a create is.
  const put = await call(server, "PUT", `${CM}/a`, {
    metadata: { name: "a", labels: { a: "b c" } },
  });
  assert.deepEqual(refusal(put), invalid("metadata.labels"));
  const patched = await call(server, "PATCH", `${CM}/a`, {
    metadata: { labels: { a: "b c" } },
  }, MERGE);
  assert.deepEqual(refusal(patched), invalid("metadata.labels"));
  assert.equal(
    server.get("configmaps", "shop", "a").metadata.resourceVersion,
    "1",
  );
});

Deno.test("ConfigMap and Secret data keys are validated (422 naming the key); values of the wrong type are 400", async () => {
  using server = new FakeApiServer();
  const cm = (body: Record<string, unknown>) =>
    call(server, "POST", CM, { metadata: { name: "a" }, ...body });
  const secret = (body: Record<string, unknown>) =>
    call(server, "POST", SECRETS, { metadata: { name: "s" }, ...body });
  assert.deepEqual(
    refusal(await cm({ data: { "bad key": "x" } })),
    invalid("data[bad key]"),
  );
  assert.deepEqual(
    refusal(await cm({ data: { "..": "x" } })),
    invalid("data[..]"),
  );
  assert.deepEqual(
    refusal(await cm({ binaryData: { "a/b": "eA==" } })),
    invalid("binaryData[a/b]"),
  );
  assert.deepEqual(
    refusal(await cm({ data: { k: "x" }, binaryData: { k: "eA==" } })),
    invalid("data[k]"),
  );
  assert.deepEqual(
    refusal(
      await cm({
        metadata: { name: "a", labels: { a: "b c" } },
        data: { "a b": "x" },
      }),
    ),
    invalid("metadata.labels", "data[a b]"),
  );
  for (
    const body of [
      { data: { k: 1 } },
      { data: "k=v" },
      { binaryData: { k: "x!" } },
      { binaryData: { k: "eA=" } },
      { metadata: { name: "a", labels: { a: 1 } } },
      { metadata: { name: "a", annotations: ["a"] } },
    ]
  ) {
    assert.deepEqual(refusal(await cm(body)), badRequest, JSON.stringify(body));
  }
  assert.deepEqual(
    refusal(await secret({ data: { "bad key": "eA==" } })),
    invalid("data[bad key]"),
  );
  // stringData is folded into data first: the key is data's.
  assert.deepEqual(
    refusal(await secret({ stringData: { "bad key": "x" } })),
    invalid("data[bad key]"),
  );
  assert.deepEqual(refusal(await secret({ data: { k: "x!" } })), badRequest);
  assert.deepEqual(refusal(await secret({ data: { k: 1 } })), badRequest);
  const fine = await cm({
    data: { "key.name": "x", KEY_NAME: "y", "key-name": "z", ".dot": "" },
    binaryData: { bytes: "AAEC\r\n/w==" },
  });
  assert.equal(fine.status, 201, JSON.stringify(fine.body));
  const patched = await call(server, "PATCH", `${CM}/a`, {
    data: { k: 1 },
  }, MERGE);
  assert.deepEqual(refusal(patched), invalid("patch"));
  assert.deepEqual(server.list("secrets"), []);
});

Deno.test("the programmatic methods set up state without these checks", () => {
  using server = new FakeApiServer();
  const odd = server.create("configmaps", {
    kind: "Secret",
    metadata: { name: "a", namespace: "shop", labels: { a: "b c" } },
    data: { "a b": "x" },
  });
  assert.equal(odd.kind, "ConfigMap");
  assert.deepEqual(odd.metadata.labels, { a: "b c" });
  server.create("secrets", {
    metadata: { name: "s", namespace: "shop" },
    data: { v: "2" },
  });
  assert.deepEqual(server.get("secrets", "shop", "s").data, { v: "2" });
});

Deno.test("RBAC's objects take any name that is a path segment; others a DNS subdomain", async () => {
  using server = new FakeApiServer();
  const CR = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
  const post = (path: string, name: string) =>
    call(server, "POST", path, { metadata: { name } });
  const name = "system:team-a,b=c";
  assert.equal((await post(CR, name)).status, 201);
  assert.equal(server.get("clusterroles", "", name).metadata.name, name);
  for (const bad of ["a/b", "a%b", ".", ".."]) {
    assert.deepEqual(
      refusal(await post(CR, bad)),
      invalid("metadata.name"),
      bad,
    );
  }
  assert.deepEqual(refusal(await post(CM, name)), invalid("metadata.name"));
});

Deno.test("a wrong name comes with the causes of the labels and data, as kube-apiserver reports them all at once", async () => {
  using server = new FakeApiServer();
  const answer = await call(server, "POST", CM, {
    metadata: { name: "Bad_Name", labels: { "bad key": "x" } },
    data: { "a b": "x" },
  });
  assert.deepEqual(
    refusal(answer),
    invalid("metadata.name", "metadata.labels", "data[a b]"),
  );
  // A name alone is one cause, as before.
  assert.deepEqual(
    refusal(await call(server, "POST", CM, { metadata: { name: "Bad" } })),
    invalid("metadata.name"),
  );
});

Deno.test("an events.k8s.io/v1 Event is validated as kube-apiserver does: eventTime and type first, then the reporter, lengths in bytes, the series", async () => {
  using server = new FakeApiServer();
  const path = "/apis/events.k8s.io/v1/namespaces/shop/events";
  const valid = {
    metadata: { name: "e" },
    eventTime: "2026-01-01T12:00:00.000000Z",
    type: "Normal",
    reason: "Checked",
    action: "Checking",
    reportingController: "example.com/checker",
    reportingInstance: "checker-0",
    regarding: {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "a",
      namespace: "shop",
    },
  };
  const post = async (name: string, body: Record<string, unknown>) => {
    const answer = refusal(
      await call(server, "POST", path, {
        ...valid,
        ...body,
        metadata: { name },
      }),
    );
    return { ...answer, causes: answer.causes?.sort() };
  };
  assert.equal((await call(server, "POST", path, valid)).status, 201);
  assert.deepEqual(
    await post("bare", { eventTime: undefined, type: "Info", reason: "" }),
    invalid("eventTime", "type"),
  );
  assert.deepEqual(
    await post("no-reporter", {
      reason: "",
      action: undefined,
      reportingController: undefined,
      reportingInstance: "",
    }),
    invalid(
      "action",
      "reason",
      "reportingController",
      "reportingController",
      "reportingController",
      "reportingInstance",
    ),
  );
  assert.deepEqual(
    await post("bad-controller", { reportingController: "Not A Name" }),
    invalid("reportingController"),
  );
  assert.deepEqual(
    await post("long", {
      reason: "R".repeat(129),
      action: "A".repeat(129),
      reportingInstance: "i".repeat(129),
      note: "é".repeat(513),
    }),
    invalid("action", "message", "reason", "reportingInstance"),
  );
  assert.deepEqual(
    (await post("note-at-limit", { note: "é".repeat(512) })).code,
    201,
  );
  assert.deepEqual(
    await post("series-of-one", {
      series: { count: 1, lastObservedTime: valid.eventTime },
    }),
    invalid("series.count"),
  );
  assert.deepEqual(
    await post("no-regarding", { regarding: undefined }),
    invalid("involvedObject.namespace"),
  );
  // A merge patch that makes one invalid is refused too.
  const patched = await call(server, "PATCH", `${path}/e`, {
    series: { count: 1, lastObservedTime: valid.eventTime },
  }, MERGE);
  assert.deepEqual(refusal(patched), invalid("series.count"));
});
