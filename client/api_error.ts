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
