/**
 * An answer of the Kubernetes API as an error: {@linkcode ApiError} and the
 * `Status` it carries; {@linkcode httpStatusOf}, what a failed request of
 * any client says of its HTTP status; and the answers a reconcile handles
 * by kind: a conflict (409), a missing object (404) and an invalid object
 * (422), as subclasses of {@linkcode ApiError}, so code that catches
 * `ApiError` keeps working.
 * `ResourceClient` throws them; {@linkcode typedApiError} makes them from
 * what any `RestClient` threw.
 *
 * @module
 */
import { ResponseDecodeError } from "./errors.ts";
import { parseRetryAfter } from "./_retry_after.ts";

/**
 * A Kubernetes `Status` object, as returned with error answers and ERROR
 * watch events.
 *
 * @example The Status of an expired watch
 * ```ts
 * import type { KubeStatus } from "@haptic/k8s-watcher/client";
 *
 * const gone: KubeStatus = {
 *   kind: "Status",
 *   apiVersion: "v1",
 *   status: "Failure",
 *   reason: "Expired",
 *   message: "too old resource version: 1 (5)",
 *   code: 410,
 * };
 * ```
 */
export interface KubeStatus {
  /** Always `Status`. */
  kind?: string;
  /** Always `v1`. */
  apiVersion?: string;
  /** `Success` or `Failure`. */
  status?: string;
  /** Machine-readable reason, e.g. `NotFound`, `Expired`, `Conflict`. */
  reason?: string;
  /** Human-readable description. */
  message?: string;
  /** HTTP status code this corresponds to. */
  code?: number;
  /** Extra detail, e.g. the name and kind concerned. */
  details?: Record<string, unknown>;
  /** Object metadata (normally empty). */
  metadata?: Record<string, unknown>;
}

/**
 * Options for {@linkcode ApiError}.
 *
 * @example What a throttled request carries
 * ```ts
 * import type { ApiErrorOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: ApiErrorOptions = { code: 503, method: "GET", path: "/api/v1/pods", retryAfterSeconds: 2 };
 * ```
 */
export interface ApiErrorOptions {
  /** The HTTP status code. */
  code: number;
  /** The parsed `Status` body, when the server sent one. */
  status?: KubeStatus;
  /** The request method. */
  method?: string;
  /** The request path (never with credentials). */
  path?: string;
  /**
   * The `Retry-After` header in seconds, when present; defaults to the
   * Status's `details.retryAfterSeconds`.
   */
  retryAfterSeconds?: number;
  /** The underlying cause. */
  cause?: unknown;
  /** Overrides the generated message. */
  message?: string;
}

/**
 * A non-2xx answer from the Kubernetes API (or a Status in an ERROR watch
 * event). Carries the HTTP code and the parsed `Status`.
 *
 * @example A 404 and its reason
 * ```ts
 * import { ApiError } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const err = new ApiError({
 *   code: 404,
 *   status: { reason: "NotFound", message: 'configmaps "x" not found' },
 *   method: "GET",
 *   path: "/api/v1/namespaces/default/configmaps/x",
 * });
 * assert.equal(err.code, 404);
 * assert.equal(err.reason, "NotFound");
 * ```
 */
export class ApiError extends Error {
  /** The HTTP status code. */
  readonly code: number;
  /** The parsed `Status`, when the server sent one. */
  readonly status: KubeStatus | undefined;
  /** The request method. */
  readonly method: string | undefined;
  /** The request path. */
  readonly path: string | undefined;
  /** Seconds the server asked us to wait (`Retry-After`). */
  readonly retryAfterSeconds: number | undefined;

  /**
   * Creates the error; the message names the code, reason and request.
   *
   * @example Wrapping a RestClient's failed answer
   * ```ts
   * import { ApiError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new ApiError({
   *   code: 429,
   *   status: { reason: "TooManyRequests", details: { retryAfterSeconds: 2 } },
   *   method: "GET",
   *   path: "/api/v1/pods",
   * });
   * assert.match(err.message, /^Kubernetes API answered 429 TooManyRequests for GET \/api\/v1\/pods/);
   * assert.equal(err.retryAfterSeconds, 2); // from the Status's details
   * ```
   *
   * @param options What the server answered.
   */
  constructor(options: ApiErrorOptions) {
    const { code, status, method, path } = options;
    const where = method && path ? ` for ${method} ${path}` : "";
    const what = status?.message ? `: ${status.message}` : "";
    super(
      options.message ??
        `Kubernetes API answered ${code}${
          status?.reason ? ` ${status.reason}` : ""
        }${where}${what}`,
      { cause: options.cause },
    );
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.method = method;
    this.path = path;
    // A Status may carry the wait itself (e.g. a 429 ERROR watch event).
    const fromStatus = status?.details?.retryAfterSeconds;
    this.retryAfterSeconds = options.retryAfterSeconds ??
      (typeof fromStatus === "number" && fromStatus >= 0
        ? fromStatus
        : undefined);
  }

