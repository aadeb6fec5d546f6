import assert from "node:assert/strict";
import type { Clock, TimerHandle } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ProcessMetrics } from "./process_metrics.ts";
import { needs, prometheusParserMissing } from "../tests/requirements.ts";
import { parsePrometheusText, samples } from "../tests/prometheus_text.ts";

/**
 * A FakeClock whose time can also move while no timer fires: what a
 * blocked event loop does to the timers that fall due meanwhile (they fire
 * late, once the loop is free again).
 */
class BlockableClock implements Clock {
  readonly fake = new FakeClock({ now: 1_700_000_000_000 });
  #blocked = 0;

  now(): number {
    return this.fake.now() + this.#blocked;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.fake.setTimeout(fn, ms);
  }
  clearTimeout(handle: TimerHandle): void {
    this.fake.clearTimeout(handle);
  }
  /** The loop is busy for `ms`: time passes, nothing runs. */
  block(ms: number): void {
    this.#blocked += ms;
  }
}

function lag(registry: MetricsRegistry): Record<string, number | undefined> {
  const rendered = samples(registry.render());
  return {
    last: rendered.get("nodejs_eventloop_lag_seconds"),
    max: rendered.get("nodejs_eventloop_lag_max_seconds"),
    mean: rendered.get("nodejs_eventloop_lag_mean_seconds"),
  };
}

Deno.test("ProcessMetrics: a blocked event loop shows as nodejs_eventloop_lag_* seconds, measured as a timer's lateness on the clock", async () => {
  const clock = new BlockableClock();
  const registry = new MetricsRegistry();
  using metrics = new ProcessMetrics(registry, {
    clock,
    eventLoopIntervalMs: 100,
  });
  metrics.start();
  await clock.fake.tick(1_000);
  assert.deepEqual(lag(registry), { last: 0, max: 0, mean: 0 });

  // Busy for 2.5 s: the sample due meanwhile comes 2.5 s late, the four
  // after it on time.
  clock.block(2_500);
  await clock.fake.tick(500);
  assert.deepEqual(lag(registry), { last: 0, max: 2.5, mean: 0.5 });

  // The longest and the mean are since the last scrape.
  await clock.fake.tick(300);
  assert.deepEqual(lag(registry), { last: 0, max: 0, mean: 0 });
  clock.block(40);
  await clock.fake.tick(100);
  assert.deepEqual(lag(registry), { last: 0.04, max: 0.04, mean: 0.04 });

  metrics.stop();
  assert.equal(clock.fake.pendingTimers, 0, "stop() clears the timer");
  assert.doesNotMatch(registry.render(), /^(nodejs|process)_/m);
  metrics.start();
  await clock.fake.tick(100);
  assert.deepEqual(lag(registry), { last: 0, max: 0, mean: 0 });
});

