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
