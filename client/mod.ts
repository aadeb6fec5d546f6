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
 * @module
 */
export * from "./rest_client.ts";
export * from "./api_error.ts";
export * from "./paths.ts";
export * from "./json_lines.ts";
export * from "./http_status.ts";
export * from "./errors.ts";
export * from "./fetch_client_config.ts";
export * from "./fetch_client.ts";
export * from "./api_error_kinds.ts";
export * from "./resource_client_options.ts";
export * from "./resource_client_config_error.ts";
export * from "./resource_client.ts";
