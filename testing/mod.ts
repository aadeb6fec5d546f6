/**
 * Test helpers for code built on `@haptic/k8s-watcher`: an in-process
 * Kubernetes API server, a `fetch` mock, a fake clock and a recording logger.
 *
 * ## Behaving like an API server
 *
 * Where a controller's tests could tell the difference, the fake answers as
 * kube-apiserver does:
 *
 * - **Optimistic concurrency**: a PUT, a PATCH (of any type, a
 *   resourceVersion it sets is a precondition), a write to `/status` or a
 *   DELETE precondition with a stale `metadata.resourceVersion` is refused
 *   with 409 `Conflict` and changes nothing. A PUT without one is refused
 *   with 422 `Invalid` for Leases and custom resources. The programmatic
 *   `update()` may leave it out for any type.
 * - **Generation**: see the table below; a client's `metadata.generation`
 *   is ignored.
 * - **Status subresource**: over HTTP, a create drops `status` and a write
 *   to the object keeps the stored one; only `/status` changes it. (The
 *   programmatic `create()` and `update()` take the status as given, to set
 *   up state.)
 * - **Secrets**: `stringData` is merged into `data` (base64 of its UTF-8
 *   bytes, overriding keys) and dropped on every write.
 * - **What a write may hold**: over HTTP, a body of another `kind` or
 *   `apiVersion` than the URL's is 400 (a custom resource's must name
 *   both; another kind is 422), as is a label, annotation or data value of
 *   the wrong type (a Secret's data not in base64); an invalid label key or
 *   value, annotation key, or ConfigMap or Secret data key is 422 `Invalid`
 *   naming the field (`metadata.labels`, `data[key]`). Other fields are not
 *   checked, and fields a type does not have are kept.
 * - **Dry runs**: `dryRun=All` on a create, update, patch or delete (in the
 *   query, or a DELETE's body) checks and answers the write as if done,
 *   and stores nothing: no new resourceVersion, no watch event.
 * - **DELETE** answers a `Status` of success naming the object (`details`:
 *   name, resource, uid); Pods, Services and Namespaces, and an object its
 *   finalizers hold, answer the object. A failed precondition is 409
 *   `Conflict` naming the kind.
 * - **Pages**: a LIST page with more to follow says how many
 *   (`remainingItemCount`) when no selector is given; `limit` zero or
 *   negative is no limit.
 * - **Authentication**: `new FakeApiServer({ token })` answers 401
 *   `Unauthorized` to any request without `Authorization: Bearer <token>`.
 * - **Patches**: `application/merge-patch+json` (RFC 7386) and
 *   `application/json-patch+json` (RFC 6902) for every type;
 *   `application/strategic-merge-patch+json` for built-in types only (415
 *   for custom resources, as in Kubernetes), with the directives kubectl
 *   sends (`$patch`, `$retainKeys`, `$setElementOrder/…`,
 *   `$deleteFromPrimitiveList/…`). A list merges by key when the patch
 *   names the key in `$setElementOrder` or it is a known one (containers,
 *   init and ephemeral containers, volumes, env and volume mounts by name or
 *   path, container ports, Service ports, owner references, conditions,
 *   finalizers); other lists are replaced, as in a merge patch.
 * - **Server-side apply** (`application/apply-patch+yaml`, a JSON or YAML
 *   body): `fieldManager` is required (422 against `PatchOptions`); the
 *   object is created when absent (201), else the configuration is merged
 *   in (lists by the keys above, `metadata.finalizers` as a set, others
 *   atomic), the fields the manager applied before and no longer applies
 *   are removed unless another manager owns them, and a field another
 *   manager owns with another value is a 409 `Conflict` with a
 *   `FieldManagerConflict` cause per field, unless `force=true` takes it.
 *   Ownership is kept in `metadata.managedFields` (`FieldsV1`) once an
 *   object was applied; a later create, update or patch passes the fields
 *   it changes to its manager's `Update` entry (`fieldManager`, else the
 *   first word of the `User-Agent`). The `status` subresource applies the
 *   status alone.
 * - **Media types**: `Accept` is negotiated as kube-apiserver does (clauses
 *   by `q`, then in order). `as=PartialObjectMetadataList` (lists) and
 *   `as=PartialObjectMetadata` (watches, objects, write answers) of
 *   `meta.k8s.io` `v1` or `v1beta1` answer only `apiVersion`, `kind` and
 *   `metadata`; the singular kind on a list, or the list kind on an object,
 *   is 406 (a watch falls back to full objects); `as=Table` renders tables.
 *   Only JSON is written: an `Accept` with nothing the fake can serve
 *   (YAML, protobuf, an unknown `as=`) is 406 `NotAcceptable`.
 * - **kubectl** against {@linkcode FakeApiServer.listen}, without extra
 *   flags: `get` (tables, `-w`, `--chunk-size`), `apply -f` (create, then
 *   client-side apply: strategic merge patches for built-in types, merge
 *   patches for custom resources), `apply --server-side` (with
 *   `--force-conflicts`), `delete`. The
 *   server serves OpenAPI v3 documents without schemas whose PATCH
 *   operations list `fieldValidation`, so kubectl leaves validation to the
 *   server and needs no `--validate=false`; the fake does not check
 *   unknown fields (`fieldValidation` is accepted and ignored).
 *   `/openapi/v2` is 404.
 *   kubectl sends a kubeconfig's token only over HTTPS: pass `tls` to
 *   `listen()` to test a token with kubectl.
 *
 * ## Faults and reactors
 *
 * `injectFault` arms the faults a watch meets (a status such as 503 with
 * `Retry-After`, a dropped or truncated stream, a stalled answer) for the
 * next matching requests. Any other answer is a {@linkcode Reactor}: a
 * match on verb, resource, namespace and name, and a `react(call)` that
 * returns a `Response`, the server's own answer changed (`call.serve()`,
 * with a {@linkcode WatchTap} to rewrite, end or error a watch's stream),
 * a hang (`call.hold()`), or `undefined` to pass it on. A fault is one
 * reactor ({@linkcode faultReactor}); the first reactor that answers a
 * request is the only one that does.
 *
 * ```ts
 * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * server.injectFault({ namespace: "locked", kind: "status", code: 403, times: Infinity });
 * server.addReactor({
 *   verb: "watch",
 *   react: (call) => call.serve({ watch: { sent: (stream) => stream.lines >= 1 && stream.end() } }),
 * });
 * const res = await server.handle(new Request(`${server.url}/api/v1/namespaces/locked/pods`));
 * assert.equal(res.status, 403);
 * await res.body?.cancel();
 * ```
 *
 * ## Built-in resources
 *
 * Every {@linkcode FakeApiServer} serves these types from the start (they
 * are {@linkcode builtinResources}). *Generation* says what bumps
 * `metadata.generation` (set to 1 on create; also bumped once when a delete
 * marks an object held by finalizers; Pods keep one as since Kubernetes
 * 1.33). *PUT without resourceVersion* says whether an HTTP update may
 * leave `metadata.resourceVersion` out (if not: 422 Invalid). A stale
 * resourceVersion is a 409 Conflict for every type.
 *
 * | Resource | Group/version | Kind | Namespaced | Short names | Generation | Status subresource | PUT without resourceVersion |
 * | --- | --- | --- | --- | --- | --- | --- | --- |
 * | `pods` | `v1` | Pod | yes | po | `spec` | yes | yes |
 * | `configmaps` | `v1` | ConfigMap | yes | cm | no | no | yes |
 * | `secrets` | `v1` | Secret | yes | — | no | no | yes |
 * | `services` | `v1` | Service | yes | svc | no | yes | yes |
 * | `endpoints` | `v1` | Endpoints | yes | ep | no | no | yes |
 * | `namespaces` | `v1` | Namespace | no | ns | no | yes | yes |
 * | `nodes` | `v1` | Node | no | no | no | yes | yes |
 * | `events` | `v1` | Event | yes | ev | no | no | yes |
 * | `events` | `events.k8s.io/v1` | Event | yes | — | no | no | yes |
 * | `deployments` | `apps/v1` | Deployment | yes | deploy | `spec`, `metadata.annotations` | yes | yes |
 * | `replicasets` | `apps/v1` | ReplicaSet | yes | rs | `spec` | yes | yes |
 * | `statefulsets` | `apps/v1` | StatefulSet | yes | sts | `spec` | yes | yes |
 * | `daemonsets` | `apps/v1` | DaemonSet | yes | ds | `spec` | yes | yes |
 * | `ingresses` | `networking.k8s.io/v1` | Ingress | yes | ing | `spec` | yes | yes |
 * | `ingressclasses` | `networking.k8s.io/v1` | IngressClass | no | — | `spec` | no | yes |
 * | `endpointslices` | `discovery.k8s.io/v1` | EndpointSlice | yes | — | `addressType`, `endpoints`, `ports`, `metadata.labels` | no | yes |
 * | `leases` | `coordination.k8s.io/v1` | Lease | yes | — | no | no | no |
 * | `clusterroles` | `rbac.authorization.k8s.io/v1` | ClusterRole | no | — | no | no | yes |
 *
 * ## Custom resources
 *
 * Serve another type (a CRD, or a built-in type missing above) by passing
 * a {@linkcode ResourceDefinition} in the `resources` option or to
 * {@linkcode FakeApiServer.registerResource}. It appears in discovery (so
 * kubectl knows it) and can be listed, watched and written at once. The
 * defaults are those of a custom resource: a generation bumped by any
 * change outside `metadata` and `status`, a status subresource, and no PUT
 * without a resourceVersion.
 *
 * ```ts
 * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer({
 *   resources: [{
 *     group: "example.com",
 *     version: "v1",
 *     resource: "backends",
 *     kind: "Backend",
 *     namespaced: true,
 *     shortNames: ["be"],
 *     selectableFields: ["spec.color"],
 *   }],
 * });
 * const be = server.create("be", { metadata: { name: "blue" }, spec: { color: "blue" } });
 * assert.equal(be.apiVersion, "example.com/v1");
 * assert.equal(be.metadata.generation, 1);
 * const res = await server.handle(new Request(
 *   `${server.url}/apis/example.com/v1/backends?fieldSelector=spec.color%3Dblue`,
 * ));
 * assert.equal((await res.json()).items.length, 1);
 * ```
 *
 * ## Files
 *
 * The fake's main parts (not every file of the folder is named here):
 * - `fake_api_server.ts`, `_routes.ts`: the fake's state and programmatic
 *   writes; a request routed, recorded, authenticated, then to the reactors.
 * - `reactor.ts`, `_reactors.ts`: the fake's one extension point: the first
 *   `Reactor` that answers a request does, or the fake itself.
 * - `faults.ts`, `fault_reactor.ts`, `_fault_responses.ts`: `injectFault`'s
 *   faults (status, drop, truncate, stall) as ready-made reactors.
 * - `_store.ts`, `_history.ts`, `_watch.ts`: objects under one resourceVersion,
 *   the bounded history, one open watch (its `WatchTap`).
 * - `_list_request.ts`, `_watch_request.ts`, `_write_request.ts`: LIST (pages,
 *   continue tokens), WATCH (initial events, bookmarks), writes and what a
 *   DELETE answers.
 * - `_shard_selector.ts`: `shardSelector` as kube-apiserver 1.37.2 with
 *   `ShardedListAndWatch` reads it (the fake's `shardedListAndWatch`), its 500s
 *   in that server's words.
 * - `_decode.ts`, `_validation.ts`, `_dry_run.ts`: what a written body must be
 *   to be read (400), what validation refuses (422); `dryRun=All`, answered and
 *   not stored.
 * - `_apply_request.ts`, `_managed_fields.ts`: server-side apply: create or
 *   merge, fields a manager stopped applying removed, conflicts (409) and
 *   `force`; `managedFields` kept per manager.
 * - `fake_clock.ts`, `mock_fetch.ts`, `recording_logger.ts`: `FakeClock`,
 *   `mockFetch`, `RecordingLogger`.
 * - `kubectl/`: kubectl's view of the fake: discovery, OpenAPI v3, Table
 *   rendering, strategic merge.
 * - `control_plane/` (`./testing/control-plane`): `ControlPlane`, a real etcd
 *   and kube-apiserver on loopback, binary discovery, its errors (see its
 *   module doc).
 *
 * @module
 */
export * from "./fake_clock.ts";
export * from "./recording_logger.ts";
export { FakeApiServer } from "./fake_api_server.ts";
export type {
  FakeApiListener,
  FakeApiServerOptions,
} from "./fake_api_server.ts";
export { FakeApiError } from "./fake_api_error.ts";
export { mockFetch } from "./mock_fetch.ts";
export { builtinResources } from "./resources.ts";
export type {
  ResourceDefinition,
  ResourceInfo,
  ResourceRef,
} from "./resources.ts";
export type {
  FakeApiFault,
  FaultAction,
  FaultHandle,
  FaultMatch,
  FaultVerb,
} from "./faults.ts";
export { faultReactor } from "./fault_reactor.ts";
export type {
  FakeWatchStream,
  Reactor,
  ReactorCall,
  ReactorHandle,
  ReactorVerb,
  WatchTap,
} from "./reactor.ts";
export type { RequestRecord } from "./request_record.ts";
