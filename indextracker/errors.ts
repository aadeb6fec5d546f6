/**
 * A resource name the {@linkcode IndexSynchronizationTracker} was not
 * constructed with.
 *
 * @example
 * ```ts
 * import {
 *   IndexSynchronizationTracker,
 *   UnknownResourceError,
 * } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const tracker = new IndexSynchronizationTracker(["services"]);
 * assert.throws(() => tracker.getResourceCount("ingresses"), UnknownResourceError);
 * ```
 */
export class UnknownResourceError extends Error {
  /** The name that is not tracked. */
  readonly resource: string;

  /**
   * Creates the error for an untracked name.
   *
   * @param resource The name that is not tracked.
   */
  constructor(resource: string) {
    super(`Resource "${resource}" is not tracked`);
    this.name = "UnknownResourceError";
    this.resource = resource;
  }
}

/**
 * A tracked resource that has not reported its initial sync yet.
 *
 * @example
 * ```ts
 * import {
 *   IndexSynchronizationTracker,
 *   ResourceNotSyncedError,
 * } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const tracker = new IndexSynchronizationTracker(["services"]);
 * assert.throws(() => tracker.getResourceCount("services"), ResourceNotSyncedError);
 * ```
 */
export class ResourceNotSyncedError extends Error {
  /** The name that has not synced. */
  readonly resource: string;

  /**
   * Creates the error for a resource that has not synced yet.
   *
   * @param resource The name that has not synced.
   */
  constructor(resource: string) {
    super(`Resource "${resource}" has not completed its initial sync`);
    this.name = "ResourceNotSyncedError";
    this.resource = resource;
  }
}

/**
 * A sync count that is not a non-negative integer.
 *
 * @example
 * ```ts
 * import {
 *   IndexSynchronizationTracker,
 *   InvalidResourceCountError,
 * } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const tracker = new IndexSynchronizationTracker(["services"]);
 * assert.throws(() => tracker.markSynced("services", -1), InvalidResourceCountError);
 * ```
 */
export class InvalidResourceCountError extends RangeError {
  /** The resource the count was reported for. */
  readonly resource: string;
  /** The rejected count. */
  readonly count: unknown;

  /**
   * Creates the error for a rejected count.
   *
   * @param resource The resource the count was reported for.
   * @param count The rejected count.
   */
  constructor(resource: string, count: unknown) {
    super(
      `Sync count for resource "${resource}" must be a non-negative integer, got ${
        String(count)
      }`,
    );
    this.name = "InvalidResourceCountError";
    this.resource = resource;
    this.count = count;
  }
}
