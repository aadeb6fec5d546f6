import assert from "node:assert/strict";
import type { JsonValue, RequestOptions, RestClient } from "./rest_client.ts";

// The contract of `@cloudydeno/kubernetes-client` (lib/contract.ts), written
// out here because JSR cannot be imported: what `autoDetectClient()` returns.
type TheirHttpMethods =
  | "GET"
  | "POST"
  | "DELETE"
  | "PUT"
  | "PATCH"
  | "OPTIONS"
  | "HEAD";
type TheirJsonPrimitive = string | number | boolean | null | undefined;
type TheirJsonValue = TheirJsonPrimitive | TheirJsonObject | TheirJsonArray;
type TheirJsonObject = { [key: string]: TheirJsonValue };
type TheirJsonArray = TheirJsonValue[];
interface TheirRequestOptions {
  method: TheirHttpMethods;
  path: string;
  querystring?: URLSearchParams;
  abortSignal?: AbortSignal;
  contentType?: string;
  bodyRaw?: Uint8Array;
  bodyJson?: TheirJsonValue;
  bodyStream?: ReadableStream<Uint8Array>;
  accept?: string;
  expectTunnel?: string[];
  expectStream?: boolean;
  expectJson?: boolean;
}
interface TheirTunnel extends Disposable {
  readonly transportProtocol: "SPDY" | "WebSocket" | "Opaque";
  readonly subProtocol: string;
  whenReady(): Promise<void>;
  close(): Promise<void>;
}
interface TheirRestClient extends Disposable {
  performRequest(
    opts: TheirRequestOptions & { expectTunnel: string[] },
  ): Promise<TheirTunnel>;
  performRequest(
    opts: TheirRequestOptions & { expectStream: true; expectJson: true },
  ): Promise<ReadableStream<TheirJsonValue>>;
  performRequest(
    opts: TheirRequestOptions & { expectStream: true },
  ): Promise<ReadableStream<Uint8Array>>;
  performRequest(
    opts: TheirRequestOptions & { expectJson: true },
  ): Promise<TheirJsonValue>;
  performRequest(opts: TheirRequestOptions): Promise<Uint8Array>;
  defaultNamespace?: string;
  close?(): void;
}

/** A hand-written client with exactly their overloads, as their classes have. */
class TheirStyleClient implements TheirRestClient {
  defaultNamespace = "team-a";
  requests: TheirRequestOptions[] = [];
  [Symbol.dispose](): void {}
  performRequest(
    opts: TheirRequestOptions & { expectTunnel: string[] },
  ): Promise<TheirTunnel>;
  performRequest(
    opts: TheirRequestOptions & { expectStream: true; expectJson: true },
  ): Promise<ReadableStream<TheirJsonValue>>;
  performRequest(
    opts: TheirRequestOptions & { expectStream: true },
  ): Promise<ReadableStream<Uint8Array>>;
  performRequest(
    opts: TheirRequestOptions & { expectJson: true },
  ): Promise<TheirJsonValue>;
  performRequest(opts: TheirRequestOptions): Promise<Uint8Array>;
  performRequest(opts: TheirRequestOptions): Promise<unknown> {
    this.requests.push(opts);
    if (opts.expectStream) {
      return Promise.resolve(
        new Blob(['{"type":"BOOKMARK"}\n']).stream(),
      );
    }
    if (opts.expectJson) return Promise.resolve({ kind: "List", items: [] });
    return Promise.resolve(new Uint8Array([1, 2]));
  }
}

Deno.test("RestClient accepts a client with @cloudydeno/kubernetes-client's overloads", async () => {
  const theirs = new TheirStyleClient();
  // The assignment is the test: it must compile without a cast.
  const ours: RestClient = theirs;
  const asContract: RestClient = theirs as TheirRestClient;
  assert.equal(asContract.defaultNamespace, "team-a");

  const list: JsonValue = await ours.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    querystring: new URLSearchParams({ limit: "500" }),
    expectJson: true,
  });
  assert.deepEqual(list, { kind: "List", items: [] });
  const stream: ReadableStream<Uint8Array> = await ours.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    querystring: new URLSearchParams({ watch: "1" }),
    expectStream: true,
  });
  assert.equal(await new Response(stream).text(), '{"type":"BOOKMARK"}\n');
  const raw: Uint8Array = await ours.performRequest({
    method: "GET",
    path: "/version",
  });
  assert.deepEqual([...raw], [1, 2]);
  assert.deepEqual(theirs.requests.map((r) => r.querystring?.toString()), [
    "limit=500",
    "watch=1",
    undefined,
  ]);
});

Deno.test("RequestOptions built by the watchers are valid for their client", () => {
  const options: RequestOptions = {
    method: "GET",
    path: "/apis/apps/v1/deployments",
    expectJson: true,
  };
  const forThem: TheirRequestOptions = options;
  assert.equal(forThem.path, options.path);
});