  /**
   * The `Status` reason, e.g. `Expired` or `NotFound`.
   *
   * @example Telling a conflict from other failures
   * ```ts
   * import { ApiError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new ApiError({ code: 409, status: { reason: "Conflict" } });
   * assert.equal(err.reason, "Conflict"); // read again and retry the update
   * assert.equal(new ApiError({ code: 502 }).reason, undefined); // no Status
   * ```
   */
  get reason(): string | undefined {
    return this.status?.reason;
  }
}

/**
 * What {@linkcode httpStatusOf} could tell about a failed request.
 *
 * @example An expired resourceVersion
 * ```ts
 * import type { HttpStatusInfo } from "@haptic/k8s-watcher/client";
 *
 * const gone: HttpStatusInfo = { code: 410, reason: "Expired" };
 * ```
 */
export interface HttpStatusInfo {
  /** The HTTP status code, when the error came from an HTTP answer. */
  code?: number;
  /** The Kubernetes `Status` reason, e.g. `Expired` or `NotFound`. */
  reason?: string;
  /** Seconds the server asked the client to wait before retrying. */
  retryAfterSeconds?: number;
}

const MAX_CAUSE_DEPTH = 5;

/**
 * Reads the HTTP status code, `Status` reason and `Retry-After` delay from an
 * error thrown by any supported client, so a retry loop can classify it:
 *
 * - this package's {@linkcode ApiError} (`code`, `reason`, `retryAfterSeconds`);
 * - `@cloudydeno/kubernetes-client`, whose errors carry `httpCode` and the
 *   parsed `Status` as `status`;
 * - a Kubernetes `Status` object itself (e.g. from an ERROR watch event);
 * - other shapes with a numeric `code`, `statusCode` or `status` and a
 *   `body`/`headers` (as `@kubernetes/client-node` throws);
 * - and, when the error itself tells nothing, its `cause` chain.
 *
 * Errors without a non-2xx answer (connection failures, aborts,
 * {@linkcode ResponseDecodeError}) give an empty object.
 *
 * @example Classifying errors from either client
 * ```ts
 * import { ApiError } from "@haptic/k8s-watcher";
 * import { httpStatusOf } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const ours = new ApiError({ code: 429, retryAfterSeconds: 3 });
 * assert.deepEqual(httpStatusOf(ours), { code: 429, retryAfterSeconds: 3 });
 *
 * // How @cloudydeno/kubernetes-client reports a non-2xx answer.
 * const theirs = Object.assign(new Error("Kubernetes returned HTTP 410 Expired"), {
 *   httpCode: 410,
 *   status: { kind: "Status", reason: "Expired", code: 410 },
 * });
 * assert.deepEqual(httpStatusOf(theirs), { code: 410, reason: "Expired" });
 *
 * assert.deepEqual(httpStatusOf(new TypeError("connection refused")), {});
 * ```
 *
 * @param error Anything a client threw (or a `Status` object).
 * @returns The code, reason and retry delay that could be found.
 */
export function httpStatusOf(error: unknown): HttpStatusInfo {
  let current = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH; depth++) {
    const info = ownStatus(current);
    if (info.code !== undefined || info.reason !== undefined) return info;
    if (!isRecord(current) || !("cause" in current)) break;
    current = current.cause;
  }
  return {};
}

function ownStatus(error: unknown): HttpStatusInfo {
  if (error instanceof ApiError) {
    return compact(error.code, error.reason, error.retryAfterSeconds);
  }
  // Its code is a 2xx: the answer came, but its body was unusable.
  if (!isRecord(error) || error instanceof ResponseDecodeError) return {};
  const status = isRecord(error.status) ? error.status : undefined;
  const body = bodyRecord(error.body);
  const code = httpCode(error.httpCode) ?? httpCode(error.code) ??
    httpCode(error.statusCode) ?? httpCode(error.status) ??
    httpCode(status?.code) ?? httpCode(body?.code);
  const reason = stringOf(error.reason) ?? stringOf(status?.reason) ??
    stringOf(body?.reason);
  const retryAfterSeconds = numberOf(error.retryAfterSeconds) ??
    retryAfterOf(error.headers) ?? numberOf(
      isRecord(status?.details) ? status.details.retryAfterSeconds : undefined,
    );
  return compact(code, reason, retryAfterSeconds);
}

function compact(
  code: number | undefined,
  reason: string | undefined,
  retryAfterSeconds: number | undefined,
): HttpStatusInfo {
  const info: HttpStatusInfo = {};
  if (code !== undefined) info.code = code;
  if (reason !== undefined) info.reason = reason;
  if (retryAfterSeconds !== undefined) {
    info.retryAfterSeconds = retryAfterSeconds;
  }
  return info;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function httpCode(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) &&
      value >= 100 && value <= 599
    ? value
    : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? value
    : undefined;
}

function bodyRecord(body: unknown): Record<string, unknown> | undefined {
  if (isRecord(body)) return body;
  if (typeof body !== "string" || !body.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function retryAfterOf(headers: unknown): number | undefined {
  let value: unknown;
  if (headers instanceof Headers) value = headers.get("retry-after");
  else if (isRecord(headers)) {
    value = headers["retry-after"] ?? headers["Retry-After"];
  }
  return typeof value === "string" ? parseRetryAfter(value) : undefined;
}

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
