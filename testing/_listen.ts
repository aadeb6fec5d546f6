import type * as NodeHttp from "node:http";
import type * as NodeHttps from "node:https";
import type * as NodeNet from "node:net";
import type * as NodeStream from "node:stream";
import { nodeBuiltin } from "../_internal/_node_builtin.ts";

/** A running listener for a fake API server. */
export interface Listening {
  /** Its base URL, once `ready` resolved. */
  readonly url: string;
  /** Resolves once it accepts connections. */
  ready: Promise<void>;
  close(): Promise<void>;
}

type Handler = (
  request: Request,
  closeSignal: AbortSignal,
) => Promise<Response>;

/** A server certificate and its key, PEM. */
type Tls = { cert: string; key: string };

/**
 * Serves `handle` on 127.0.0.1 (over HTTPS with `tls`): with `Deno.serve`
 * on Deno, `node:http(s)` on Node and Bun. Closing first ends the open
 * streams (via `closeSignal`), so that the HTTP server's graceful shutdown
 * completes.
 */
export function serveOn(port: number, handle: Handler, tls?: Tls): Listening {
  if (typeof Deno === "undefined" || typeof Deno.serve !== "function") {
    return serveOnNode(port, handle, tls);
  }
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {}, ...tls },
    (request) => handle(request, stop.signal),
  );
  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${server.addr.port}`,
    ready: Promise.resolve(),
    close(): Promise<void> {
      return closing ??= (async () => {
        stop.abort();
        await server.shutdown();
      })();
    },
  };
}

function serveOnNode(port: number, handle: Handler, tls?: Tls): Listening {
  const { Readable } = nodeBuiltin<typeof NodeStream>("node:stream");
  const stop = new AbortController();
  const serve = (
    req: NodeHttp.IncomingMessage,
    res: NodeHttp.ServerResponse,
  ) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const item of [value ?? []].flat()) headers.append(name, item);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? Readable.toWeb(req) as ReadableStream : undefined,
      duplex: "half",
    } as RequestInit);
    handle(request, stop.signal).then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return void res.end();
      // A watch may stay silent for long: its client needs the headers now.
      res.flushHeaders();
      // A client that goes away cancels the body, as Deno.serve does.
      const reader = response.body.getReader();
      res.on("close", () => void reader.cancel().catch(() => {}));
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
      } finally {
        res.end();
      }
    }).catch(() => res.destroy());
  };
  const server = tls
    ? nodeBuiltin<typeof NodeHttps>("node:https").createServer(tls, serve)
    : nodeBuiltin<typeof NodeHttp>("node:http").createServer(serve);
  let url = "";
  const ready = new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const { port } = server.address() as NodeNet.AddressInfo;
      url = `${tls ? "https" : "http"}://127.0.0.1:${port}`;
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    get url() {
      return url;
    },
    ready,
    close(): Promise<void> {
      return closing ??= (async () => {
        stop.abort();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      })();
    },
  };
}
