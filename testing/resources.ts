import type { Gvr } from "../types.ts";

/**
 * A resource type the fake API server serves: what discovery reports and
 * how objects of it behave.
 *
 * @example A custom resource
 * ```ts
 * import { FakeApiServer, type ResourceDefinition } from "@haptic/k8s-watcher/testing";
 *
 * const backends: ResourceDefinition = {
 *   group: "example.com",
 *   version: "v1",
 *   resource: "backends",
 *   kind: "Backend",
 *   namespaced: true,
 *   shortNames: ["be"],
 *   selectableFields: ["spec.color"],
 * };
 * using server = new FakeApiServer();
 * server.registerResource(backends);
 * ```
 */
export interface ResourceDefinition {
  /** API group, `""` for the core group. */
  group: string;
  /** API version. */
  version: string;
  /** Plural resource name, e.g. `ingresses`. */
  resource: string;
  /** Kind, e.g. `Ingress`. */
  kind: string;
  /** Whether objects live in a namespace. */
  namespaced: boolean;
  /**
   * Kind of the list.
   *
   * @default {`${kind}List`}
   */
  listKind?: string;
  /**
   * Singular name.
   *
   * @default {kind.toLowerCase()}
   */
  singularName?: string;
  /** Short names, e.g. `["ing"]`. */
  shortNames?: string[];
  /** Categories, e.g. `["all"]`. */
  categories?: string[];
  /**
   * Whether and when the server keeps `metadata.generation`. It is 1 at
   * creation and bumped by a write that changes:
   *
   * - `true` (the default, as for custom resources): anything outside
   *   `metadata` and, with a status subresource, `status`;
   * - a list of dotted paths: one of these, e.g. `["spec"]`, or
   *   `["spec", "metadata.annotations"]` for Deployments.
   *
   * It is also bumped once when a delete first sets `deletionTimestamp` on
   * an object held by finalizers. `false`: no generation (ConfigMaps,
   * Secrets, Services, Leases, …).
   *
   * @default {true}
   */
  generation?: boolean | string[];
  /**
   * Whether the type has a `status` subresource. With one,
   * `/status` answers and writes to the object itself leave `status`
   * alone over HTTP (and a create over HTTP drops it), as in Kubernetes.
   * Without one, `/status` is 404 and `status` is an ordinary field.
   *
   * @default {true}
   */
  statusSubresource?: boolean;
  /**
   * Dotted paths usable in field selectors besides `metadata.name` and
   * `metadata.namespace`, e.g. `status.phase` for pods.
   */
  selectableFields?: string[];
  /**
   * Whether a PUT may leave `metadata.resourceVersion` out (not for custom
   * resources and Leases). When false, such an update is
   * refused with 422 Invalid ("must be specified for an update"), as the
   * API server does; a stale resourceVersion is always a 409 Conflict.
   *
   * @default {false}
   */
  allowUnconditionalUpdate?: boolean;
}

/**
 * A {@linkcode ResourceDefinition} with every default filled in.
 *
 * @example The definition of pods, defaults filled in
 * ```ts
 * import { FakeApiServer, type ResourceInfo } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * const pods: ResourceInfo = server.resourceInfo("po");
 * assert.equal(pods.listKind, "PodList");
 * ```
 */
export interface ResourceInfo extends Required<ResourceDefinition> {
  /** `group/version`, or just the version for the core group. */
  readonly apiVersion: string;
}

/**
 * The resources every {@linkcode FakeApiServer} serves from the start.
 *
 * @example Is a type served?
 * ```ts
 * import { builtinResources } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * assert.ok(builtinResources.some((r) => r.resource === "ingresses"));
 * ```
 */
