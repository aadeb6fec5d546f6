/**
 * The error of a value that is not a storable Kubernetes object, thrown by
 * the `Indexer` and by the watcher's check of what the server sent.
 *
 * @module
 */

/**
 * A value that is not a storable Kubernetes object: not an object, without
 * `metadata` or `metadata.name`, or with a `metadata.namespace` that is not a
 * string. The watcher logs it and goes on.
 *
 * @example Something that is not a Kubernetes object
 * ```ts
 * import { Indexer, InvalidObjectError } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const indexer = new Indexer({ indexBy: ["metadata.name"] });
 * assert.throws(() => indexer.process({ kind: "Pod" }), InvalidObjectError);
 * ```
 */
export class InvalidObjectError extends Error {
  /**
   * Creates the error.
   *
   * @example Something that is not an object
   * ```ts
   * import { InvalidObjectError } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const err = new InvalidObjectError("The object has no metadata");
   * assert.equal(err.name, "InvalidObjectError");
   * ```
   *
   * @param message What is wrong with the object.
   */
  constructor(message: string) {
    super(message);
    this.name = "InvalidObjectError";
  }
}
