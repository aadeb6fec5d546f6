import type { ResourceRegistry } from "../_registry.ts";
import { VERSION_INFO } from "./_discovery.ts";
import type { ResourceInfo } from "../resources.ts";

/**
 * The OpenAPI v3 documents for a path, or undefined when the path is not
 * one: `/openapi/v3` (the index of group-versions) and
 * `/openapi/v3/api/v1`, `/openapi/v3/apis/G/V`.
 *
 * The documents carry no schemas, only each type's PATCH operation with
 * its `x-kubernetes-group-version-kind` and a `fieldValidation` parameter.
 * That is what kubectl looks for to decide that the server validates
 * fields itself, so it skips its client-side validation (which would need
 * full schemas) without `--validate=false`. `/openapi/v2` is not served
 * (404): kubectl only falls back to it when v3 fails.
 */
export function openApi(
  segments: readonly string[],
  registry: ResourceRegistry,
): unknown {
  if (segments[0] !== "openapi" || segments[1] !== "v3") return undefined;
  const groupVersions = groupVersionsOf(registry);
  if (segments.length === 2) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const [path, resources] of groupVersions) {
      paths[path] = {
        serverRelativeURL: `/openapi/v3/${path}?hash=${
          hash(JSON.stringify(document(resources)))
        }`,
      };
    }
    return { paths };
  }
  const resources = groupVersions.get(segments.slice(2).join("/"));
  return resources ? document(resources) : undefined;
}

/** Served types by OpenAPI path: `api/v1`, `apis/apps/v1`, … */
function groupVersionsOf(
  registry: ResourceRegistry,
): Map<string, ResourceInfo[]> {
  const out = new Map<string, ResourceInfo[]>();
  for (const info of registry.all()) {
    const path = info.group === ""
      ? `api/${info.version}`
      : `apis/${info.group}/${info.version}`;
    const list = out.get(path) ?? [];
    list.push(info);
    out.set(path, list);
  }
  return out;
}

const PATCH_PARAMETERS = ["dryRun", "fieldManager", "fieldValidation"].map((
  name,
) => ({ name, in: "query", schema: { type: "string", uniqueItems: true } }));

function document(resources: readonly ResourceInfo[]): unknown {
  const paths: Record<string, unknown> = {};
  for (const info of resources) {
    const root = info.group === ""
      ? `/api/${info.version}`
      : `/apis/${info.group}/${info.version}`;
    const scope = info.namespaced ? "/namespaces/{namespace}" : "";
    paths[`${root}${scope}/${info.resource}/{name}`] = {
      patch: {
        description: `partially update the specified ${info.kind}`,
        operationId: `patch${info.kind}`,
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": {
          group: info.group,
          version: info.version,
          kind: info.kind,
        },
        parameters: PATCH_PARAMETERS,
        responses: { "200": { description: "OK" } },
      },
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: VERSION_INFO.gitVersion },
    paths,
    components: { schemas: {} },
  };
}

/** FNV-1a (32 bits) in hex: a stable tag that changes with the document. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).toUpperCase().padStart(8, "0");
}
