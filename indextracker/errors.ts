/**
 * Thrown by the {@linkcode IndexSynchronizationTracker} constructor when its
 * resource names or options are unusable; `field` names what was wrong. A
 * `TypeError`, as for any unusable argument (and as the tracker threw before
 * it had a class of its own).
 *
 * @example A typo in an option name
 * ```ts
 * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
 * import { TrackerConfigError } from "@haptic/k8s-watcher/indextracker";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => new IndexSynchronizationTracker(["ingresses"], { singal: AbortSignal.timeout(10) } as never),
 *   (e) => e instanceof TrackerConfigError && e.field === "singal",
 * );
 * ```
 */
export class TrackerConfigError extends TypeError {
  /** What was wrong: `resourceNames` or an option, e.g. `meter`. */
  readonly field: string;

  /**
   * Creates the error; the message names the field.
   *
   * @example The message
   * ```ts
   * import { TrackerConfigError } from "@haptic/k8s-watcher/indextracker";
   * import assert from "node:assert/strict";
   *
   * const error = new TrackerConfigError("resourceNames", 'must be non-empty strings, got ""');
   * assert.equal(
   *   error.message,
   *   'Invalid IndexSynchronizationTracker config: resourceNames: must be non-empty strings, got ""',
   * );
   * assert.ok(error instanceof TypeError);
   * ```
   *
   * @param field What was wrong: `resourceNames` or the option's name.
   * @param message Why.
   */
  constructor(field: string, message: string) {
    super(`Invalid IndexSynchronizationTracker config: ${field}: ${message}`);
    this.name = "TrackerConfigError";
    this.field = field;
  }
}

/**
 * A resource name the {@linkcode IndexSynchronizationTracker} was not
 * constructed with. The message lists the names it tracks, so a typo
 * (`"ingress"` for `"ingresses"`) is easy to spot.
 *
 * @example Catching a typo
 * ```ts
 * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
 * import { UnknownResourceError } from "@haptic/k8s-watcher/indextracker";
 * import assert from "node:assert/strict";
 *
 * const tracker = new IndexSynchronizationTracker(["ingresses"]);
 * assert.throws(
 *   () => tracker.markSynced("ingress", 3),
 *   (e: unknown) => e instanceof UnknownResourceError && e.resource === "ingress",
 * );
 * ```
 */
export class UnknownResourceError extends Error {
  /** The name that is not tracked. */
  readonly resource: string;
  /** The names the tracker does track, in constructor order. */
  readonly tracked: readonly string[];

  /**
   * Creates the error for an untracked name.
   *
   * @example Naming the tracked resources
   * ```ts
   * import { UnknownResourceError } from "@haptic/k8s-watcher/indextracker";
   * import assert from "node:assert/strict";
   *
   * const error = new UnknownResourceError("ingress", ["ingresses", "services"]);
   * assert.equal(
   *   error.message,
   *   'Resource "ingress" is not tracked; tracked resources: "ingresses", "services"',
   * );
   * ```
   *
   * @param resource The name that is not tracked.
   * @param tracked The names that are tracked; none when omitted.
   */
  constructor(resource: string, tracked?: readonly string[]) {
    const names = [...(tracked ?? [])];
    super(
      `Resource "${resource}" is not tracked; ${
        names.length === 0
          ? "the tracker tracks no resources"
          : `tracked resources: ${names.map((n) => `"${n}"`).join(", ")}`
      }`,
    );
    this.name = "UnknownResourceError";
    this.resource = resource;
    this.tracked = names;
  }
}

/**
 * A tracked resource that has not reported its initial sync yet.
 *
 * @example Asking for a count too early
 * ```ts
 * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
 * import { ResourceNotSyncedError } from "@haptic/k8s-watcher/indextracker";
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
   * @example The message
   * ```ts
   * import { ResourceNotSyncedError } from "@haptic/k8s-watcher/indextracker";
   * import assert from "node:assert/strict";
   *
   * const error = new ResourceNotSyncedError("services");
   * assert.equal(error.message, 'Resource "services" has not completed its initial sync');
   * ```
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
 * @example A negative count
 * ```ts
 * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
 * import { InvalidResourceCountError } from "@haptic/k8s-watcher/indextracker";
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
   * @example Keeping the rejected count
   * ```ts
   * import {
   *   InvalidResourceCountError,
   * } from "@haptic/k8s-watcher/indextracker";
   * import assert from "node:assert/strict";
   *
   * const error = new InvalidResourceCountError("services", 1.5);
   * assert.equal(error.count, 1.5);
   * assert.ok(error instanceof RangeError);
   * ```
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

/**
 * Rejects {@linkcode IndexSynchronizationTracker.synchronized} when the
 * tracker's signal aborts before every resource has synced. The message
 * names every resource still unsynced and, where known, the last error of
 * the source loading it (from the source's `lastError()`, else the error its
 * `waitForSync` failed with). `cause` is the signal's reason.
 *
 * @example Reporting what is missing after a deadline
 * ```ts
 * import {
 *   IndexSynchronizationTracker,
 *   SyncAbortedError,
 * } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const deadline = new AbortController();
 * const tracker = new IndexSynchronizationTracker(["ingresses", "secrets"], {
 *   signal: deadline.signal,
 * });
 * tracker.markSynced("ingresses", 12);
 * deadline.abort(new Error("too slow"));
 * await assert.rejects(tracker.synchronized, (e: unknown) => {
 *   assert.ok(e instanceof SyncAbortedError);
 *   assert.deepEqual(e.unsynced, ["secrets"]);
 *   assert.equal((e.cause as Error).message, "too slow");
 *   return true;
 * });
 * ```
 */
export class SyncAbortedError extends Error {
  /** The resources that had not synced, in constructor order. */
  readonly unsynced: readonly string[];
  /** The last error known for each unsynced resource that has one. */
  readonly lastErrors: ReadonlyMap<string, unknown>;

  /**
   * Creates the error for the resources that had not synced.
   *
   * @example Naming each resource and its last error
   * ```ts
   * import { SyncAbortedError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const error = new SyncAbortedError(["ingresses", "secrets"], {
   *   lastErrors: new Map([["ingresses", new Error("HTTP 403 Forbidden")]]),
   *   cause: new DOMException("Signal timed out.", "TimeoutError"),
   * });
   * assert.equal(
   *   error.message,
   *   'Resources not synced when the wait was aborted: "ingresses" (last error: HTTP 403 Forbidden), "secrets"',
   * );
   * ```
   *
   * @param unsynced The resources that had not synced.
   * @param options `lastErrors` by resource, and the abort reason as `cause`.
   */
  constructor(
    unsynced: readonly string[],
    options?: { lastErrors?: ReadonlyMap<string, unknown>; cause?: unknown },
  ) {
    const lastErrors = new Map(options?.lastErrors ?? []);
    const listed = unsynced.map((name) =>
      lastErrors.has(name)
        ? `"${name}" (last error: ${describe(lastErrors.get(name))})`
        : `"${name}"`
    );
    super(
      `Resources not synced when the wait was aborted: ${listed.join(", ")}`,
      options !== undefined && "cause" in options
        ? { cause: options.cause }
        : undefined,
    );
    this.name = "SyncAbortedError";
    this.unsynced = [...unsynced];
    this.lastErrors = lastErrors;
  }
}

/** One line for an error of any shape: its message, else its JSON. */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
