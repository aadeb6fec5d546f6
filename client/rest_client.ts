/**
 * The client contract: a structural subset of `@cloudydeno/kubernetes-client`'s
 * `RestClient`, so `await autoDetectClient()` from that package can be passed
 * to the watchers unchanged; and the API paths its requests go to (a group
 * version's root, a collection, a named object).
 *
 * @module
 */
import type { Meter } from "../metrics/meter.ts";
import type { Gvr } from "../types.ts";

/**
 * HTTP methods a Kubernetes API request may use.
 *
 * @example A method
 * ```ts
 * import type { HttpMethod } from "@haptic/k8s-watcher/client";
 *
 * const method: HttpMethod = "GET";
 * ```
 */
export type HttpMethod =
  | "GET"
  | "POST"
  | "DELETE"
  | "PUT"
  | "PATCH"
  | "OPTIONS"
  | "HEAD";

/**
 * Any JSON value. `undefined` is included (as `JSON.stringify` drops it, and
 * as `@cloudydeno/kubernetes-client` declares it) so that package's clients
 * stay assignable to {@linkcode RestClient}.
 *
 * @example A parsed JSON body
 * ```ts
 * import type { JsonValue } from "@haptic/k8s-watcher/client";
 *
 * const value: JsonValue = { items: [1, "two", null, true] };
 * ```
 */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * One request. The watchers put every parameter in `querystring`, never in
 * `path`, never set `contentType`, and set `accept` only to ask for the
 * metadata-only form (see `accept`).
 *
 * @example One LIST page as JSON
 * ```ts
 * import type { RequestOptions } from "@haptic/k8s-watcher/client";
 *
 * const list: RequestOptions = {
 *   method: "GET",
 *   path: "/api/v1/namespaces/default/configmaps",
 *   querystring: new URLSearchParams({ limit: "500" }),
 *   expectJson: true,
 * };
 * ```
 */
export interface RequestOptions {
  /** HTTP method. */
  method: HttpMethod;
  /** Absolute API path without a query string. */
  path: string;
  /** Query parameters. */
  querystring?: URLSearchParams;
  /** Aborts the request and any stream it returned. */
  abortSignal?: AbortSignal;
  /** Content type of the body, when one is sent. */
  contentType?: string;
  /** A raw body. */
  bodyRaw?: Uint8Array;
  /** A JSON body. */
  bodyJson?: JsonValue;
  /** A streamed body. */
  bodyStream?: ReadableStream<Uint8Array>;
  /**
   * The `Accept` header, replacing the client's default
   * (`application/json` when `expectJson` is set). A metadata-only request
   * asks for
   * `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`
   * (LIST) or `…as=PartialObjectMetadata…` (WATCH, GET); the API server then
   * sends only `apiVersion`, `kind` and `metadata`.
   *
   * `FetchClient` sends it on every request: JSON, byte stream or stream of
   * JSON lines. Of `@cloudydeno/kubernetes-client`'s clients, the
   * kubeconfig-based one (in-cluster, kubeconfig, `kubectl proxy`) sends it
   * as given, and `KubectlRawRestClient` (the last resort of
   * `autoDetectClient()`, running `kubectl get --raw`) cannot set headers:
   * it rejects any request that has `accept`. A client that drops the
   * header instead gets full objects. Callers must therefore accept full
   * objects where they asked for the metadata-only form, and reduce them to
   * `apiVersion`, `kind` and `metadata` themselves.
   */
  accept?: string;
  /**
   * Called when the request goes out, once the client has what it needs
   * to send it (a token file read, an exec credential plugin's run), each
   * time it is sent: a deadline for the answer starts there, not at the
   * call. A client that calls it says so with
   * {@linkcode RestClient.callsOnSent}.
   */
  onSent?: () => void;
  /** Return the response body as a byte stream. */
  expectStream?: boolean;
  /** Parse the response body as JSON. */
  expectJson?: boolean;
}

/**
 * What the watchers need from a Kubernetes client. `FetchClient` implements
 * it; so does `@cloudydeno/kubernetes-client`'s `autoDetectClient()` result.
 * A watcher never closes a client it was given.
 *
 * @example A client answering from memory
 * ```ts
 * import type { RestClient } from "@haptic/k8s-watcher";
 * import type { RequestOptions } from "@haptic/k8s-watcher/client";
 *
 * const client = {
 *   defaultNamespace: "default",
 *   performRequest(opts: RequestOptions) {
 *     const list = { kind: "List", metadata: { resourceVersion: "1" }, items: [] };
 *     return Promise.resolve(opts.expectJson ? list : new Uint8Array());
 *   },
 * } as RestClient;
 * ```
 */
