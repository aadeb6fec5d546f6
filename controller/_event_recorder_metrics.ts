/**
 * An `EventRecorder`'s metrics, labelled with its `reporting_controller`:
 * what became of each recorded Event (`result`: new, aggregated,
 * rate_limited, invalid), and the requests it sent (`verb`: create, patch;
 * `result`: success, failure).
 *
 * @module
 */
import type { Counter, Meter, MetricAttributes } from "../metrics/meter.ts";
import { instrumentsOf, PREFIX } from "../_internal/_metrics.ts";

interface RecorderInstruments {
  events: Counter;
  writes: Counter;
}

function makeInstruments(meter: Meter): RecorderInstruments {
  return {
    events: meter.createCounter(PREFIX + "recorded_events", {
      description:
        "Events recorded, by what became of them: new, aggregated into a series, rate_limited, invalid",
    }),
    writes: meter.createCounter(PREFIX + "event_writes", {
      description:
        "Requests an event recorder sent (create, patch of a series), by result",
    }),
  };
}

/** What became of one call of `event()`. */
export type EventResult = "new" | "aggregated" | "rate_limited" | "invalid";

const RESULTS: readonly EventResult[] = [
  "new",
  "aggregated",
  "rate_limited",
  "invalid",
];

/** One recorder's measurements. */
export class EventRecorderMetrics {
  readonly #instruments: RecorderInstruments;
  readonly #events: Readonly<Record<EventResult, MetricAttributes>>;
  readonly #writes: Readonly<Record<string, MetricAttributes>>;

  constructor(meter: Meter, reportingController: string) {
    const i = this.#instruments = instrumentsOf(
      meter,
      "event-recorder",
      makeInstruments,
    );
    const label = { reporting_controller: reportingController };
    const events = {} as Record<EventResult, MetricAttributes>;
    for (const result of RESULTS) {
      events[result] = Object.freeze({ ...label, result });
    }
    this.#events = events;
    const writes: Record<string, MetricAttributes> = {};
    for (const verb of ["create", "patch"]) {
      for (const result of ["success", "failure"]) {
        writes[`${verb} ${result}`] = Object.freeze({ ...label, verb, result });
      }
    }
    this.#writes = writes;
    // Every series from the start: a rate over a series that appears late
    // misses its first increase.
    for (const attributes of Object.values(this.#events)) {
      i.events.add(0, attributes);
    }
    for (const attributes of Object.values(writes)) i.writes.add(0, attributes);
  }

  /** An Event was recorded with this result. */
  recorded(result: EventResult): void {
    this.#instruments.events.add(1, this.#events[result]);
  }

  /** A request was sent and answered so. */
  wrote(verb: "create" | "patch", ok: boolean): void {
    this.#instruments.writes.add(
      1,
      this.#writes[`${verb} ${ok ? "success" : "failure"}`],
    );
  }
}
