/** A running `Deno.serve` listener for a fake API server. */
export interface Listening {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `handle` on 127.0.0.1. Closing first ends the open streams (via
 * `closeSignal`), so that the HTTP server's graceful shutdown completes.
 */
export function serveOn(
  port: number,
  handle: (request: Request, closeSignal: AbortSignal) => Promise<Response>,
  tls?: { cert: string; key: string },
): Listening {
  if (typeof Deno === "undefined" || typeof Deno.serve !== "function") {
    throw new Error(
      "FakeApiServer.listen() needs Deno.serve (run it under Deno)",
    );
  }
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {}, ...tls },
    (request) => handle(request, stop.signal),
  );
  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${server.addr.port}`,
    close(): Promise<void> {
      return closing ??= (async () => {
        stop.abort();
        await server.shutdown();
      })();
    },
  };
}
