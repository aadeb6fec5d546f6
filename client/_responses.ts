import { ApiError, type KubeStatus } from "./api_error.ts";
import { parseRetryAfter } from "./_retry_after.ts";
import { concatBytes } from "../_internal/_json.ts";

const ERROR_BODY_LIMIT = 64 * 1024;
/** How much of an unexpected body errors quote. */
export const PREVIEW_CHARS = 200;

/**
 * The ApiError for a non-2xx answer: its parsed `Status` when the body is
 * one, else the content type and the first characters of the body.
 * `redact` removes credentials from the body before anything quotes it.
 */
export async function apiErrorFrom(
  response: Response,
  method: string,
  path: string,
  redact: (text: string) => string,
): Promise<ApiError> {
  const contentType = response.headers.get("content-type") ?? undefined;
  const text = redact(await readPrefix(response, ERROR_BODY_LIMIT));
  let status: KubeStatus | undefined;
  if (text.trimStart().startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null) {
        status = parsed as KubeStatus;
      }
    } catch {
      // A cut or broken body is described by its preview below.
    }
  }
  const header = response.headers.get("retry-after");
  const detailSeconds = status?.details?.retryAfterSeconds;
  const retryAfterSeconds =
    (header !== null ? parseRetryAfter(header) : undefined) ??
      (typeof detailSeconds === "number" ? detailSeconds : undefined);
  const preview = text.slice(0, PREVIEW_CHARS);
  return new ApiError({
    code: response.status,
    status,
    method,
    path,
    retryAfterSeconds,
    message: status?.message || status?.reason
      ? undefined
      : `Kubernetes API answered ${response.status} for ${method} ${path} (${
        contentType || "no content type"
      }): ${preview === "" ? "empty body" : JSON.stringify(preview)}`,
  });
}

/** The messages down an error's cause chain (Deno puts the reason in `cause`). */
export function describe(error: unknown): string {
  const messages: string[] = [];
  let current = error;
  for (let depth = 0; depth < 4 && current !== undefined; depth++) {
    const message = current instanceof Error
      ? current.message
      : String(current);
    if (message && !messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(": ") || "unknown error";
}

/** Up to `limit` bytes of the body as text; the rest is cancelled. */
async function readPrefix(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Whatever arrived before the failure still describes the answer.
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return new TextDecoder().decode(concatBytes(chunks).subarray(0, limit));
}
