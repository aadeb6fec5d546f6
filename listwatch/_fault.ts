/**
 * Fault classification for the list-then-watch loop: what a thrown error or
 * an ERROR watch event means for the loop (expired, too large, throttled,
 * unauthorized, rejected, undecodable or just retryable), whichever client
 * threw it.
 *
 * A failure class is one entry of {@linkcode FAULT_CLASSES}: how it is
 * recognised and whether the loop relists on it. With its name in
 * `FaultKind` (`list_watch_types.ts`), that is all a new class needs: the
 * transition relists or backs off by the table, and the log words a class
 * it has no wording of its own for by its code and reason.
 *
 * @module
 */
import {
  ApiError,
  httpStatusOf,
  type KubeStatus,
} from "../client/api_error.ts";
import { JsonLinesError } from "../client/json_lines.ts";
import type { Fault, FaultKind } from "./list_watch_types.ts";

/** What a failure is recognised by. */
interface FaultSignals {
  readonly error: unknown;
  readonly code: number | undefined;
}

/** The `reason` label of a list a failure class starts (`k8s_watcher_lists_total`). */
export type RelistReason = "gone" | "too_large";

/** One failure class: how it is recognised, and what the loop does on it. */
interface FaultClass {
  /** Whether a failure is of this class (the first class that says so wins). */
  readonly matches: (signals: FaultSignals) => boolean;
  /**
   * When set, the loop lists again on it instead of backing off (a watch's
   * history is gone), and this is the `reason` label of that list.
   */
  readonly relist?: RelistReason;
}

/** Every failure class, in the order they are tried; `retryable` last. */
const FAULT_CLASSES: { readonly [kind in FaultKind]: FaultClass } = {
  expired: { matches: ({ code }) => code === 410, relist: "gone" },
  tooLarge: {
    matches: ({ error, code }) =>
      isTooLarge(code, statusOf(error), messageOf(error)),
    relist: "too_large",
  },
  throttled: { matches: ({ code }) => code === 429 },
  unauthorized: { matches: ({ code }) => code === 401 || code === 403 },
  // 408 Request Timeout is the server giving up, not refusing.
  rejected: {
    matches: ({ code }) =>
      code !== undefined && code >= 400 && code < 500 && code !== 408,
  },
  undecodable: { matches: ({ error }) => error instanceof JsonLinesError },
  retryable: { matches: () => true },
};

const KINDS = Object.keys(FAULT_CLASSES) as FaultKind[];

/**
 * The `reason` label of the list a fault makes the loop start, or
 * `undefined` when the loop backs off on it instead.
 */
export function relistReasonOf(fault: Fault): RelistReason | undefined {
  return FAULT_CLASSES[fault.kind].relist;
}

/** Classifies anything a client threw, ours or `@cloudydeno`'s. */
export function classifyFault(error: unknown): Fault {
  const info = httpStatusOf(error);
  const code = info.code;
  const signals = { error, code };
  return {
    kind: KINDS.find((kind) => FAULT_CLASSES[kind].matches(signals))!,
    code,
    reason: info.reason,
    retryAfterMs: info.retryAfterSeconds === undefined
      ? undefined
      : info.retryAfterSeconds * 1000,
  };
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
