// Bearer-token authentication: new FakeApiServer({ token }).
import assert from "node:assert/strict";
import { ApiError } from "../client/api_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { mockFetch } from "./mock_fetch.ts";

const UNAUTHORIZED = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};

Deno.test("FakeApiServer with a token answers 401 Unauthorized without it", async () => {
  using server = new FakeApiServer({ token: "s3cret" });
  server.create("pods", { metadata: { name: "a" } });
  const url = `${server.url}/api/v1/namespaces/default/pods`;
  for (
    const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong" },
      { authorization: "s3cret" },
      { authorization: "Basic czNjcmV0" },
    ]
  ) {
    const res = await server.handle(new Request(url, { headers }));
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.deepEqual(await res.json(), UNAUTHORIZED);
  }
  // Every path is protected, discovery and writes included, and a refused
  // write changes nothing.
  for (const path of ["/version", "/api", "/openapi/v3", "/nope"]) {
    const res = await server.handle(new Request(`${server.url}${path}`));
    assert.equal(res.status, 401, path);
    await res.body?.cancel();
  }
  const post = await server.handle(
    new Request(url, {
      method: "POST",
      body: JSON.stringify({ metadata: { name: "b" } }),
    }),
  );
  assert.equal(post.status, 401);
  await post.body?.cancel();
  assert.deepEqual(server.list("pods").map((p) => p.metadata.name), ["a"]);

  const ok = await server.handle(
    new Request(url, { headers: { authorization: "Bearer s3cret" } }),
  );
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).items.length, 1);
});

Deno.test("FakeApiServer token through mockFetch: a client with the token lists, one without gets a 401 ApiError", async () => {
  using server = new FakeApiServer({ token: "s3cret" });
  using _mock = mockFetch(server);
  server.create("configmaps", { metadata: { name: "c" } });
  const good = new FetchClient({ server: server.url, token: "s3cret" });
  const list = await good.performRequest({
    method: "GET",
    path: "/api/v1/configmaps",
    expectJson: true,
  }) as { items: unknown[] };
  assert.equal(list.items.length, 1);

  const anonymous = new FetchClient({ server: server.url });
  const err = await anonymous.performRequest({
    method: "GET",
    path: "/api/v1/configmaps",
    expectJson: true,
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, 401);
  assert.equal(err.reason, "Unauthorized");
});

Deno.test("FakeApiServer token through listen(): fetch over TCP needs it too", async () => {
  await using server = new FakeApiServer({ token: "s3cret" });
  await using listener = await server.listen();
  const anonymous = await fetch(`${listener.url}/api/v1/pods`);
  assert.equal(anonymous.status, 401);
  assert.deepEqual(await anonymous.json(), UNAUTHORIZED);
  const authorized = await fetch(`${listener.url}/api/v1/pods`, {
    headers: { authorization: "Bearer s3cret" },
  });
  assert.equal(authorized.status, 200);
  await authorized.body?.cancel();
});

Deno.test("FakeApiServer rejects an empty or non-string token", () => {
  assert.throws(() => new FakeApiServer({ token: "" }), TypeError);
  assert.throws(
    () => new FakeApiServer({ token: 42 as unknown as string }),
    /token must be a non-empty string/,
  );
});
