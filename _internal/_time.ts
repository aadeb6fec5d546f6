/**
 * Time as the library keeps it: timers on a clock the wall clock cannot
 * move, a clock-driven delay, and what every Lease holder (the leader
 * elector, a shard ring's members) shares.
 *
 * The timing rules of everything that holds a Lease are client-go's, so
 * that settings valid there are valid here and the other way round. Each
 * caller throws its own error class with the problem. A
 * `metav1.MicroTime` (RFC 3339 with microseconds) is how Lease holders (the
 * elector, shard ring members) write their renewals.
 *
 * @module
 */
import { type Clock, systemClock } from "../clock.ts";
import { durationProblem } from "./_option_checks.ts";

/**
 * The system timers with a monotonic `now()`: milliseconds since the epoch
 * as of process start, advanced by `performance.now()`. The wall clock
 * (`Date.now()`) can jump when NTP or an operator sets it; a lease measured
 * on it could expire early and let two replicas lead at once, and a quiet
 * watch measured on it would look wedged. The default clock of the loop, the
 * leader elector and the health endpoints.
 */
export const monotonicClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: systemClock.setTimeout,
  clearTimeout: systemClock.clearTimeout,
};

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason when it
 * aborts first. The timer is always cleared, so nothing outlives an abort.
 */
export function delay(
  ms: number,
  options: { clock: Clock; signal?: AbortSignal },
): Promise<void> {
  const { clock, signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * client-go's jitter factor: its settings must leave room for a renewal
 * attempt 1.2 retry periods after the last one before the renew deadline.
 */
export const JITTER_FACTOR = 1.2;

/** The three timings of a Lease holder. */
export interface LeaseTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/**
 * The first problem of `timings` (a field and what is wrong), or
 * `undefined`: each positive, no longer than a timer can wait (2³¹−1 ms),
 * and ordered so that a holder gives up before others may take over and
 * gets to retry a failed renewal before its deadline. `holder` names who
 * in the message: `a leader`, `a member`.
 */
export function leaseTimingsProblem(
  timings: LeaseTimings,
  holder: string,
): { field: keyof LeaseTimings; message: string } | undefined {
  for (const field of Object.keys(timings) as (keyof LeaseTimings)[]) {
    const message = durationProblem(timings[field]);
    if (message !== undefined) return { field, message };
  }
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = timings;
  if (renewDeadlineMs >= leaseDurationMs) {
    return {
      field: "renewDeadlineMs",
      message:
        `must be less than leaseDurationMs (${leaseDurationMs}), got ${renewDeadlineMs}: ${holder} must give up before the others may take over`,
    };
  }
  if (retryPeriodMs * JITTER_FACTOR >= renewDeadlineMs) {
    return {
      field: "retryPeriodMs",
      message:
        `times ${JITTER_FACTOR} must be less than renewDeadlineMs (${renewDeadlineMs}), got ${retryPeriodMs}: ${holder} must get to retry a failed renewal before its deadline`,
    };
  }
  return undefined;
}

/**
 * The MicroTime for `ms` since the epoch. Only for people reading the
 * Lease: no holder compares these across replicas.
 */
export function microTime(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  const micros = String(Math.floor((ms % 1) * 1000)).padStart(3, "0");
  return `${iso.slice(0, -1)}${micros}Z`;
}
