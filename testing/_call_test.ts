// Test helper (not published): one HTTP request to a fake API server.
import type { FakeApiServer } from "./fake_api_server.ts";
import type { ResourceDefinition } from "./resources.ts";

/** The parts of an answer a test checks. */
export interface CallResult {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/**
 * Sends one request through `server.handle`; a string body is sent as is,
 * anything else as JSON.
 */
export async function call(
  server: FakeApiServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<CallResult> {
  const res = await server.handle(
    new Request(`${server.url}${path}`, {
      method,
      body: body === undefined
        ? undefined
        : typeof body === "string"
        ? body
        : JSON.stringify(body),
      headers: { "content-type": "application/json", ...headers },
    }),
  );
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? JSON.parse(text) : undefined,
  };
}

/** A namespaced custom resource type for tests. */
export const WIDGETS: ResourceDefinition = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
};
