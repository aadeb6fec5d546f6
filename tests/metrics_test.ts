// The metrics of a scripted scenario, exactly: a list, events, a 410
// relist, a 503 burst, a callback that throws and a leadership change, as
// the built-in registry renders them and as the Prometheus parser reads
// that text. Then the same hooks, called on an OpenTelemetry-shaped meter
// that records every call.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import type { RestClient } from "../client/rest_client.ts";
import { Watcher } from "../watcher/watcher.ts";
import { SingleWatcher } from "../watcher/single.ts";
import { DebounceGroup } from "../watcher/debounce_group.ts";
import { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import { LeaderElector } from "../leaderelection/leader_elector.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import type {
  Counter,
  Histogram,
  Meter,
  MetricAttributes,
  MetricOptions,
  ObservableCallback,
  ObservableGauge,
  UpDownCounter,
} from "../metrics/meter.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { needs, prometheusParserMissing } from "./requirements.ts";
import { parsePrometheusText, samples } from "./prometheus_text.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const LEASE = { namespace: "shop", name: "shop-leader" };

/** Moves the clock from timer to timer for `ms`, letting promises settle. */
async function run(clock: FakeClock, ms: number): Promise<void> {
  const end = clock.now() + ms;
  for (;;) {
    const remaining = end - clock.now();
    const next = clock.nextDue ?? Infinity;
    await clock.tick(Math.min(Math.max(next - clock.now(), 0), remaining));
    if (remaining <= 0) return;
  }
}

async function scenario() {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  const server = new FakeApiServer({ clock, initialResourceVersion: 100 });
  const fetchMock = mockFetch(server);
  const registry = new MetricsRegistry();
  const logger = new RecordingLogger();
  const client = new FetchClient({ server: server.url }, {
    meter: registry,
    clock,
  });
  server.create(GVR, { metadata: { name: "a", namespace: "shop" }, data: {} });
  server.create(GVR, { metadata: { name: "b", namespace: "shop" }, data: {} });

  const batches: number[] = [];
  const watcher = new Watcher(
    {
      gvr: GVR,
      name: "shop-configmaps",
      namespace: "shop",
      indexBy: ["metadata.namespace", "metadata.name"],
      debounceInterval: 1_000,
      onChange: (_store, batch) => {
        batches.push(batch.total);
        if (batches.length === 2) throw new Error("the callback that throws");
      },
    },
    client,
    { meter: registry, clock, logger, random: () => 0 },
  );
  const tracker = new IndexSynchronizationTracker(["configmaps", "secrets"], {
    meter: registry,
    logger,
  });

  // A list, then events.
  void watcher.start();
  tracker.track("configmaps", watcher);
  await watcher.waitForSync();
  await waitFor(() => tracker.isResourceSynced("configmaps"));
  await waitFor(() => watcher.health().watches === 1);
  server.create(GVR, { metadata: { name: "c", namespace: "shop" }, data: {} });
  await waitFor(() => batches.length === 2); // at once: the one that throws
  await clock.tick(250);
  server.update(GVR, {
    metadata: { name: "a", namespace: "shop" },
    data: { k: "v" },
  });
  server.delete(GVR, "shop", "b");
  await waitFor(() => watcher.health().events === 3);
  await clock.tick(750); // the interval ends: one batch after 750 ms
  await waitFor(() => batches.length === 3);

  // A 410: the resumed watch is too old, the loop lists again.
  server.closeAllWatches();
  server.create(GVR, { metadata: { name: "d", namespace: "shop" }, data: {} });
  server.compactHistory();
  await waitFor(() => watcher.health().relists === 1);
  await waitFor(() => watcher.health().watches === 3);

  // A 503 burst: three watch requests refused, then one answered.
  server.injectFault({ verb: "watch", kind: "status", code: 503, times: 3 });
  server.closeAllWatches();
  await waitFor(() => watcher.health().backoffs === 1);
  await run(clock, 15_000);
  await waitFor(() => watcher.health().watches === 4);

  // A leadership change: the leader's renewals fail until it steps down,
  // then it takes the Lease again.
  const electorClock = new FakeClock({ now: 1_700_000_000_000 });
  using electorClient = new FetchClient({ server: server.url });
  const elector = new LeaderElector(
    {
      lease: LEASE,
      identity: "pod-1",
      onStartedLeading: () => {},
    },
    electorClient,
    {
      meter: registry,
      clock: electorClock,
      logger,
      random: () => 0.5,
    },
  );
  const electing = elector.start();
  await waitFor(() => elector.isLeader());
  const during = (name: string) => samples(registry.render()).get(name);
  const masterStatus =
    'leader_election_master_status{name="shop-leader",namespace="shop"}';
  assert.equal(during(masterStatus), 1);
  const fault = server.injectFault({
    verb: "update",
    resource: "leases",
    kind: "status",
    code: 503,
    times: 1e9,
  });
  for (let i = 0; i < 200 && elector.isLeader(); i++) {
    await electorClock.tick(500);
  }
  assert.equal(elector.isLeader(), false);
  assert.equal(during(masterStatus), 0);
  fault.cancel();
  for (let i = 0; i < 200 && !elector.isLeader(); i++) {
    await electorClock.tick(500);
  }
  assert.equal(elector.isLeader(), true);
  const text = registry.render();

  return {
    text,
    registry,
    watcher,
    elector,
    batches,
    async [Symbol.asyncDispose]() {
      await watcher.stop();
      const stopping = elector.stop();
      for (let i = 0; i < 100; i++) await electorClock.tick(100);
      await stopping;
      await electing;
      client.close();
      await server.close();
      fetchMock[Symbol.dispose]();
    },
  };
}

