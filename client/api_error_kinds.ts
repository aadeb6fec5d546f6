/**
 * The answers a reconcile handles by kind: a conflict (409), a missing
 * object (404) and an invalid object (422), as subclasses of
 * {@linkcode ApiError}, so code that catches `ApiError` keeps working.
 * `ResourceClient` throws them; {@linkcode typedApiError} makes them from
 * what any `RestClient` threw.
 *
 * @module
 */
import {
  ApiError,
  type ApiErrorOptions,
  type KubeStatus,
} from "./api_error.ts";
import { httpStatusOf } from "./http_status.ts";

/**
 * A 409: the object changed since it was read (`reason` `Conflict`, e.g.
 * a stale `metadata.resourceVersion`, a failed delete precondition, or a
 * server-side apply that would take fields another manager owns), or it
 * already exists ({@linkcode AlreadyExistsError}).
 *
 * @example Read again and retry on a conflict
 * ```ts
 * import { ApiError, ConflictError } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const err = new ConflictError({ code: 409, status: { reason: "Conflict" } });
 * assert.ok(err instanceof ApiError);
 * assert.equal(err.reason, "Conflict");
 * ```
 */
export class ConflictError extends ApiError {
  /**
   * Creates the error.
   *
   * @example A stale write
   * ```ts
   * import { ConflictError } from "@haptic/k8s-watcher/client";
   *
   * const err = new ConflictError({ code: 409, method: "PUT", path: "/api/v1/namespaces/shop/configmaps/a" });
   * console.log(err.name); // "ConflictError"
   * ```
   *
   * @param options What the server answered.
   */
  constructor(options: ApiErrorOptions) {
    super(options);
    this.name = "ConflictError";
  }
}

/**
 * A 409 `AlreadyExists`: a create of a name that is taken.
 *
 * @example Creating, or taking the one that exists
 * ```ts
 * import { AlreadyExistsError, ConflictError } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const err = new AlreadyExistsError({ code: 409, status: { reason: "AlreadyExists" } });
 * assert.ok(err instanceof ConflictError);
 * ```
 */
export class AlreadyExistsError extends ConflictError {
  /**
   * Creates the error.
   *
   * @example A second create
   * ```ts
   * import { AlreadyExistsError } from "@haptic/k8s-watcher/client";
   *
   * console.log(new AlreadyExistsError({ code: 409 }).name); // "AlreadyExistsError"
   * ```
   *
   * @param options What the server answered.
   */
  constructor(options: ApiErrorOptions) {
    super(options);
    this.name = "AlreadyExistsError";
  }
}

/**
 * A 404: the object (or the resource, or its namespace) does not exist.
 *
 * @example Treating a missing object as deleted
 * ```ts
 * import { ApiError, NotFoundError } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const err = new NotFoundError({ code: 404, status: { reason: "NotFound" } });
 * assert.ok(err instanceof ApiError);
 * ```
 */
export class NotFoundError extends ApiError {
  /**
   * Creates the error.
   *
   * @example A GET of a missing ConfigMap
   * ```ts
   * import { NotFoundError } from "@haptic/k8s-watcher/client";
   *
   * console.log(new NotFoundError({ code: 404 }).name); // "NotFoundError"
   * ```
   *
   * @param options What the server answered.
   */
  constructor(options: ApiErrorOptions) {
    super(options);
    this.name = "NotFoundError";
  }
}

/**
 * One reason an object was refused (`meta.k8s.io/v1` `StatusCause`).
 *
 * @example A name that is not a DNS subdomain
 * ```ts
 * import type { StatusCause } from "@haptic/k8s-watcher/client";
 *
 * const cause: StatusCause = {
 *   field: "metadata.name",
 *   reason: "FieldValueInvalid",
 *   message: "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of …",
 * };
 * ```
 */
export interface StatusCause {
  /** The field's path, e.g. `metadata.name` or `spec.replicas`. */
  readonly field?: string;
  /** Machine-readable, e.g. `FieldValueInvalid`, `FieldValueRequired`. */
  readonly reason?: string;
  /** What is wrong with it. */
  readonly message?: string;
}

