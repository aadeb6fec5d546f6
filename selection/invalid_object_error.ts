/**
 * The error of a value that is not a storable Kubernetes object, and the
 * check that throws it (`assertKubeObject`, not exported by the entry
 * point), shared by the `Indexer` and the watcher's store writer.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";

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

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Throws an {@linkcode InvalidObjectError} unless `obj` is an object with a
 * `metadata` object, a non-empty `metadata.name` and, if any, a string
 * `metadata.namespace`.
 */
export function assertKubeObject(obj: unknown): asserts obj is KubeObject {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw new InvalidObjectError(
      `Expected a Kubernetes object, got ${describe(obj)}`,
    );
  }
  const { metadata, kind } = obj as Record<string, unknown>;
  const what = typeof kind === "string" && kind !== ""
    ? `Kubernetes object of kind ${kind}`
    : "Kubernetes object";
  if (
    metadata === null || typeof metadata !== "object" ||
    Array.isArray(metadata)
  ) {
    throw new InvalidObjectError(
      metadata === undefined
        ? `${what} has no metadata`
        : `${what} has invalid metadata: expected an object, got ${
          describe(metadata)
        }`,
    );
  }
  const { name, namespace } = metadata as Record<string, unknown>;
  if (typeof name !== "string" || name === "") {
    throw new InvalidObjectError(
      name === undefined
        ? `${what} has no metadata.name`
        : `${what} has invalid metadata.name: expected a non-empty string, got ${
          name === "" ? "an empty string" : describe(name)
        }`,
    );
  }
  // The stores identify objects by namespace/name and would reject it.
  if (namespace !== undefined && typeof namespace !== "string") {
    throw new InvalidObjectError(
      `${what} has invalid metadata.namespace: expected a string, got ${
        describe(namespace)
      }`,
    );
  }
}
