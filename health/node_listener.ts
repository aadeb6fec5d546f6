/**
 * The part of a `node:http` `IncomingMessage` that {@linkcode nodeListener}
 * reads (described here so that the package needs no Node types).
 *
 * @example What a test may pass
 * ```ts
 * import type { NodeRequestLike } from "@haptic/k8s-watcher/health";
 *
 * const req: NodeRequestLike = { method: "GET", url: "/readyz?verbose" };
 * ```
 */
export interface NodeRequestLike {
  /** `GET`, `HEAD`, …; `GET` when absent. */
  readonly method?: string;
  /** The path and query string, e.g. `/readyz?verbose`; `/` when absent. */
  readonly url?: string;
}

/**
 * The part of a `node:http` `ServerResponse` that {@linkcode nodeListener}
 * writes.
 *
 * @example Recording what is written
 * ```ts
 * import type { NodeResponseLike } from "@haptic/k8s-watcher/health";
 *
 * const written: string[] = [];
 * const res: NodeResponseLike = {
 *   statusCode: 200,
 *   setHeader: (name, value) => written.push(`${name}: ${value}`),
 *   end: (body) => written.push(body ?? ""),
 * };
 * ```
 */
export interface NodeResponseLike {
  /** The status to send. */
  statusCode: number;
  /** Sets one header. */
  setHeader(name: string, value: string): unknown;
  /** Sends the body (none for HEAD) and ends the response. */
  end(body?: string): unknown;
}

/**
 * Adapts a fetch-style handler (such as `healthHandler(…)`) to a
 * `node:http` request listener, for Node and Bun: the request's method and
 * path become a `Request` (its body is not read: the health endpoints take
 * none), the `Response` is written back. A handler that throws or rejects
 * answers 500.
 *
 * @example On Node or Bun
 * ```ts ignore
 * import { createServer } from "node:http";
 * import { healthHandler, nodeListener } from "@haptic/k8s-watcher/health";
 *
 * createServer(nodeListener(healthHandler({ watchers: { ingresses } })))
 *   .listen(8080);
 * ```
 *
 * @example Called directly
 * ```ts
 * import { healthHandler, nodeListener } from "@haptic/k8s-watcher/health";
 * import assert from "node:assert/strict";
 *
 * const listener = nodeListener(healthHandler());
 * const ended = Promise.withResolvers<string | undefined>();
 * const res = { statusCode: 0, setHeader: () => {}, end: ended.resolve };
 * listener({ method: "GET", url: "/healthz" }, res);
 * assert.equal(await ended.promise, "ok\n");
 * assert.equal(res.statusCode, 200);
 * ```
 *
 * @param handler Answers each request.
 * @returns A listener for `http.createServer`.
 */
export function nodeListener(
  handler: (request: Request) => Response | Promise<Response>,
): (req: NodeRequestLike, res: NodeResponseLike) => void {
  return (req, res) => {
    const method = req.method ?? "GET";
    if (FORBIDDEN_METHODS.has(method.toUpperCase())) {
      // A Request cannot carry them; Deno.serve answers 405 too.
      res.statusCode = 405;
      res.setHeader("allow", "GET, HEAD");
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end(`Method not allowed: ${method}\n`);
      return;
    }
    void Promise.resolve()
      .then(() => handler(new Request(requestUrl(req.url), { method })))
      .then(async (response) => {
        const body = method === "HEAD" ? undefined : await response.text();
        res.statusCode = response.status;
        response.headers.forEach((value, name) => res.setHeader(name, value));
        res.end(body);
      })
      .catch((error: unknown) => {
        res.statusCode = 500;
        res.setHeader("content-type", "text/plain; charset=utf-8");
        res.end(
          `The handler failed: ${
            error instanceof Error ? error.message : String(error)
          }\n`,
        );
      });
  };
}

/** The methods the Fetch standard forbids in a `Request`. */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * The request target as a URL on `localhost`: only the path and query
 * matter, and the Host header is not trusted to make a valid URL. A path
 * is appended as it is, so `//evil/healthz` stays a path (parsed against a
 * base, it would be a protocol-relative URL to the host `evil`); an
 * absolute-form target (`http://host/path`) gives its path and query.
 */
function requestUrl(target: string | undefined): URL {
  if (target === undefined || target === "") {
    return new URL("http://localhost/");
  }
  if (target.startsWith("/")) return new URL(`http://localhost${target}`);
  try {
    const absolute = new URL(target);
    return new URL(`http://localhost${absolute.pathname}${absolute.search}`);
  } catch {
    return new URL("http://localhost/");
  }
}