const W =
  'group="",namespace="shop",resource="configmaps",version="v1",watcher="shop-configmaps"';
const L = 'name="shop-leader",namespace="shop"';

/** What the scenario leaves, sample by sample (histogram buckets apart). */
const EXPECTED: Record<string, number> = {
  [
    `k8s_watcher_lists_total{${
      W.replace(",resource", ',reason="initial",resource')
    }}`
  ]: 1,
  [
    `k8s_watcher_lists_total{${
      W.replace(",resource", ',reason="gone",resource')
    }}`
  ]: 1,
  [`k8s_watcher_list_pages_total{${W}}`]: 2,
  // The first watch, the one the 410 came on, the one closed at once
  // after the relist, the one after the 503s.
  [`k8s_watcher_watches_total{${W}}`]: 4,
  [`k8s_watcher_reconnects_total{${W}}`]: 5,
  [
    `k8s_watcher_watch_events_total{${
      W.replace(",version", ',type="ADDED",version')
    }}`
  ]: 1,
  [
    `k8s_watcher_watch_events_total{${
      W.replace(",version", ',type="MODIFIED",version')
    }}`
  ]: 1,
  [
    `k8s_watcher_watch_events_total{${
      W.replace(",version", ',type="DELETED",version')
    }}`
  ]: 1,
  [`k8s_watcher_bookmarks_total{${W}}`]: 0,
  [`k8s_watcher_request_errors_total{code="410",${W}}`]: 1,
  [`k8s_watcher_request_errors_total{code="503",${W}}`]: 3,
  [`k8s_watcher_backoffs_total{${W}}`]: 4,
  [`k8s_watcher_resource_version{${W}}`]: 106,
  // The 410 ERROR line was the last the loop heard; 15 s of backoff since.
  [`k8s_watcher_seconds_since_last_event{${W}}`]: 15,
  [`k8s_watcher_store_objects{${W}}`]: 3,
  [`k8s_watcher_synced{${W}}`]: 1,
  // The initial batch, the one that threw (c), c+a+b, the relist's.
  [`k8s_watcher_batches_total{${W}}`]: 4,
  [`k8s_watcher_callback_errors_total{callback="onChange",${W}}`]: 1,
  // The batch after the one that threw carries c again.
  [`k8s_watcher_callback_retries_total{callback="onChange",${W}}`]: 1,
  [`k8s_watcher_callback_duration_seconds_count{callback="onChange",${W}}`]: 4,
  [`k8s_watcher_callback_duration_seconds_sum{callback="onChange",${W}}`]: 0,
  // c at once; c again (its call threw) with a and b, 1 s after it came;
  // the relist's at the interval's end.
  [`k8s_watcher_event_delivery_seconds_count{${W}}`]: 3,
  [`k8s_watcher_event_delivery_seconds_sum{${W}}`]: 2,
  [`k8s_watcher_event_delivery_seconds_bucket{${W},le="0.5"}`]: 1,
  [`k8s_watcher_event_delivery_seconds_bucket{${W},le="1"}`]: 3,
  // client-go's names: every request counted, the two LISTs timed (to the
  // end of their bodies), the watches not.
  'rest_client_requests_total{code="200",host="k8s.fake",method="GET"}': 6,
  'rest_client_requests_total{code="503",host="k8s.fake",method="GET"}': 3,
  'rest_client_request_duration_seconds_count{host="k8s.fake",verb="GET"}': 2,
  'k8s_watcher_tracker_resources{state="synced"}': 1,
  'k8s_watcher_tracker_resources{state="unsynced"}': 1,
  [`leader_election_master_status{${L}}`]: 1,
  [`k8s_watcher_leader_election_transitions_total{${L}}`]: 3,
  [`k8s_watcher_leader_election_renew_failures_total{${L}}`]: 5,
};

