// A DebounceGroup's series, and what its member watchers count: the group's
// calls and their delivery wait under the group's name, each member
// watcher's batches as its own; and the retries of a failed onChange, for
// the watchers and the group alike.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { Watcher } from "../watcher/watcher.ts";
import { SingleWatcher } from "../watcher/single.ts";
import { DebounceGroup } from "../watcher/debounce_group.ts";
import {
  type ChangeBatch,
  mergeChangeBatches,
} from "../watcher/change_batch.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { samples } from "./prometheus_text.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
/** The labels of group `name`'s series (it watches no resource). */
const named = (name: string) =>
  `group="",name="${name}",namespace="",resource="",version="",watcher=""`;
const W =
  'group="",namespace="shop",resource="configmaps",version="v1",watcher="cms"';

Deno.test("metrics: two DebounceGroups on one meter render a series each, by name, with their delivery wait", async () => {
  const clock = new FakeClock();
  const registry = new MetricsRegistry();
  const groups = ["render", "status"].map((name) =>
    new DebounceGroup<number>({
      name,
      interval: 1_000,
      clock,
      meter: registry,
      logger: new RecordingLogger(),
      merge: (a, b) => a + b,
      onChange: () => {},
    })
  );
  const [render, status] = groups.map((g) => g.member("a"));
  render.add(1); // at once: waited 0 s
  status.add(1);
  await clock.tick(0);
  await clock.tick(250);
  render.add(1); // in the window: waits 750 ms
  await clock.tick(750);
  const got = samples(registry.render());
  const expected: Record<string, number> = {
    'k8s_watcher_group_batches_total{name="render"}': 2,
    'k8s_watcher_group_batches_total{name="status"}': 1,
    [`k8s_watcher_event_delivery_seconds_count{${named("render")}}`]: 2,
    [`k8s_watcher_event_delivery_seconds_sum{${named("render")}}`]: 0.75,
    [`k8s_watcher_event_delivery_seconds_count{${named("status")}}`]: 1,
    [
      `k8s_watcher_callback_duration_seconds_count{callback="DebounceGroup.onChange",${
        named("render")
      }}`
    ]: 2,
    [
      `k8s_watcher_callback_duration_seconds_count{callback="DebounceGroup.onChange",${
        named("status")
      }}`
    ]: 1,
  };
  assert.deepEqual(
    Object.fromEntries(Object.keys(expected).map((k) => [k, got.get(k)])),
    expected,
  );
  await Promise.all(groups.map((g) => g.stop()));
});

Deno.test('metrics: a DebounceGroup without a name is labelled name=""', async () => {
  const clock = new FakeClock();
  const registry = new MetricsRegistry();
  const group = new DebounceGroup<number>({
    interval: 1_000,
    clock,
    meter: registry,
    merge: (a, b) => a + b,
    onChange: () => {},
  });
  group.member("a").add(1);
  await clock.tick(0);
  assert.equal(
    samples(registry.render()).get('k8s_watcher_group_batches_total{name=""}'),
    1,
  );
  await group.stop();
});

