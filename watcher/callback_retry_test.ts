/**
 * A failed `onChange` is not the end of its changes: they go out again with
 * the next call, and without a next change after a backoff (1 s doubling
 * to 60 s, on the watcher's clock, from 1 s again after a success). For a
 * `Watcher`, a `SingleWatcher` (the latest state) and a `DebounceGroup`.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { SingleWatcher } from "./single.ts";
import { Watcher } from "./watcher.ts";
import { DebounceGroup } from "./debounce_group.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import {
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  Harness,
  syncedHarness,
} from "./_bulk_harness_test.ts";

/** A batch as `+a ~b -c`, names sorted within each kind. */
function word(batch: ChangeBatch): string {
  const { created, modified, deleted } = batch.objects;
  const names = (prefix: string, objs: readonly KubeObject[]) =>
    objs.map((o) => `${prefix}${o.metadata.name}`).sort();
  return [
    ...names("+", created),
    ...names("~", modified.map((m) => m.current)),
    ...names("-", deleted),
  ].join(" ");
}

/** Lets every promise and queued fire settle, moving no time. */
async function turns(clock: FakeClock): Promise<void> {
  for (let i = 0; i < 20; i++) await clock.tick(0);
}

// --- Watcher -----------------------------------------------------------------

Deno.test("Watcher: a failed batch's changes go out with the next batch, coalesced", async () => {
  let failing = true;
  await using h = await syncedHarness({
    config: {
      onChange: (_store, batch) => {
        if (!batch.isInitialSync && failing) throw new Error("render failed");
      },
    },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "old")),
  });
  h.server.create(CONFIGMAPS, configMap("shop", "a"));
  await h.waitForBatches(2);
  assert.equal(word(h.recorded.full[1]), "+a");
  failing = false;
  // Inside the interval: the next batch waits for it, and carries a again.
  h.server.update(CONFIGMAPS, configMap("shop", "a", { data: { v: "1" } }));
  h.server.update(CONFIGMAPS, configMap("shop", "old", { data: { v: "1" } }));
  h.server.create(CONFIGMAPS, configMap("shop", "b"));
  await waitFor(() => h.watcher.health().events === 4);
  await h.clock.tick(999);
  assert.equal(h.recorded.full.length, 2, "held for the interval");
  await h.clock.tick(1);
  await h.waitForBatches(3);
  const next = h.recorded.full[2];
  assert.equal(word(next), "+a +b ~old");
  // a as created with its latest version; old with the version before the
  // failed batch.
  const a = next.objects.created.find((o) => o.metadata.name === "a")!;
  assert.deepEqual(a.data, { v: "1" });
  assert.deepEqual(next.objects.modified[0].previous.data, { v: "0" });
  assert.equal(next.isInitialSync, false);
  // Delivered: no retry after it.
  await h.clock.tick(120_000);
  assert.equal(h.recorded.full.length, 3);
});

Deno.test("Watcher: a failed batch is retried without a new change, 1 s doubling to 60 s, from 1 s again after a success", async () => {
  let fail = 9;
  const times: number[] = [];
  await using h = await syncedHarness({
    config: {
      onChange: (_store, batch) => {
        if (batch.isInitialSync) return;
        times.push(h.clock.now());
        if (fail-- > 0) return Promise.reject(new Error("render failed"));
      },
    },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "seed")),
  });
  const start = h.clock.now();
  h.server.create(CONFIGMAPS, configMap("shop", "a"));
  await waitFor(() => times.length === 1, { description: "the first call" });
  for (const wait of [1, 2, 4, 8, 16, 32, 60, 60, 60]) {
    const before = times.length;
    await h.clock.tick(wait * 1_000 - 1);
    await turns(h.clock);
    assert.equal(times.length, before, `not before ${wait} s`);
    await h.clock.tick(1);
    await waitFor(() => times.length === before + 1, {
      description: `the retry after ${wait} s`,
    });
  }
  assert.deepEqual(
    times.map((t) => t - start),
    [0, 1, 3, 7, 15, 31, 63, 123, 183, 243].map((s) => s * 1_000),
  );
  assert.ok(
    h.recorded.full.slice(1).every((b) => word(b) === "+a"),
    "every retry carries a",
  );
  assert.equal(
    h.logger.at("error").filter((r) => r.message === "Change callback failed")
      .length,
    9,
  );
  // Delivered at last: a new failure waits 1 s again.
  fail = 1;
  await h.clock.tick(60_000);
  h.server.create(CONFIGMAPS, configMap("shop", "b"));
  await waitFor(() => times.length === 11);
  const failedAt = h.clock.now();
  await h.clock.tick(999);
  assert.equal(times.length, 11);
  await h.clock.tick(1);
  await waitFor(() => times.length === 12);
  assert.equal(times[11] - failedAt, 1_000);
  assert.equal(word(h.recorded.full.at(-1)!), "+b");
});

