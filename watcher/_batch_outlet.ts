/**
 * Where a `Watcher`'s pending batch goes: to its own debounced `onChange`,
 * or to the `DebounceGroup` member it was given. Either way the sync rules
 * are the same: nothing is delivered while the initial list loads (unless
 * `callOnChangeDuringSync`), the initial-sync batch is delivered once the
 * list is in, empty or not, and opens no debounce window (in a group, once
 * no member is loading its list), a failed batch goes out again with the
 * next, and `stop()` delivers what is pending. How far delivery has got
 * (`DeliveryWatch`: the oldest change not delivered, a call running since)
 * is kept here, for health and metrics.
 *
 * @module
 */
import { failureFields } from "../_internal/_logging.ts";
import type { KubeObjectLike, Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { BatchBuilder, ChangeBatch } from "./change_batch.ts";
import type { DebounceSettle } from "./debounce_settle.ts";
import type { WatcherMetrics } from "./_watcher_metrics.ts";
import { DebounceScheduler } from "./_debounce_scheduler.ts";
import { monotonicClock } from "../_internal/_time.ts";
import { attachSource, type GroupLink } from "./debounce_group.ts";
import { changeCallbackFailedLine, write } from "./_log_lines.ts";
import type { WatcherDelivery } from "./watcher_health.ts";

/** What the watcher asks of wherever its batches go. */
export interface BatchOutlet {
  /** Enters (run start) or leaves (initial sync complete) sync mode. */
  setSyncMode(syncing: boolean): void;
  /** Delivers now (`forceSync`). */
  flush(): Promise<void>;
  /** Resolves once nothing runs or is scheduled. */
  idle(): Promise<void>;
  /** Delivers what is pending when `deliver`, then falls silent. */
  shutdown(deliver: boolean): Promise<void>;
  /**
   * The watcher's stop has begun: no retry timer of its own from now on
   * (`shutdown` delivers a failed batch once more). A group's retries are
   * the group's.
   */
  stopping(): void;
  /**
   * Holds the batch back (it goes on recording) until the returned
   * function is called: while the watcher's `onSyncComplete` runs, as a
   * watcher alone receives nothing then (its loop waits for it).
   */
  hold(): () => void;
  /** Delivers nothing from now on (stopped from inside a callback). */
  silence(): void;
  /** Whose callbacks deliver the batch besides the watcher's: its group. */
  readonly callbackOwners: readonly object[];
  /** How far delivery to the watcher's own `onChange` has got (not a group's). */
  readonly delivery?: DeliveryWatch;
}

/** Batches to the watcher's own debounced `onChange`. */
export function ownOutlet<T extends KubeObjectLike>(
  builder: BatchBuilder<T>,
  options: {
    interval: number;
    settle: DebounceSettle | undefined;
    /** Gets the batch and when its oldest change was recorded. */
    onChange: (
      batch: ChangeBatch<T>,
      since: number | undefined,
    ) => void | Promise<void>;
    suppressDuringSync: boolean;
    clock: Clock | undefined;
    logger: Logger;
    /** A call carries again what a failed one did not deliver. */
    onRetry?: () => void;
  },
): BatchOutlet {
  const { logger, onChange } = options;
  const hold = new Hold(builder);
  const delivery = new DeliveryWatch(
    options.clock ?? monotonicClock,
    () => builder.size,
  );
  const scheduler = new DebounceScheduler<ChangeBatch<T>>({
    interval: options.interval,
    settle: options.settle,
    pending: {
      get isEmpty() {
        return builder.isEmpty || hold.holds;
      },
      get holding() {
        return hold.holds;
      },
      take: (initial) => hold.taken(builder.take(initial)),
      ended(retry) {
        builder.ended(retry);
        // Its changes wait again, since they came.
        if (retry) delivery.restored();
      },
    },
    onRetry: options.onRetry,
    onChange: (batch) => {
      const since = delivery.taken();
      let result: void | Promise<void>;
      try {
        result = onChange(batch, since);
      } catch (error) {
        delivery.ended();
        throw error;
      }
      if (!(result instanceof Promise)) {
        delivery.ended();
        return result;
      }
      return result.finally(() => delivery.ended());
    },
    suppressDuringSync: options.suppressDuringSync,
    clock: options.clock,
    onFailure: (error, batch) => {
      const line = changeCallbackFailedLine(error, batch);
      // With the stack: the failure is in the user's code.
      write(logger, {
        ...line,
        fields: { ...failureFields(error), ...line.fields },
      });
    },
  });
  builder.onRecord = () => {
    delivery.recorded(builder.isEmpty);
    hold.recorded();
    if (!hold.holds) scheduler.changed();
  };
  return {
    setSyncMode: (syncing) => {
      if (!syncing) builder.initialDue();
      hold.setSyncMode(syncing);
      scheduler.setSyncMode(syncing);
    },
    flush: () => scheduler.flush(),
    idle: () => scheduler.idle(),
    async shutdown(deliver) {
      hold.release();
      if (deliver) await scheduler.flushPending();
      await scheduler.stop();
    },
    stopping: () => scheduler.endRetries(),
    // A failed batch alone keeps to its retry's time, as it would had
    // nothing been held: a watcher alone records nothing meanwhile.
    hold: () =>
      hold.begin((recorded) => {
        if (recorded) scheduler.changed();
      }),
    silence: () => void scheduler.stop(),
    callbackOwners: [],
    delivery,
  };
}

/** Batches to a `DebounceGroup` member, taken whole when the group fires. */
export function groupOutlet<T extends KubeObjectLike>(
  builder: BatchBuilder<T>,
  member: object,
  options: {
    suppressDuringSync: boolean;
    clock: Clock;
    /** The watcher's metrics: it counts the group's calls with its batch. */
    metrics: WatcherMetrics | undefined;
  },
): BatchOutlet {
  const { suppressDuringSync, clock, metrics } = options;
  let syncing = false;
  /** When the oldest change pending was recorded (see `DeliveryWatch`). */
  let since: number | undefined;
  let takenSince: number | undefined;
  const hold = new Hold(builder);
  const link: GroupLink = attachSource<ChangeBatch<T>>(member, {
    clock,
    get isEmpty() {
      return builder.isEmpty || hold.holds || (syncing && suppressDuringSync);
    },
    get isInitial() {
      return syncing || builder.isInitialDue;
    },
    get loading() {
      return syncing && suppressDuringSync;
    },
    get since() {
      return since;
    },
    take() {
      const batch = hold.taken(builder.take(syncing));
      takenSince = since;
      since = undefined;
      metrics?.delivering(batch.isInitialSync, takenSince);
      return batch;
    },
    ended(retry) {
      builder.ended(retry);
      if (retry && takenSince !== undefined) {
        since = Math.min(since ?? Infinity, takenSince);
      }
      takenSince = undefined;
    },
  });
  builder.onRecord = () => {
    if (builder.isEmpty) since = undefined;
    else since ??= clock.now();
    if (hold.holds) return;
    if (syncing && suppressDuringSync) return;
    link.changed();
  };
  return {
    setSyncMode(next) {
      if (next === syncing) return;
      if (!next) builder.initialDue();
      hold.setSyncMode(next);
      syncing = next;
      if (!next) void link.synced();
    },
    flush: () => link.flush(),
    idle: () => link.idle(),
    async shutdown(deliver) {
      hold.release();
      if (deliver) await link.flush();
      link.detach();
    },
    stopping: () => {},
    hold: () => hold.begin(() => link.changed()),
    silence: () => link.detach(),
    callbackOwners: [link.group],
  };
}

/**
 * A batch held back while `onSyncComplete` runs (see `BatchOutlet.hold`).
 * The initial-sync batch pending when sync mode ends still goes out: it
 * comes before `onSyncComplete`.
 */
class Hold {
  #builder: { readonly isEmpty: boolean };
  #held = false;
  #initialDue = false;
  /** Something was recorded while held. */
  #recorded = false;
  #onRelease: ((recorded: boolean) => void) | undefined;

  constructor(builder: { readonly isEmpty: boolean }) {
    this.#builder = builder;
  }

  /** Whether changes are held back now. */
  get holds(): boolean {
    return this.#held && !this.#initialDue;
  }

  /**
   * Holds until the returned function runs, which calls `release` when
   * something waits: `recorded` says whether it came while held (else it
   * is a failed batch waiting for its retry).
   */
  begin(release: (recorded: boolean) => void): () => void {
    this.#held = true;
    this.#recorded = false;
    this.#onRelease = release;
    return () => this.release();
  }

  /** A change was recorded (while held, it waits for the release). */
  recorded(): void {
    if (this.holds) this.#recorded = true;
  }

  /** Lets changes through again, scheduling what was held. */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    const release = this.#onRelease!;
    this.#onRelease = undefined;
    if (!this.#builder.isEmpty) release(this.#recorded);
  }

  /**
   * Leaving sync mode: what is pending is the initial batch (due even when
   * empty), let through.
   */
  setSyncMode(syncing: boolean): void {
    if (!syncing) this.#initialDue = !this.#builder.isEmpty;
  }

  /** The batch was taken: the initial batch, if due, has gone. */
  taken<B>(batch: B): B {
    this.#initialDue = false;
    return batch;
  }
}

// How far delivery has got: when the oldest change not yet delivered was
// recorded, how many wait, and since when a call runs. A loop keeps reading
// while a Watcher's `onChange` hangs (the batch only grows), so the loop's
// liveness cannot see it; this can, and `event_delivery_seconds` and
// `oldest_undelivered_change_seconds` read it.

/** One Watcher's delivery, fed by its outlet. */
export class DeliveryWatch {
  readonly #clock: Clock;
  /** When the oldest change of the pending batch was recorded. */
  #pendingSince: number | undefined;
  /** When the oldest change of the batch in the running call was recorded. */
  #runningSince: number | undefined;
  /** When the running call started. */
  #callStarted: number | undefined;
  /** When the oldest change of the batch taken last was recorded. */
  #lastTaken: number | undefined;
  #waiting: () => number;

  constructor(clock: Clock, waiting: () => number) {
    this.#clock = clock;
    this.#waiting = waiting;
  }

  /**
   * A change was recorded (hot path). `empty`: the pending batch holds
   * nothing after it (a create and a delete coalesced away), so its wait
   * starts again with the next change.
   */
  recorded(empty: boolean): void {
    if (empty) this.#pendingSince = undefined;
    else if (this.#pendingSince === undefined) {
      this.#pendingSince = this.#clock.now();
    }
  }

  /**
   * A call takes the pending batch: returns when its oldest change was
   * recorded.
   */
  taken(): number | undefined {
    const since = this.#pendingSince;
    this.#pendingSince = undefined;
    this.#runningSince = this.#lastTaken = since;
    this.#callStarted = this.#clock.now();
    return since;
  }

  /** The call settled. */
  ended(): void {
    this.#runningSince = this.#callStarted = undefined;
  }

  /**
   * The call that settled last failed, and its batch waits for a retry:
   * its oldest change is still undelivered, since it was recorded.
   */
  restored(): void {
    const since = this.#lastTaken;
    this.#lastTaken = undefined;
    if (since === undefined) return;
    this.#pendingSince = Math.min(this.#pendingSince ?? Infinity, since);
  }

  /** When the oldest change not yet delivered was recorded. */
  get oldestSince(): number | undefined {
    return this.#runningSince ?? this.#pendingSince;
  }

  /** Seconds since the oldest change not yet delivered; 0 when none is. */
  ageSeconds(): number {
    const since = this.oldestSince;
    return since === undefined ? 0 : (this.#clock.now() - since) / 1000;
  }

  /** The snapshot `health().delivery` gives. */
  snapshot(): WatcherDelivery {
    return {
      undelivered: this.#waiting(),
      oldestUndeliveredTime: this.oldestSince,
      callbackRunningSince: this.#callStarted,
    };
  }
}
