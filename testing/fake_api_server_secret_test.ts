// Secrets: stringData is write-only, merged into data (base64) on every
// write, as the API server does.
import assert from "node:assert/strict";
import { FakeApiError } from "./fake_api_error.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { call } from "./_call_test.ts";

const BASE = "/api/v1/namespaces/default/secrets";
const b64 = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)));

Deno.test("Secret stringData is merged into data and dropped on programmatic create, update and patch", () => {
  using server = new FakeApiServer();
  const created = server.create("secrets", {
    metadata: { name: "creds" },
    data: { user: b64("admin"), password: b64("old") },
    stringData: { password: "héllo wörld", token: "t" },
  });
  assert.equal(created.stringData, undefined);
  assert.deepEqual(created.data, {
    user: b64("admin"),
    password: b64("héllo wörld"),
    token: b64("t"),
  });
  assert.deepEqual(
    server.get("secrets", "default", "creds").data,
    created.data,
    "what is stored, not only what is returned",
  );
  const updated = server.update("secrets", {
    ...created,
    stringData: { token: "u" },
  });
  assert.equal(updated.stringData, undefined);
  assert.equal((updated.data as Record<string, string>).token, b64("u"));
  const patched = server.patch("secrets", "default", "creds", {
    stringData: { extra: "x" },
  });
  assert.equal(patched.stringData, undefined);
  assert.equal((patched.data as Record<string, string>).extra, b64("x"));
  assert.equal((patched.data as Record<string, string>).token, b64("u"));
});

Deno.test("Secret stringData over HTTP: POST, PUT and every PATCH type; watchers never see it", async () => {
  using server = new FakeApiServer();
  const watch = await server.handle(
    new Request(`${server.url}${BASE}?watch=1&resourceVersion=0`),
  );
  const created = await call(server, "POST", BASE, {
    metadata: { name: "creds" },
    stringData: { a: "1" },
  });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body.data, { a: b64("1") });
  assert.equal(created.body.stringData, undefined);

  const put = await call(server, "PUT", `${BASE}/creds`, {
    ...created.body,
    stringData: { b: "2" },
  });
  assert.deepEqual(put.body.data, { a: b64("1"), b: b64("2") });
  assert.equal(put.body.stringData, undefined);

  const patches: [string, unknown, string, string][] = [
    ["application/merge-patch+json", { stringData: { c: "3" } }, "c", "3"],
    [
      "application/strategic-merge-patch+json",
      { stringData: { d: "4" } },
      "d",
      "4",
    ],
    [
      "application/json-patch+json",
      [
        { op: "add", path: "/stringData", value: { e: "5" } },
      ],
      "e",
      "5",
    ],
  ];
  for (const [type, body, key, value] of patches) {
    const res = await call(server, "PATCH", `${BASE}/creds`, body, {
      "content-type": type,
    });
    assert.equal(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.data[key], b64(value));
    assert.equal(res.body.stringData, undefined, type);
  }

  const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (text.split("\n").length <= 5) text += (await reader.read()).value;
  await reader.cancel();
  const events = text.trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(events.length, 5);
  for (const event of events) assert.equal(event.object.stringData, undefined);
});

Deno.test("Secret stringData that is not a map of strings is a 400 and stores nothing", async () => {
  using server = new FakeApiServer();
  const bad = await call(server, "POST", BASE, {
    metadata: { name: "creds" },
    stringData: { a: 1 },
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /stringData\["a"\] must be a string, got 1/);
  assert.deepEqual(server.list("secrets"), []);
  assert.throws(
    () =>
      server.create("secrets", {
        metadata: { name: "creds" },
        stringData: "nope",
      }),
    (err: unknown) => err instanceof FakeApiError && err.code === 400,
  );
  // Only Secrets fold stringData.
  const cm = server.create("configmaps", {
    metadata: { name: "c" },
    stringData: { a: "1" },
  });
  assert.deepEqual(cm.stringData, { a: "1" });
});
