/**
 * `ControllerStoppedError`: a call that needs a controller that was not
 * stopped.
 *
 * @module
 */

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
