/**
 * The timing rules of everything that holds a Lease (the leader elector,
 * a shard ring's members): client-go's, so that settings valid there are
 * valid here and the other way round. Each caller throws its own error
 * class with the problem.
 *
 * @module
 */
import { durationProblem } from "./_duration.ts";

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
