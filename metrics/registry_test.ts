import assert from "node:assert/strict";
import { DEFAULT_BUCKETS, MetricsRegistry } from "./registry.ts";
import type { ObservableResult } from "./meter.ts";
import { needs, prometheusParserMissing } from "../tests/requirements.ts";
import { parsePrometheusText } from "../tests/prometheus_text.ts";

Deno.test("MetricsRegistry renders counters with _total, HELP and TYPE, series sorted by labels", () => {
  const registry = new MetricsRegistry();
  const events = registry.createCounter("demo_events", {
    description: "Events seen",
  });
  events.add(1, { type: "MODIFIED" });
  events.add(2, { type: "ADDED" });
  events.add(1, { type: "MODIFIED" });
  events.add(-5, { type: "ADDED" }); // a counter only goes up: ignored
  events.add(NaN, { type: "ADDED" });
  assert.equal(
    registry.render(),
    [
      "# HELP demo_events_total Events seen",
      "# TYPE demo_events_total counter",
      'demo_events_total{type="ADDED"} 2',
      'demo_events_total{type="MODIFIED"} 2',
      "",
    ].join("\n"),
  );
});

Deno.test("MetricsRegistry gives the same instrument for the same name, and refuses another kind", () => {
  const registry = new MetricsRegistry();
  const a = registry.createCounter("demo_requests");
  const b = registry.createCounter("demo_requests_total");
  assert.equal(a, b);
  assert.throws(
    () => registry.createHistogram("demo_requests_total"),
    (e: unknown) =>
      e instanceof TypeError &&
      e.message ===
        "Metric demo_requests_total exists already as a counter, not a histogram",
  );
  assert.throws(() => registry.createCounter(""), TypeError);
});

Deno.test("MetricsRegistry escapes label values and help text, and renames what Prometheus does not allow", () => {
  const registry = new MetricsRegistry();
  registry.createUpDownCounter("demo.open-things", {
    description: "Line one\nback\\slash",
  }).add(3, { "path.name": 'a "quoted" \\ value\nnext', skipped: undefined });
  assert.equal(
    registry.render(),
    [
      "# HELP demo_open_things Line one\\nback\\\\slash",
      "# TYPE demo_open_things gauge",
      'demo_open_things{path_name="a \\"quoted\\" \\\\ value\\nnext"} 3',
      "",
    ].join("\n"),
  );
});

Deno.test("MetricsRegistry renders histograms as cumulative buckets with +Inf, _sum and _count", () => {
  const registry = new MetricsRegistry();
  const seconds = registry.createHistogram("demo_seconds", {
    description: "Durations",
    advice: { explicitBucketBoundaries: [0.1, 1] },
  });
  for (const v of [0.05, 0.1, 0.5, 3]) seconds.record(v, { verb: "GET" });
  assert.equal(
    registry.render(),
    [
      "# HELP demo_seconds Durations",
      "# TYPE demo_seconds histogram",
      'demo_seconds_bucket{verb="GET",le="0.1"} 2',
      'demo_seconds_bucket{verb="GET",le="1"} 3',
      'demo_seconds_bucket{verb="GET",le="+Inf"} 4',
      'demo_seconds_sum{verb="GET"} 3.65',
      'demo_seconds_count{verb="GET"} 4',
      "",
    ].join("\n"),
  );
  const plain = registry.createHistogram("demo_default_seconds");
  plain.record(0.2);
  assert.equal(
    registry.render().split("\n").filter((l) =>
      l.startsWith("demo_default_seconds_bucket")
    ).length,
    DEFAULT_BUCKETS.length + 1,
  );
  assert.throws(
    () =>
      registry.createHistogram("demo_bad", {
        advice: { explicitBucketBoundaries: [1, 0.5] },
      }),
    TypeError,
  );
});

Deno.test("MetricsRegistry reads observable gauges at each render: the last observation of a label set wins, a throwing callback is skipped", () => {
  const registry = new MetricsRegistry();
  const gauge = registry.createObservableGauge("demo_objects", {
    description: "Objects",
  });
  let n = 1;
  const first = (r: ObservableResult) => r.observe(n, { kind: "a" });
  const second = (r: ObservableResult) => r.observe(n * 10, { kind: "a" });
  const broken = () => {
    throw new Error("broken");
  };
  gauge.addCallback(first);
  gauge.addCallback(broken);
  assert.match(registry.render(), /^demo_objects\{kind="a"\} 1$/m);
  n = 2;
  gauge.addCallback(second);
  assert.match(registry.render(), /^demo_objects\{kind="a"\} 20$/m);
  gauge.removeCallback(second);
  gauge.removeCallback(first);
  assert.equal(registry.render(), "", "a family without series is left out");
});

