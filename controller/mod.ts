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
 * ## Files
 *
 * - `controller.ts`, `controller_config.ts`: `Controller<T>`: watchers, keys, a
 *   `WorkQueue`, workers calling `reconcile(key, context)`, per shard with a
 *   ring; what it watches and calls, and `WorkQueueOptions`;
 *   `ControllerHealth`.
 * - `_controller_plan.ts`: a controller's config checked once into one frozen
 *   plan (each resource's watcher config, store name, role).
 * - `_batch_keys.ts`: which primary keys a batch concerns, by role (own keys,
 *   the generation filter, owners, mappings).
 * - `_write_waits.ts`: read your writes: a key held until the cache shows what
 *   its last reconcile wrote (or its deadline passes).
 * - `_controller_telemetry.ts`: controller-runtime's `controller_runtime_*`
 *   series; every log line of a controller.
 * - `work_queue.ts`: `WorkQueue<K>` (`AddOptions`): one worker per
 *   key, adds during processing queued once after `done`, delayed adds,
 *   shutdown; the keys to hand out now (live first, low-priority ones aging
 *   into turns); client-go's `workqueue_*` series by `name`; a failure's
 *   backoff and the shared retry budget.
 * - `_work_queue_plan.ts`: a queue's options checked once into one frozen
 *   plan.
 * - `errors.ts`: `ControllerConfigError` (the first wrong option of a queue,
 *   a controller or a recorder), `ControllerStoppedError`,
 *   `WorkQueueShutDownError` (an add after `shutDown()`).
 * - `object_helpers.ts`: pure helpers on one object: `objectKey`,
 *   `splitObjectKey`; `OwnerReference`, `controllerOf`, `setControllerReference`
 *   (`AlreadyOwnedError`, `OwnerReferenceError`); `hasFinalizer`,
 *   `withFinalizer`, `withoutFinalizer`; the `meta.k8s.io/v1` `Condition`,
 *   `setCondition` (the transition time moves only with the status),
 *   `findCondition`, `ConditionError`.
 * - `event_recorder.ts`, `event_recorder_config.ts`: `EventRecorder`:
 *   `events.k8s.io/v1` Events through a `ResourceClient`; repeats as one
 *   series, client-go's; a rate limit per object (client-go's token bucket
 *   per object and type); never throws; `k8s_watcher_recorded_events_total`
 *   by result, `k8s_watcher_event_writes_total` by verb and result.
 * - `_event_recorder_plan.ts`: a recorder's config and options checked once
 *   into one frozen plan, with the host name of the default
 *   `reportingInstance`.
 * - `_event_body.ts`: the Event as written (checks, references, name, a note
 *   within 1024 bytes, the series key).
 *
 * @module
 */
export * from "./controller.ts";
export * from "./controller_config.ts";
export * from "./errors.ts";
export * from "./object_helpers.ts";
export * from "./work_queue.ts";
export * from "./event_recorder.ts";
export * from "./event_recorder_config.ts";
