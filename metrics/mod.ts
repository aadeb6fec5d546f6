/**
 * Metrics without a dependency. Every component that does I/O or calls
 * back (the watchers, `IndexSynchronizationTracker`, `DebounceGroup`,
 * `LeaderElector`, `FetchClient`) takes an optional `meter`: a
 * {@linkcode Meter}, the subset of OpenTelemetry's that it calls, so that
 * `metrics.getMeter("k8s-watcher")` from `@opentelemetry/api` (or Deno's
 * built-in OpenTelemetry) plugs in as it is. Without OpenTelemetry, give
 * them one {@linkcode MetricsRegistry} and serve its
 * {@linkcode MetricsRegistry.render} (the Prometheus text format 0.0.4,
 * {@linkcode PROMETHEUS_CONTENT_TYPE}). The README's "Metrics" section
 * lists every metric, its type, labels and meaning.
 *
 * @example A watcher's metrics, rendered for Prometheus
 * ```ts
 * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
 * using _fetch = mockFetch(server);
 * const meter = new MetricsRegistry();
 * using client = new FetchClient({ server: server.url });
 * const watcher = new Watcher({
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   name: "configmaps",
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   onChange: () => {},
 * }, client, { meter });
 * watcher.start();
 * await watcher.waitForSync();
 * assert.match(
 *   meter.render(),
 *   /^k8s_watcher_store_objects\{group="",namespace="",resource="configmaps",version="v1",watcher="configmaps"\} 1$/m,
 * );
 * await watcher.stop();
 * ```
 *
 * ## Files
 *
 * - `meter.ts`: the `Meter` hook (OpenTelemetry's subset, duck-typed).
 * - `registry.ts`: `MetricsRegistry`, rendering the Prometheus text format
 *   0.0.4.
 *
 * @module
 */
export * from "./meter.ts";
export * from "./registry.ts";
