import type {
  Meter,
  MetricAttributes,
  UpDownCounter,
} from "../metrics/meter.ts";
import { instrumentsOf, meterProblem, PREFIX } from "../_internal/_metrics.ts";
import { failureFields } from "../_internal/_logging.ts";
import { optionNamesProblem } from "../_internal/_option_checks.ts";
import type { Logger } from "../types.ts";
import { consoleLogger } from "../logger.ts";

/**
 * Anything whose initial sync can be awaited for a count, such as a
 * `Watcher`. Used by {@linkcode IndexSynchronizationTracker.track}.
 *
 * @example A source that is loaded already
 * ```ts
 * import type { SyncSource } from "@haptic/k8s-watcher/indextracker";
 *
 * const loaded: SyncSource = { waitForSync: () => Promise.resolve(3) };
 * ```
 *
 * @example A source that says why it is not synced yet
 * ```ts
 * import type { SyncSource } from "@haptic/k8s-watcher/indextracker";
 *
 * let failure: { error: unknown } | undefined;
 * const source: SyncSource = {
 *   waitForSync: () => new Promise(() => {}), // never, in this example
 *   lastError: () => failure,
 * };
 * failure = { error: new Error("HTTP 403 Forbidden") };
 * ```
 */
export interface SyncSource {
  /**
   * Resolves with the number of objects loaded by the initial list.
   *
   * @example A source that loads 3 objects
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import type { SyncSource } from "@haptic/k8s-watcher/indextracker";
   * import assert from "node:assert/strict";
   *
   * const source: SyncSource = { waitForSync: () => Promise.resolve(3) };
   * const tracker = new IndexSynchronizationTracker(["nodes"]);
   * void tracker.track("nodes", source);
   * assert.deepEqual(await tracker.synchronized, new Map([["nodes", 3]]));
   * ```
   */
  waitForSync(signal?: AbortSignal): Promise<number>;
  /**
   * The source's most recent failure as `{ error }`, or `undefined` when
   * none. Optional; when present, a {@linkcode SyncAbortedError} names the
   * error for each resource that had not synced. `Watcher.lastError()` and
   * `SingleWatcher.lastError()` fit.
   *
   * @example Naming why a source did not sync
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import type { SyncSource } from "@haptic/k8s-watcher/indextracker";
   * import assert from "node:assert/strict";
   * import { SyncAbortedError } from "@haptic/k8s-watcher";
   *
   * const stuck: SyncSource = {
   *   waitForSync: (signal) =>
   *     new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
   *   lastError: () => ({ error: new Error("403 Forbidden") }),
   * };
   * const controller = new AbortController();
   * const tracker = new IndexSynchronizationTracker(["secrets"], { signal: controller.signal });
   * void tracker.track("secrets", stuck);
   * controller.abort();
   * await assert.rejects(tracker.synchronized, (err) => err instanceof SyncAbortedError && /403/.test(err.message));
   * ```
   */
  lastError?(): { readonly error: unknown } | undefined;
}

/**
 * Options for {@linkcode IndexSynchronizationTracker}.
 *
 * @example A deadline and a completion callback
 * ```ts
 * import type {
 *   IndexSynchronizationTrackerOptions,
 * } from "@haptic/k8s-watcher/indextracker";
 *
 * const options: IndexSynchronizationTrackerOptions = {
 *   signal: AbortSignal.timeout(60_000),
 *   onSynchronized: (counts) => console.log([...counts]),
 * };
 * ```
 */
export interface IndexSynchronizationTrackerOptions {
  /**
   * Receives progress and problems.
   *
   * @default {consoleLogger()}
   */
  logger?: Logger;
  /**
   * When it aborts before every resource has synced, `synchronized` rejects
   * with a {@linkcode SyncAbortedError} naming the unsynced resources, its
   * reason as `cause`. It is also handed to the sources given to
   * {@linkcode IndexSynchronizationTracker.track}.
   */
  signal?: AbortSignal;
  /**
   * Called once, with the same counts `synchronized` resolves with, when it
   * resolves. Never called when the signal aborted first. A throw is logged.
   */
  onSynchronized?: (counts: ReadonlyMap<string, number>) => void;
  /**
   * Where the tracker's metrics go (see `@haptic/k8s-watcher/metrics`):
   * `k8s_watcher_tracker_resources{state="synced"|"unsynced"}`, an
   * up-down counter over every tracker of the meter. A tracker whose
   * signal aborted waits for nothing: its unsynced resources leave the
   * count then.
   */
  meter?: Meter;
}

