/**
 * Fault classification for the list-then-watch loop: what a thrown error or
 * an ERROR watch event means for the loop (expired, too large, throttled,
 * unauthorized, rejected, undecodable or just retryable), whichever client
 * threw it.
 *
 * @module
 */
import { ApiError, type KubeStatus } from "../client/api_error.ts";
import { httpStatusOf } from "../client/http_status.ts";
import { JsonLinesError } from "../client/json_lines.ts";
import type { Fault, FaultKind } from "./list_watch_notes.ts";

/** Classifies anything a client threw, ours or `@cloudydeno`'s. */
export function classifyFault(error: unknown): Fault {
  const info = httpStatusOf(error);
  const code = info.code;
  return {
    kind: kindOf(error, code),
    code,
    reason: info.reason,
    retryAfterMs: info.retryAfterSeconds === undefined
      ? undefined
      : info.retryAfterSeconds * 1000,
  };
}

function kindOf(error: unknown, code: number | undefined): FaultKind {
  if (code === 410) return "expired";
  if (isTooLarge(code, statusOf(error), messageOf(error))) return "tooLarge";
  if (code === 429) return "throttled";
  if (code === 401 || code === 403) return "unauthorized";
  // 408 Request Timeout is the server giving up, not refusing.
  if (code !== undefined && code >= 400 && code < 500 && code !== 408) {
    return "rejected";
  }
  if (error instanceof JsonLinesError) return "undecodable";
  return "retryable";
}

/**
 * "Too large resource version": the API server (or its watch cache) has not
 * seen the version yet, e.g. behind a load balancer; Kubernetes answers 504
 * Timeout with a `ResourceVersionTooLarge` cause, older versions only say so
 * in the message.
 */
function isTooLarge(
  code: number | undefined,
  status: KubeStatus | undefined,
  message: string,
): boolean {
  if (
    message.includes("Too large resource version") ||
    status?.message?.includes("Too large resource version")
  ) {
    return true;
  }
  if (code !== 504 || status?.reason !== "Timeout") return false;
  const causes = status.details?.causes;
  return Array.isArray(causes) &&
    causes.some((c) => isRecord(c) && c.reason === "ResourceVersionTooLarge");
}

/**
 * The error an ERROR watch event stands for: an {@linkcode ApiError}
 * carrying its `Status`, so that it is classified like a failed request.
 * Code 0 stands for "the event carried no code".
 */
export function errorEventError(object: unknown, path: string): ApiError {
  const status: KubeStatus = isRecord(object) ? object as KubeStatus : {};
  const code = typeof status.code === "number" ? status.code : undefined;
  const detail = [
    code === undefined ? "unknown code" : String(code),
    status.reason,
    status.message,
  ].filter(Boolean).join(" ");
  return new ApiError({
    code: code ?? 0,
    status,
    method: "GET",
    path,
    message: `Watch of ${path} sent an ERROR event: ${detail}`,
  });
}

function statusOf(error: unknown): KubeStatus | undefined {
  if (error instanceof ApiError) return error.status;
  return isRecord(error) && isRecord(error.status)
    ? error.status as KubeStatus
    : undefined;
}

/** The message of an error, or the thing itself as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
