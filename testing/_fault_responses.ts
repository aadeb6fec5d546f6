import type { FaultAction } from "./faults.ts";
import { failure, reasonForCode, statusResponse } from "./_status.ts";
import {
  JSON_HEADERS,
  type ServerCore,
  type StreamSignals,
} from "./_request_util.ts";

const FAULT_MESSAGES: Record<number, string> = {
  429: "Too many requests, please try again later.",
  500: "Internal error occurred: injected fault",
  503: "the server is currently unable to handle the request",
};

export function faultResponse(
  action: Extract<FaultAction, { kind: "status" }>,
): Response {
  const details: Record<string, unknown> = {};
  const headers: Record<string, string> = {};
  if (action.retryAfterSeconds !== undefined) {
    details.retryAfterSeconds = action.retryAfterSeconds;
    headers["retry-after"] = String(action.retryAfterSeconds);
  }
  const status = failure(
    action.code,
    action.message ?? FAULT_MESSAGES[action.code] ??
      `injected fault ${action.code}`,
    {
      reason: action.reason ?? reasonForCode(action.code),
      details: action.retryAfterSeconds !== undefined ? details : undefined,
    },
  );
  return statusResponse(status, headers);
}

/** A response whose body never arrives, until the client aborts or the server closes. */
export function stall(core: ServerCore, signals: StreamSignals): Response {
  const { signal, closeSignal } = signals;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let done = false;
  const end = () => {
    done = true;
    core.stalls.delete(handle);
    signal?.removeEventListener("abort", onAbort);
    closeSignal?.removeEventListener("abort", onClose);
  };
  const handle = {
    close() {
      if (done) return;
      end();
      try {
        controller.close();
      } catch { /* cancelled */ }
    },
  };
  const onAbort = () => {
    if (done) return;
    end();
    try {
      controller.error(signal?.reason);
    } catch { /* cancelled */ }
  };
  const onClose = () => handle.close();
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel: end,
  });
  core.stalls.add(handle);
  signal?.addEventListener("abort", onAbort, { once: true });
  closeSignal?.addEventListener("abort", onClose, { once: true });
  if (signal?.aborted) onAbort();
  else if (closeSignal?.aborted) handle.close();
  return new Response(stream, { headers: JSON_HEADERS });
}

/** Applies a drop or truncate fault to a complete (non-watch) answer. */
export async function breakBody(
  response: Response,
  action: FaultAction,
): Promise<Response> {
  const init = { status: response.status, headers: response.headers };
  if (action.kind === "truncate") {
    const bytes = new Uint8Array(await response.arrayBuffer());
    return new Response(bytes.slice(0, Math.floor(bytes.length / 2)), init);
  }
  await response.body?.cancel();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(
        new TypeError(
          "Connection reset by the fake API server (injected fault)",
        ),
      );
    },
  });
  return new Response(body, init);
}
