import { ApiError } from "./api_error.ts";
import { ResponseDecodeError } from "./errors.ts";
import { parseRetryAfter } from "./_retry_after.ts";

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
