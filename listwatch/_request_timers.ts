/**
 * The abort signal and the timers of one request of the list-then-watch
 * loop (a LIST page or a watch): aborted when the loop stops, when no answer
 * came within the first-byte deadline, when no bytes arrived for the idle
 * timeout, or when an optional deadline passes.
 *
 * @module
 */
import type { Clock, TimerHandle } from "../clock.ts";

/** Which timer aborted a request. */
export type Interrupt =
  | { readonly type: "idleTimeout"; readonly idleMs: number }
  | { readonly type: "initialStreamDeadline"; readonly afterMs: number }
  | { readonly type: "relist" };

/** Options of {@linkcode RequestTimers}. */
export interface RequestTimersOptions {
  /** Silence after which the request is aborted, in milliseconds. */
  idleMs: number;
  /**
   * A deadline, in milliseconds, counted from the request and from each
   * {@linkcode RequestTimers.progress}.
   */
  deadlineMs?: number;
  /**
   * A deadline for the answer (its status and headers), in milliseconds:
   * a server that accepts the connection and never answers would
   * otherwise be noticed by the idle timeout only.
   */
  firstByteMs?: number;
  /**
   * The first-byte deadline starts at {@linkcode RequestTimers.sent}, not
   * now: the client says when the request went out (after its
   * credentials, an exec plugin's run say, were ready).
   */
  firstByteFromSent?: boolean;
}

/**
 * One request's abort signal and timers. The idle timer is one timer per
 * idle period rather than one per chunk: when bytes came meanwhile it
 * re-arms itself for the rest of the period. While the consumer applies
 * back-pressure (`pause()`), the silence is ours, not the server's, and
 * does not count.
 */
export class RequestTimers {
  /** Aborted by the loop's signal, the idle timer or the deadline. */
  readonly signal: AbortSignal;
  /** Set when a timer aborted the request; `undefined` otherwise. */
  interrupt: Interrupt | undefined;
  /** Set when no answer came within `firstByteMs`: that deadline. */
  noAnswerMs: number | undefined;
  #controller = new AbortController();
  #outer: AbortSignal;
  #clock: Clock;
  #idleMs: number;
  #lastBytesAt: number;
  #paused = false;
  #idleTimer: TimerHandle | undefined;
  #deadline: TimerHandle | undefined;
  #deadlineMs = 0;
  #lastProgressAt = 0;
  #firstByte: TimerHandle | undefined;
  #firstByteMs: number | undefined;
  #answered = false;

  constructor(clock: Clock, outer: AbortSignal, options: RequestTimersOptions) {
    this.signal = this.#controller.signal;
    this.#outer = outer;
    this.#clock = clock;
    this.#idleMs = options.idleMs;
    this.#lastBytesAt = clock.now();
    if (outer.aborted) this.#controller.abort(outer.reason);
    else outer.addEventListener("abort", this.#abortWithOuter, { once: true });
    this.#idleTimer = clock.setTimeout(this.#checkIdle, options.idleMs);
    this.#firstByteMs = options.firstByteMs;
    if (!options.firstByteFromSent) this.sent();
    if (options.deadlineMs !== undefined) {
      this.#deadlineMs = options.deadlineMs;
      this.#lastProgressAt = clock.now();
      this.#deadline = clock.setTimeout(this.#checkDeadline, this.#deadlineMs);
    }
  }

  /**
   * The request went out (again, after a 401 that renewed its
   * credentials): the first-byte deadline starts now. (Bound.)
   */
  sent = (): void => {
    const afterMs = this.#firstByteMs;
    if (afterMs === undefined || this.#answered || this.signal.aborted) return;
    if (this.#firstByte !== undefined) {
      this.#clock.clearTimeout(this.#firstByte);
    }
    this.#firstByte = this.#clock.setTimeout(() => {
      this.#firstByte = undefined;
      this.noAnswerMs = afterMs;
      this.#controller.abort(
        new DOMException(`No answer within ${afterMs} ms`, "TimeoutError"),
      );
    }, afterMs);
  };

  /** The answer came (status and headers): the first-byte deadline is met. */
  answered(): void {
    this.#answered = true;
    if (this.#firstByte === undefined) return;
    this.#clock.clearTimeout(this.#firstByte);
    this.#firstByte = undefined;
  }

  /** Bytes arrived: the idle period starts again. */
  bytes = (): void => {
    this.#lastBytesAt = this.#clock.now();
  };

  /** The consumer is busy: silence does not count until `resume()`. */
  pause(): void {
    this.#paused = true;
  }

  /** The consumer is done: the idle period starts again. */
  resume(): void {
    this.#paused = false;
    this.#lastBytesAt = this.#clock.now();
  }

  /** Whether the deadline is still pending. */
  get hasDeadline(): boolean {
    return this.#deadline !== undefined;
  }

  /**
   * What the deadline guards moved on at `at` (on the clock): it counts
   * from there. A long initial stream that keeps bringing objects is not
   * a server that ignores the request.
   */
  progress(at: number): void {
    this.#lastProgressAt = at;
  }

  /** Cancels the deadline (what it guarded is done). */
  endDeadline(): void {
    if (this.#deadline === undefined) return;
    this.#clock.clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }

  /** Clears every timer and aborts the request, releasing what it holds. */
  close(): void {
    if (this.#idleTimer !== undefined) {
      this.#clock.clearTimeout(this.#idleTimer);
    }
    this.#idleTimer = undefined;
    this.answered();
    this.endDeadline();
    this.#outer.removeEventListener("abort", this.#abortWithOuter);
    this.#controller.abort();
  }

  #checkDeadline = (): void => {
    const afterMs = this.#deadlineMs;
    const sinceMs = this.#clock.now() - this.#lastProgressAt;
    if (sinceMs < afterMs) {
      this.#deadline = this.#clock.setTimeout(
        this.#checkDeadline,
        afterMs - sinceMs,
      );
      return;
    }
    this.#deadline = undefined;
    this.#interrupt({ type: "initialStreamDeadline", afterMs });
  };

  #checkIdle = (): void => {
    const quietMs = this.#clock.now() - this.#lastBytesAt;
    if (this.#paused || quietMs < this.#idleMs) {
      this.#idleTimer = this.#clock.setTimeout(
        this.#checkIdle,
        this.#paused ? this.#idleMs : this.#idleMs - quietMs,
      );
      return;
    }
    this.#idleTimer = undefined;
    this.#interrupt({ type: "idleTimeout", idleMs: quietMs });
  };

  /** Aborts the request for `why` (the first reason given stays). */
  interruptWith(why: Interrupt): void {
    this.#interrupt(why);
  }

  #interrupt(why: Interrupt): void {
    this.interrupt ??= why;
    this.#controller.abort(
      why.type === "relist"
        ? new DOMException("A relist was asked for", "AbortError")
        : new DOMException(
          why.type === "idleTimeout"
            ? `No bytes for ${why.idleMs} ms`
            : `Deadline of ${why.afterMs} ms passed`,
          "TimeoutError",
        ),
    );
  }

  #abortWithOuter = (): void => {
    this.#controller.abort(this.#outer.reason);
  };
}
