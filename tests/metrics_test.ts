// The metrics of a scripted scenario, exactly: a list, events, a 410
// relist, a 503 burst, a callback that throws and a leadership change, as
// the built-in registry renders them and as the Prometheus parser reads
// that text. Then the same hooks, called on an OpenTelemetry-shaped meter
// that records every call.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { Watcher } from "../watcher/bulk.ts";
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
import { parsePrometheusText } from "./prometheus_text.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const LEASE = { namespace: "shop", name: "shop-leader" };

/** Every sample line of `text` as `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

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
  [`k8s_watcher_seconds_since_last_activity{${W}}`]: 3,
  [`k8s_watcher_store_objects{${W}}`]: 3,
  [`k8s_watcher_synced{${W}}`]: 1,
  // The initial batch, the one that threw, a+b, the relist's.
  [`k8s_watcher_batches_total{${W}}`]: 4,
  [`k8s_watcher_callback_errors_total{callback="onChange",${W}}`]: 1,
  [`k8s_watcher_callback_duration_seconds_count{callback="onChange",${W}}`]: 4,
  [`k8s_watcher_callback_duration_seconds_sum{callback="onChange",${W}}`]: 0,
  // c at once, a and b after 750 ms, the relist's at the interval's end.
  [`k8s_watcher_event_delivery_seconds_count{${W}}`]: 3,
  [`k8s_watcher_event_delivery_seconds_sum{${W}}`]: 1.75,
  [`k8s_watcher_event_delivery_seconds_bucket{${W},le="0.5"}`]: 1,
  [`k8s_watcher_event_delivery_seconds_bucket{${W},le="1"}`]: 3,
  'k8s_watcher_client_requests_total{code="200",verb="GET"}': 6,
  'k8s_watcher_client_requests_total{code="503",verb="GET"}': 3,
  'k8s_watcher_client_request_duration_seconds_count{verb="GET"}': 9,
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
