/**
 * Thrown by the {@linkcode LeaderElector} constructor when its configuration
 * is unusable: a missing lease name or identity, a timing that could let two
 * replicas lead at once. `field` names the offending option.
 *
 * @example A renew deadline longer than the lease
 * ```ts
 * import { FetchClient, LeaderElector } from "@haptic/k8s-watcher";
 * import {
 *   LeaderElectionConfigError,
 * } from "@haptic/k8s-watcher/leaderelection";
 * import assert from "node:assert/strict";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * assert.throws(
 *   () =>
 *     new LeaderElector({
 *       lease: { namespace: "haptic", name: "haptic-leader" },
 *       identity: "pod-a",
 *       retryPeriodMs: 9_000, // × 1.2 is not below the 10 s renew deadline
 *       onStartedLeading: () => {},
 *     }, client),
 *   (e) => e instanceof LeaderElectionConfigError && e.field === "retryPeriodMs",
 * );
 * ```
 */
export class LeaderElectionConfigError extends Error {
  /** The option that was wrong, e.g. `renewDeadlineMs`. */
  readonly field: string;

  /**
   * Creates the error; the message names the option.
   *
   * @example Naming the option
   * ```ts
   * import { LeaderElectionConfigError } from "@haptic/k8s-watcher/leaderelection";
   * import assert from "node:assert/strict";
   *
   * const err = new LeaderElectionConfigError("renewDeadlineMs", "must be less than leaseDurationMs");
   * assert.equal(err.field, "renewDeadlineMs");
   * ```
   *
   * @param field The option that was wrong.
   * @param message What was wrong with it.
   */
  constructor(field: string, message: string) {
    super(`Invalid leader election config: ${field}: ${message}`);
    this.name = "LeaderElectionConfigError";
    this.field = field;
  }
}
