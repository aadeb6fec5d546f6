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
