/**
 * The event loop's delay, measured as the lateness of a timer on a
 * `Clock`: a timer due in `intervalMs` that fires `d` ms after it was due
 * waited `d` ms for the loop. The same on Deno, Node and Bun, where
 * `node:perf_hooks`' `monitorEventLoopDelay` is not: its numbers differ
 * between them (Node's include the sampling interval itself), and a
 * `FakeClock` drives this one in tests.
 *
 * @module
 */
import { type Clock, systemClock, type TimerHandle } from "../clock.ts";

/** Delays in ms: the latest sample's, and the longest and mean since taken. */
export class EventLoopDelay {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  #timer: TimerHandle | undefined;
  #due = 0;
  #last = 0;
  #maxSinceTaken: number | undefined;
  #meanSum = 0;
  #meanCount = 0;

  constructor(clock: Clock, intervalMs: number) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /** Samples every interval from now on (again after a stop). */
  start(): void {
    if (this.#timer === undefined) this.#schedule();
  }

  /** No timer is left pending. */
  stop(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The latest sample's delay. */
  get last(): number {
    return this.#last;
  }

  /** The longest delay since the last call (the latest one without samples since). */
  takeMax(): number {
    if (this.#maxSinceTaken === undefined) return this.#last;
    const max = this.#maxSinceTaken;
    this.#maxSinceTaken = undefined;
    return max;
  }

  /** The mean delay since the last call (the latest one without samples since). */
  takeMean(): number {
    if (this.#meanCount === 0) return this.#last;
    const mean = this.#meanSum / this.#meanCount;
    this.#meanSum = 0;
    this.#meanCount = 0;
    return mean;
  }

  #schedule(): void {
    this.#due = this.#clock.now() + this.#intervalMs;
    this.#timer = this.#clock.setTimeout(
      () => this.#sample(),
      this.#intervalMs,
    );
    unref(this.#timer, this.#clock);
  }

  #sample(): void {
    const delay = Math.max(0, this.#clock.now() - this.#due);
    this.#last = delay;
    this.#maxSinceTaken = Math.max(this.#maxSinceTaken ?? 0, delay);
    this.#meanSum += delay;
    this.#meanCount++;
    this.#schedule();
  }
}

/**
 * Lets the process exit while the timer is pending: a metrics sampler
 * must not keep a controller alive that has nothing else to do. Only the
 * system clock's timers are real; another clock's handle is left alone
 * (a number from a fake clock is not a Deno timer id).
 */
function unref(handle: TimerHandle, clock: Clock): void {
  const timer = handle as { unref?: () => void } | null;
  if (typeof timer?.unref === "function") {
    timer.unref();
    return;
  }
  if (clock === systemClock && typeof handle === "number") {
    (globalThis as { Deno?: { unrefTimer?(id: number): void } }).Deno
      ?.unrefTimer?.(handle);
  }
}
