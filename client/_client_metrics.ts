/**
 * `FetchClient`'s metrics: requests by verb and code, their duration (to
 * the response headers: a watch's body streams for minutes), and exec
 * credential plugin runs and failures.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type {
  Counter,
  Histogram,
  Meter,
  MetricAttributes,
} from "../metrics/meter.ts";
import { instrumentsOf, PREFIX, REQUEST_BUCKETS } from "../_metrics.ts";

interface ClientInstruments {
  requests: Counter;
  seconds: Histogram;
  execRuns: Counter;
  execFailures: Counter;
}

function makeInstruments(meter: Meter): ClientInstruments {
  return {
    requests: meter.createCounter(PREFIX + "client_requests", {
      description:
        "Requests sent, by verb (HTTP method) and code (<error>: no answer)",
    }),
    seconds: meter.createHistogram(PREFIX + "client_request_duration_seconds", {
      description:
        "Seconds from sending a request to its response headers, by verb",
      unit: "s",
      advice: { explicitBucketBoundaries: [...REQUEST_BUCKETS] },
    }),
    execRuns: meter.createCounter(PREFIX + "client_exec_plugin_runs", {
      description: "Runs of the exec credential plugin",
    }),
    execFailures: meter.createCounter(PREFIX + "client_exec_plugin_failures", {
      description: "Runs of the exec credential plugin that gave no credential",
    }),
  };
}

/** One client's measurements; attribute objects made once per verb and code. */
export class ClientMetrics {
  readonly #instruments: ClientInstruments;
  readonly #clock: Clock;
  readonly #attributes = new Map<string, MetricAttributes>();

  constructor(meter: Meter, clock: Clock) {
    this.#instruments = instrumentsOf(meter, "client", makeInstruments);
    this.#clock = clock;
  }

  /** A request is sent now: its start time. */
  started(): number {
    return this.#clock.now();
  }

  /** The answer came (`status`), or none did (`undefined`). */
  answered(method: string, status: number | undefined, started: number): void {
    const code = status === undefined ? "<error>" : String(status);
    this.#instruments.requests.add(
      1,
      this.#of(`${method} ${code}`, {
        verb: method,
        code,
      }),
    );
    this.#instruments.seconds.record(
      (this.#clock.now() - started) / 1000,
      this.#of(method, { verb: method }),
    );
  }

  /** The exec plugin ran: `ok` when it gave a credential. */
  execRan(ok: boolean): void {
    this.#instruments.execRuns.add(1);
    if (!ok) this.#instruments.execFailures.add(1);
  }

  #of(key: string, attributes: MetricAttributes): MetricAttributes {
    let kept = this.#attributes.get(key);
    if (kept === undefined) {
      kept = Object.freeze(attributes);
      this.#attributes.set(key, kept);
    }
    return kept;
  }
}
