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
import { checkDecodable } from "./_decode.ts";
import { dryRunOf, dryRunValues } from "./_dry_run.ts";
import { badRequest, deleted, failure } from "./_status.ts";
import type { DeleteOptions } from "./_store.ts";
import type { ResourceInfo } from "./resources.ts";
import {
  applyStrategicMergePatch,
  StrategicMergeError,
} from "./kubectl/_strategic_merge.ts";
import { FakeApiError } from "./fake_api_error.ts";

/** The content type of a server-side apply request. */
export const APPLY_PATCH = "application/apply-patch+yaml";

/** Applies a PATCH request of any supported content type. */
export async function patch(
  core: ServerCore,
  route: ResourceRoute,
  request: Request,
  options: { dryRun: boolean; fieldManager: string },
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
    default:
      throw unsupportedMediaType(type, builtin);
  }
  return core.store.patch(info, namespace, name!, decoded(info, change), {
    subresource,
    strict: true,
    dryRun: options.dryRun,
    fieldManager: options.fieldManager,
  });
}

/**
 * The manager of a write that names none: the first word of its
 * `User-Agent`, as kube-apiserver takes it (`Deno` for Deno's fetch).
 */
export function managerOf(request: Request, q: URLSearchParams): string {
  const given = q.get("fieldManager");
  if (given) return given;
  const agent = request.headers.get("user-agent") ?? "";
  return agent.split("/")[0].trim() || "unknown";
}

/** The object a patch makes is read as a request body would be. */
function decoded(
  info: ResourceInfo,
  change: (existing: KubeObject) => unknown,
): (existing: KubeObject) => unknown {
  return (existing) => {
    const patched = change(existing);
    checkDecodable(info, patched, "patch");
    return patched;
  };
}

function unsupportedMediaType(type: string, builtin: boolean): FakeApiError {
  const accepted = [
    "application/json-patch+json",
    "application/merge-patch+json",
    ...(builtin ? ["application/strategic-merge-patch+json"] : []),
    APPLY_PATCH,
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

/**
 * A DELETE's options: the body's `preconditions`, and `dryRun` from the
 * query or the body (kubectl sends it in the body).
 */
export async function readDeleteOptions(
  request: Request,
  q: URLSearchParams,
): Promise<DeleteOptions> {
  const text = await request.text();
  let body: unknown = {};
  if (text.trim()) {
    try {
      body = JSON.parse(text);
    } catch {
      throw new FakeApiError(badRequest("the DeleteOptions body is not JSON"));
    }
  }
  const dryRun = dryRunOf(
    [...q.getAll("dryRun"), ...dryRunValues(body)],
    "DeleteOptions",
  );
  const pre = isJsonObject(body) && isJsonObject(body.preconditions)
    ? body.preconditions
    : {};
  return {
    preconditions: {
      resourceVersion: typeof pre.resourceVersion === "string"
        ? pre.resourceVersion
        : undefined,
      uid: typeof pre.uid === "string" ? pre.uid : undefined,
    },
    dryRun,
  };
}

/**
 * Types whose DELETE answers the object, as their kube-apiserver storage
 * does (`group/resource`); every other type, custom resources included,
 * answers a `Status` once the object is gone.
 */
const DELETE_ANSWERS_OBJECT = new Set(["/pods", "/services", "/namespaces"]);

/**
 * What a DELETE answers: the object while finalizers hold it (marked with
 * a `deletionTimestamp`) or for the types above, else a `Status` of
 * success naming it.
 */
export function deleteAnswer(info: ResourceInfo, result: KubeObject): unknown {
  const finalizers = result.metadata.finalizers;
  const held = Array.isArray(finalizers) && finalizers.length > 0;
  if (held || DELETE_ANSWERS_OBJECT.has(`${info.group}/${info.resource}`)) {
    return result;
  }
  return deleted(info, result);
}
