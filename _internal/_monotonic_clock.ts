import { type Clock, systemClock } from "../clock.ts";

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
