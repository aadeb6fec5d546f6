import type { Gvr } from "../types.ts";
import {
  builtinResources,
  type ResourceDefinition,
  type ResourceInfo,
  type ResourceRef,
} from "./resources.ts";

const builtins = new WeakSet<ResourceInfo>();

/**
 * Whether a type is one of the {@linkcode builtinResources} (served as
 * compiled into Kubernetes, e.g. with strategic merge patches), rather
 * than a custom resource.
 */
export function isBuiltin(info: ResourceInfo): boolean {
  return builtins.has(info);
}

/** The registry key of a group/version/resource. */
export function gvrKey(gvr: Gvr): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

/** Fills in the defaults of a definition and checks it. */
export function resourceInfo(def: ResourceDefinition): ResourceInfo {
  if (def === null || typeof def !== "object") {
    throw new TypeError(
      `Resource definition must be an object, got ${String(def)}`,
    );
  }
  for (const field of ["version", "resource", "kind"] as const) {
    if (typeof def[field] !== "string" || def[field] === "") {
      throw new TypeError(
        `Resource definition needs a non-empty ${field}: ${
          JSON.stringify(def)
        }`,
      );
    }
  }
  if (typeof def.group !== "string") {
    throw new TypeError(
      `Resource definition needs a group ("" for the core group): ${
        JSON.stringify(def)
      }`,
    );
  }
  if (typeof def.namespaced !== "boolean") {
    throw new TypeError(
      `Resource definition needs namespaced set to true or false: ${
        JSON.stringify(def)
      }`,
    );
  }
  if (
    def.generation !== undefined && typeof def.generation !== "boolean" &&
    !(Array.isArray(def.generation) &&
      def.generation.every((p) => typeof p === "string" && p !== ""))
  ) {
    throw new TypeError(
      `Resource definition generation must be true, false or a list of field paths: ${
        JSON.stringify(def)
      }`,
    );
  }
  return Object.freeze({
    group: def.group,
    version: def.version,
    resource: def.resource,
    kind: def.kind,
    namespaced: def.namespaced,
    listKind: def.listKind ?? `${def.kind}List`,
    singularName: def.singularName ?? def.kind.toLowerCase(),
    shortNames: Object.freeze([...(def.shortNames ?? [])]) as string[],
    categories: Object.freeze([...(def.categories ?? [])]) as string[],
    generation: Array.isArray(def.generation)
      ? Object.freeze([...def.generation]) as string[]
      : def.generation ?? true,
    statusSubresource: def.statusSubresource ?? true,
    selectableFields: Object.freeze([
      ...(def.selectableFields ?? []),
    ]) as string[],
    allowUnconditionalUpdate: def.allowUnconditionalUpdate ?? false,
    apiVersion: def.group === "" ? def.version : `${def.group}/${def.version}`,
  });
}

/** The resource types a server knows, by GVR and by the names kubectl uses. */
export class ResourceRegistry {
  #byKey = new Map<string, ResourceInfo>();

  constructor(definitions: Iterable<ResourceDefinition>) {
    for (const def of definitions) this.register(def);
  }

  /** Adds (or replaces) a resource type. */
  register(def: ResourceDefinition): ResourceInfo {
    const info = resourceInfo(def);
    if (builtinResources.includes(def)) builtins.add(info);
    this.#byKey.set(gvrKey(info), info);
    return info;
  }

  /** The resource at exactly this GVR. */
  get(
    group: string,
    version: string,
    resource: string,
  ): ResourceInfo | undefined {
    return this.#byKey.get(`${group}/${version}/${resource}`);
  }

  /** Every registered resource, in registration order. */
  all(): ResourceInfo[] {
    return [...this.#byKey.values()];
  }

  /** Whether any resource is served under this group/version. */
  hasGroupVersion(group: string, version: string): boolean {
    for (const info of this.#byKey.values()) {
      if (info.group === group && info.version === version) return true;
    }
    return false;
  }

  /**
   * Resolves a resource reference; throws a `TypeError` naming it when no
   * registered resource fits.
   */
  resolve(ref: ResourceRef): ResourceInfo {
    if (typeof ref === "string") {
      const found = this.#findByName(ref);
      if (found) return found;
      throw new TypeError(
        `Unknown resource ${
          JSON.stringify(ref)
        }: register it with registerResource() first`,
      );
    }
    if (ref === null || typeof ref !== "object") {
      throw new TypeError(
        `Expected a Gvr or a resource name, got ${String(ref)}`,
      );
    }
    const info = this.get(ref.group ?? "", ref.version, ref.resource);
    if (info) return info;
    throw new TypeError(
      `Unknown resource ${
        JSON.stringify(
          gvrKey({
            group: ref.group ?? "",
            version: ref.version,
            resource: ref.resource,
          }),
        )
      }: register it with registerResource() first`,
    );
  }

  #findByName(name: string): ResourceInfo | undefined {
    const dot = name.indexOf(".");
    const base = dot < 0 ? name : name.slice(0, dot);
    const group = dot < 0 ? undefined : name.slice(dot + 1);
    const lower = base.toLowerCase();
    for (const info of this.#byKey.values()) {
      if (group !== undefined && info.group !== group) continue;
      if (
        info.resource === base || info.singularName === lower ||
        info.kind === base || info.shortNames.includes(base)
      ) return info;
    }
    return undefined;
  }
}
