/**
 * A shard ring member's metrics, labelled with the ring (`ring`,
 * `namespace`) and the member (`identity`): the members it sees, the shares
 * of the hash space it is assigned and may work on, the view changes, and
 * failed renewals.
 *
 * @module
 */
import type {
  Counter,
  Meter,
  MetricAttributes,
  ObservableGauge,
  ObservableResult,
} from "../metrics/meter.ts";
import { instrumentsOf, PREFIX } from "../_internal/_metrics.ts";

interface RingInstruments {
  members: ObservableGauge;
  assigned: ObservableGauge;
  permitted: ObservableGauge;
  changes: Counter;
  renewFailures: Counter;
}

function makeInstruments(meter: Meter): RingInstruments {
  return {
    members: meter.createObservableGauge(PREFIX + "shard_ring_members", {
      description: "Live members of the shard ring, as this member sees it",
    }),
    assigned: meter.createObservableGauge(PREFIX + "shard_assigned_ratio", {
      description:
        "Share of the hash space assigned to this member (what it keeps in its cache)",
    }),
    permitted: meter.createObservableGauge(PREFIX + "shard_permitted_ratio", {
      description:
        "Share of the hash space this member may work on now (0 during a hand-off it waits for)",
    }),
    changes: meter.createCounter(PREFIX + "shard_ring_changes", {
      description: "Times this member's view of the ring or its ranges changed",
    }),
    renewFailures: meter.createCounter(PREFIX + "shard_lease_renew_failures", {
      description: "Renewals of this member's Lease that failed",
    }),
  };
}

/** What the gauges read when scraped. */
export interface RingReadings {
  members(): number;
  assigned(): number;
  permitted(): number;
}

/** One member's measurements. */
export class RingMetrics {
  readonly #instruments: RingInstruments;
  readonly #attributes: MetricAttributes;
  readonly #reports: [ObservableGauge, (r: ObservableResult) => void][];
  #observing = false;

  constructor(
    meter: Meter,
    labels: { ring: string; namespace: string; identity: string },
    readings: RingReadings,
  ) {
    this.#instruments = instrumentsOf(meter, "shard-ring", makeInstruments);
    const attributes = this.#attributes = Object.freeze({ ...labels });
    const i = this.#instruments;
    this.#reports = [
      [i.members, (r) => r.observe(readings.members(), attributes)],
      [i.assigned, (r) => r.observe(readings.assigned(), attributes)],
      [i.permitted, (r) => r.observe(readings.permitted(), attributes)],
    ];
    i.changes.add(0, attributes);
    i.renewFailures.add(0, attributes);
  }

  /** The member runs: its gauges are reported from now on. */
  open(): void {
    if (this.#observing) return;
    this.#observing = true;
    for (const [gauge, report] of this.#reports) gauge.addCallback(report);
  }

  /** The view or the ranges changed. */
  changed(): void {
    this.#instruments.changes.add(1, this.#attributes);
  }

  /** A renewal failed. */
  renewFailed(): void {
    this.#instruments.renewFailures.add(1, this.#attributes);
  }

  /** The member stopped: its gauges are no longer reported. */
  close(): void {
    if (!this.#observing) return;
    this.#observing = false;
    for (const [gauge, report] of this.#reports) gauge.removeCallback(report);
  }
}
