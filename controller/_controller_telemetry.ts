/**
 * A controller's series, under controller-runtime's names with its
 * `controller` label: reconciles by result, errors, reconcile time, active
 * workers and the concurrency limit; then every log line of a controller.
 *
 * @module
 */
import type {
  Counter,
  Histogram,
  Meter,
  MetricAttributes,
  ObservableGauge,
  ObservableResult,
} from "../metrics/meter.ts";
import {
  claimName,
  instrumentsOf,
  LATENCY_BUCKETS,
  withAttributes,
} from "../_internal/_metrics.ts";
import { ControllerConfigError } from "./errors.ts";
import type { Logger } from "../types.ts";
import { failureFields } from "../_internal/_logging.ts";
import type { Written } from "./_write_waits.ts";

/** How a reconcile ended, as controller-runtime's `result` label says. */
export type ReconcileOutcome =
  | "success"
  | "error"
  | "requeue"
  | "requeue_after";

const OUTCOMES: readonly ReconcileOutcome[] = [
  "success",
  "error",
  "requeue",
  "requeue_after",
];

interface ControllerInstruments {
  total: Counter;
  errors: Counter;
  time: Histogram;
  active: ObservableGauge;
  max: ObservableGauge;
}

function makeInstruments(meter: Meter): ControllerInstruments {
  return {
    total: meter.createCounter("controller_runtime_reconcile", {
      description: "Total number of reconciliations per controller",
    }),
    errors: meter.createCounter("controller_runtime_reconcile_errors", {
      description: "Total number of reconciliation errors per controller",
    }),
    time: meter.createHistogram("controller_runtime_reconcile_time_seconds", {
      description: "Length of time per reconciliation per controller",
      unit: "s",
      advice: { explicitBucketBoundaries: [...LATENCY_BUCKETS] },
    }),
    active: meter.createObservableGauge("controller_runtime_active_workers", {
      description:
        "Number of currently used workers per controller (reconciles running)",
    }),
    max: meter.createObservableGauge(
      "controller_runtime_max_concurrent_reconciles",
      { description: "Maximum number of concurrent reconciles per controller" },
    ),
  };
}

/** One controller's series; `close()` when it stops. */
export class ControllerMetrics {
  readonly #instruments: ControllerInstruments;
  readonly #attributes: MetricAttributes;
  readonly #byOutcome: Readonly<Record<ReconcileOutcome, MetricAttributes>>;
  readonly #observeActive: (result: ObservableResult) => void;
  readonly #observeMax: (result: ObservableResult) => void;
  readonly #release: () => void;
  #open = true;

  constructor(
    meter: Meter,
    name: string,
    readings: { active(): number; max: number },
  ) {
    this.#release = claimName(
      meter,
      "controller",
      name,
      () =>
        new ControllerConfigError(
          "Controller",
          "name",
          `another Controller that is not stopped reports on this meter as ${
            JSON.stringify(name)
          }; give each controller its own name`,
        ),
    );
    const instruments = this.#instruments = instrumentsOf(
      meter,
      "controller",
      makeInstruments,
    );
    const attributes = this.#attributes = Object.freeze({ controller: name });
    this.#byOutcome = Object.freeze(
      Object.fromEntries(
        OUTCOMES.map((result) => [
          result,
          withAttributes(attributes, { result }),
        ]),
      ) as Record<ReconcileOutcome, MetricAttributes>,
    );
    this.#observeActive = (result) =>
      result.observe(readings.active(), attributes);
    this.#observeMax = (result) => result.observe(readings.max, attributes);
    instruments.active.addCallback(this.#observeActive);
    instruments.max.addCallback(this.#observeMax);
    for (const outcome of OUTCOMES) {
      instruments.total.add(0, this.#byOutcome[outcome]);
    }
    instruments.errors.add(0, attributes);
  }

  /** A reconcile ended after `ms`, as `outcome`. */
  reconciled(outcome: ReconcileOutcome, ms: number): void {
    this.#instruments.total.add(1, this.#byOutcome[outcome]);
    if (outcome === "error") this.#instruments.errors.add(1, this.#attributes);
    this.#instruments.time.record(ms / 1000, this.#attributes);
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#release();
    this.#instruments.active.removeCallback(this.#observeActive);
    this.#instruments.max.removeCallback(this.#observeMax);
  }
}

// Every log line of a controller: level, wording, fields. Each line also
// carries the `controller` field, and a reconcile's the `key`.

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