/**
 * A 422 `Invalid`: the server refused the object; {@linkcode causes}
 * says which fields and why.
 *
 * @example The field a server refused
 * ```ts
 * import { InvalidError } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const err = new InvalidError({
 *   code: 422,
 *   status: {
 *     reason: "Invalid",
 *     details: { causes: [{ field: "metadata.name", reason: "FieldValueInvalid", message: "Invalid value" }] },
 *   },
 * });
 * assert.deepEqual(err.causes.map((c) => c.field), ["metadata.name"]);
 * ```
 */
export class InvalidError extends ApiError {
  /** The server's `details.causes`; empty when it sent none. */
  readonly causes: readonly StatusCause[];

  /**
   * Creates the error; `causes` come from the Status's `details.causes`.
   *
   * @example No causes given
   * ```ts
   * import { InvalidError } from "@haptic/k8s-watcher/client";
   * import assert from "node:assert/strict";
   *
   * assert.deepEqual(new InvalidError({ code: 422 }).causes, []);
   * ```
   *
   * @param options What the server answered.
   */
  constructor(options: ApiErrorOptions) {
    super(options);
    this.name = "InvalidError";
    this.causes = Object.freeze(causesOf(options.status));
  }
}

function causesOf(status: KubeStatus | undefined): StatusCause[] {
  const causes = status?.details?.causes;
  if (!Array.isArray(causes)) return [];
  const out: StatusCause[] = [];
  for (const c of causes) {
    if (typeof c !== "object" || c === null) continue;
    const r = c as Record<string, unknown>;
    const cause: { field?: string; reason?: string; message?: string } = {};
    if (typeof r.field === "string") cause.field = r.field;
    if (typeof r.reason === "string") cause.reason = r.reason;
    if (typeof r.message === "string") cause.message = r.message;
    out.push(Object.freeze(cause));
  }
  return out;
}

/**
 * The typed error for what a `RestClient` threw: a
 * {@linkcode ConflictError} (or {@linkcode AlreadyExistsError}),
 * {@linkcode NotFoundError} or {@linkcode InvalidError} for a 409, 404 or
 * 422 from any client (read with `httpStatusOf`), another
 * {@linkcode ApiError} unchanged, and anything else as it was (a
 * connection failure, an abort). The original is the `cause` of a new
 * error.
 *
 * @example Classifying a 422 of another client
 * ```ts
 * import { InvalidError, typedApiError } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * // How @cloudydeno/kubernetes-client reports a non-2xx answer.
 * const theirs = Object.assign(new Error("HTTP 422"), {
 *   httpCode: 422,
 *   status: { kind: "Status", reason: "Invalid", code: 422, details: { causes: [{ field: "data" }] } },
 * });
 * const err = typedApiError(theirs, { method: "POST", path: "/api/v1/namespaces/shop/configmaps" });
 * assert.ok(err instanceof InvalidError);
 * assert.deepEqual(err.causes, [{ field: "data" }]);
 * ```
 *
 * @param error What the client threw.
 * @param request The request's method and path, named in the message.
 * @returns The typed error, or `error` itself.
 */
export function typedApiError(
  error: unknown,
  request: { method?: string; path?: string } = {},
): unknown {
  if (
    error instanceof ConflictError || error instanceof NotFoundError ||
    error instanceof InvalidError
  ) return error;
  const { code, reason, retryAfterSeconds } = httpStatusOf(error);
  if (code !== 404 && code !== 409 && code !== 422) return error;
  const status = statusOf(error, code, reason);
  const options: ApiErrorOptions = {
    code,
    status,
    method: error instanceof ApiError
      ? error.method ?? request.method
      : request.method,
    path: error instanceof ApiError ? error.path ?? request.path : request.path,
    retryAfterSeconds,
    cause: error,
  };
  if (code === 404) return new NotFoundError(options);
  if (code === 422) return new InvalidError(options);
  return reason === "AlreadyExists"
    ? new AlreadyExistsError(options)
    : new ConflictError(options);
}

/** The Status the error carries (its own, or a cause's), else one made of code and reason. */
function statusOf(
  error: unknown,
  code: number,
  reason: string | undefined,
): KubeStatus {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    if (typeof current !== "object" || current === null) break;
    if (current instanceof ApiError && current.status) return current.status;
    const own = current as Record<string, unknown>;
    if (own.kind === "Status") return own as KubeStatus;
    const status = own.status ?? own.body;
    if (typeof status === "object" && status !== null) {
      return status as KubeStatus;
    }
    current = own.cause;
  }
  return reason === undefined ? { code } : { code, reason };
}
