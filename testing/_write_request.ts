import type { KubeObject } from "../types.ts";
import {
  applyJsonPatch,
  applyMergePatch,
  isJsonObject,
  JsonPatchError,
} from "./_json.ts";
import { isBuiltin } from "./_registry.ts";
import {
  readJson,
  type ResourceRoute,
  type ServerCore,
} from "./_request_util.ts";
import { badRequest, failure } from "./_status.ts";
import {
  applyStrategicMergePatch,
  StrategicMergeError,
} from "./kubectl/_strategic_merge.ts";
import { FakeApiError } from "./fake_api_error.ts";

/** The content type of a server-side apply request. */
const APPLY_PATCH = "application/apply-patch+yaml";

/** Applies a PATCH request of any supported content type. */
export async function patch(
  core: ServerCore,
  route: ResourceRoute,
  request: Request,
): Promise<KubeObject> {
  const { info, name, subresource } = route;
  const namespace = route.namespace ?? "";
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim();
  const builtin = isBuiltin(info);
  let change: (existing: KubeObject) => unknown;
  switch (type) {
    case "application/merge-patch+json":
      change = mergePatcher(await readJson(request));
      break;
    case "application/strategic-merge-patch+json":
      if (!builtin) throw unsupportedMediaType(type, false);
      change = strategicPatcher(await readJson(request), info.kind);
      break;
    case "application/json-patch+json":
      change = jsonPatcher(await readJson(request));
      break;
    case APPLY_PATCH:
      throw new FakeApiError(failure(
        415,
        `server-side apply (${APPLY_PATCH}) is not supported by the fake API server: use client-side apply (kubectl apply without --server-side) or another patch type`,
      ));
    default:
      throw unsupportedMediaType(type, builtin);
  }
  return core.store.patch(info, namespace, name!, change, {
    subresource,
    strict: true,
  });
}

function unsupportedMediaType(type: string, builtin: boolean): FakeApiError {
  const accepted = [
    "application/json-patch+json",
    "application/merge-patch+json",
    ...(builtin ? ["application/strategic-merge-patch+json"] : []),
  ];
  return new FakeApiError(failure(
    415,
    `the body of the request was in an unknown format - accepted media types include: ${
      accepted.join(", ")
    } (got ${JSON.stringify(type)})`,
  ));
}

/** A JSON merge patch (RFC 7386) as a change to a stored object. */
export function mergePatcher(
  body: unknown,
): (existing: KubeObject) => unknown {
  if (!isJsonObject(body)) {
    throw new FakeApiError(
      badRequest("the patch must be a JSON object (a merge patch)"),
    );
  }
  return (existing) => applyMergePatch(existing, body);
}

function strategicPatcher(
  body: unknown,
  kind: string,
): (existing: KubeObject) => unknown {
  return (existing) => {
    try {
      return applyStrategicMergePatch(existing, body, kind);
    } catch (err) {
      if (err instanceof StrategicMergeError) {
        throw new FakeApiError(badRequest(err.message));
      }
      throw err;
    }
  };
}

function jsonPatcher(body: unknown): (existing: KubeObject) => unknown {
  return (existing) => {
    try {
      return applyJsonPatch(existing, body);
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
  };
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