Deno.test("metrics: a list, events, a 410 relist, a 503 burst, a throwing callback and a leadership change render exactly these values", async () => {
  await using s = await scenario();
  const rendered = samples(s.text);
  const actual = Object.fromEntries(
    Object.keys(EXPECTED).map((key) => [key, rendered.get(key)]),
  );
  assert.deepEqual(actual, EXPECTED);
  // The watcher's health reads the same record.
  const health = s.watcher.health();
  assert.equal(health.watches, 4);
  assert.equal(health.backoffs, 4);
  assert.equal(health.requestErrors, 4);
  assert.equal(s.elector.health().leading, true);
  // Nothing names an object.
  assert.doesNotMatch(s.text, /"(a|b|c|d)"/);
});

Deno.test(needs(prometheusParserMissing, {
  name:
    "metrics: the Prometheus parser reads the scenario's text, with the same values",
  async fn() {
    await using s = await scenario();
    const families = await parsePrometheusText(s.text);
    const parsed = new Map<string, number>();
    for (const family of Object.values(families)) {
      for (const [name, labels, value] of family.samples) {
        const le = labels.le;
        const rest = Object.entries(labels).filter(([k]) => k !== "le")
          .sort(([a], [b]) => a < b ? -1 : 1)
          .map(([k, v]) => `${k}="${v}"`);
        if (le !== undefined) rest.push(`le="${le}"`);
        parsed.set(rest.length ? `${name}{${rest.join(",")}}` : name, value);
      }
    }
    assert.deepEqual(new Map(samples(s.text)), parsed);
    assert.equal(families.k8s_watcher_watch_events.type, "counter");
    assert.equal(families.k8s_watcher_event_delivery_seconds.type, "histogram");
    assert.equal(families.k8s_watcher_store_objects.type, "gauge");
    assert.equal(families.leader_election_master_status.type, "gauge");
  },
}));

// --- An OpenTelemetry-shaped meter that records every call ----------------

interface Call {
  instrument: string;
  method: "add" | "record" | "addCallback" | "removeCallback";
  value?: number;
  attributes?: MetricAttributes;
}

/** The shape of `@opentelemetry/api`'s Meter, recording what it is asked. */
class RecordingMeter implements Meter {
  readonly created: [kind: string, name: string, options?: MetricOptions][] =
    [];
  readonly calls: Call[] = [];
  readonly gauges = new Map<string, Set<ObservableCallback>>();

  createCounter(name: string, options?: MetricOptions): Counter {
    this.created.push(["counter", name, options]);
    return {
      add: (value, attributes) => this.#call(name, "add", value, attributes),
    };
  }

  createUpDownCounter(name: string, options?: MetricOptions): UpDownCounter {
    this.created.push(["upDownCounter", name, options]);
    return {
      add: (value, attributes) => this.#call(name, "add", value, attributes),
    };
  }

  createHistogram(name: string, options?: MetricOptions): Histogram {
    this.created.push(["histogram", name, options]);
    return {
      record: (value, attributes) =>
        this.#call(name, "record", value, attributes),
    };
  }

  createObservableGauge(
    name: string,
    options?: MetricOptions,
  ): ObservableGauge {
    this.created.push(["observableGauge", name, options]);
    const callbacks = new Set<ObservableCallback>();
    this.gauges.set(name, callbacks);
    return {
      addCallback: (callback) => {
        callbacks.add(callback);
        this.calls.push({ instrument: name, method: "addCallback" });
      },
      removeCallback: (callback) => {
        callbacks.delete(callback);
        this.calls.push({ instrument: name, method: "removeCallback" });
      },
    };
  }

  /** What the gauge's callbacks observe now. */
  observe(name: string): [number, MetricAttributes | undefined][] {
    const seen: [number, MetricAttributes | undefined][] = [];
    for (const callback of this.gauges.get(name) ?? []) {
      callback({
        observe: (value, attributes) => seen.push([value, attributes]),
      });
    }
    return seen;
  }

  /** The calls of `method` on `instrument`. */
  of(instrument: string, method: Call["method"] = "add"): Call[] {
    return this.calls.filter((c) =>
      c.instrument === instrument && c.method === method
    );
  }

  #call(
    instrument: string,
    method: "add" | "record",
    value: number,
    attributes?: MetricAttributes,
  ): void {
    this.calls.push({ instrument, method, value, attributes });
  }
}

