import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { DebounceGroup } from "./debounce_group.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import { configMap, CONFIGMAPS } from "./_bulk_harness_test.ts";

const INTERVAL = 1_000;
const SERVICES = { group: "", version: "v1", resource: "services" };
const SECRETS = { group: "", version: "v1", resource: "secrets" };

/** One call of the group's onChange: per member, the changed names. */
type Call = Record<string, { initial: boolean; names: string[] }>;

async function setup() {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  const fetch = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  const logger = new RecordingLogger();
  server.create(CONFIGMAPS, configMap("shop", "settings"));
  server.create(SERVICES, { metadata: { namespace: "shop", name: "web" } });
  server.create(SECRETS, { metadata: { namespace: "shop", name: "tls" } });
  const calls: Call[] = [];
  const group = new DebounceGroup<ChangeBatch>({
    interval: INTERVAL,
    clock,
    logger,
    merge: mergeChangeBatches,
    onChange: (batches) => {
      const call: Call = {};
      for (const [name, batch] of batches) {
        const { created, modified, deleted } = batch.objects;
        call[name] = {
          initial: batch.isInitialSync,
          names: [
            ...created.map((o: KubeObject) => `+${o.metadata.name}`),
            ...modified.map((m) => `~${m.current.metadata.name}`),
            ...deleted.map((o: KubeObject) => `-${o.metadata.name}`),
          ],
        };
      }
      calls.push(call);
    },
  });
  const watchers = [CONFIGMAPS, SERVICES, SECRETS].map((gvr) =>
    new Watcher(
      {
        gvr,
        indexBy: ["metadata.namespace", "metadata.name"],
        group: group.member(gvr.resource),
      },
      client,
      { clock, logger },
    )
  );
  const running = watchers.map((w) => w.start());
  await Promise.all(watchers.map((w) => w.waitForSync()));
  await waitFor(() => server.openWatchCount === 3, {
    description: "three watches",
  });
  return {
    clock,
    server,
    group,
    watchers,
    calls,
    logger,
    async [Symbol.asyncDispose]() {
      await Promise.all(watchers.map((w) => w.stop()));
      await Promise.all(running);
      await group.stop();
      await server.close();
      fetch[Symbol.dispose]();
    },
  };
}

Deno.test("Watchers in a DebounceGroup: a burst touching three watchers gives one call", async () => {
  await using t = await setup();
  // The initial-sync batches: counts only, delivered at once.
  assert.ok(t.calls.length >= 1);
  const initial = Object.assign({}, ...t.calls);
  assert.deepEqual(initial, {
    configmaps: { initial: true, names: [] },
    services: { initial: true, names: [] },
    secrets: { initial: true, names: [] },
  });
  const before = t.calls.length;

  // The first change after the sync fires at once: no window was opened.
  t.server.patch(CONFIGMAPS, "shop", "settings", { data: { v: "1" } });
  await waitFor(() => t.calls.length === before + 1, {
    description: "the first change",
  });
  assert.deepEqual(t.calls[before], {
    configmaps: { initial: false, names: ["~settings"] },
  });

  // A burst across all three inside the window: one call when it ends.
  t.server.patch(SERVICES, "shop", "web", { spec: { ports: [] } });
  t.server.create(SECRETS, { metadata: { namespace: "shop", name: "db" } });
  t.server.patch(CONFIGMAPS, "shop", "settings", { data: { v: "2" } });
  t.server.delete(SECRETS, "shop", "tls");
  t.server.create(CONFIGMAPS, configMap("shop", "extra"));
  await waitFor(
    () => t.watchers.reduce((n, w) => n + w.health().events, 0) === 6,
    { description: "six events" },
  );
  await t.clock.tick(INTERVAL - 1);
  assert.equal(t.calls.length, before + 1, "held for the window");
  await t.clock.tick(1);
  await waitFor(() => t.calls.length === before + 2, {
    description: "one call for the burst",
  });
  assert.deepEqual(t.calls[before + 1], {
    configmaps: { initial: false, names: ["+extra", "~settings"] },
    services: { initial: false, names: ["~web"] },
    secrets: { initial: false, names: ["+db", "-tls"] },
  });
  await t.clock.tick(10 * INTERVAL);
  assert.equal(t.calls.length, before + 2, "nothing more");
});

Deno.test("Watchers in a DebounceGroup: stop() delivers what a watcher has pending", async () => {
  await using t = await setup();
  t.server.patch(CONFIGMAPS, "shop", "settings", { data: { v: "1" } });
  await waitFor(() => t.calls.some((c) => c.configmaps?.initial === false), {
    description: "the first change",
  });
  const before = t.calls.length;
  t.server.patch(SERVICES, "shop", "web", { spec: { ports: [] } });
  await waitFor(() => t.watchers[1].health().events === 1, {
    description: "the service event",
  });
  assert.equal(t.calls.length, before, "held for the window");
  await t.watchers[1].stop();
  assert.deepEqual(t.calls[before], {
    services: { initial: false, names: ["~web"] },
  });
  // Delivered already: nothing left for the window's end.
  await t.clock.tick(INTERVAL);
  assert.equal(t.calls.length, before + 1);
});

Deno.test("Watcher with group: onChange and debounceInterval are not allowed, one watcher per member", async () => {
  await using server = new FakeApiServer();
  const client = new FetchClient({ server: server.url });
  const group = new DebounceGroup<ChangeBatch>({
    interval: INTERVAL,
    merge: mergeChangeBatches,
    onChange: () => {},
  });
  const base = {
    gvr: CONFIGMAPS,
    indexBy: ["metadata.name"],
  };
  assert.throws(
    () =>
      new Watcher(
        { ...base, group: group.member("a"), onChange: () => {} },
        client,
      ),
    (e) =>
      e instanceof WatcherConfigError && e.field === "onChange" &&
      /not allowed with group: the group's onChange receives/.test(e.message),
  );
  assert.throws(
    () =>
      new Watcher(
        { ...base, group: group.member("b"), debounceInterval: 5 },
        client,
      ),
    (e) =>
      e instanceof WatcherConfigError && e.field === "debounceInterval" &&
      /the group's interval applies/.test(e.message),
  );
  const member = group.member("c");
  new Watcher({ ...base, group: member }, client);
  assert.throws(
    () => new Watcher({ ...base, group: member }, client),
    (e) =>
      e instanceof WatcherConfigError && e.field === "group" &&
      /already fed by another source/.test(e.message),
  );
  assert.throws(
    () => member.add(mergeChangeBatches.length as never),
    /fed by a watcher; add\(\) is not allowed/,
  );
  assert.throws(
    () =>
      new Watcher(
        { ...base, group: { name: "x", add: () => {} } },
        client,
      ),
    (e) =>
      e instanceof WatcherConfigError && e.field === "group" &&
      /made by DebounceGroup.member/.test(e.message),
  );
  assert.throws(
    () => new Watcher(base, client),
    (e) => e instanceof WatcherConfigError && e.field === "onChange",
    "without group, onChange is required",
  );
  await group.stop();
});
