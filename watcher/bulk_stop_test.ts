import assert from "node:assert/strict";
import type { ChangeStats } from "../types.ts";
import { settle, waitFor } from "../testing/fake_clock.ts";
import { WatcherStoppedError, WatcherSyncError } from "./errors.ts";
import { configMap, Harness } from "./_bulk_harness_test.ts";

function pick(s: ChangeStats) {
  const { created, modified, deleted, isInitialSync } = s;
  return { created, modified, deleted, isInitialSync };
}

/**
 * Stops the watcher and checks that nothing of it is left: no open watch,
 * no pending timer on the fake clock, and no callback later, whatever the
 * server and the clock do afterwards.
 */
async function stopAndCheckQuiet(h: Harness): Promise<void> {
  await h.watcher.stop();
  await h.running;
  assert.equal(h.server.openWatchCount, 0, "no watch is open");
  assert.equal(h.clock.pendingTimers, 0, "no timer is pending");
  const batches = h.recorded.batches.length;
  const syncs = h.recorded.syncs.length;
  const requests = h.server.requests.length;
  h.server.create("configmaps", configMap("shop", "after-stop"));
  h.server.closeAllWatches();
  await h.clock.tick(120_000);
  await settle();
  assert.equal(h.recorded.batches.length, batches, "no onChange after stop");
  assert.equal(h.recorded.syncs.length, syncs, "no onSyncComplete after stop");
  assert.equal(h.server.requests.length, requests, "no request after stop");
}

function seedTwo(server: Harness["server"]): void {
  server.create("configmaps", configMap("shop", "a"));
  server.create("configmaps", configMap("shop", "b"));
}

Deno.test("Watcher.stop() before start() leaves nothing to do", async () => {
  await using h = new Harness({ start: false, seed: seedTwo });
  const sync = h.watcher.waitForSync();
  sync.catch(() => {}); // asserted below
  await h.watcher.stop();
  await assert.rejects(sync, WatcherSyncError);
  // A stopped watcher cannot be started again: it says so.
  assert.throws(
    () => h.watcher.start(),
    (e) =>
      e instanceof WatcherStoppedError && e.resource === "configmaps" &&
      /cannot be restarted; create a new watcher/.test(e.message),
  );
  await assert.rejects(h.watcher.waitForSync(), /was stopped/);
  assert.equal(h.watcher.health().state, "stopped");
  assert.equal(h.server.requests.length, 0);
  await stopAndCheckQuiet(h);
  assert.equal(h.recorded.batches.length, 0);
});

Deno.test("Watcher.stop() while the first LIST page is stalled", async () => {
  await using h = new Harness({ start: false, seed: seedTwo });
  h.server.injectFault({ verb: "list", kind: "stall" });
  h.running = h.watcher.start();
  const sync = h.watcher.waitForSync();
  sync.catch(() => {}); // asserted below
  await h.waitForRequests("list", 1);
  await h.clock.tick(60_000);
  assert.equal(h.watcher.isSynced(), false);
  await stopAndCheckQuiet(h);
  await assert.rejects(sync, WatcherSyncError);
  assert.equal(h.recorded.batches.length, 0);
});

Deno.test("Watcher.stop() while a later LIST page is pending", async () => {
  await using h = new Harness({
    start: false,
    config: { pageSize: 1 },
    seed: seedTwo,
  });
  // Arm a stall exactly when the second page is requested.
  const inner = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    if (
      String(input instanceof Request ? input.url : input).includes("continue=")
    ) {
      h.server.injectFault({ verb: "list", kind: "stall" });
    }
    return inner(input, init);
  };
  try {
    h.running = h.watcher.start();
    await h.waitForRequests("list", 2);
    assert.ok(h.requests("list")[1].query.continue);
    await settle();
    assert.equal(h.watcher.isSynced(), false);
    await stopAndCheckQuiet(h);
  } finally {
    globalThis.fetch = inner;
  }
  assert.equal(h.recorded.batches.length, 0, "a half list is never reported");
  // The initial list goes into the store page by page: the first page is in.
  assert.equal(h.watcher.store.size, 1);
});

Deno.test("Watcher.stop() while watching", async () => {
  await using h = new Harness({ seed: seedTwo });
  assert.equal(await h.watcher.waitForSync(), 2);
  await h.waitForWatches(1);
  await h.clock.tick(5_000);
  await stopAndCheckQuiet(h);
  assert.equal(h.recorded.batches.length, 1);
});

Deno.test("Watcher.stop() during a backoff", async () => {
  await using h = new Harness({ start: false, seed: seedTwo });
  h.server.injectFault({
    verb: "list",
    kind: "status",
    code: 500,
    forMs: 3_600_000,
  });
  h.running = h.watcher.start();
  await waitFor(() => h.watcher.lastError() !== undefined, {
    description: "the first failure",
  });
  assert.equal(h.clock.pendingTimers, 1, "the backoff timer");
  await stopAndCheckQuiet(h);
  assert.equal(h.requests("list").length, 1);
});