Deno.test("ProcessMetrics: CPU seconds, resident memory, heap, start time and open descriptors under Prometheus' and prom-client's names", () => {
  const registry = new MetricsRegistry();
  using metrics = new ProcessMetrics(registry, { clock: new FakeClock() });
  assert.equal(registry.render(), "", "nothing is reported before start()");
  metrics.start();
  const cpuBefore = process.cpuUsage();
  const text = registry.render();
  const cpuAfter = process.cpuUsage();
  const rendered = samples(text);
  const seconds = (usage: { user: number; system: number }) =>
    (usage.user + usage.system) / 1e6;
  const cpu = rendered.get("process_cpu_seconds_total")!;
  assert.ok(
    cpu >= seconds(cpuBefore) && cpu <= seconds(cpuAfter),
    `process_cpu_seconds_total ${cpu}`,
  );
  const rss = rendered.get("process_resident_memory_bytes")!;
  const rssNow = process.memoryUsage.rss();
  assert.ok(rss > rssNow / 2 && rss < rssNow * 2, `rss ${rss} vs ${rssNow}`);
  const used = rendered.get("nodejs_heap_size_used_bytes")!;
  const total = rendered.get("nodejs_heap_size_total_bytes")!;
  assert.ok(used > 0 && used <= total, `heap ${used} of ${total}`);
  assert.ok(rendered.get("nodejs_external_memory_bytes")! >= 0);
  const started = Date.now() / 1000 - process.uptime();
  assert.ok(
    Math.abs(rendered.get("process_start_time_seconds")! - started) < 1,
  );
  assert.match(text, /^# TYPE process_cpu_seconds_total counter$/m);
  assert.match(text, /^# TYPE process_resident_memory_bytes gauge$/m);
  if (Deno.build.os === "linux") {
    // Other test files may open and close descriptors meanwhile.
    const counted = [...Deno.readDirSync("/proc/self/fd")].length;
    const open = rendered.get("process_open_fds")!;
    assert.ok(
      Math.abs(open - counted) <= 16,
      `process_open_fds ${open} vs ${counted} in /proc/self/fd`,
    );
    const limit = /^Max open files\s+(\d+)/m.exec(
      Deno.readTextFileSync("/proc/self/limits"),
    )?.[1];
    assert.equal(rendered.get("process_max_fds"), Number(limit));
  }
  // Deno does not list its handles (process.getActiveResourcesInfo() is
  // empty there): no count is better than a wrong one.
  assert.equal(rendered.get("nodejs_active_resources_total"), undefined);
  metrics.stop();
  assert.equal(registry.render(), "");
});

Deno.test(needs(prometheusParserMissing, {
  name:
    "ProcessMetrics: the Prometheus parser reads its text with the types dashboards expect",
  async fn() {
    const registry = new MetricsRegistry();
    using metrics = new ProcessMetrics(registry, { clock: new FakeClock() });
    metrics.start();
    const families = await parsePrometheusText(registry.render());
    assert.equal(families.process_cpu_seconds.type, "counter");
    assert.equal(families.process_resident_memory_bytes.type, "gauge");
    assert.equal(families.process_start_time_seconds.type, "gauge");
    assert.equal(families.nodejs_eventloop_lag_seconds.type, "gauge");
    assert.equal(families.nodejs_heap_size_used_bytes.type, "gauge");
  },
}));

Deno.test("ProcessMetrics: on a meter without observable counters, CPU seconds are a gauge", () => {
  const registry = new MetricsRegistry();
  const meter: Meter = {
    createCounter: (name, options) => registry.createCounter(name, options),
    createUpDownCounter: (name, options) =>
      registry.createUpDownCounter(name, options),
    createHistogram: (name, options) => registry.createHistogram(name, options),
    createObservableGauge: (name, options) =>
      registry.createObservableGauge(name, options),
  };
  using metrics = new ProcessMetrics(meter, { clock: new FakeClock() });
  metrics.start();
  assert.match(
    registry.render(),
    /^# TYPE process_cpu_seconds_total gauge\nprocess_cpu_seconds_total \d/m,
  );
});

Deno.test("ProcessMetrics: refuses what it does not take, naming it", () => {
  const registry = new MetricsRegistry();
  assert.throws(
    () => new ProcessMetrics(registry, { eventLoopIntervalMs: 0 }),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        "Invalid ProcessMetrics options: eventLoopIntervalMs must be a positive number of milliseconds, got 0",
  );
  assert.throws(
    () => new ProcessMetrics(registry, { eventLoopIntervalMS: 10 } as never),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        "Invalid ProcessMetrics options: eventLoopIntervalMS: is not a ProcessMetricsOptions option (did you mean eventLoopIntervalMs?)",
  );
  assert.throws(
    () => new ProcessMetrics({ createCounter() {} } as never),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        "ProcessMetrics meter must be a Meter: createUpDownCounter, createHistogram, createObservableGauge are not a function",
  );
});

Deno.test("ProcessMetrics: started and never stopped, it does not keep the process alive", async () => {
  const health = new URL("./mod.ts", import.meta.url).href;
  const registry = new URL("../metrics/mod.ts", import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { ProcessMetrics } from "${health}";
import { MetricsRegistry } from "${registry}";
const registry = new MetricsRegistry();
new ProcessMetrics(registry, { eventLoopIntervalMs: 10 }).start();
setTimeout(() => console.log(registry.render().includes("nodejs_eventloop_lag_seconds 0") ? "sampled" : registry.render()), 100);`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The deadline is for a failure only: the child ends on its own at once.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    const output = await child.output();
    const text = new TextDecoder();
    assert.equal(
      output.signal,
      null,
      "the child was killed at the deadline: its timer kept it alive",
    );
    assert.equal(
      text.decode(output.stdout).trim(),
      "sampled",
      text.decode(output.stderr),
    );
  } finally {
    clearTimeout(deadline);
  }
});
