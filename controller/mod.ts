/**
 * The reconcile layer on the watchers. `Controller<T>` watches a primary
 * resource, its children and anything mapped to it, and reconciles each
 * key that changed, never twice at once, with retries, requeues, read your
 * writes, leader election and controller-runtime's metrics. Under it,
 * `WorkQueue<K>`, a per-key queue in which a key is never handed to two
 * workers at once, with delayed adds, per-key backoff for failures,
 * low-priority keys that age, and client-go's `workqueue_*` metrics; beside
 * it, the helpers a reconcile writes with: controller owner references,
 * finalizers and status conditions; and `EventRecorder`, `events.k8s.io/v1`
 * Events with client-go's series for repeats and its per-object rate limit.
 *
 * @example A controller of ConfigMaps
 * ```ts
 * import { Controller } from "@haptic/k8s-watcher/controller";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
 * import { silentLogger } from "@haptic/k8s-watcher/logger";
 *
 * await using server = new FakeApiServer();
 * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const reconciled: string[] = [];
 * await using controller = new Controller({
 *   name: "configmaps",
 *   for: { gvr: { group: "", version: "v1", resource: "configmaps" } },
 *   reconcile: (key) => void reconciled.push(key),
 * }, client, { logger: silentLogger });
 * controller.start();
 * await waitFor(() => reconciled.includes("shop/a"));
 * ```
 *
 * @example A queue and a worker
 * ```ts
 * import { WorkQueue } from "@haptic/k8s-watcher/controller";
 *
 * await using queue = new WorkQueue<string>({ name: "widgets" });
 * queue.add("shop/a");
 * const key = (await queue.next())!;
 * queue.done(key);
 * ```
 *
 * @module
 */
export * from "./controller.ts";
export * from "./controller_config.ts";
export * from "./controller_health.ts";
export * from "./controller_stopped_error.ts";
export * from "./object_key.ts";
export * from "./work_queue.ts";
export * from "./work_queue_options.ts";
export * from "./work_queue_shut_down_error.ts";
export * from "./controller_config_error.ts";
export * from "./owner_references.ts";
export * from "./finalizers.ts";
export * from "./conditions.ts";
export * from "./event_recorder.ts";
export * from "./event_recorder_config.ts";
