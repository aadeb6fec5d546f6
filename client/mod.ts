/**
 * Kubernetes clients: the {@linkcode RestClient} contract the watchers
 * need, {@linkcode FetchClient} (explicit config, kubeconfig files with exec
 * plugins, in-cluster, kubectl, `kubectl proxy`), its errors, and the
 * pieces it is built from: API paths, {@linkcode httpStatusOf} (which
 * classifies errors of any client) and {@linkcode readJsonLines} (the
 * watch stream decoder).
 *
 * The root module exports `FetchClient`, `RestClient` and the errors worth
 * catching; import from here for the option types and the helpers.
 *
 * @example Listing ConfigMaps with the helpers
 * ```ts
 * import { collectionPath, FetchClient, httpStatusOf } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const gvr = { group: "", version: "v1", resource: "configmaps" };
 * const list = await client.performRequest({
 *   method: "GET",
 *   path: collectionPath(gvr, "shop"),
 *   expectJson: true,
 * }) as { items: unknown[] };
 * assert.equal(list.items.length, 0);
 * const missing = await client.performRequest({
 *   method: "GET",
 *   path: `${collectionPath(gvr, "shop")}/nope`,
 *   expectJson: true,
 * }).catch((error) => httpStatusOf(error));
 * assert.deepEqual(missing, { code: 404, reason: "NotFound" });
 * ```
 *
 * ## Files
 *
 * - `rest_client.ts`: the `RestClient` contract the watchers need (a structural
 *   subset of `@cloudydeno/kubernetes-client`'s); the API root of a group and
 *   version, a collection's path, an object's.
 * - `fetch_client.ts`, `fetch_client_config.ts`: `FetchClient` on `fetch`, with
 *   its options and factories: how a configuration becomes a client; how it
 *   reaches a cluster.
 * - `_request_sender.ts`: how a request goes out and its answer comes back:
 *   the credential valid now, one more try after a 401, the answer as asked
 *   for, tokens redacted from errors; a request that times out retires its
 *   pool; a streamed answer calls back when it is over; the `ApiError` of a
 *   non-2xx answer, credentials redacted from its body.
 * - `_config_sources.ts`: where a client's configuration comes from
 *   (`fromEnv`): in-cluster (the service host and port, the token (a file, so
 *   rotation is seen), CA and namespace), kubeconfig, `kubectl proxy`; the
 *   current context and configuration as kubectl sees them, by running it.
 * - `_kubeconfig.ts`: a kubeconfig file read and resolved (context, cluster,
 *   user).
 * - `_yaml.ts`, `_yaml_scalars.ts`, `_yaml_cursor.ts`: the small, strict YAML
 *   reader kubeconfig files are read with: the document and its collections;
 *   scalars in every form; the cursor over the lines, the token rules and
 *   `YamlError`.
 * - `_credentials.ts`: PEM text or base64-encoded PEM; a bearer token checked
 *   for a header, a token file re-read when it changes; credentials from an
 *   exec credential plugin, as kubectl runs them; none ever quoted in an
 *   error.
 * - `_transport.ts`: how requests leave (the global fetch,
 *   `Deno.createHttpClient`, `node:https`).
 * - `_runtime.ts`: what the client asks of the runtime (files, environment,
 *   processes): `Deno.*` on Deno, `node:` built-ins on Node and Bun.
 * - `_retry_after.ts`: a `Retry-After` header read (by `httpStatusOf` and by
 *   the sender).
 * - `_client_metrics.ts`: client-go's `rest_client_*`: requests by code,
 *   method, host; their duration; exec plugin calls.
 * - `api_error.ts`: `ApiError` and the `Status` it carries; `httpStatusOf`,
 *   what a failed request says of its HTTP status; `NotFoundError`,
 *   `ConflictError`/`AlreadyExistsError`, `InvalidError` (with the server's
 *   causes), and `typedApiError`, which maps any `ApiError` to them.
 * - `errors.ts`: the errors `FetchClient` throws besides `ApiError`: a
 *   configuration it cannot find or use, an answer it cannot decode, a
 *   connection that failed (none holds a token or key); and
 *   `ResourceClientConfigError`.
 * - `json_lines.ts`: `readJsonLines`, `readJsonLineBatches`: the NDJSON decoder
 *   of watch streams, and `JsonLinesError`.
 * - `resource_client.ts`, `resource_client_options.ts`: `ResourceClient<T>`:
 *   get, list, create, replace, patch (merge, JSON, strategic), server-side
 *   apply, delete with preconditions, the status subresource; its options and
 *   each call's.
 * - `_resource_client_plan.ts`: a resource client's options (and each call's)
 *   checked once into a frozen plan.
 *
 * @module
 */
export * from "./rest_client.ts";
export * from "./api_error.ts";
export * from "./json_lines.ts";
export * from "./errors.ts";
export * from "./fetch_client_config.ts";
export * from "./fetch_client.ts";
export * from "./resource_client_options.ts";
export * from "./resource_client.ts";
