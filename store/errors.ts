/**
 * Typed errors thrown by the stores.
 *
 * @module
 */

/**
 * Index keys of the wrong shape: an empty key list, a key that is not a
 * string, a write whose key count differs from the store's, or a `get` with
 * more keys than the store indexes by. Nothing stored is changed.
 *
 * @example A write with too few keys
 * ```ts
 * import { MemoryStore } from "@haptic/k8s-watcher";
 * import { StoreKeyError } from "@haptic/k8s-watcher/store";
 * import assert from "node:assert/strict";
 *
 * const store = new MemoryStore({ keyCount: 2 });
 * assert.throws(
 *   () => store.add({ metadata: { name: "web", namespace: "default" } }, ["default"]),
 *   StoreKeyError,
 * );
 * ```
 */
export class StoreKeyError extends Error {
  /** The number of keys the store indexes by, when known. */
  readonly expected: number | undefined;
  /** The number of keys given. */
  readonly actual: number;

  /**
   * Creates the error.
   *
   * @example Reading the counts
   * ```ts
   * import { StoreKeyError } from "@haptic/k8s-watcher/store";
   * import assert from "node:assert/strict";
   *
   * const error = new StoreKeyError("Expected 2 index keys, got 1", { expected: 2, actual: 1 });
   * assert.equal(error.expected, 2);
   * ```
   *
   * @param message What was wrong.
   * @param counts The expected and the given number of keys.
   */
  constructor(
    message: string,
    counts: { expected?: number; actual: number },
  ) {
    super(message);
    this.name = "StoreKeyError";
    this.expected = counts.expected;
    this.actual = counts.actual;
  }
}

/**
 * An object a store cannot hold: no `metadata`, no `metadata.name`, or a
 * namespace or name that is not a plain string. Nothing stored is changed.
 *
 * @example An object without a name
 * ```ts
 * import { type KubeObject, MemoryStore } from "@haptic/k8s-watcher";
 * import { StoreObjectError } from "@haptic/k8s-watcher/store";
 * import assert from "node:assert/strict";
 *
 * const store = new MemoryStore();
 * const nameless = { metadata: { namespace: "default" } } as KubeObject;
 * assert.throws(() => store.add(nameless, ["default"]), StoreObjectError);
 * ```
 */
export class StoreObjectError extends Error {
  /**
   * Creates the error.
   *
   * @example Naming what is wrong
   * ```ts
   * import { StoreObjectError } from "@haptic/k8s-watcher/store";
   *
   * const error = new StoreObjectError("Object has no metadata.name");
   * console.log(error.name); // "StoreObjectError"
   * ```
   *
   * @param message What was wrong with the object.
   */
  constructor(message: string) {
    super(message);
    this.name = "StoreObjectError";
  }
}

/**
 * `CachedStore` could not fetch an object it references: the GET failed (other
 * than with 404, which means the object is gone), answered something that is
 * not a Kubernetes object, or the filter threw. The original error is `cause`.
 *
 * @example Naming the object that could not be fetched
 * ```ts
 * import { StoreFetchError } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const err = new StoreFetchError({
 *   namespace: "default",
 *   name: "web",
 *   path: "/api/v1/namespaces/default/services/web",
 *   cause: new Error("connection refused"),
 * });
 * assert.equal(err.objectName, "web");
 * assert.match(err.message, /default\/web/);
 * ```
 */
export class StoreFetchError extends Error {
  /** Namespace of the object, `""` when cluster-scoped. */
  readonly namespace: string;
  /** Name of the object (`name` itself is the error class name). */
  readonly objectName: string;
  /** The API path that was requested. */
  readonly path: string;

  /**
   * Creates the error; the message names the object and the cause.
   *
   * @example A cluster-scoped object
   * ```ts
   * import { StoreFetchError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const cause = new Error("HTTP 500");
   * const error = new StoreFetchError({ namespace: "", name: "node-1", path: "/api/v1/nodes/node-1", cause });
   * assert.equal(error.message, 'Cannot fetch object "node-1" with GET /api/v1/nodes/node-1: HTTP 500');
   * assert.equal(error.cause, cause);
   * ```
   *
   * @param options The object, the path requested and what went wrong.
   */
  constructor(
    options: { namespace: string; name: string; path: string; cause: unknown },
  ) {
    const { namespace, name, path, cause } = options;
    const what = cause instanceof Error ? cause.message : String(cause);
    const id = namespace ? `${namespace}/${name}` : name;
    super(`Cannot fetch object "${id}" with GET ${path}: ${what}`, { cause });
    this.name = "StoreFetchError";
    this.namespace = namespace;
    this.objectName = name;
    this.path = path;
  }
}
