import type { KubeObject } from "../types.ts";
import { jsonEqual, valueAtPath } from "./_json.ts";
import type { ResourceInfo } from "./resources.ts";

/**
 * Whether a write from `before` to `after` bumps `metadata.generation`
 * under the type's rule: the listed paths, or (`true`, the custom resource
 * rule) anything outside `metadata` and, with a status subresource,
 * `status`.
 */
export function generationChanged(
  info: ResourceInfo,
  before: KubeObject,
  after: KubeObject,
): boolean {
  const rule = info.generation;
  if (rule === false) return false;
  if (Array.isArray(rule)) {
    return rule.some((path) =>
      !jsonEqual(valueAtPath(before, path), valueAtPath(after, path))
    );
  }
  const content = (o: KubeObject) => {
    const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = o;
    if (info.statusSubresource) delete rest.status;
    return rest;
  };
  return !jsonEqual(content(before), content(after));
}