/**
 * Waits until every named resource has reported its initial sync, then
 * resolves {@linkcode IndexSynchronizationTracker.synchronized} once with
 * every count: the cue to start reconciling without partial data.
 *
 * Names are fixed at construction: reporting a name the tracker was not
 * built with throws {@linkcode UnknownResourceError}, so a typo fails at
 * once instead of leaving `synchronized` pending for ever.
 *
 * @example Two resources, one marked by hand, one tracked
 * ```ts
 * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const tracker = new IndexSynchronizationTracker(["ingresses", "services"]);
 * tracker.markSynced("ingresses", 12);
 * assert.equal(tracker.allSynced(), false);
 * await tracker.track("services", { waitForSync: () => Promise.resolve(4) });
 *
 * const counts = await tracker.synchronized;
 * assert.deepEqual([...counts], [["ingresses", 12], ["services", 4]]);
 * ```
 */
export class IndexSynchronizationTracker {
  /**
   * Resolves once, when the last resource syncs, with every count keyed by
   * resource name in constructor order (a fresh map, not shared with the
   * tracker). Rejects with a {@linkcode SyncAbortedError} when the signal
   * aborts first. An un-awaited rejection is not reported as unhandled.
   *
   * @example Giving up after a deadline
   * ```ts
   * import {
   *   IndexSynchronizationTracker,
   *   SyncAbortedError,
   * } from "@haptic/k8s-watcher";
   *
   * const tracker = new IndexSynchronizationTracker(["ingresses"], {
   *   signal: AbortSignal.timeout(10),
   * });
   * try {
   *   await tracker.synchronized;
   * } catch (error) {
   *   if (!(error instanceof SyncAbortedError)) throw error;
   *   console.error(error.message); // names "ingresses"
   * }
   * ```
   */
  readonly synchronized: Promise<ReadonlyMap<string, number>>;

  readonly #names: readonly string[];
  readonly #expected: ReadonlySet<string>;
  readonly #counts = new Map<string, number>();
  /** The source last given to `track()` for each name. */
  readonly #sources = new Map<string, SyncSource>();
  /** The error each name's `waitForSync` last failed with. */
  readonly #failures = new Map<string, unknown>();
  readonly #logger: Logger;
  readonly #signal: AbortSignal | undefined;
  readonly #onSynchronized:
    | ((counts: ReadonlyMap<string, number>) => void)
    | undefined;
  #settled = false;
  /** Aborted before every resource synced. */
  #aborted = false;
  #resources: UpDownCounter | undefined;
  #resolve!: (counts: ReadonlyMap<string, number>) => void;
  #reject!: (reason: unknown) => void;

