/**
 * What every component's metrics share: the instruments made once per
 * meter, the labels of a watched resource, the bucket bounds. The names
 * and meanings are listed in the README's "Metrics" section.
 *
 * @module
 */
import type { Gvr } from "../types.ts";
import type { Meter, MetricAttributes } from "../metrics/meter.ts";

/**
 * Every name starts so, but those client-go has for the same thing:
 * `leader_election_master_status` and the client's `rest_client_*`.
 */
export const PREFIX = "k8s_watcher_";

/**
 * Bounds of the latency histograms (an event's wait for its `onChange`, a
 * callback's run), in seconds: from 1 ms to a minute, as debounce
 * intervals are seconds long and a slow callback is what they show.
 */
export const LATENCY_BUCKETS: readonly number[] = Object.freeze([
  0.001,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
]);

/** Bounds of the client's request durations, in seconds: client-go's. */
export const REQUEST_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.025,
  0.1,
  0.25,
  0.5,
  1,
  2,
  4,
  8,
  15,
  30,
  60,
]);

const made = new WeakMap<Meter, Map<string, unknown>>();

/**
 * The instruments `make` creates, made once per meter and `kind`: every
 * loop of a program shares them, each with its own attribute objects.
 */
export function instrumentsOf<I>(
  meter: Meter,
  kind: string,
  make: (meter: Meter) => I,
): I {
  let kinds = made.get(meter);
  if (kinds === undefined) made.set(meter, kinds = new Map());
  let instruments = kinds.get(kind) as I | undefined;
  if (instruments === undefined) {
    instruments = make(meter);
    kinds.set(kind, instruments);
  }
  return instruments;
}

/**
 * The labels of a watched resource: group, version, resource, namespace
 * (`""` for all) and the watcher's `name` (`""` without one). Frozen: a
 * meter may key its series by the object.
 */
export function resourceAttributes(
  gvr: Gvr,
  namespace: string,
  name: string | undefined,
): MetricAttributes {
  return Object.freeze({
    group: gvr.group,
    version: gvr.version,
    resource: gvr.resource,
    namespace,
    watcher: name ?? "",
  });
}

/** `base` with `extra`, frozen. */
export function withAttributes(
  base: MetricAttributes,
  extra: MetricAttributes,
): MetricAttributes {
  return Object.freeze({ ...base, ...extra });
}

/** A resourceVersion as a number, when it is one a double holds exactly. */
export function resourceVersionNumber(
  resourceVersion: string | undefined,
): number | undefined {
  if (resourceVersion === undefined || !/^\d{1,15}$/.test(resourceVersion)) {
    return undefined;
  }
  return Number(resourceVersion);
}

const METER_METHODS = [
  "createCounter",
  "createUpDownCounter",
  "createHistogram",
  "createObservableGauge",
] as const;

/** Why `meter` is not a `Meter`, or undefined when it is one. */
export function meterProblem(meter: unknown): string | undefined {
  if (meter === null || typeof meter !== "object") {
    return `must be a Meter (an object with ${METER_METHODS.join(", ")}), got ${
      String(meter)
    }`;
  }
  const missing = METER_METHODS.filter((name) =>
    typeof (meter as Record<string, unknown>)[name] !== "function"
  );
  if (missing.length === 0) return undefined;
  return `must be a Meter: ${missing.join(", ")} ${
    missing.length === 1 ? "is" : "are"
  } not a function`;
}

/**
 * The meter of `client` (`RestClient.meter`), unchecked: what a component
 * built on it reports on when given no meter of its own, so that one meter
 * set on the client reaches all of them. Undefined for a client without
 * one (or a value that is no client: its own check says so).
 */
export function clientMeter(client: unknown): unknown {
  return client !== null && typeof client === "object"
    ? (client as { meter?: unknown }).meter
    : undefined;
}

/**
 * The meter a component reports on: its own, else its client's (so one set
 * on the client reaches every component built on it), checked; a problem
 * goes to `fail` with the option it came from (`meter` or `client.meter`).
 */
export function ownOrClientMeter(
  own: unknown,
  client: unknown,
  fail: (field: string, message: string) => never,
): Meter | undefined {
  const [meter, field] = own !== undefined
    ? [own, "meter"]
    : [clientMeter(client), "client.meter"];
  if (meter === undefined) return undefined;
  const problem = meterProblem(meter);
  if (problem) fail(field, problem);
  return meter as Meter;
}

const claimed = new WeakMap<Meter, Map<string, Set<string>>>();

/**
 * Reserves `name` among the `kind` components on `meter` (two queues, or
 * two controllers, with one name would report one series as theirs both):
 * throws what `taken` makes when another holds it; the returned function
 * gives it back.
 */
export function claimName(
  meter: Meter,
  kind: string,
  name: string,
  taken: () => Error,
): () => void {
  let kinds = claimed.get(meter);
  if (kinds === undefined) claimed.set(meter, kinds = new Map());
  let names = kinds.get(kind);
  if (names === undefined) kinds.set(kind, names = new Set());
  if (names.has(name)) throw taken();
  names.add(name);
  return () => void names.delete(name);
}
