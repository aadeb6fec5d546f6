/**
 * The endpoints a Deployment probes and Prometheus scrapes, for
 * `Deno.serve`, `Bun.serve` or `node:http`: `/healthz` (no watcher's loop
 * wedged), `/readyz` (every watcher and tracked resource synced, and
 * leading when asked) and `/metrics` (any source rendering the Prometheus
 * text format); and `ProcessMetrics`, the process's CPU, memory and event
 * loop delay for it.
 *
 * @example Probes and metrics on port 8080
 * ```ts ignore
 * import { FetchClient, IndexSynchronizationTracker, Watcher } from "@haptic/k8s-watcher";
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
 * ## Files
 *
 * - `health_handler.ts`: `healthHandler` (`/healthz`, `/readyz`, `/metrics`):
 *   routes and words the checks; `nodeListener`, the fetch-style handler on
 *   `node:http`, with structural types.
 * - `_checks.ts`: what alive and ready mean, as named checks (no HTTP).
 * - `process_metrics.ts`: `ProcessMetrics`: CPU, memory, descriptors; their
 *   readings; the event loop's delay, a timer's lateness.
 *
 * @module
 */
export * from "./health_handler.ts";
export * from "./process_metrics.ts";