Deno.test("Watcher: a failed batch that later changes coalesce away is not retried", async () => {
  const calls: string[] = [];
  await using h = await syncedHarness({
    config: {
      onChange: (_store, batch) => {
        if (batch.isInitialSync) return;
        calls.push(word(batch));
        if (calls.length === 1) throw new Error("render failed");
      },
    },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "seed")),
  });
  h.server.create(CONFIGMAPS, configMap("shop", "a"));
  await waitFor(() => calls.length === 1);
  h.server.delete(CONFIGMAPS, "shop", "a");
  await waitFor(() => h.watcher.health().events === 2);
  await h.clock.tick(120_000);
  await turns(h.clock);
  assert.deepEqual(calls, ["+a"], "created and deleted: nothing to tell");
  assert.equal(h.watcher.health().delivery?.undelivered, 0);
});

Deno.test("Watcher: health().delivery keeps the oldest change of a failed batch waiting for its retry", async () => {
  let fail = true;
  await using h = await syncedHarness({
    config: {
      onChange: (_store, batch) => {
        if (!batch.isInitialSync && fail) throw new Error("render failed");
      },
    },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "seed")),
  });
  const recorded = h.clock.now();
  h.server.create(CONFIGMAPS, configMap("shop", "a"));
  await h.waitForBatches(2);
  await turns(h.clock);
  await h.clock.tick(500);
  assert.deepEqual(h.watcher.health().delivery, {
    undelivered: 1,
    oldestUndeliveredTime: recorded,
    callbackRunningSince: undefined,
  });
  fail = false;
  await h.clock.tick(500);
  await h.waitForBatches(3);
  assert.deepEqual(h.watcher.health().delivery, {
    undelivered: 0,
    oldestUndeliveredTime: undefined,
    callbackRunningSince: undefined,
  });
});

Deno.test("Watcher: an empty initial batch that failed is retried", async () => {
  let fail = true;
  await using h = new Harness({
    config: {
      onChange: () => {
        if (fail) throw new Error("render failed");
      },
    },
  });
  assert.equal(await h.watcher.waitForSync(), 0);
  await h.waitForBatches(1);
  fail = false;
  await h.clock.tick(1_000);
  await h.waitForBatches(2);
  assert.deepEqual(
    h.recorded.batches.map((b) => [b.total, b.isInitialSync]),
    [[0, true], [0, true]],
  );
  await h.clock.tick(120_000);
  assert.equal(h.recorded.batches.length, 2);
});

Deno.test("Watcher: stop() delivers a failed batch once more and leaves no retry timer", async () => {
  await using h = await syncedHarness({
    config: {
      onChange: (_store, batch) => {
        if (!batch.isInitialSync) throw new Error("render failed");
      },
    },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "seed")),
  });
  h.server.create(CONFIGMAPS, configMap("shop", "a"));
  await h.waitForBatches(2);
  await turns(h.clock);
  await h.stop();
  assert.deepEqual(h.recorded.full.slice(1).map(word), ["+a", "+a"]);
  assert.equal(h.clock.pendingTimers, 0);
});