export interface RestClient {
  /**
   * Sends one request; a stream of bytes.
   *
   * @example Streaming a body
   * ```ts
   * import { FetchClient, type RestClient } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using fetchClient = new FetchClient({ server: server.url });
   * const client: RestClient = fetchClient; // or any other implementation
   * const body = await client.performRequest({ method: "GET", path: "/version", expectStream: true });
   * assert.ok(JSON.parse(await new Response(body).text()).major);
   * ```
   */
  performRequest(
    opts: RequestOptions & { expectStream: true; expectJson?: false },
  ): Promise<ReadableStream<Uint8Array>>;
  /**
   * Sends one request; the body parsed as JSON.
   *
   * @example Creating an object, then listing as JSON
   * ```ts
   * import { FetchClient, type RestClient } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using fetchClient = new FetchClient({ server: server.url });
   * const client: RestClient = fetchClient; // or any other implementation
   * await client.performRequest({
   *   method: "POST",
   *   path: "/api/v1/namespaces/shop/configmaps",
   *   bodyJson: { metadata: { name: "settings" }, data: { mode: "fast" } },
   *   expectJson: true,
   * });
   * const list = await client.performRequest({
   *   method: "GET",
   *   path: "/api/v1/namespaces/shop/configmaps",
   *   expectJson: true,
   * }) as { items: { metadata: { name: string } }[] };
   * assert.deepEqual(list.items.map((cm) => cm.metadata.name), ["settings"]);
   * ```
   */
  performRequest(
    opts: RequestOptions & { expectJson: true; expectStream?: false },
  ): Promise<JsonValue>;
  /**
   * Sends one request; the raw body.
   *
   * @example The raw bytes
   * ```ts
   * import { FetchClient, type RestClient } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using fetchClient = new FetchClient({ server: server.url });
   * const client: RestClient = fetchClient; // or any other implementation
   * const raw = await client.performRequest({ method: "GET", path: "/version" });
   * assert.ok(raw.length > 0);
   * ```
   */
  performRequest(opts: RequestOptions): Promise<Uint8Array>;
  /** The namespace to use when a watcher asks for `namespacedWatch`. */
  defaultNamespace?: string;
  /**
   * Whether `performRequest` calls `RequestOptions.onSent` when the
   * request goes out (`FetchClient` does). The watchers then time the
   * first byte of an answer from there, so an exec credential plugin's run
   * does not count against `firstByteTimeoutMs`; with any other client
   * they time it from the call.
   */
  readonly callsOnSent?: boolean;
  /**
   * Where the metrics of what is built on this client go, unless given
   * their own: every `Watcher` and `SingleWatcher` (and the streams they
   * share), `ListWatch`, `LeaderElector`, and a `DebounceGroup` without a
   * meter that a watcher of the client feeds. `FetchClient` has the one
   * given in its options, so one meter set there reaches all of them.
   * Optional: a client without it measures nothing of its own, and what is
   * built on it only with its own `meter` option.
   */
  readonly meter?: Meter;
  /**
   * The API server's base URL (`https://10.0.0.1:6443`), when the client
   * knows it (`FetchClient` does). Named where a request got no answer
   * (`FirstByteTimeoutError`), which says which server is silent.
   */
  readonly server?: string;
}

/**
 * The API root of a group/version: `/api/v1` for the core group,
 * `/apis/GROUP/VERSION` otherwise.
 *
 * @example Core and named API groups
 * ```ts
 * import { groupVersionPath } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * assert.equal(groupVersionPath({ group: "", version: "v1", resource: "pods" }), "/api/v1");
 * assert.equal(groupVersionPath({ group: "apps", version: "v1", resource: "deployments" }), "/apis/apps/v1");
 * ```
 *
 * @param gvr The resource.
 * @returns The path, without a trailing slash.
 */
export function groupVersionPath(gvr: Gvr): string {
  return gvr.group === ""
    ? `/api/${encodeURIComponent(gvr.version)}`
    : `/apis/${encodeURIComponent(gvr.group)}/${
      encodeURIComponent(gvr.version)
    }`;
}

/**
 * The path to list or watch a collection: in one namespace, or across all
 * namespaces (and for cluster-scoped resources) when `namespace` is empty.
 *
 * @example A namespace's collection and all namespaces
 * ```ts
 * import { collectionPath } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const ingresses = { group: "networking.k8s.io", version: "v1", resource: "ingresses" };
 * assert.equal(collectionPath(ingresses, "web"), "/apis/networking.k8s.io/v1/namespaces/web/ingresses");
 * assert.equal(collectionPath(ingresses), "/apis/networking.k8s.io/v1/ingresses");
 * ```
 *
 * @param gvr The resource.
 * @param namespace A namespace, or `""`/`undefined` for all.
 * @returns The path.
 */
export function collectionPath(gvr: Gvr, namespace?: string): string {
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${groupVersionPath(gvr)}${ns}/${encodeURIComponent(gvr.resource)}`;
}

/**
 * The path of one named object.
 *
 * @example One Secret
 * ```ts
 * import { objectPath } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const secrets = { group: "", version: "v1", resource: "secrets" };
 * assert.equal(objectPath(secrets, "haptic", "creds"), "/api/v1/namespaces/haptic/secrets/creds");
 * ```
 *
 * @param gvr The resource.
 * @param namespace The namespace, or `""` for a cluster-scoped object.
 * @param name The object name.
 * @returns The path.
 */
export function objectPath(gvr: Gvr, namespace: string, name: string): string {
  return `${collectionPath(gvr, namespace)}/${encodeURIComponent(name)}`;
}
