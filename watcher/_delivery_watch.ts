/**
 * How far delivery has got: when the oldest change not yet delivered was
 * recorded, how many wait, and since when a call runs. A loop keeps reading
 * while a Watcher's `onChange` hangs (the batch only grows), so the loop's
 * liveness cannot see it; this can, and `event_delivery_seconds` and
 * `oldest_undelivered_change_seconds` read it.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { WatcherDelivery } from "./watcher_health.ts";

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