export const builtinResources: readonly ResourceDefinition[] = [
  {
    group: "",
    version: "v1",
    resource: "pods",
    kind: "Pod",
    namespaced: true,
    shortNames: ["po"],
    categories: ["all"],
    generation: ["spec"],
    allowUnconditionalUpdate: true,
    selectableFields: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName",
    ],
  },
  {
    group: "",
    version: "v1",
    resource: "configmaps",
    kind: "ConfigMap",
    namespaced: true,
    shortNames: ["cm"],
    generation: false,
    statusSubresource: false,
    allowUnconditionalUpdate: true,
  },
  {
    group: "",
    version: "v1",
    resource: "secrets",
    kind: "Secret",
    namespaced: true,
    generation: false,
    statusSubresource: false,
    allowUnconditionalUpdate: true,
    selectableFields: ["type"],
  },
  {
    group: "",
    version: "v1",
    resource: "services",
    kind: "Service",
    namespaced: true,
    shortNames: ["svc"],
    categories: ["all"],
    generation: false,
    allowUnconditionalUpdate: true,
  },
  {
    group: "",
    version: "v1",
    resource: "endpoints",
    kind: "Endpoints",
    namespaced: true,
    shortNames: ["ep"],
    generation: false,
    statusSubresource: false,
    allowUnconditionalUpdate: true,
  },
  {
    group: "",
    version: "v1",
    resource: "namespaces",
    kind: "Namespace",
    namespaced: false,
    shortNames: ["ns"],
    generation: false,
    allowUnconditionalUpdate: true,
    selectableFields: ["status.phase"],
  },
  {
    group: "",
    version: "v1",
    resource: "nodes",
    kind: "Node",
    namespaced: false,
    shortNames: ["no"],
    generation: false,
    allowUnconditionalUpdate: true,
    selectableFields: ["spec.unschedulable"],
  },
  {
    group: "",
    version: "v1",
    resource: "events",
    kind: "Event",
    namespaced: true,
    shortNames: ["ev"],
    generation: false,
    statusSubresource: false,
    allowUnconditionalUpdate: true,
  },
  {
    // The same Events as core v1's in kube-apiserver; a table of their own
    // here (see CONFORMANCE.md).
    group: "events.k8s.io",
    version: "v1",
    resource: "events",
    kind: "Event",
    namespaced: true,
    generation: false,
    statusSubresource: false,
    allowUnconditionalUpdate: true,
  },
  {
    group: "apps",
    version: "v1",
    resource: "deployments",
    kind: "Deployment",
    namespaced: true,
    shortNames: ["deploy"],
    categories: ["all"],
    // Annotations count because the deployment controller copies them to
    // the ReplicaSets it creates.
    generation: ["spec", "metadata.annotations"],
    allowUnconditionalUpdate: true,
  },
  {
    group: "apps",
    version: "v1",
    resource: "replicasets",
    kind: "ReplicaSet",
    namespaced: true,
    shortNames: ["rs"],
    categories: ["all"],
    generation: ["spec"],
    allowUnconditionalUpdate: true,
  },
  {
    group: "apps",
    version: "v1",
    resource: "statefulsets",
    kind: "StatefulSet",
    namespaced: true,
    shortNames: ["sts"],
    categories: ["all"],
    generation: ["spec"],
    allowUnconditionalUpdate: true,
  },
  {
    group: "apps",
    version: "v1",
    resource: "daemonsets",
    kind: "DaemonSet",
    namespaced: true,
    shortNames: ["ds"],
    categories: ["all"],
    generation: ["spec"],
    allowUnconditionalUpdate: true,
  },
  {
    group: "networking.k8s.io",
    version: "v1",
    resource: "ingresses",
    kind: "Ingress",
    namespaced: true,
    shortNames: ["ing"],
    generation: ["spec"],
    allowUnconditionalUpdate: true,
  },
  {
    group: "networking.k8s.io",
    version: "v1",
    resource: "ingressclasses",
    kind: "IngressClass",
    namespaced: false,
    generation: ["spec"],
    statusSubresource: false,
    allowUnconditionalUpdate: true,
  },
  {
    group: "discovery.k8s.io",
    version: "v1",
    resource: "endpointslices",
    kind: "EndpointSlice",
    namespaced: true,
    // An EndpointSlice has no spec: its content and its labels count.
    generation: ["addressType", "endpoints", "ports", "metadata.labels"],
    statusSubresource: false,
    allowUnconditionalUpdate: true,
  },
  {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    kind: "Lease",
    namespaced: true,
    generation: false,
    statusSubresource: false,
  },
  {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    resource: "clusterroles",
    kind: "ClusterRole",
    namespaced: false,
    generation: false,
    statusSubresource: false,
    allowUnconditionalUpdate: true,
  },
];

/**
 * Something that names a resource: a {@linkcode Gvr}, or a string that is a
 * plural name (`pods`), a short name (`po`), a kind (`Pod`) or
 * `resource.group` (`ingresses.networking.k8s.io`).
 *
 * @example By name or by group, version and resource
 * ```ts
 * import type { ResourceRef } from "@haptic/k8s-watcher/testing";
 *
 * const a: ResourceRef = "configmaps";
 * const b: ResourceRef = { group: "apps", version: "v1", resource: "deployments" };
 * ```
 */
export type ResourceRef = Gvr | string;