Deno.test("metrics: the hook calls an OpenTelemetry-shaped meter: instruments made once, one add per event on one preallocated attributes object, gauges only while running", async () => {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const meter = new RecordingMeter();
  server.create(GVR, { metadata: { name: "a", namespace: "shop" } });
  const changes: string[] = [];
  const single = new SingleWatcher(
    {
      gvr: GVR,
      namespace: "shop",
      name: "a",
      onChange: (obj) => {
        changes.push(obj?.metadata.resourceVersion ?? "gone");
      },
    },
    client,
    { meter, clock, logger: new RecordingLogger() },
  );
  const group = new DebounceGroup<number>({
    interval: 1_000,
    merge: (a, b) => a + b,
    onChange: () => {},
    clock,
    meter,
  });
  const kinds = Object.fromEntries(meter.created.map(([k, n]) => [n, k]));
  assert.equal(kinds.k8s_watcher_watch_events, "counter");
  assert.equal(kinds.k8s_watcher_event_delivery_seconds, "histogram");
  assert.equal(kinds.k8s_watcher_store_objects, "observableGauge");
  assert.equal(kinds.k8s_watcher_group_batches, "counter");
  const made = meter.created.length;
  const second = new SingleWatcher(
    {
      gvr: GVR,
      namespace: "shop",
      name: "b",
      onChange: () => {},
    },
    client,
    { meter, clock, logger: new RecordingLogger() },
  );
  assert.equal(
    meter.created.length,
    made,
    "instruments are made once per meter",
  );
  assert.equal(meter.observe("k8s_watcher_store_objects").length, 0);

  void single.start();
  await single.waitForSync();
  await waitFor(() => single.health().watches === 1);
  for (let i = 1; i <= 3; i++) {
    server.update(GVR, {
      metadata: { name: "a", namespace: "shop", labels: { n: String(i) } },
    });
  }
  await waitFor(() => changes.length === 3);
  const events = meter.of("k8s_watcher_watch_events")
    .filter((c) => c.value === 1);
  assert.equal(events.length, 3);
  // The same frozen object each time: no allocation per event.
  assert.ok(events.every((c) => c.attributes === events[0].attributes));
  assert.ok(Object.isFrozen(events[0].attributes));
  assert.deepEqual(events[0].attributes, {
    group: "",
    version: "v1",
    resource: "configmaps",
    namespace: "shop",
    // A SingleWatcher's series are labelled by the object's name.
    watcher: "a",
    type: "MODIFIED",
  });
  assert.equal(
    meter.of("k8s_watcher_event_delivery_seconds", "record").length,
    3,
  );
  assert.deepEqual(
    meter.of("k8s_watcher_callback_duration_seconds", "record").map((c) =>
      c.attributes?.callback
    ),
    ["onChange", "onChange", "onChange"],
  );
  assert.deepEqual(meter.observe("k8s_watcher_store_objects"), [[
    1,
    {
      group: "",
      version: "v1",
      resource: "configmaps",
      namespace: "shop",
      watcher: "a",
    },
  ]]);
  assert.equal(meter.observe("k8s_watcher_synced")[0][0], 1);

  // A DebounceGroup's call: counted and timed.
  const member = group.member("x");
  member.add(1);
  await waitFor(() => meter.of("k8s_watcher_group_batches").length === 1);
  assert.equal(
    meter.of("k8s_watcher_callback_duration_seconds", "record").at(-1)
      ?.attributes?.callback,
    "DebounceGroup.onChange",
  );

  await single.stop();
  await second.stop();
  await group.stop();
  // Stopped: the gauges no longer read it.
  assert.equal(meter.observe("k8s_watcher_store_objects").length, 0);
  assert.equal(
    meter.observe("k8s_watcher_seconds_since_last_event").length,
    0,
  );
});

Deno.test("metrics: a meter that is not one is refused, naming it", () => {
  assert.throws(
    () =>
      new Watcher({
        gvr: GVR,
        indexBy: ["metadata.name"],
        onChange: () => {},
      }, {
        performRequest: () => Promise.reject(),
      } as unknown as RestClient, {
        meter: { createCounter() {} } as unknown as Meter,
      }),
    (e: unknown) =>
      e instanceof Error && "field" in e && e.field === "meter" &&
      /createUpDownCounter, createHistogram, createObservableGauge are not a function/
        .test(e.message),
  );
  assert.throws(
    () =>
      new IndexSynchronizationTracker([], {
        meter: 42 as unknown as Meter,
      }),
    /Invalid IndexSynchronizationTracker config: meter: must be a Meter/,
  );
});