Deno.test("MetricsRegistry reads observable counters at each render and renders them as counters with _total, as OpenTelemetry's createObservableCounter", () => {
  const registry = new MetricsRegistry();
  const cpu = registry.createObservableCounter("demo_cpu_seconds", {
    description: "CPU time",
    unit: "s",
  });
  let seconds = 1.25;
  const callback = (r: ObservableResult) => r.observe(seconds);
  cpu.addCallback(callback);
  assert.equal(
    registry.render(),
    "# HELP demo_cpu_seconds_total CPU time\n" +
      "# TYPE demo_cpu_seconds_total counter\n" +
      "demo_cpu_seconds_total 1.25\n",
  );
  seconds = 2.5;
  assert.match(registry.render(), /^demo_cpu_seconds_total 2\.5$/m);
  assert.equal(registry.createObservableCounter("demo_cpu_seconds"), cpu);
  assert.throws(
    () => registry.createCounter("demo_cpu_seconds"),
    /Metric demo_cpu_seconds_total exists already as an observable counter, not a counter/,
  );
  cpu.removeCallback(callback);
  assert.equal(registry.render(), "");
});

Deno.test("MetricsRegistry keeps a mutable attributes object's current labels (only frozen ones are remembered)", () => {
  const registry = new MetricsRegistry();
  const counter = registry.createCounter("demo_calls");
  const attributes: Record<string, string> = { code: "200" };
  counter.add(1, attributes);
  attributes.code = "500";
  counter.add(1, attributes);
  const frozen = Object.freeze({ code: "200" });
  counter.add(1, frozen);
  counter.add(1, frozen);
  assert.match(registry.render(), /^demo_calls_total\{code="200"\} 3$/m);
  assert.match(registry.render(), /^demo_calls_total\{code="500"\} 1$/m);
});

Deno.test(needs(prometheusParserMissing, {
  name:
    "MetricsRegistry's text is read by the Prometheus parser as it was meant",
  async fn() {
    const registry = new MetricsRegistry();
    registry.createCounter("demo_events", { description: 'say "hi"\n' })
      .add(2, { type: 'ADD"ED\\', empty: "" });
    registry.createHistogram("demo_seconds", {
      advice: { explicitBucketBoundaries: [0.5] },
    }).record(0.25);
    registry.createUpDownCounter("demo_open").add(-1);
    registry.createObservableGauge("demo_ratio").addCallback((r) =>
      r.observe(0.1 + 0.2)
    );
    const families = await parsePrometheusText(registry.render());
    assert.deepEqual(families.demo_events, {
      type: "counter",
      help: 'say "hi"\n',
      samples: [["demo_events_total", { type: 'ADD"ED\\', empty: "" }, 2]],
    });
    assert.equal(families.demo_seconds.type, "histogram");
    assert.deepEqual(families.demo_seconds.samples, [
      ["demo_seconds_bucket", { le: "0.5" }, 1],
      ["demo_seconds_bucket", { le: "+Inf" }, 1],
      ["demo_seconds_sum", {}, 0.25],
      ["demo_seconds_count", {}, 1],
    ]);
    assert.deepEqual(families.demo_open.samples, [["demo_open", {}, -1]]);
    assert.deepEqual(families.demo_ratio.samples, [[
      "demo_ratio",
      {},
      0.30000000000000004,
    ]]);
  },
}));

Deno.test("MetricsRegistry refuses attributes and names whose text Prometheus could not parse, naming them", () => {
  const registry = new MetricsRegistry();
  const counter = registry.createCounter("demo_events");
  assert.throws(
    () => counter.add(1, { "a-b": "x", a_b: "y" }),
    /Metric demo_events_total: the attributes a-b and a_b both render as the label a_b/,
  );
  assert.throws(
    () => counter.add(1, { __name__: "x" }),
    /Metric demo_events_total: the attribute __name__: label names starting with __ are reserved for Prometheus/,
  );
  const histogram = registry.createHistogram("demo_seconds");
  assert.throws(
    () => histogram.record(1, { le: "5" }),
    /Metric demo_seconds: the attribute le: is a histogram's bucket label/,
  );
  // An observable gauge's callback that observes such a set is skipped.
  registry.createObservableGauge("demo_ratio").addCallback((r) =>
    r.observe(1, { "x.y": "1", x_y: "2" })
  );
  registry.createUpDownCounter("demo-open").add(1);
  assert.throws(
    () => registry.createUpDownCounter("demo_open"),
    /Metric names demo-open and demo_open both render as demo_open/,
  );
  // What was refused left nothing behind: the text is what was accepted.
  assert.equal(
    registry.render(),
    "# HELP demo_open demo_open\n# TYPE demo_open gauge\ndemo_open 1\n",
  );
});