// --- SingleWatcher -------------------------------------------------------------

const SECRETS = { group: "", version: "v1", resource: "secrets" };

function secret(v: string): KubeObject {
  return { metadata: { namespace: "haptic", name: "creds" }, data: { v } };
}

async function single(onChange: (obj: KubeObject | null) => void) {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  const fetch = mockFetch(server);
  const logger = new RecordingLogger();
  server.create(SECRETS, secret("0"));
  const watcher = new SingleWatcher(
    {
      gvr: SECRETS,
      namespace: "haptic",
      name: "creds",
      onChange,
    },
    new FetchClient({ server: server.url }),
    { clock, logger },
  );
  const running = watcher.start();
  await watcher.waitForSync();
  await waitFor(() => server.openWatchCount === 1);
  return {
    clock,
    server,
    logger,
    watcher,
    async [Symbol.asyncDispose]() {
      await watcher.stop();
      await running;
      await server.close();
      fetch[Symbol.dispose]();
    },
  };
}

const dataV = (obj: KubeObject | null) =>
  obj === null
    ? "null"
    : String((obj.data as Record<string, unknown> | undefined)?.v);

Deno.test("SingleWatcher: a failed onChange is retried with the latest state, 1 s then 2 s later", async () => {
  const seen: [number, string][] = [];
  let fail = 2;
  await using s = await single((obj) => {
    seen.push([s.clock.now(), dataV(obj)]);
    if (fail-- > 0) throw new Error("apply failed");
  });
  const start = s.clock.now();
  s.server.patch(SECRETS, "haptic", "creds", { data: { v: "1" } });
  await waitFor(() => seen.length === 1);
  await s.clock.tick(1_000);
  await waitFor(() => seen.length === 2);
  await s.clock.tick(2_000);
  await waitFor(() => seen.length === 3);
  assert.deepEqual(
    seen.map(([t, v]) => [t - start, v]),
    [[0, "1"], [1_000, "1"], [3_000, "1"]],
  );
  await s.clock.tick(120_000);
  assert.equal(seen.length, 3, "delivered: no more retries");
});

Deno.test("SingleWatcher: a change after a failed onChange is the retry (newest wins)", async () => {
  const seen: string[] = [];
  await using s = await single((obj) => {
    seen.push(dataV(obj));
    if (seen.length === 1) throw new Error("apply failed");
  });
  s.server.patch(SECRETS, "haptic", "creds", { data: { v: "1" } });
  await waitFor(() => seen.length === 1);
  s.server.patch(SECRETS, "haptic", "creds", { data: { v: "2" } });
  await waitFor(() => seen.length === 2);
  await s.clock.tick(120_000);
  await turns(s.clock);
  assert.deepEqual(seen, ["1", "2"]);
});

Deno.test("SingleWatcher: stop() cancels a pending retry and delivers nothing more", async () => {
  const seen: string[] = [];
  const s = await single((obj) => {
    seen.push(dataV(obj));
    throw new Error("apply failed");
  });
  s.server.patch(SECRETS, "haptic", "creds", { data: { v: "1" } });
  await waitFor(() => seen.length === 1);
  await turns(s.clock);
  await s[Symbol.asyncDispose]();
  assert.equal(s.clock.pendingTimers, 0);
  assert.deepEqual(seen, ["1"]);
});

// --- DebounceGroup ---------------------------------------------------------------

