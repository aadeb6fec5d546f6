/**
 * `FetchClient`'s metrics, under client-go's names, labels and meanings
 * (dashboards built on client-go's read them as they are): requests by
 * code, method and host; the duration of a request read whole, by verb
 * and host; exec credential plugin calls by exit code and call status.
 * Runs of the plugin that gave no credential are this package's count.
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
import {
  instrumentsOf,
  PREFIX,
  REQUEST_BUCKETS,
} from "../_internal/_metrics.ts";
import type { PluginCall } from "./_credentials.ts";

interface ClientInstruments {
  requests: Counter;
  seconds: Histogram;
  execCalls: Counter;
  execFailures: Counter;
}

function makeInstruments(meter: Meter): ClientInstruments {
  return {
    // Counters are made without `_total`, which the registry and
    // OpenTelemetry's Prometheus exporter add.
    requests: meter.createCounter("rest_client_requests", {
      description:
        "Number of HTTP requests, by status code (<error>: no answer), method and host",
    }),
    seconds: meter.createHistogram("rest_client_request_duration_seconds", {
      description:
        "Request latency in seconds, to the end of the body, by verb and host (watches and other streams are not timed)",
      unit: "s",
      advice: { explicitBucketBoundaries: [...REQUEST_BUCKETS] },
    }),
    execCalls: meter.createCounter("rest_client_exec_plugin_call", {
      description:
        "Number of calls to an exec plugin, by call status (no_error, plugin_execution_error, plugin_not_found_error, client_internal_error) and exit code (0 only for a call without error)",
    }),
    execFailures: meter.createCounter(PREFIX + "client_exec_plugin_failures", {
      description: "Runs of the exec credential plugin that gave no credential",
    }),
  };
}

/**
 * The host label of `server`: its host and port as written, as client-go
 * takes them from the kubeconfig (`https://10.96.0.1:443` is
 * `10.96.0.1:443`, where `URL` would drop the default port).
 */
export function hostLabel(server: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(server)?.[1] ?? "none";
}

/** One client's measurements; attribute objects made once per label set. */
export class ClientMetrics {
  readonly #instruments: ClientInstruments;
  readonly #clock: Clock;
  readonly #host: string;
  readonly #attributes = new Map<string, MetricAttributes>();

  constructor(meter: Meter, clock: Clock, server: string) {
    this.#instruments = instrumentsOf(meter, "client", makeInstruments);
    this.#clock = clock;
    this.#host = hostLabel(server);
  }

  /** A request starts now: its start time. */
  started(): number {
    return this.#clock.now();
  }

  /** An attempt was answered (`status`), or was not (`undefined`). */
  answered(method: string, status: number | undefined): void {
    const code = status === undefined ? "<error>" : String(status);
    this.#instruments.requests.add(
      1,
      this.#of(`requests ${method} ${code}`, {
        code,
        method,
        host: this.#host,
      }),
    );
  }

  /** A request read whole (or failed) that started at `started`. */
  finished(method: string, started: number): void {
    this.#instruments.seconds.record(
      (this.#clock.now() - started) / 1000,
      this.#of(`seconds ${method}`, { verb: method, host: this.#host }),
    );
  }

  /** The exec plugin was called: how it ended, and whether it gave a credential. */
  execRan(call: PluginCall, ok: boolean): void {
    const code = String(call.code);
    this.#instruments.execCalls.add(
      1,
      this.#of(`exec ${call.status} ${code}`, {
        code,
        call_status: call.status,
      }),
    );
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
