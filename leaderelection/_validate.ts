import {
  type LeaseTimings,
  leaseTimingsProblem,
} from "../_internal/_lease_timings.ts";
import { LeaderElectionConfigError } from "./leader_election_config_error.ts";

export { JITTER_FACTOR } from "../_internal/_lease_timings.ts";

/** The timings after defaults, checked. */
export type Timings = LeaseTimings;

/**
 * Checks that the three timings are positive, no longer than a timer can
 * wait (2³¹−1 ms), and ordered safely.
 */
export function validateTimings(timings: Timings): void {
  const problem = leaseTimingsProblem(timings, "a leader");
  if (problem) {
    throw new LeaderElectionConfigError(problem.field, problem.message);
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
