import assert from "node:assert/strict";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { ApiError } from "./api_error.ts";
import { FetchClient } from "./fetch_client.ts";
import {
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
} from "../_internal/_objects.ts";

function seeded(): FakeApiServer {
  const server = new FakeApiServer();
  for (const name of ["a", "b"]) {
    server.create("configmaps", {
      metadata: { name, namespace: "x", labels: { app: "web" } },
      data: { payload: "big" },
    });
  }
  return server;
}

const keys = (obj: object) => Object.keys(obj).sort();

Deno.test("FetchClient sends accept on a JSON request: a metadata-only LIST", async () => {
  using server = seeded();
  using _mock = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const list = await client.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/x/configmaps",
    accept: PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
    expectJson: true,
  }) as { kind: string; items: { kind: string }[] };
  assert.equal(list.kind, "PartialObjectMetadataList");
  assert.deepEqual(list.items.map(keys), [
    ["apiVersion", "kind", "metadata"],
    ["apiVersion", "kind", "metadata"],
  ]);
  const [request] = server.requests;
  assert.equal(request.verb, "list");
});

Deno.test("FetchClient sends accept on a byte stream and on a stream of JSON lines: metadata-only WATCHes", async () => {
  using server = seeded();
  using _mock = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const query = () => new URLSearchParams({ watch: "1", resourceVersion: "1" });

  const bytes = await client.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/x/configmaps",
    querystring: query(),
    accept: PARTIAL_OBJECT_METADATA_ACCEPT,
    expectStream: true,
  });
  const text = bytes.pipeThrough(new TextDecoderStream()).getReader();
  const first = JSON.parse((await text.read()).value!);
  assert.equal(first.type, "ADDED");
  assert.equal(first.object.metadata.name, "b");
  assert.deepEqual(keys(first.object), ["apiVersion", "kind", "metadata"]);
  await text.cancel();

  const lines = await client.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/x/configmaps",
    querystring: query(),
    accept: PARTIAL_OBJECT_METADATA_ACCEPT,
    expectStream: true,
    expectJson: true,
  });
  const reader = lines.getReader();
  const event = (await reader.read()).value as {
    object: { kind: string; data?: unknown };
  };
  assert.equal(event.object.kind, "PartialObjectMetadata");
  assert.equal(event.object.data, undefined);
  await reader.cancel();
  assert.equal(server.openWatchCount, 0);
});

Deno.test("FetchClient without accept gets full objects; an unservable accept is an ApiError 406", async () => {
  using server = seeded();
  using _mock = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const full = await client.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/x/configmaps/a",
    expectJson: true,
  }) as { kind: string; data: unknown };
  assert.equal(full.kind, "ConfigMap");
  assert.deepEqual(full.data, { payload: "big" });

  await assert.rejects(
    client.performRequest({
      method: "GET",
      path: "/api/v1/namespaces/x/configmaps",
      accept: "application/json;as=Widget;g=meta.k8s.io;v=v1",
      expectJson: true,
    }),
    (error: unknown) =>
      error instanceof ApiError && error.code === 406 &&
      error.reason === "NotAcceptable",
  );
});
