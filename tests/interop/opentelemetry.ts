// Types only: OpenTelemetry's Meter (from @opentelemetry/api, the package
// every OpenTelemetry SDK implements) is a `meter` this package takes as it
// is, and the built-in registry is usable where OpenTelemetry's shapes are
// asked for. `deno check`ed by the test task; never run.
//
// deno-lint-ignore-file no-import-prefix -- pinned here, not in deno.json:
// the published package must not list them as dependencies.
import { type Meter as OtelMeter, metrics } from "npm:@opentelemetry/api@1.9.0";
import { type Meter, MetricsRegistry } from "../../metrics/mod.ts";
import { type FetchClient, Watcher } from "../../mod.ts";
import { ProcessMetrics } from "../../health/mod.ts";

const otel: OtelMeter = metrics.getMeter("k8s-watcher");
// Structural: no cast.
const meter: Meter = otel;

export function watch(client: FetchClient): Watcher {
  return new Watcher(
    {
      gvr: { group: "", version: "v1", resource: "configmaps" },
      indexBy: ["metadata.name"],
      onChange: () => {},
    },
    client,
    { meter: otel },
  );
}

export const clientOptions = { meter };

// The registry's instruments take the calls OpenTelemetry's callers make.
const registry = new MetricsRegistry();
registry.createCounter("x").add(1, { a: "b", n: 1, ok: true });
registry.createObservableGauge("y").addCallback((result) => {
  result.observe(1, { a: "b" });
});
registry.createObservableCounter("z").addCallback((result) => {
  result.observe(1, { a: "b" });
});

// ProcessMetrics on OpenTelemetry's meter, observable counter included.
export const processMetrics: ProcessMetrics = new ProcessMetrics(otel);
