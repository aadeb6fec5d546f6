// When changes reach onChange, as the metrics say it: the delivery wait of a
// batch counts from its oldest change that is still in it, and the age of the
// oldest change not yet delivered shows a callback that hangs.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { Watcher } from "../watcher/watcher.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const MINUTE = 60_000;

/** The value of the sample `name{…}` whose line contains `part`, or undefined. */
function sample(text: string, name: string, part = ""): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}{`) && line.includes(part)) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return undefined;
}

function cluster() {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  const server = new FakeApiServer({ clock, bookmarkIntervalMs: 2 ** 31 - 1 });
  const fetchMock = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  const registry = new MetricsRegistry();
  return {
    clock,
    server,
    client,
    registry,
    async [Symbol.asyncDispose]() {
      client.close();
      fetchMock[Symbol.dispose]();
      await server.close();
    },
  };
}

Deno.test("event_delivery_seconds: a batch that coalesced to nothing leaves no start behind", async () => {
  await using c = cluster();
  let calls = 0;
  const watcher = new Watcher(
    {
      gvr: GVR,
      namespace: "shop",
      indexBy: ["metadata.namespace", "metadata.name"],
      debounceInterval: 1_000,
      onChange: () => void calls++,
    },
    c.client,
    { clock: c.clock, logger: silentLogger, meter: c.registry },
  );
  c.server.create(GVR, { metadata: { name: "seed", namespace: "shop" } });
  void watcher.start();
  await watcher.waitForSync();
  await waitFor(() => watcher.health().watches === 1);
  // A change at once opens the window; then one created and deleted in it.
  c.server.create(GVR, { metadata: { name: "first", namespace: "shop" } });
  await waitFor(() => calls === 2);
  c.server.create(GVR, { metadata: { name: "brief", namespace: "shop" } });
  c.server.delete(GVR, "shop", "brief");
  await waitFor(() => watcher.health().events === 3);
  await c.clock.tick(1_000);
  assert.equal(calls, 2, "nothing to deliver");
  // Ten minutes later, a change delivered at once waited no time.
  await c.clock.tick(10 * MINUTE);
  c.server.create(GVR, { metadata: { name: "later", namespace: "shop" } });
  await waitFor(() => calls === 3);
  const text = c.registry.render();
  const sum = sample(text, "k8s_watcher_event_delivery_seconds_sum");
  assert.equal(sum, 0, "the later change was delivered in 0 s");
  await watcher.stop();
});

Deno.test("oldest_undelivered_change_seconds: the age of the oldest change waiting for a hung onChange", async () => {
  await using c = cluster();
  let calls = 0;
  let release = () => {};
  const watcher = new Watcher(
    {
      gvr: GVR,
      namespace: "shop",
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: (_store, batch) => {
        calls++;
        if (batch.isInitialSync) return;
        return new Promise<void>((resolve) => release = resolve);
      },
    },
    c.client,
    { clock: c.clock, logger: silentLogger, meter: c.registry },
  );
  c.server.create(GVR, { metadata: { name: "seed", namespace: "shop" } });
  void watcher.start();
  await watcher.waitForSync();
  await waitFor(() => watcher.health().watches === 1);
  const age = () =>
    sample(
      c.registry.render(),
      "k8s_watcher_oldest_undelivered_change_seconds",
    );
  assert.equal(age(), 0, "nothing waits");
  c.server.create(GVR, { metadata: { name: "a", namespace: "shop" } });
  await waitFor(() => calls === 2);
  await c.clock.tick(MINUTE);
  for (let i = 0; i < 19; i++) {
    c.server.create(GVR, { metadata: { name: `b${i}`, namespace: "shop" } });
  }
  await waitFor(() => watcher.health().events === 20);
  await c.clock.tick(19 * MINUTE);
  // The change in the call that hangs is the oldest not delivered.
  assert.equal(age(), 20 * 60);
  assert.equal(watcher.health().delivery?.undelivered, 19);
  release();
  await waitFor(() => calls === 3);
  // The 19 are in the call running now, since 0 s.
  assert.equal(age(), 19 * 60);
  release();
  await waitFor(() => age() === 0);
  await watcher.stop();
});

Deno.test("metrics: two SingleWatchers of one resource and namespace render a series each, labelled by the object's name", async () => {
  const { SingleWatcher } = await import("../watcher/single.ts");
  await using c = cluster();
  c.server.create(GVR, { metadata: { name: "held", namespace: "shop" } });
  const single = (name: string) =>
    new SingleWatcher(
      {
        gvr: GVR,
        namespace: "shop",
        name,
        onChange: () => {},
      },
      c.client,
      { clock: c.clock, logger: silentLogger, meter: c.registry },
    );
  const held = single("held");
  const absent = single("absent");
  void held.start();
  await held.waitForSync();
  const text = c.registry.render();
  assert.equal(
    sample(text, "k8s_watcher_store_objects", 'watcher="held"'),
    1,
  );
  // Not started: its series says so instead of hiding behind the other's.
  assert.equal(
    sample(text, "k8s_watcher_synced", 'watcher="absent"'),
    undefined,
  );
  void absent.start();
  await absent.waitForSync();
  const both = c.registry.render();
  assert.equal(sample(both, "k8s_watcher_store_objects", 'watcher="held"'), 1);
  assert.equal(
    sample(both, "k8s_watcher_store_objects", 'watcher="absent"'),
    0,
  );
  assert.equal(sample(both, "k8s_watcher_synced", 'watcher="absent"'), 1);
  await held.stop();
  await absent.stop();
});
