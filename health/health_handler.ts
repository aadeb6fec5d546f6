import type { Clock } from "../clock.ts";
import { monotonicClock } from "../_internal/_time.ts";
import { assertOptionNames } from "../_internal/_option_checks.ts";
import type { WatcherHealth } from "../watcher/watcher_health.ts";
import type { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import type { LeaderElector } from "../leaderelection/leader_elector.ts";
import type { ControllerHealth } from "../controller/controller.ts";
import {
  type Check,
  type CheckSources,
  livenessChecks,
  readinessChecks,
} from "./_checks.ts";

/**
 * Anything that renders metrics in the Prometheus text exposition format
 * (0.0.4) at once: the package's metrics registry, or an adapter over
 * another. For one that answers with a promise, see
 * {@linkcode AsyncMetricsSource}.
 *
 * @example A fixed source
 * ```ts
 * import type { MetricsSource } from "@haptic/k8s-watcher/health";
 *
 * const metrics: MetricsSource = {
 *   render: () => "# TYPE up gauge\nup 1\n",
 * };
 * ```
 */
export interface MetricsSource {
  /** The exposition, every metric of it, ending with a newline. */
  render(): string;
}

/**
 * A metrics source whose `render()` may answer with a promise of the text:
 * another registry collecting asynchronously, as prom-client's
 * `register.metrics()` and OpenTelemetry's Prometheus exporter do.
 *
 * @example prom-client's registry (here a stand-in of its shape)
 * ```ts
 * import type { AsyncMetricsSource } from "@haptic/k8s-watcher/health";
 *
 * const register = { metrics: () => Promise.resolve("# TYPE up gauge\nup 1\n") };
 * const metrics: AsyncMetricsSource = { render: () => register.metrics() };
 * ```
 */
export interface AsyncMetricsSource {
  /**
   * The exposition, or a promise of it. `/metrics` answers 500 when it
   * throws or the promise rejects.
   */
  render(): string | Promise<string>;
}

/**
 * What the health endpoints read: the watchers (by the name their lines
 * show), the tracker, the elector, the metrics, and the clock the watchers
 * run on. Every part is optional. `M` is the metrics source's type: an
 * {@linkcode AsyncMetricsSource} for one that answers with a promise.
 *
 * @example Two watchers, a tracker, a registry
 * ```ts
 * import { FetchClient, IndexSynchronizationTracker, Watcher } from "@haptic/k8s-watcher";
 * import type { HealthHandlerOptions } from "@haptic/k8s-watcher/health";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * const ingresses = new Watcher({
 *   gvr: { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   onChange: () => {},
 * }, client);
 * const options: HealthHandlerOptions = {
 *   watchers: { ingresses },
 *   tracker: new IndexSynchronizationTracker(["ingresses"]),
 *   metrics: { render: () => "" },
 * };
 * ```
 */
export interface HealthHandlerOptions<
  M extends AsyncMetricsSource = MetricsSource,
> {
  /**
   * The watchers to check, by name (`Watcher`s and `SingleWatcher`s, or
   * anything with their `health()`): alive while none is wedged, ready
   * once each is synced.
   */
  watchers?: Readonly<Record<string, { health(): WatcherHealth }>>;
  /**
   * The controllers to check, by name (`Controller`s, or anything with
   * their `health()`): alive while none of their watchers is wedged, ready
   * once synced, leading or a warm standby.
   */
  controllers?: Readonly<Record<string, { health(): ControllerHealth }>>;
  /** Ready once every resource it tracks is synced. */
  tracker?: Pick<
    IndexSynchronizationTracker,
    "resourceNames" | "isResourceSynced"
  >;
  /**
   * This replica's elector: shown in `/readyz`, and required to lead there
   * with `readyOnlyWhenLeading`.
   */
  elector?: Pick<LeaderElector, "health">;
  /**
   * Ready only while leading: for a Service that must send traffic to the
   * leader alone. Without it a synced standby is ready (it takes over
   * warm), and a rolling update of a Deployment can go on: a new pod that
   * must lead to be ready never is while the old one holds the Lease.
   *
   * @default {false}
   */
  readyOnlyWhenLeading?: boolean;
  /** Served at `/metrics`; without it `/metrics` answers 404. */
  metrics?: M;
  /**
   * The watchers' clock (silence is measured on it): the one given to
   * the watchers, or none when they have none. The default, like the
   * loops', reads a monotonic time the wall clock cannot move.
   *
   * @default {the system timers with a monotonic now()}
   */
  clock?: Clock;
}

/** The content type Prometheus expects of the text format. */
const METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";

/**
 * A handler for `Deno.serve` and `Bun.serve` (for `node:http`, wrap it in
 * {@linkcode nodeListener}) answering GET and HEAD of:
 *
 * - `/metrics`: `metrics.render()`, as `text/plain; version=0.0.4`; 500
 *   when it throws or its promise rejects.
 * - `/healthz` (and `/livez`): 200 while no watcher's loop is wedged, that
 *   is silent (no LIST page, opened watch, event, bookmark or retried
 *   failure) for more than twice its idle timeout while running; 503
 *   otherwise. A quiet watch is resumed at every idle timeout, and a loop
 *   retrying a failing server is turning: neither is wedged, and restarting
 *   would not help them.
 * - `/readyz`: 200 once every watcher and tracked resource is synced (and
 *   this replica leads, with `readyOnlyWhenLeading`); 503 otherwise.
 *
 * A probe reads the status; the body is for people, as kube-apiserver
 * writes it: `ok`, or one `[+]name ok` / `[-]name failed: why` line per
 * check and a last line saying the check failed (every line with
 * `?verbose`). Other paths answer 404, other methods 405.
 *
 * @example Serving them with Deno
 * ```ts ignore
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { healthHandler } from "@haptic/k8s-watcher/health";
 *
 * using client = FetchClient.fromEnv();
 * const ingresses = new Watcher({
 *   gvr: { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   onChange: () => {},
 * }, client);
 * ingresses.start();
 * Deno.serve({ port: 8080 }, healthHandler({ watchers: { ingresses } }));
 * ```
 *
 * @example Asking it directly
 * ```ts
 * import { IndexSynchronizationTracker, silentLogger } from "@haptic/k8s-watcher";
 * import { healthHandler } from "@haptic/k8s-watcher/health";
 * import assert from "node:assert/strict";
 *
 * const tracker = new IndexSynchronizationTracker(["ingresses", "services"], {
 *   logger: silentLogger,
 * });
 * const handler = healthHandler({ tracker });
 * tracker.markSynced("ingresses", 3);
 * const response = handler(new Request("http://localhost/readyz"));
 * assert.equal(response.status, 503);
 * assert.equal(
 *   await response.text(),
 *   "[+]tracker/ingresses ok\n[-]tracker/services failed: not synced\nreadyz check failed\n",
 * );
 * tracker.markSynced("services", 1);
 * assert.equal(handler(new Request("http://localhost/readyz")).status, 200);
 * ```
 *
 * @param options What to check, and the metrics to serve.
 * @returns The handler: it never throws, and answers synchronously (a
 * `render()` that answers with a promise: see the next signature).
 * @throws {TypeError} When `options` has a name it does not take, or a
 * watcher without `health()`.
 */
export function healthHandler(
  options?: HealthHandlerOptions,
): (request: Request) => Response;
/**
 * The handler over a metrics source whose `render()` may answer with a
 * promise (prom-client's `register.metrics()`, OpenTelemetry's Prometheus
 * exporter): `/metrics` then answers with a promise of the response, which
 * `Deno.serve`, `Bun.serve` and {@linkcode nodeListener} wait for; every
 * other path still answers at once. A rejected promise answers 500.
 *
 * @example prom-client's registry (here a stand-in of its shape)
 * ```ts
 * import { healthHandler } from "@haptic/k8s-watcher/health";
 * import assert from "node:assert/strict";
 *
 * const register = { metrics: () => Promise.resolve("# TYPE up gauge\nup 1\n") };
 * const handler = healthHandler({ metrics: { render: () => register.metrics() } });
 * const response = await handler(new Request("http://localhost/metrics"));
 * assert.equal(await response.text(), "# TYPE up gauge\nup 1\n");
 * ```
 *
 * @param options What to check, and the metrics to serve.
 * @returns The handler: it never throws or rejects.
 * @throws {TypeError} When `options` has a name it does not take, or a
 * watcher without `health()`.
 */
export function healthHandler(
  options: HealthHandlerOptions<AsyncMetricsSource>,
): (request: Request) => Response | Promise<Response>;
export function healthHandler(
  options: HealthHandlerOptions<AsyncMetricsSource> = {},
): (request: Request) => Response | Promise<Response> {
  assertOptionNames(
    "health handler options",
    OPTION_NAMES,
    options,
    "HealthHandlerOptions",
  );
  const watchers = Object.entries(options.watchers ?? {});
  for (const [name, watcher] of watchers) {
    if (typeof watcher?.health !== "function") {
      throw new TypeError(
        `Invalid health handler options: watchers.${name} must have a health() method`,
      );
    }
  }
  const controllers = Object.entries(options.controllers ?? {});
  for (const [name, controller] of controllers) {
    if (typeof controller?.health !== "function") {
      throw new TypeError(
        `Invalid health handler options: controllers.${name} must have a health() method`,
      );
    }
  }
  const metrics = options.metrics;
  if (metrics !== undefined && typeof metrics.render !== "function") {
    throw new TypeError(
      "Invalid health handler options: metrics must have a render() method",
    );
  }
  const sources: CheckSources = {
    watchers,
    tracker: options.tracker,
    elector: options.elector,
    controllers,
    readyOnlyWhenLeading: options.readyOnlyWhenLeading === true,
    clock: options.clock ?? monotonicClock,
  };
  const firstSeen = new Map<string, number>();
  return (request) => {
    const url = new URL(request.url);
    const head = request.method === "HEAD";
    if (request.method !== "GET" && !head) {
      return answer(405, `Method ${request.method} not allowed\n`, head, {
        allow: "GET, HEAD",
      });
    }
    switch (url.pathname) {
      case "/metrics":
        return serveMetrics(metrics, head);
      case "/healthz":
      case "/livez":
        return report(
          url.pathname.slice(1),
          () => livenessChecks(sources, firstSeen),
          url,
          head,
        );
      case "/readyz":
        return report("readyz", () => readinessChecks(sources), url, head);
      default:
        return answer(404, `Not found: ${url.pathname}\n`, head);
    }
  };
}

const OPTION_NAMES: Record<keyof HealthHandlerOptions, true> = {
  watchers: true,
  controllers: true,
  tracker: true,
  elector: true,
  readyOnlyWhenLeading: true,
  metrics: true,
  clock: true,
};

function serveMetrics(
  metrics: AsyncMetricsSource | undefined,
  head: boolean,
): Response | Promise<Response> {
  if (metrics === undefined) {
    return answer(404, "No metrics source is configured\n", head);
  }
  let rendered: string | Promise<string>;
  try {
    rendered = metrics.render();
  } catch (error) {
    return renderFailed(message(error), head);
  }
  // A registry that collects asynchronously (prom-client, OpenTelemetry's
  // exporter) answers with a promise; a synchronous one keeps the
  // synchronous answer the probes rely on.
  if (isThenable(rendered)) {
    return Promise.resolve(rendered).then(
      (text) => metricsAnswer(text, head),
      (error: unknown) => renderFailed(message(error), head),
    );
  }
  return metricsAnswer(rendered, head);
}

function metricsAnswer(text: unknown, head: boolean): Response {
  if (typeof text !== "string") {
    return renderFailed(
      `render() gave ${text === null ? "null" : typeof text}, not text`,
      head,
    );
  }
  return answer(200, text, head, { "content-type": METRICS_TYPE });
}

function renderFailed(why: string, head: boolean): Response {
  return answer(500, `Rendering the metrics failed: ${why}\n`, head);
}

function isThenable(value: unknown): value is PromiseLike<string> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** A health report, as kube-apiserver words one. */
function report(
  name: string,
  run: () => Check[],
  url: URL,
  head: boolean,
): Response {
  let checks: Check[];
  try {
    checks = run();
  } catch (error) {
    // A check that throws (a structural source's bug) fails the report
    // rather than the handler.
    checks = [{ name: "checks", failure: `threw: ${message(error)}` }];
  }
  const ok = checks.every((c) => c.failure === undefined);
  const verbose = url.searchParams.has("verbose");
  if (ok && !verbose) return answer(200, "ok\n", head);
  const lines = checks.map((c) =>
    c.failure === undefined
      ? `[+]${c.name} ok`
      : `[-]${c.name} failed: ${c.failure}`
  );
  lines.push(`${name} check ${ok ? "passed" : "failed"}`);
  return answer(ok ? 200 : 503, `${lines.join("\n")}\n`, head);
}

function answer(
  status: number,
  body: string,
  head: boolean,
  headers: Record<string, string> = {},
): Response {
  return new Response(head ? null : body, {
    status,
    headers: {
      "content-type": TEXT_TYPE,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...headers,
    },
  });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// --- On node:http: nodeListener ---------------------------------------------

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
