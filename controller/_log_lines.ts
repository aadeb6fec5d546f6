/**
 * Every log line of a controller: level, wording, fields. Each line also
 * carries the `controller` field, and a reconcile's the `key`.
 *
 * @module
 */
import type { Logger } from "../types.ts";
import { failureFields } from "../_internal/_logging.ts";
import type { Written } from "./_write_waits.ts";

/** A controller's lines, one function each. */
export const controllerLines = {
  synced(logger: Logger, keys: number): void {
    logger.info("Controller synced: reconciling", { keys });
  },
  waitingForLead(logger: Logger): void {
    logger.info("Controller synced: a standby until it leads");
  },
  leading(logger: Logger, workers: number): void {
    logger.info("Controller leads: reconciling", { workers });
  },
  leadLost(logger: Logger, running: number): void {
    logger.warn("Controller lost the lead: aborting the reconciles in flight", {
      running,
    });
  },
  failed(logger: Logger, attempt: number, error: unknown): void {
    logger.error("Reconcile failed: retrying after its backoff", {
      attempt,
      ...failureFields(error),
    });
  },
  timedOut(logger: Logger, attempt: number, ms: number): void {
    logger.error(
      "Reconcile timed out: its signal was aborted, retrying after its backoff",
      { attempt, reconcileTimeoutMs: ms },
    );
  },
  badResult(logger: Logger, result: unknown): void {
    logger.error(
      "Reconcile returned neither nothing, { requeueAfter } nor { requeue: true }: treated as a failure",
      { result: String(result) },
    );
  },
  staleCache(
    logger: Logger,
    written: Written,
    cached: string | undefined,
    ms: number,
  ): void {
    logger.warn(
      "Cache did not reach the version this key's last reconcile wrote: reconciling on what it holds",
      {
        store: written.store,
        object: written.namespace === undefined
          ? written.name
          : `${written.namespace}/${written.name}`,
        wrote: written.resourceVersion,
        cached: cached ?? "absent",
        readYourWritesTimeoutMs: ms,
      },
    );
  },
  badWrite(logger: Logger, why: string): void {
    logger.warn(`wrote() ignored: ${why}`);
  },
  mapFailed(logger: Logger, store: string, error: unknown): void {
    logger.error("A watches mapping threw: its object's keys are not queued", {
      store,
      ...failureFields(error),
    });
  },
  stopping(logger: Logger, drain: boolean, running: number): void {
    logger.info(
      drain
        ? "Controller stopping: letting the reconciles in flight finish"
        : "Controller stopping: aborting the reconciles in flight",
      { running },
    );
  },
};
