import type { KubeObject } from "../types.ts";
import { applyJsonPatch, isJsonObject, JsonPatchError } from "./_json.ts";
import {
  readJson,
  type ResourceRoute,
  type ServerCore,
} from "./_request_util.ts";
import { badRequest, failure } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";

export async function patch(
  core: ServerCore,
  route: ResourceRoute,
  request: Request,
): Promise<KubeObject> {
  const { info, name, subresource } = route;
  const namespace = route.namespace ?? "";
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim();
  const body = await readJson(request);
  switch (type) {
    case "application/merge-patch+json":
    // Strategic merge is approximated by a merge patch: lists are replaced.
    case "application/strategic-merge-patch+json":
      return core.store.patch(info, namespace, name!, body, {
        subresource,
        strict: true,
      });
    case "application/json-patch+json": {
      const existing = core.store.get(info, namespace, name!);
      let patched: unknown;
      try {
        patched = applyJsonPatch(existing, body);
      } catch (err) {
        if (err instanceof JsonPatchError) {
          throw new FakeApiError(
            failure(
              422,
              `the server rejected our request due to an error in our request: ${err.message}`,
            ),
          );
        }
        throw err;
      }
      return core.store.update(info, patched, {
        namespace,
        name,
        owned: true,
        subresource,
        strict: true,
      });
    }
    default:
      throw new FakeApiError(failure(
        415,
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${
          JSON.stringify(type)
        })`,
      ));
  }
}

export async function readDeleteOptions(
  request: Request,
): Promise<{ resourceVersion?: string; uid?: string }> {
  const text = await request.text();
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FakeApiError(badRequest("the DeleteOptions body is not JSON"));
  }
  const pre = isJsonObject(body) && isJsonObject(body.preconditions)
    ? body.preconditions
    : {};
  return {
    resourceVersion: typeof pre.resourceVersion === "string"
      ? pre.resourceVersion
      : undefined,
    uid: typeof pre.uid === "string" ? pre.uid : undefined,
  };
}
