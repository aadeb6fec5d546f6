/**
 * The initial batch is delivered once the initial list is in, whatever it
 * holds: a controller that renders from `onChange` renders on an empty
 * cluster too, as `onSyncComplete` runs there.
 */
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { DebounceGroup } from "./debounce_group.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import {
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  Harness,
} from "./_bulk_harness_test.ts";

const SECRETS = { group: "", version: "v1", resource: "secrets" };

Deno.test("Watcher on an empty list delivers an empty initial batch, then onSyncComplete", async (t) => {
  for (const during of [false, true]) {
    await t.step(`callOnChangeDuringSync: ${during}`, async () => {
      const order: string[] = [];
      await using h = new Harness({
        config: {
          callOnChangeDuringSync: during,
          onChange: (_store, batch) => {
            order.push(
              `onChange ${batch.total} initial=${batch.isInitialSync}`,
            );
          },
          onSyncComplete: (_store, count) => {
            order.push(`onSyncComplete ${count}`);
          },
        },
      });
      assert.equal(await h.watcher.waitForSync(), 0);
      await waitFor(() => order.length === 2, {
        description: "the initial batch and onSyncComplete",
      });
      assert.deepEqual(order, ["onChange 0 initial=true", "onSyncComplete 0"]);
      assert.equal(h.recorded.full[0].isEmpty, true);

      // Later changes as before: the first at once.
      await h.waitForWatches(1);
      h.server.create(CONFIGMAPS, configMap("shop", "a"));
      await h.waitForBatches(2);
      assert.equal(h.recorded.batches[1].created, 1);
      assert.equal(h.recorded.batches[1].isInitialSync, false);
    });
  }
});

Deno.test("DebounceGroup of watchers on empty lists calls onChange once every member has synced", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  const logger = new RecordingLogger();
  // Secrets cannot be listed at first: the group waits for them.
  const fault = server.injectFault({
    verb: "list",
    resource: "secrets",
    kind: "status",
    code: 503,
    times: 1,
  });
  const calls: Record<string, { total: number; initial: boolean }>[] = [];
  const group = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    clock,
    logger,
    merge: mergeChangeBatches,
    onChange: (batches) => {
      calls.push(Object.fromEntries(
        [...batches].map((
          [name, b],
        ) => [name, { total: b.total, initial: b.isInitialSync }]),
      ));
    },
  });
  const watchers = [CONFIGMAPS, SECRETS].map((gvr) =>
    new Watcher(
      { gvr, indexBy: BY_IDENTITY, group: group.member(gvr.resource) },
      client,
      { clock, logger },
    )
  );
  const running = watchers.map((w) => w.start());
  try {
    assert.equal(await watchers[0].waitForSync(), 0);
    await waitFor(() => watchers[1].health().backoffs === 1, {
      description: "the secrets list's backoff",
    });
    assert.deepEqual(calls, [], "secrets have not synced");
    await clock.tick(1_000);
    assert.equal(await watchers[1].waitForSync(), 0);
    await waitFor(() => calls.length === 1, { description: "one call" });
    assert.deepEqual(calls, [{
      configmaps: { total: 0, initial: true },
      secrets: { total: 0, initial: true },
    }]);
    assert.equal(fault.hits, 1);

    // The first change after it fires at once: the call opened no window.
    await waitFor(() => server.openWatchCount === 2);
    server.create(SECRETS, { metadata: { namespace: "shop", name: "tls" } });
    await waitFor(() => calls.length === 2, { description: "the change" });
    assert.deepEqual(calls[1], { secrets: { total: 1, initial: false } });
  } finally {
    await Promise.all(watchers.map((w) => w.stop()));
    await Promise.all(running);
    await group.stop();
  }
});

Deno.test("DebounceGroup delivers the members' initial batches in one call once the last has synced", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  server.create(CONFIGMAPS, configMap("shop", "settings"));
  const client = new FetchClient({ server: server.url });
  const logger = new RecordingLogger();
  server.injectFault({
    verb: "list",
    resource: "secrets",
    kind: "status",
    code: 503,
    times: 1,
  });
  const calls: Record<string, number>[] = [];
  const group = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    clock,
    logger,
    merge: mergeChangeBatches,
    onChange: (batches) => {
      calls.push(Object.fromEntries(
        [...batches].map(([name, b]) => [name, b.total]),
      ));
    },
  });
  const watchers = [CONFIGMAPS, SECRETS].map((gvr) =>
    new Watcher(
      { gvr, indexBy: BY_IDENTITY, group: group.member(gvr.resource) },
      client,
      { clock, logger },
    )
  );
  const running = watchers.map((w) => w.start());
  try {
    assert.equal(await watchers[0].waitForSync(), 1);
    await waitFor(() => server.openWatchCount === 1);
    // A change of the synced member waits with its initial batch.
    server.create(CONFIGMAPS, configMap("shop", "extra"));
    await waitFor(() => watchers[0].health().events === 1);
    await clock.tick(0);
    assert.deepEqual(calls, [], "secrets have not synced");
    await clock.tick(1_000);
    assert.equal(await watchers[1].waitForSync(), 0);
    await waitFor(() => calls.length === 1, { description: "one call" });
    assert.deepEqual(calls, [{ configmaps: 2, secrets: 0 }]);
  } finally {
    await Promise.all(watchers.map((w) => w.stop()));
    await Promise.all(running);
    await group.stop();
  }
});
