/**
 * The reconcile layer on the watchers: `WorkQueue<K>`, a per-key queue in
 * which a key is never handed to two workers at once, with delayed adds,
 * per-key backoff for failures, low-priority keys that age, and client-go's
 * `workqueue_*` metrics; the helpers a reconcile writes with: controller
 * owner references, finalizers and status conditions; and `EventRecorder`,
 * `events.k8s.io/v1` Events with client-go's series for repeats and its
 * per-object rate limit.
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
export * from "./work_queue.ts";
export * from "./work_queue_options.ts";
export * from "./work_queue_shut_down_error.ts";
export * from "./controller_config_error.ts";
export * from "./owner_references.ts";
export * from "./finalizers.ts";
export * from "./conditions.ts";
export * from "./event_recorder.ts";
export * from "./event_recorder_config.ts";
