import type { KubeStatus } from "../client/api_error.ts";
import type { KubeObject } from "../types.ts";
import type { ResourceInfo } from "./resources.ts";

/** A `Status` cause, as in `details.causes`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** The `Status` reason Kubernetes uses for an HTTP code. */
export function reasonForCode(code: number): string {
  return REASONS[code] ?? (code >= 500 ? "InternalError" : "BadRequest");
}

/** A failure `Status`. */
export function failure(
  code: number,
  message: string,
  options: { reason?: string; details?: Record<string, unknown> } = {},
): KubeStatus {
  const status: KubeStatus = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: options.reason ?? reasonForCode(code),
  };
  if (options.details) status.details = options.details;
  status.code = code;
  return status;
}

/** `pods`, or `deployments.apps` for a named group, as Kubernetes prints it. */
export function qualifiedResource(info: ResourceInfo): string {
  return info.group === "" ? info.resource : `${info.resource}.${info.group}`;
}

function objectDetails(
  info: ResourceInfo,
  name: string,
): Record<string, unknown> {
  const details: Record<string, unknown> = { name };
  if (info.group !== "") details.group = info.group;
  details.kind = info.resource;
  return details;
}

export function notFound(info: ResourceInfo, name: string): KubeStatus {
  return failure(404, `${qualifiedResource(info)} "${name}" not found`, {
    details: objectDetails(info, name),
  });
}

export function alreadyExists(info: ResourceInfo, name: string): KubeStatus {
  return failure(409, `${qualifiedResource(info)} "${name}" already exists`, {
    reason: "AlreadyExists",
    details: objectDetails(info, name),
  });
}

export function conflict(info: ResourceInfo, name: string): KubeStatus {
  return failure(
    409,
    `Operation cannot be fulfilled on ${
      qualifiedResource(info)
    } "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { details: objectDetails(info, name) },
  );
}

/**
 * A failed DELETE precondition (`resourceVersion` or `uid`). kube-apiserver
 * names the kind here, in the message and in `details.kind`, where other
 * conflicts name the resource.
 */
export function preconditionFailed(
  info: ResourceInfo,
  name: string,
  why: string,
): KubeStatus {
  const details: Record<string, unknown> = { name };
  if (info.group !== "") details.group = info.group;
  details.kind = info.kind;
  return failure(
    409,
    `Operation cannot be fulfilled on ${info.kind} "${name}": ${why}`,
    { details },
  );
}

/**
 * The answer to a DELETE that removed the object: a `Status` of success
 * naming it (its resource in `details.kind`, as for errors) and its uid.
 */
export function deleted(info: ResourceInfo, object: KubeObject): KubeStatus {
  const details = objectDetails(info, object.metadata.name ?? "");
  details.uid = object.metadata.uid;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details,
  };
}

export function invalid(
  kind: string,
  group: string,
  name: string,
  causes: Required<StatusCause>[],
): KubeStatus {
  const what = causes.length === 1
    ? `${causes[0].field}: ${causes[0].message}`
    : `[${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}]`;
  // An empty name is left out, as Go's omitempty does (options, lists).
  const details: Record<string, unknown> = name === "" ? {} : { name };
  if (group !== "") details.group = group;
  details.kind = kind;
  details.causes = causes;
  return failure(
    422,
    `${kind}${group ? `.${group}` : ""} "${name}" is invalid: ${what}`,
    { details },
  );
}

export function badRequest(message: string): KubeStatus {
  return failure(400, message);
}

export function methodNotAllowed(): KubeStatus {
  return failure(
    405,
    "the server does not allow this method on the requested resource",
    { details: {} },
  );
}

export function resourceNotFound(): KubeStatus {
  return failure(404, "the server could not find the requested resource", {
    details: {},
  });
}

export function tooOld(requested: number, oldest: number): KubeStatus {
  return failure(410, `too old resource version: ${requested} (${oldest})`);
}

export function tooLarge(requested: number, current: number): KubeStatus {
  return failure(
    504,
    `Too large resource version: ${requested}, current: ${current}`,
    {
      reason: "Timeout",
      details: {
        causes: [{
          reason: "ResourceVersionTooLarge",
          message: "Too large resource version",
        }],
        retryAfterSeconds: 1,
      },
    },
  );
}

export function continueExpired(inconsistentContinue?: string): KubeStatus {
  const status = failure(
    410,
    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
  );
  if (inconsistentContinue) {
    status.metadata = { continue: inconsistentContinue };
  }
  return status;
}

/** A JSON answer with the code of the `Status` and optional headers. */
export function statusResponse(
  status: KubeStatus,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(status), {
    status: status.code ?? 500,
    headers: { "content-type": "application/json", ...headers },
  });
}