  /**
   * Creates a tracker for `resourceNames`; duplicates are collapsed with a
   * warning. An empty list is synchronized at once.
   *
   * @example With a deadline and a completion callback
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   *
   * const tracker = new IndexSynchronizationTracker(["ingresses", "services"], {
   *   signal: AbortSignal.timeout(60_000),
   *   onSynchronized: (counts) => console.log("ready", counts),
   * });
   * tracker.markSynced("ingresses", 3);
   * tracker.markSynced("services", 1);
   * ```
   *
   * @param resourceNames The resources that must sync.
   * @param options Logger, abort signal and completion callback.
   * @throws {TrackerConfigError} When a name is not a non-empty string,
   * `meter` is not a `Meter`, or `options` has a name it does not take.
   */
  constructor(
    resourceNames: readonly string[],
    options?: IndexSynchronizationTrackerOptions,
  ) {
    const names = optionNamesProblem({
      known: TRACKER_NAMES,
      value: options,
      type: "IndexSynchronizationTrackerOptions",
    });
    if (names) throw new TrackerConfigError(names.field, names.message);
    this.#logger = options?.logger ?? consoleLogger();
    this.#signal = options?.signal;
    this.#onSynchronized = options?.onSynchronized;
    const expected = new Set<string>();
    for (const name of resourceNames) {
      if (typeof name !== "string" || name === "") {
        throw new TrackerConfigError(
          "resourceNames",
          `must be non-empty strings, got ${JSON.stringify(name)}`,
        );
      }
      if (expected.has(name)) {
        this.#logger.warn("Duplicate resource name ignored", {
          resource: name,
        });
      }
      expected.add(name);
    }
    this.#expected = expected;
    this.#names = [...expected];
    if (options?.meter !== undefined) {
      const problem = meterProblem(options.meter);
      if (problem !== undefined) {
        throw new TrackerConfigError("meter", problem);
      }
      this.#resources = instrumentsOf(
        options.meter,
        "tracker",
        (meter) =>
          meter.createUpDownCounter(PREFIX + "tracker_resources", {
            description:
              "Resources an IndexSynchronizationTracker waits for, by state: synced or unsynced",
          }),
      );
      this.#resources.add(this.#names.length, UNSYNCED);
    }

    this.synchronized = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Awaiting callers still see the rejection; nobody awaiting is fine too.
    this.synchronized.catch(() => {});

    if (this.#names.length === 0) {
      this.#complete();
    } else if (this.#signal?.aborted) {
      this.#abort();
    } else {
      this.#signal?.addEventListener("abort", this.#abort, { once: true });
    }
  }

  /**
   * The tracked resource names, duplicates removed, in constructor order.
   *
   * @example Duplicates collapsed
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const tracker = new IndexSynchronizationTracker(["a", "b", "a"]);
   * assert.deepEqual(tracker.resourceNames, ["a", "b"]);
   * ```
   */
  get resourceNames(): readonly string[] {
    return this.#names;
  }

  /**
   * Records that `name` finished its initial sync with `count` objects.
   * A second report for the same name is ignored and the first count kept.
   *
   * @example A second report is ignored
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const tracker = new IndexSynchronizationTracker(["ingresses"]);
   * assert.equal(tracker.markSynced("ingresses", 12), true);
   * assert.equal(tracker.markSynced("ingresses", 13), false); // already synced
   * ```
   *
   * @param name The resource that synced.
   * @param count How many objects its initial list held.
   * @returns Whether this call recorded the sync.
   * @throws {UnknownResourceError} When the tracker was not built with `name`.
   * @throws {InvalidResourceCountError} When `count` is not a non-negative integer.
   */
  markSynced(name: string, count: number): boolean {
    this.#checkTracked(name);
    if (!Number.isSafeInteger(count) || count < 0) {
      throw new InvalidResourceCountError(name, count);
    }
    const kept = this.#counts.get(name);
    if (kept !== undefined) {
      this.#logger.debug("Ignoring repeated sync of a resource", {
        resource: name,
        count,
        kept,
      });
      return false;
    }
    this.#counts.set(name, count);
    // After an abort nothing waits for it: it left the unsynced count then.
    if (!this.#aborted) this.#resources?.add(-1, UNSYNCED);
    this.#resources?.add(1, SYNCED);
    const remaining = this.#names.length - this.#counts.size;
    this.#logger.info("Resource synced", { resource: name, count, remaining });
    if (remaining === 0) this.#complete();
    return true;
  }

  /**
   * Whether every tracked resource has synced (also after an abort, when
   * the remaining ones synced later).
   *
   * @example Waiting for the last one
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const tracker = new IndexSynchronizationTracker(["a", "b"]);
   * tracker.markSynced("a", 1);
   * assert.equal(tracker.allSynced(), false);
   * tracker.markSynced("b", 0);
   * assert.equal(tracker.allSynced(), true);
   * ```
   */
  allSynced(): boolean {
    return this.#counts.size === this.#names.length;
  }

  /**
   * Whether `name` has synced; `false` for untracked names.
   *
   * @example Per resource
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const tracker = new IndexSynchronizationTracker(["a"]);
   * tracker.markSynced("a", 2);
   * assert.equal(tracker.isResourceSynced("a"), true);
   * assert.equal(tracker.isResourceSynced("b"), false);
   * ```
   *
   * @param name A resource name.
   */
  isResourceSynced(name: string): boolean {
    return this.#counts.has(name);
  }

  /**
   * The count `name` synced with.
   *
   * @example A known count
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const tracker = new IndexSynchronizationTracker(["services"]);
   * tracker.markSynced("services", 4);
   * assert.equal(tracker.getResourceCount("services"), 4);
   * ```
   *
   * @param name A tracked resource name.
   * @throws {UnknownResourceError} When `name` is not tracked.
   * @throws {ResourceNotSyncedError} When `name` has not synced yet.
   */
  getResourceCount(name: string): number {
    const count = this.#counts.get(name);
    if (count !== undefined) return count;
    this.#checkTracked(name);
    throw new ResourceNotSyncedError(name);
  }

  /**
   * The counts of the resources synced so far, in constructor order; a copy
   * the caller may change.
   *
   * @example Partial counts
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const tracker = new IndexSynchronizationTracker(["a", "b"]);
   * tracker.markSynced("b", 2);
   * assert.deepEqual([...tracker.getAllResourceCounts()], [["b", 2]]);
   * ```
   */
  getAllResourceCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const name of this.#names) {
      const count = this.#counts.get(name);
      if (count !== undefined) counts.set(name, count);
    }
    return counts;
  }

  /**
   * Awaits `source.waitForSync(signal)` (with the tracker's signal) and
   * marks `name` synced with the count. The returned promise never rejects:
   * a failure or an invalid count is logged (at debug level once the signal
   * aborted, at error level otherwise) and leaves `name` unsynced, so
   * `synchronized` stays pending until `name` is marked some other way or
   * the signal aborts; that failure is then named in the
   * {@linkcode SyncAbortedError}, unless `source.lastError()` reports a
   * newer one.
   *
   * @example Tracking a watcher
   * ```ts
   * import { IndexSynchronizationTracker } from "@haptic/k8s-watcher";
   * import { type SyncSource } from "@haptic/k8s-watcher/indextracker";
   * import assert from "node:assert/strict";
   *
   * const tracker = new IndexSynchronizationTracker(["ingresses"]);
   * const ingresses: SyncSource = { waitForSync: () => Promise.resolve(7) }; // a Watcher fits
   * void tracker.track("ingresses", ingresses);
   * assert.equal((await tracker.synchronized).get("ingresses"), 7);
   * ```
   *
   * @param name The tracked resource `source` loads.
   * @param source What to wait for, such as a `Watcher`.
   * @returns Resolves once `source` has settled.
   * @throws {UnknownResourceError} When the tracker was not built with `name`
   * (thrown at once; `source` is not awaited).
   * @throws {TypeError} When `source` has no `waitForSync` method.
   */
  track(name: string, source: SyncSource): Promise<void> {
    this.#checkTracked(name);
    if (typeof source?.waitForSync !== "function") {
      throw new TypeError(
        `Sync source for resource "${name}" must have a waitForSync method`,
      );
    }
    this.#sources.set(name, source);
    return this.#track(name, source);
  }

  async #track(name: string, source: SyncSource): Promise<void> {
    try {
      this.markSynced(name, await source.waitForSync(this.#signal));
    } catch (error) {
      const fields = { resource: name, error };
      if (this.#signal?.aborted) {
        this.#logger.debug("Resource sync abandoned", fields);
      } else {
        this.#failures.set(name, error);
        this.#logger.error("Resource sync failed", fields);
      }
    }
  }

  #checkTracked(name: string): void {
    if (!this.#expected.has(name)) {
      throw new UnknownResourceError(name, this.#names);
    }
  }

  /** The last error known for `name`: its source's own, else its failure. */
  #lastErrorOf(name: string): unknown {
    const source = this.#sources.get(name);
    if (typeof source?.lastError === "function") {
      try {
        const failure = source.lastError();
        if (failure != null && failure.error != null) return failure.error;
      } catch {
        // A broken accessor must not hide which resources are missing.
      }
    }
    return this.#failures.get(name);
  }

  #complete(): void {
    if (this.#settled) return;
    this.#settle();
    const counts: ReadonlyMap<string, number> = this.getAllResourceCounts();
    this.#logger.info("All resources synced", { resources: counts.size });
    this.#resolve(counts);
    if (this.#onSynchronized === undefined) return;
    try {
      this.#onSynchronized(counts);
    } catch (error) {
      this.#logger.error(
        "onSynchronized callback failed",
        failureFields(error),
      );
    }
  }

  #abort = (): void => {
    if (this.#settled) return;
    this.#settle();
    const unsynced = this.#names.filter((name) => !this.#counts.has(name));
    // The gauge counts what trackers wait for; this one waits no more.
    this.#aborted = true;
    this.#resources?.add(-unsynced.length, UNSYNCED);
    const lastErrors = new Map<string, unknown>();
    for (const name of unsynced) {
      const error = this.#lastErrorOf(name);
      if (error !== undefined) lastErrors.set(name, error);
    }
    this.#reject(
      new SyncAbortedError(unsynced, {
        lastErrors,
        cause: this.#signal!.reason,
      }),
    );
  };

  #settle(): void {
    this.#settled = true;
    this.#signal?.removeEventListener("abort", this.#abort);
  }
}

/** The names `IndexSynchronizationTrackerOptions` takes (a record over its keys). */
const UNSYNCED: MetricAttributes = Object.freeze({ state: "unsynced" });
const SYNCED: MetricAttributes = Object.freeze({ state: "synced" });

const TRACKER_NAMES: Record<keyof IndexSynchronizationTrackerOptions, true> = {
  logger: true,
  signal: true,
  onSynchronized: true,
  meter: true,
};

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
