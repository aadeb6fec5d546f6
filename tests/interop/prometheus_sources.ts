// Types only: another registry's text is a `metrics` source of the health
// handler as it is, prom-client's `register.metrics()` and OpenTelemetry's
// Prometheus exporter (both answer with a promise). `deno check`ed by the
// test task; never run.
//
// deno-lint-ignore-file no-import-prefix -- pinned here, not in deno.json:
// the published package must not list them as dependencies.
import { register } from "npm:prom-client@15.1.3";
import {
  PrometheusExporter,
  PrometheusSerializer,
} from "npm:@opentelemetry/exporter-prometheus@0.57.2";
import { healthHandler } from "../../health/mod.ts";

export const promClient: (request: Request) => Response | Promise<Response> =
  healthHandler({ metrics: { render: () => register.metrics() } });

const exporter = new PrometheusExporter({ preventServerStart: true });
const serializer = new PrometheusSerializer();

export const openTelemetry: (
  request: Request,
) => Response | Promise<Response> = healthHandler({
  metrics: {
    render: async () =>
      serializer.serialize((await exporter.collect()).resourceMetrics),
  },
});
