import { durationProblem } from "../_duration.ts";
import { LeaderElectionConfigError } from "./leader_election_config_error.ts";

/**
 * client-go's jitter factor: its settings must leave room for a renewal
 * attempt 1.2 retry periods after the last one before the renew deadline.
 * The same ratio is required here so that settings valid there are valid
 * here and the other way round.
 */
export const JITTER_FACTOR = 1.2;

/** The timings after defaults, checked. */
export interface Timings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/**
 * Checks that the three timings are positive, no longer than a timer can
 * wait (2³¹−1 ms), and ordered safely.
 */
export function validateTimings(timings: Timings): void {
  for (const field of Object.keys(timings) as (keyof Timings)[]) {
    const problem = durationProblem(timings[field]);
    if (problem !== undefined) {
      throw new LeaderElectionConfigError(field, problem);
    }
  }
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = timings;
  if (renewDeadlineMs >= leaseDurationMs) {
    throw new LeaderElectionConfigError(
      "renewDeadlineMs",
      `must be less than leaseDurationMs (${leaseDurationMs}), got ${renewDeadlineMs}: a leader must give up before the others may take over`,
    );
  }
  if (retryPeriodMs * JITTER_FACTOR >= renewDeadlineMs) {
    throw new LeaderElectionConfigError(
      "retryPeriodMs",
      `times ${JITTER_FACTOR} must be less than renewDeadlineMs (${renewDeadlineMs}), got ${retryPeriodMs}: a leader must get to retry a failed renewal before its deadline`,
    );
  }
}

/** Checks that `value` is a non-empty string. */
export function validateName(field: string, value: unknown): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw new LeaderElectionConfigError(
      field,
      `must be a non-empty string, got ${JSON.stringify(value) ?? "undefined"}`,
    );
  }
}

/** Checks that an optional callback is a function. */
export function validateCallback(
  field: string,
  value: unknown,
  required: boolean,
): void {
  if (value === undefined && !required) return;
  if (typeof value !== "function") {
    throw new LeaderElectionConfigError(field, "must be a function");
  }
}
