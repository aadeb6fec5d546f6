/**
 * A `LeaderElector`'s metrics: client-go's `leader_election_master_status`
 * (unprefixed, so that dashboards and alerts made for client-go and
 * controller-runtime read it as is), and this package's transitions and
 * renew failures.
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

interface ElectorInstruments {
  status: ObservableGauge;
  transitions: Counter;
  renewFailures: Counter;
}

function makeInstruments(meter: Meter): ElectorInstruments {
  return {
    status: meter.createObservableGauge("leader_election_master_status", {
      description:
        "1 while this replica leads the Lease named by the labels, else 0 (as client-go's)",
    }),
    transitions: meter.createCounter(PREFIX + "leader_election_transitions", {
      description: "Times this replica started or stopped leading",
    }),
    renewFailures: meter.createCounter(
      PREFIX + "leader_election_renew_failures",
      { description: "Lease requests that failed while this replica led" },
    ),
  };
}

/** One elector's measurements, labelled with its Lease. */
export class ElectorMetrics {
  readonly #instruments: ElectorInstruments;
  readonly #attributes: MetricAttributes;
  readonly #report: (result: ObservableResult) => void;
  #observing = false;

  constructor(
    meter: Meter,
    lease: { namespace: string; name: string },
    leading: () => boolean,
  ) {
    this.#instruments = instrumentsOf(meter, "elector", makeInstruments);
    const attributes = this.#attributes = Object.freeze({
      name: lease.name,
      namespace: lease.namespace,
    });
    this.#report = (result) => result.observe(leading() ? 1 : 0, attributes);
    this.#instruments.transitions.add(0, attributes);
    this.#instruments.renewFailures.add(0, attributes);
  }

  /** The elector runs: its status is reported from now on. */
  open(): void {
    if (this.#observing) return;
    this.#observing = true;
    this.#instruments.status.addCallback(this.#report);
  }

  /** Started or stopped leading. */
  transition(): void {
    this.#instruments.transitions.add(1, this.#attributes);
  }

  /** A Lease request failed while leading. */
  renewFailed(): void {
    this.#instruments.renewFailures.add(1, this.#attributes);
  }

  /** The elector stopped: its status is no longer reported. */
  close(): void {
    if (!this.#observing) return;
    this.#observing = false;
    this.#instruments.status.removeCallback(this.#report);
  }
}
