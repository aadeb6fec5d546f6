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
  /** Kind of the list (default `<kind>List`). */
  listKind?: string;
  /** Singular name (default the kind in lowercase). */
  singularName?: string;
  /** Short names, e.g. `["ing"]`. */
  shortNames?: string[];
  /** Categories, e.g. `["all"]`. */
  categories?: string[];
  /**
   * Whether the server keeps `metadata.generation` (default true): 1 at
   * creation, bumped when `spec` changes (or, for types without `spec`, any
   * field other than `metadata` and `status`).
   */
  generation?: boolean;
  /**
   * Dotted paths usable in field selectors besides `metadata.name` and
   * `metadata.namespace`, e.g. `status.phase` for pods.
   */
  selectableFields?: string[];
}

/**
 * A {@linkcode ResourceDefinition} with every default filled in.
 *
 * @example
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
 * @example
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
  },
  {
    group: "",
    version: "v1",
    resource: "secrets",
    kind: "Secret",
    namespaced: true,
    generation: false,
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
  },
  {
    group: "",
    version: "v1",
    resource: "endpoints",
    kind: "Endpoints",
    namespaced: true,
    shortNames: ["ep"],
    generation: false,
  },
  {
    group: "",
    version: "v1",
    resource: "namespaces",
    kind: "Namespace",
    namespaced: false,
    shortNames: ["ns"],
    generation: false,
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
  },
  {
    group: "apps",
    version: "v1",
    resource: "deployments",
    kind: "Deployment",
    namespaced: true,
    shortNames: ["deploy"],
    categories: ["all"],
  },
  {
    group: "apps",
    version: "v1",
    resource: "replicasets",
    kind: "ReplicaSet",
    namespaced: true,
    shortNames: ["rs"],
    categories: ["all"],
  },
  {
    group: "apps",
    version: "v1",
    resource: "statefulsets",
    kind: "StatefulSet",
    namespaced: true,
    shortNames: ["sts"],
    categories: ["all"],
  },
  {
    group: "apps",
    version: "v1",
    resource: "daemonsets",
    kind: "DaemonSet",
    namespaced: true,
    shortNames: ["ds"],
    categories: ["all"],
  },
  {
    group: "networking.k8s.io",
    version: "v1",
    resource: "ingresses",
    kind: "Ingress",
    namespaced: true,
    shortNames: ["ing"],
  },
  {
    group: "networking.k8s.io",
    version: "v1",
    resource: "ingressclasses",
    kind: "IngressClass",
    namespaced: false,
  },
  {
    group: "discovery.k8s.io",
    version: "v1",
    resource: "endpointslices",
    kind: "EndpointSlice",
    namespaced: true,
  },
  {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    kind: "Lease",
    namespaced: true,
    generation: false,
  },
];

/**
 * Something that names a resource: a {@linkcode Gvr}, or a string that is a
 * plural name (`pods`), a short name (`po`), a kind (`Pod`) or
 * `resource.group` (`ingresses.networking.k8s.io`).
 *
 * @example
 * ```ts
 * import type { ResourceRef } from "@haptic/k8s-watcher/testing";
 *
 * const a: ResourceRef = "configmaps";
 * const b: ResourceRef = { group: "apps", version: "v1", resource: "deployments" };
 * ```
 */
export type ResourceRef = Gvr | string;