Deno.test("metrics: a member watcher counts the group's calls that carry its batch, the initial one included, and their wait", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  const registry = new MetricsRegistry();
  const logger = new RecordingLogger();
  server.create(GVR, { metadata: { name: "a", namespace: "shop" } });
  let calls = 0;
  const group = new DebounceGroup<ChangeBatch>({
    name: "render",
    interval: 1_000,
    clock,
    logger,
    meter: registry,
    merge: mergeChangeBatches,
    onChange: () => void calls++,
  });
  const watcher = new Watcher(
    {
      gvr: GVR,
      name: "cms",
      namespace: "shop",
      indexBy: ["metadata.namespace", "metadata.name"],
      group: group.member("configmaps"),
    },
    new FetchClient({ server: server.url }),
    {
      clock,
      logger,
      meter: registry,
    },
  );
  const running = watcher.start();
  try {
    await watcher.waitForSync();
    await waitFor(() => calls === 1, { description: "the initial batch" });
    await waitFor(() => server.openWatchCount === 1);
    server.create(GVR, { metadata: { name: "b", namespace: "shop" } });
    await waitFor(() => calls === 2, { description: "b, at once" });
    await clock.tick(400);
    server.create(GVR, { metadata: { name: "c", namespace: "shop" } });
    await waitFor(() => watcher.health().events === 2);
    await clock.tick(600); // c waited 600 ms
    await waitFor(() => calls === 3, { description: "c" });
    const got = samples(registry.render());
    const expected: Record<string, number> = {
      [`k8s_watcher_batches_total{${W}}`]: 3,
      // The initial batch is not timed: its wait is the list's.
      [`k8s_watcher_event_delivery_seconds_count{${W}}`]: 2,
      [`k8s_watcher_event_delivery_seconds_sum{${W}}`]: 0.6,
      'k8s_watcher_group_batches_total{name="render"}': 3,
      [`k8s_watcher_event_delivery_seconds_count{${named("render")}}`]: 2,
      [`k8s_watcher_event_delivery_seconds_sum{${named("render")}}`]: 0.6,
    };
    assert.deepEqual(
      Object.fromEntries(Object.keys(expected).map((k) => [k, got.get(k)])),
      expected,
    );
  } finally {
    await watcher.stop();
    await running;
    await group.stop();
  }
});

Deno.test("metrics: callback_retries_total counts the calls that carry a failed call's changes again", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  const registry = new MetricsRegistry();
  const logger = new RecordingLogger();
  server.create(GVR, { metadata: { name: "cms", namespace: "shop" } });
  const client = new FetchClient({ server: server.url });
  const options = { clock, logger, meter: registry };
  // Each callback fails twice, then succeeds.
  const failing = () => {
    let left = 2;
    return () => {
      if (left-- > 0) throw new Error("failed");
    };
  };
  const bulk = failing();
  const watcher = new Watcher(
    {
      gvr: GVR,
      name: "bulk",
      namespace: "shop",
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: (_store, batch) => {
        if (!batch.isInitialSync) bulk();
      },
    },
    client,
    options,
  );
  const single = new SingleWatcher(
    {
      gvr: GVR,
      namespace: "shop",
      name: "cms",
      onChange: failing(),
    },
    client,
    options,
  );
  const group = new DebounceGroup<number>({
    name: "render",
    interval: 1_000,
    ...options,
    merge: (a, b) => a + b,
    onChange: failing(),
  });
  const runs = [watcher.start(), single.start()];
  try {
    await watcher.waitForSync();
    await single.waitForSync();
    await waitFor(() => server.openWatchCount === 2);
    server.update(GVR, {
      metadata: { name: "cms", namespace: "shop" },
      data: { v: "1" },
    });
    group.member("a").add(1);
    await waitFor(() =>
      watcher.health().events === 1 && single.health().events === 1
    );
    // The first call at once, the retries 1 s and 3 s later.
    for (let i = 0; i < 4; i++) await clock.tick(1_000);
    const got = samples(registry.render());
    // The SingleWatcher's series are labelled by its object's name.
    const B = W.replace('watcher="cms"', 'watcher="bulk"');
    const expected: Record<string, number> = {
      [`k8s_watcher_callback_errors_total{callback="onChange",${B}}`]: 2,
      [`k8s_watcher_callback_retries_total{callback="onChange",${B}}`]: 2,
      [`k8s_watcher_callback_errors_total{callback="onChange",${W}}`]: 2,
      [`k8s_watcher_callback_retries_total{callback="onChange",${W}}`]: 2,
      [
        `k8s_watcher_callback_errors_total{callback="DebounceGroup.onChange",${
          named("render")
        }}`
      ]: 2,
      [
        `k8s_watcher_callback_retries_total{callback="DebounceGroup.onChange",${
          named("render")
        }}`
      ]: 2,
    };
    assert.deepEqual(
      Object.fromEntries(Object.keys(expected).map((k) => [k, got.get(k)])),
      expected,
    );
  } finally {
    await watcher.stop();
    await single.stop();
    await Promise.all(runs);
    await group.stop();
  }
});
