// One meter, set once on the client, reaches everything built on it: the
// watchers (and the streams they share), the elector, and a DebounceGroup its
// watchers feed. A component's own meter wins, and a group's reaches its
// members.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import type { RestClient } from "../client/rest_client.ts";
import { Watcher } from "../watcher/watcher.ts";
import { SingleWatcher } from "../watcher/single.ts";
import { DebounceGroup } from "../watcher/debounce_group.ts";
import {
  type ChangeBatch,
  mergeChangeBatches,
} from "../watcher/change_batch.ts";
import {
  LeaderElectionConfigError,
  LeaderElector,
} from "../leaderelection/leader_elector.ts";
import { WatcherConfigError } from "../config_error.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import type { Meter } from "../metrics/meter.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { samples } from "./prometheus_text.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const LEASE = { namespace: "shop", name: "shop-leader" };
const INDEX = ["metadata.namespace", "metadata.name"];

const labels = (watcher: string, namespace = "") =>
  `group="",namespace="${namespace}",resource="configmaps",version="v1",watcher="${watcher}"`;

Deno.test("a meter on the FetchClient alone reaches the Watcher, SingleWatcher, DebounceGroup and LeaderElector built on it; a component's own meter wins", async () => {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  server.create(GVR, { metadata: { name: "a", namespace: "shop" } });
  const meter = new MetricsRegistry();
  const elsewhere = new MetricsRegistry();
  using client = new FetchClient({ server: server.url }, { meter, clock });
  const options = { clock, logger: silentLogger };

  const group = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    merge: mergeChangeBatches,
    onChange: () => {},
    clock,
    logger: silentLogger,
  });
  const watchers = [
    new Watcher(
      { gvr: GVR, name: "all", indexBy: INDEX, onChange: () => {} },
      client,
      options,
    ),
    new Watcher(
      { gvr: GVR, name: "grouped", indexBy: INDEX, group: group.member("cm") },
      client,
      options,
    ),
    new SingleWatcher(
      { gvr: GVR, namespace: "shop", name: "a", onChange: () => {} },
      client,
      options,
    ),
    new Watcher(
      { gvr: GVR, name: "own", indexBy: INDEX, onChange: () => {} },
      client,
      { ...options, meter: elsewhere },
    ),
  ];
  const electorClock = new FakeClock({ now: 1_700_000_000_000 });
  const elector = new LeaderElector(
    { lease: LEASE, identity: "pod-1", onStartedLeading: () => {} },
    client,
    { clock: electorClock, logger: silentLogger, random: () => 0.5 },
  );
  const running = watchers.map((w) => w.start());
  const electing = elector.start();
  try {
    for (const w of watchers) await w.waitForSync();
    await waitFor(() => elector.isLeader());
    const ours = samples(meter.render());
    const theirs = samples(elsewhere.render());
    assert.equal(ours.get(`k8s_watcher_synced{${labels("all")}}`), 1);
    assert.equal(ours.get(`k8s_watcher_synced{${labels("grouped")}}`), 1);
    assert.equal(ours.get(`k8s_watcher_synced{${labels("a", "shop")}}`), 1);
    // The group's own series: its one call, the initial sync's.
    assert.equal(ours.get(`k8s_watcher_group_batches_total{name=""}`), 1);
    assert.equal(
      ours.get(
        `leader_election_master_status{name="shop-leader",namespace="shop"}`,
      ),
      1,
    );
    // The loops' series too, and the client's own.
    assert.equal(
      ours.get(
        `k8s_watcher_lists_total{${
          labels("all").replace(",resource", ',reason="initial",resource')
        }}`,
      ),
      1,
    );
    assert.ok(
      [...ours.keys()].some((k) => k.startsWith("rest_client_requests_total")),
    );
    // The one with a meter of its own reports there, and only there.
    assert.equal(ours.get(`k8s_watcher_synced{${labels("own")}}`), undefined);
    assert.equal(theirs.get(`k8s_watcher_synced{${labels("own")}}`), 1);
    assert.equal(
      [...theirs.keys()].some((k) => /watcher="(all|grouped|a)"/.test(k)),
      false,
    );
  } finally {
    for (const w of watchers) await w.stop();
    await Promise.all(running);
    let stopped = false;
    const stopping = elector.stop().then(() => stopped = true);
    for (let i = 0; i < 100 && !stopped; i++) await electorClock.tick(100);
    await stopping;
    await electing;
    await group.stop();
  }
});

Deno.test("a DebounceGroup's meter reaches its member watchers before their client's; their own meter before both", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  server.create(GVR, { metadata: { name: "a", namespace: "shop" } });
  const onClient = new MetricsRegistry();
  const onGroup = new MetricsRegistry();
  const onWatcher = new MetricsRegistry();
  using client = new FetchClient({ server: server.url }, {
    meter: onClient,
    clock,
  });
  const group = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    merge: mergeChangeBatches,
    onChange: () => {},
    clock,
    logger: silentLogger,
    meter: onGroup,
  });
  const member = new Watcher(
    { gvr: GVR, name: "member", indexBy: INDEX, group: group.member("a") },
    client,
    { clock, logger: silentLogger },
  );
  const own = new Watcher(
    { gvr: GVR, name: "own", indexBy: INDEX, group: group.member("b") },
    client,
    { clock, logger: silentLogger, meter: onWatcher },
  );
  const running = [member.start(), own.start()];
  try {
    await member.waitForSync();
    await own.waitForSync();
    const synced = (registry: MetricsRegistry, name: string) =>
      samples(registry.render()).get(
        `k8s_watcher_synced{${labels(name)}}`,
      );
    assert.equal(synced(onGroup, "member"), 1);
    assert.equal(synced(onClient, "member"), undefined);
    assert.equal(synced(onWatcher, "own"), 1);
    assert.equal(synced(onGroup, "own"), undefined);
    assert.ok(
      samples(onGroup.render()).has(
        `k8s_watcher_group_batches_total{name=""}`,
      ),
    );
  } finally {
    await member.stop();
    await own.stop();
    await Promise.all(running);
    await group.stop();
  }
});

Deno.test("a RestClient's meter that is not a Meter is refused, naming client.meter", () => {
  const client = {
    performRequest: () => Promise.reject(new Error("not called")),
    meter: { createCounter() {} } as unknown as Meter,
  } as unknown as RestClient;
  assert.throws(
    () =>
      new Watcher(
        { gvr: GVR, indexBy: INDEX, onChange: () => {} },
        client,
      ),
    (e: unknown) =>
      e instanceof WatcherConfigError && e.field === "client.meter" &&
      /^Invalid watcher config: client\.meter: must be a Meter/.test(e.message),
  );
  assert.throws(
    () =>
      new LeaderElector(
        { lease: LEASE, identity: "a", onStartedLeading: () => {} },
        client,
      ),
    (e: unknown) =>
      e instanceof LeaderElectionConfigError && e.field === "client.meter",
  );
});
