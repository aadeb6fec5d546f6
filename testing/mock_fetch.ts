import type { FakeApiServer } from "./fake_api_server.ts";

const servers = new Map<string, FakeApiServer>();
let originalFetch: typeof fetch | undefined;

/**
 * Replaces `globalThis.fetch` so that requests to `server.url` are answered
 * by `server.handle`; requests to any other origin fail with a `TypeError`
 * naming the URL. Disposing restores the original `fetch` (once every mock
 * is disposed, when several servers are mocked at once).
 *
 * The request's `signal` is honoured: aborting before the answer rejects
 * the fetch, and aborting later errors the body stream and ends the watch
 * on the server side.
 *
 * @example fetch answered by the fake server
 * ```ts
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * server.create("pods", { metadata: { name: "web", namespace: "default" } });
 * {
 *   using _mock = mockFetch(server);
 *   const res = await fetch(`${server.url}/api/v1/pods`);
 *   assert.deepEqual((await res.json()).items.map((p: { metadata: { name: string } }) => p.metadata.name), ["web"]);
 * }
 * // fetch is the real one again here
 * ```
 *
 * @param server The server to answer with.
 * @returns A handle whose disposal restores `fetch`.
 * @throws {Error} When a server with the same URL is already mocked.
 */
export function mockFetch(server: FakeApiServer): Disposable {
  const origin = new URL(server.url).origin;
  if (servers.has(origin)) {
    throw new Error(
      `mockFetch is already answering ${origin}: dispose of the first mock before mocking again`,
    );
  }
  servers.set(origin, server);
  if (originalFetch === undefined) {
    originalFetch = globalThis.fetch;
    globalThis.fetch = mockedFetch;
  }
  let disposed = false;
  return {
    [Symbol.dispose]() {
      if (disposed) return;
      disposed = true;
      servers.delete(origin);
      if (servers.size === 0 && originalFetch !== undefined) {
        globalThis.fetch = originalFetch;
        originalFetch = undefined;
      }
    },
  };
}

async function mockedFetch(
  input: RequestInfo | URL,
  init?: RequestInit,
): Promise<Response> {
  const request = new Request(input, init);
  const origin = new URL(request.url).origin;
  const server = servers.get(origin);
  if (!server) {
    throw new TypeError(
      `mockFetch has no fake API server for ${request.method} ${request.url} (it answers ${
        [...servers.keys()].join(", ")
      })`,
    );
  }
  const signal = request.signal;
  if (signal.aborted) throw abortReason(signal);
  // As a real fetch, an abort rejects at once, also while no answer came
  // (a reactor that never answers); an answer that comes later is dropped.
  const aborted = Promise.withResolvers<never>();
  const onAbort = () => aborted.reject(abortReason(signal));
  signal.addEventListener("abort", onAbort, { once: true });
  const answer = server.handle(request);
  try {
    const response = await Promise.race([answer, aborted.promise]);
    if (signal.aborted) {
      await response.body?.cancel().catch(() => {});
      throw abortReason(signal);
    }
    return response;
  } catch (error) {
    if (signal.aborted) {
      answer.then((late) => late.body?.cancel(), () => {}).catch(() => {});
    }
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ??
    new DOMException("The request was aborted", "AbortError");
}
