/**
 * The errors of `./controller`: a wrong option of a `WorkQueue`, a
 * `Controller` or an `EventRecorder` (`ControllerConfigError`), a call on a
 * stopped controller (`ControllerStoppedError`), an add after a queue's
 * `shutDown()` (`WorkQueueShutDownError`).
 *
 * @module
 */
/**
 * Thrown when a `WorkQueue`'s or a `Controller`'s options are wrong; the
 * message names the component, the option and what was wrong with it, and
 * {@linkcode ControllerConfigError.field} holds the option's path.
 *
 * @example A negative backoff
 * ```ts
 * import {
 *   ControllerConfigError,
 *   WorkQueue,
 * } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => new WorkQueue({ backoff: { baseMs: -1 } }),
 *   (error: unknown) =>
 *     error instanceof ControllerConfigError &&
 *     error.field === "backoff.baseMs",
 * );
 * ```
 */
export class ControllerConfigError extends TypeError {
  /** The component whose options were wrong: `WorkQueue` or `Controller`. */
  readonly component: string;
  /** The option's path, e.g. `backoff.baseMs`. */
  readonly field: string;

  /**
   * Creates the error.
   *
   * @example Naming the option
   * ```ts
   * import { ControllerConfigError } from "@haptic/k8s-watcher/controller";
   * import assert from "node:assert/strict";
   *
   * const error = new ControllerConfigError(
   *   "WorkQueue",
   *   "agingMs",
   *   "must be a positive number of milliseconds, got 0",
   * );
   * assert.equal(
   *   error.message,
   *   "Invalid WorkQueue options: agingMs: must be a positive number of milliseconds, got 0",
   * );
   * ```
   *
   * @param component `WorkQueue` or `Controller`.
   * @param field The option's path.
   * @param message What is wrong with it, worded to follow the path.
   */
  constructor(component: string, field: string, message: string) {
    super(`Invalid ${component} options: ${field}: ${message}`);
    this.name = "ControllerConfigError";
    this.component = component;
    this.field = field;
  }
}

/**
 * Thrown by `start()` and `reconcileAll()` of a `Controller` that was
 * stopped: a controller runs once; create a new one.
 *
 * @example Starting a stopped controller
 * ```ts
 * import { Controller, ControllerStoppedError } from "@haptic/k8s-watcher/controller";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * const controller = new Controller({
 *   name: "widgets",
 *   for: { gvr: { group: "example.com", version: "v1", resource: "widgets" } },
 *   reconcile: () => {},
 * }, client);
 * await controller.stop();
 * assert.throws(() => controller.start(), ControllerStoppedError);
 * ```
 */
export class ControllerStoppedError extends Error {
  /** The controller's name. */
  readonly controller: string;

  /**
   * Creates the error.
   *
   * @example Naming the controller and the call
   * ```ts
   * import { ControllerStoppedError } from "@haptic/k8s-watcher/controller";
   * import assert from "node:assert/strict";
   *
   * const error = new ControllerStoppedError("widgets", "start()");
   * assert.equal(
   *   error.message,
   *   "Controller widgets was stopped: start() needs a running one (create a new controller)",
   * );
   * ```
   *
   * @param controller The controller's name.
   * @param call The call that was refused.
   */
  constructor(controller: string, call: string) {
    super(
      `Controller ${controller} was stopped: ${call} needs a running one (create a new controller)`,
    );
    this.name = "ControllerStoppedError";
    this.controller = controller;
  }
}

/**
 * Thrown by a `WorkQueue`'s `add`, `addAfter` and `addRateLimited` after
 * `shutDown()`: the key would never be handed out, so the caller is told
 * rather than left waiting for a reconcile that cannot come.
 *
 * @example Adding after shutdown
 * ```ts
 * import {
 *   WorkQueue,
 *   WorkQueueShutDownError,
 * } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * const queue = new WorkQueue<string>({ name: "widgets" });
 * await queue.shutDown();
 * assert.throws(() => queue.add("shop/a"), WorkQueueShutDownError);
 * ```
 */
export class WorkQueueShutDownError extends Error {
  /** The queue's name (`""` when it has none). */
  readonly queue: string;
  /** The call that was refused, e.g. `add()`. */
  readonly call: string;

  /**
   * Creates the error; the message names the call and the queue.
   *
   * @example Naming the call
   * ```ts
   * import { WorkQueueShutDownError } from "@haptic/k8s-watcher/controller";
   * import assert from "node:assert/strict";
   *
   * const error = new WorkQueueShutDownError("widgets", "add()");
   * assert.equal(
   *   error.message,
   *   "add() on work queue widgets after shutDown(): the key would never be processed",
   * );
   * ```
   *
   * @param queue The queue's name.
   * @param call The refused call.
   */
  constructor(queue: string, call: string) {
    super(
      `${call} on work queue ${
        queue === "" ? "(unnamed)" : queue
      } after shutDown(): the key would never be processed`,
    );
    this.name = "WorkQueueShutDownError";
    this.queue = queue;
    this.call = call;
  }
}
