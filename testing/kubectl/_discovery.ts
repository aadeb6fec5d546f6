import type { ResourceRegistry } from "../_registry.ts";
import type { ResourceInfo } from "../resources.ts";

const VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** What `/version` reports. */
export const VERSION_INFO = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-fake",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2024-12-11T00:00:00Z",
  goVersion: "go1.23.0",
  compiler: "gc",
  platform: "linux/amd64",
};

/**
 * The discovery document for a path, or undefined when the path is not a
 * discovery path: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/G`,
 * `/apis/G/V`.
 */
export function discovery(
  segments: readonly string[],
  registry: ResourceRegistry,
  host: string,
): unknown {
  const [root, a, b] = segments;
  if (segments.length === 1 && root === "version") return VERSION_INFO;
  if (root === "api") {
    if (segments.length === 1) {
      return {
        kind: "APIVersions",
        versions: versionsOf(registry, ""),
        serverAddressByClientCIDRs: [{
          clientCIDR: "0.0.0.0/0",
          serverAddress: host,
        }],
      };
    }
    if (segments.length === 2 && registry.hasGroupVersion("", a)) {
      return resourceList(registry, "", a);
    }
    return undefined;
  }
  if (root === "apis") {
    if (segments.length === 1) {
      return {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: groupsOf(registry).map((g) => apiGroup(registry, g, false)),
      };
    }
    if (segments.length === 2 && groupsOf(registry).includes(a)) {
      return apiGroup(registry, a, true);
    }
    if (segments.length === 3 && a !== "" && registry.hasGroupVersion(a, b)) {
      return resourceList(registry, a, b);
    }
  }
  return undefined;
}

function groupsOf(registry: ResourceRegistry): string[] {
  const groups: string[] = [];
  for (const info of registry.all()) {
    if (info.group !== "" && !groups.includes(info.group)) {
      groups.push(info.group);
    }
  }
  return groups;
}

function versionsOf(registry: ResourceRegistry, group: string): string[] {
  const versions: string[] = [];
  for (const info of registry.all()) {
    if (info.group === group && !versions.includes(info.version)) {
      versions.push(info.version);
    }
  }
  return versions;
}

function apiGroup(
  registry: ResourceRegistry,
  group: string,
  typed: boolean,
): Record<string, unknown> {
  const versions = versionsOf(registry, group).map((version) => ({
    groupVersion: `${group}/${version}`,
    version,
  }));
  return {
    ...(typed ? { kind: "APIGroup", apiVersion: "v1" } : {}),
    name: group,
    versions,
    preferredVersion: versions[0],
  };
}

function resourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): Record<string, unknown> {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group === "" ? version : `${group}/${version}`,
    resources: registry.all()
      .filter((r) => r.group === group && r.version === version)
      .flatMap((r) =>
        r.statusSubresource ? [apiResource(r), statusResource(r)] : [
          apiResource(r),
        ]
      ),
  };
}

function apiResource(info: ResourceInfo): Record<string, unknown> {
  const resource: Record<string, unknown> = {
    name: info.resource,
    singularName: info.singularName,
    namespaced: info.namespaced,
    kind: info.kind,
    verbs: VERBS,
  };
  if (info.shortNames.length > 0) resource.shortNames = info.shortNames;
  if (info.categories.length > 0) resource.categories = info.categories;
  return resource;
}

function statusResource(info: ResourceInfo): Record<string, unknown> {
  return {
    name: `${info.resource}/status`,
    singularName: "",
    namespaced: info.namespaced,
    kind: info.kind,
    verbs: ["get", "patch", "update"],
  };
}
