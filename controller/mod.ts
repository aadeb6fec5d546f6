/**
 * The reconcile layer on the watchers: `WorkQueue<K>`, a per-key queue in
 * which a key is never handed to two workers at once, with delayed adds,
 * per-key backoff for failures, low-priority keys that age, and client-go's
 * `workqueue_*` metrics; and the helpers a reconcile writes with: controller
 * owner references, finalizers and status conditions.
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