Deno.test("Watcher.stop() during a backoff between watches", async () => {
  await using h = new Harness({ seed: seedTwo });
  await h.watcher.waitForSync();
  await h.waitForWatches(1);
  await h.clock.tick(5_000);
  h.server.create("configmaps", configMap("shop", "c"));
  await waitFor(() => h.watcher.health().events === 1, { description: "c" });
  h.server.injectFault({
    verb: "watch",
    kind: "status",
    code: 503,
    forMs: 3_600_000,
  });
  h.server.closeAllWatches();
  await waitFor(() => h.watcher.lastError() !== undefined, {
    description: "the watch failure",
  });
  await stopAndCheckQuiet(h);
});

Deno.test("Watcher.stop() waits for a running async onChange, then delivers what is pending", async () => {
  let release!: () => void;
  let blocked = 0;
  await using h = new Harness({
    seed: seedTwo,
    config: {
      onChange: (_store, stats) => {
        if (stats.isInitialSync || blocked++ > 0) return;
        return new Promise<void>((resolve) => release = resolve);
      },
    },
  });
  await h.watcher.waitForSync();
  await h.waitForWatches(1);
  await h.clock.tick(5_000);

  h.server.create("configmaps", configMap("shop", "c"));
  await h.waitForBatches(2); // running, and blocked
  h.server.create("configmaps", configMap("shop", "d"));
  h.server.delete("configmaps", "shop", "a");
  await waitFor(() => h.watcher.health().events === 3, {
    description: "two more events",
  });
  await h.clock.tick(5_000);
  assert.equal(h.recorded.batches.length, 2, "the next batch waits its turn");

  let stopped = false;
  const stopping = h.watcher.stop().then(() => stopped = true);
  await h.waitForWatches(0);
  await settle();
  assert.equal(stopped, false, "stop() waits for the running call");
  release();
  await stopping;
  assert.equal(
    h.recorded.batches.length,
    3,
    `stop() delivered the pending batch, and nothing else: ${
      JSON.stringify(h.recorded.batches.slice(2))
    }`,
  );
  assert.deepEqual(pick(h.recorded.batches[2]), {
    created: 1,
    modified: 0,
    deleted: 1,
    isInitialSync: false,
  });
  await stopAndCheckQuiet(h);
});

Deno.test("Watcher.stop() delivers a batch held in the refractory period", async () => {
  await using h = new Harness({
    seed: seedTwo,
    config: { debounceInterval: 2_000 },
  });
  await h.watcher.waitForSync();
  await h.waitForWatches(1);
  await h.waitForBatches(1);
  // The first change after the sync fires at once and opens the interval.
  h.server.delete("configmaps", "shop", "b");
  await h.waitForBatches(2);
  h.server.create("configmaps", configMap("shop", "c"));
  h.server.patch("configmaps", "shop", "a", { data: { v: "2" } });
  await waitFor(() => h.watcher.health().events === 3, {
    description: "three events",
  });
  await h.clock.tick(1_000);
  assert.equal(h.recorded.batches.length, 2, "held by the debouncer");
  await h.watcher.stop();
  assert.equal(h.recorded.batches.length, 3);
  assert.deepEqual(pick(h.recorded.batches[2]), {
    created: 1,
    modified: 1,
    deleted: 0,
    isInitialSync: false,
  });
  await stopAndCheckQuiet(h);
  assert.equal(h.recorded.batches.length, 3);
});

Deno.test("Watcher.stop() is idempotent, and aborting start()'s signal stops too", async (t) => {
  await t.step("stop() twice", async () => {
    await using h = new Harness({ seed: seedTwo });
    await h.watcher.waitForSync();
    const first = h.watcher.stop();
    const second = h.watcher.stop();
    assert.equal(first, second);
    await first;
    await h.watcher.stop();
    assert.throws(() => h.watcher.start(), WatcherStoppedError);
    assert.equal(
      h.watcher.isSynced(),
      false,
      "a stopped watcher is not synced",
    );
    assert.equal(h.watcher.health().synced, false);
    assert.equal(h.watcher.health().state, "stopped");
    await stopAndCheckQuiet(h);
  });

  await t.step("abort", async () => {
    await using h = new Harness({ start: false, seed: seedTwo });
    const controller = new AbortController();
    h.running = h.watcher.start(controller.signal);
    await h.watcher.waitForSync();
    await h.waitForWatches(1);
    controller.abort();
    await h.running;
    assert.equal(h.server.openWatchCount, 0);
    await stopAndCheckQuiet(h);
  });

  await t.step("start() with an aborted signal", async () => {
    await using h = new Harness({ start: false, seed: seedTwo });
    h.running = h.watcher.start(AbortSignal.abort());
    await h.running;
    // Stopped before it began: no sync to wait for.
    await assert.rejects(h.watcher.waitForSync(), WatcherStoppedError);
    assert.equal(h.server.requests.length, 0);
    await stopAndCheckQuiet(h);
  });
});
