import { healthHandler, type HealthHandlerOptions } from "../health/mod.ts";
import type { Printer } from "./output.ts";

/** The demo's health and metrics server, or nothing without `--metrics-port`. */
export interface Endpoints extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, or `undefined` when none is served. */
  readonly url: string | undefined;
}

/**
 * Serves `/healthz`, `/readyz` and `/metrics` on 127.0.0.1:`port` (0: a
 * free port) and prints the URL; nothing when `port` is `undefined`.
 */
export function serveEndpoints(
  port: number | undefined,
  options: HealthHandlerOptions,
  printer: Printer,
): Endpoints {
  if (port === undefined) {
    return { url: undefined, [Symbol.asyncDispose]: () => Promise.resolve() };
  }
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: () => {},
  }, healthHandler(options));
  const url = `http://127.0.0.1:${server.addr.port}`;
  printer.line(
    "serve",
    `health and metrics at ${url}: /healthz /readyz /metrics`,
  );
  return { url, [Symbol.asyncDispose]: () => server.shutdown() };
}