Deno.test("DebounceGroup: a failed call's batches are merged before the next ones, and retried after 1 s", async () => {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const calls: [number, Record<string, string[]>][] = [];
  let fail = 2;
  const group = new DebounceGroup<string[]>({
    interval: 5_000,
    clock,
    logger,
    merge: (pending, next) => [...pending, ...next],
    onChange: (batches) => {
      calls.push([clock.now(), Object.fromEntries(batches)]);
      if (fail-- > 0) throw new Error("render failed");
    },
  });
  const a = group.member("a");
  const b = group.member("b");
  a.add(["1"]);
  await clock.tick(0);
  b.add(["2"]);
  a.add(["3"]);
  await clock.tick(1_000); // the retry, before the interval's end
  await clock.tick(2_000); // failed again: 2 s later
  await clock.tick(60_000);
  assert.deepEqual(calls, [
    [0, { a: ["1"] }],
    [1_000, { a: ["1", "3"], b: ["2"] }],
    [3_000, { a: ["1", "3"], b: ["2"] }],
  ]);
  assert.deepEqual(
    logger.at("error").map((r) => r.message),
    ["Debounce group callback failed", "Debounce group callback failed"],
  );
  await group.stop();
  assert.equal(calls.length, 3);
});

Deno.test("DebounceGroup: stop() delivers a failed call's batches once more and leaves no timer", async () => {
  const clock = new FakeClock();
  const calls: Record<string, number>[] = [];
  const group = new DebounceGroup<number>({
    interval: 1_000,
    clock,
    logger: new RecordingLogger(),
    merge: (a, b) => a + b,
    onChange: (batches) => {
      calls.push(Object.fromEntries(batches));
      throw new Error("render failed");
    },
  });
  group.member("a").add(1);
  await clock.tick(0);
  await group.stop();
  assert.deepEqual(calls, [{ a: 1 }, { a: 1 }]);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("DebounceGroup: a watcher member's failed batch goes out again with its next changes", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  const logger = new RecordingLogger();
  const calls: string[] = [];
  let fail = 1;
  const group = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    clock,
    logger,
    merge: mergeChangeBatches,
    onChange: (batches) => {
      const batch = batches.get("configmaps")!;
      if (batch.isInitialSync) return;
      calls.push(word(batch));
      if (fail-- > 0) throw new Error("render failed");
    },
  });
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      group: group.member("configmaps"),
    },
    new FetchClient({ server: server.url }),
    { clock, logger },
  );
  const running = watcher.start();
  try {
    await watcher.waitForSync();
    await waitFor(() => server.openWatchCount === 1);
    server.create(CONFIGMAPS, configMap("shop", "a"));
    await waitFor(() => calls.length === 1);
    server.create(CONFIGMAPS, configMap("shop", "b"));
    await waitFor(() => watcher.health().events === 2);
    await clock.tick(1_000);
    await waitFor(() => calls.length === 2);
    assert.deepEqual(calls, ["+a", "+a +b"]);
  } finally {
    await watcher.stop();
    await running;
    await group.stop();
  }
});

Deno.test("DebounceGroup: a merge that throws on a failed call's batch is logged, and the later batch goes out", async () => {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const calls: Record<string, number>[] = [];
  let merges = 0;
  const group = new DebounceGroup<number>({
    name: "render",
    interval: 1_000,
    clock,
    logger,
    merge: (a, b) => {
      if (merges++ === 0) throw new Error("cannot merge");
      return a + b;
    },
    onChange: (batches) => {
      calls.push(Object.fromEntries(batches));
      if (calls.length > 1) return;
      // Added during the call that fails: taking its batch back before
      // this one, merge(1, 2) throws.
      a.add(2);
      throw new Error("render failed");
    },
  });
  const a = group.member("a");
  a.add(1);
  await clock.tick(0);
  await clock.tick(1_000);
  assert.deepEqual(calls, [{ a: 1 }, { a: 2 }]);
  assert.deepEqual(
    logger.at("error").map((r) => [r.message, r.fields.group, r.fields.member]),
    [
      ["Debounce group callback failed", "render", undefined],
      [
        "Debounce group could not merge a failed call's batch; the later batch goes out alone",
        "render",
        "a",
      ],
    ],
  );
  await group.stop();
});
