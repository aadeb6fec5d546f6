/**
 * Test helpers for code built on `@haptic/k8s-watcher`: an in-process
 * Kubernetes API server, a `fetch` mock, a fake clock and a recording logger.
 *
 * ## Built-in resources
 *
 * Every {@linkcode FakeApiServer} serves these types from the start (they
 * are {@linkcode builtinResources}). *Generation* says what bumps
 * `metadata.generation` (set to 1 on create; also bumped once when a delete
 * marks an object held by finalizers); *PUT without resourceVersion* says
 * whether an HTTP update may leave `metadata.resourceVersion` out (if not:
 * 422 Invalid). A stale resourceVersion is a 409 Conflict for every type.
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
 * | `deployments` | `apps/v1` | Deployment | yes | deploy | `spec`, `metadata.annotations` | yes | yes |
 * | `replicasets` | `apps/v1` | ReplicaSet | yes | rs | `spec` | yes | yes |
 * | `statefulsets` | `apps/v1` | StatefulSet | yes | sts | `spec` | yes | yes |
 * | `daemonsets` | `apps/v1` | DaemonSet | yes | ds | `spec` | yes | yes |
 * | `ingresses` | `networking.k8s.io/v1` | Ingress | yes | ing | `spec` | yes | yes |
 * | `ingressclasses` | `networking.k8s.io/v1` | IngressClass | no | — | `spec` | no | yes |
 * | `endpointslices` | `discovery.k8s.io/v1` | EndpointSlice | yes | — | `addressType`, `endpoints`, `ports`, `metadata.labels` | no | yes |
 * | `leases` | `coordination.k8s.io/v1` | Lease | yes | — | no | no | no |
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
  Fault,
  FaultAction,
  FaultHandle,
  FaultMatch,
  FaultVerb,
} from "./faults.ts";
export type { RequestRecord } from "./request_record.ts";
