import { ListTimeoutError } from "../listwatch/list_watch_types.ts";
import assert from "node:assert/strict";
import type { ChangeStats, KubeObject } from "../types.ts";
import { ApiError } from "../client/api_error.ts";
import { waitFor } from "../testing/fake_clock.ts";
import { WatcherSyncError } from "./errors.ts";
import {
  configMap,
  Harness,
  identities,
  syncedHarness,
} from "./_bulk_harness_test.ts";

function pick(s: ChangeStats) {
  const { created, modified, deleted, isInitialSync } = s;
  return { created, modified, deleted, isInitialSync };
}

async function assertStoreMatchesServer(h: Harness): Promise<void> {
  const stored: KubeObject[] = await h.watcher.store.list();
  assert.deepEqual(identities(stored), identities(h.server.list("configmaps")));
}

/** A synced harness with `n` objects in `shop`, its watch open. */
async function synced(
  n: number,
  options: ConstructorParameters<typeof Harness>[0] = {},
): Promise<Harness> {
  const h = await syncedHarness({
    ...options,
    seed: (server) => {
      for (let i = 0; i < n; i++) {
        server.create("configmaps", configMap("shop", `cm-${i}`));
      }
    },
  });
  assert.equal(h.watcher.store.size, n);
  return h;
}

/** Writes one object and waits until the watcher has applied the event. */
async function writeAndSee(h: Harness, name: string): Promise<string> {
  const events = h.watcher.health().events;
  const obj = h.server.create("configmaps", configMap("shop", name));
  await waitFor(() => h.watcher.health().events === events + 1, {
    description: `the event for ${name}`,
  });
  return obj.metadata.resourceVersion!;
}

Deno.test("Watcher follows bookmarks, so a reconnect after compaction does not relist", async () => {
  await using h = await synced(3, { server: { bookmarkIntervalMs: 5_000 } });
  const listRv = h.watcher.health().resourceVersion;
  assert.equal(listRv, "3");

  // Writes to another resource move the global version on without any
  // configmap event: only bookmarks tell the watcher.
  for (let i = 0; i < 5; i++) {
    h.server.create("secrets", {
      metadata: { namespace: "shop", name: `s${i}` },
    });
  }
  assert.equal(h.server.resourceVersion, "8");
  await h.clock.tick(5_000);
  await waitFor(() => h.watcher.health().resourceVersion === "8", {
    description: "the bookmark's resourceVersion",
  });
  assert.equal(h.watcher.health().events, 0, "bookmarks are not events");

  const before = h.watcher.health();
  h.server.compactHistory();
  h.server.closeAllWatches();
  await h.waitForRequests("watch", 2);
  await h.waitForWatches(1);
  const after = h.watcher.health();
  assert.equal(h.requests("watch")[1].query.resourceVersion, "8");
  assert.equal(after.relists, before.relists, "no relist");
  assert.equal(after.reconnects, before.reconnects + 1);
  assert.equal(h.requests("list").length, 1);
  assert.doesNotMatch(h.logger.text(), /410|expired/i);

  // The resumed watch delivers.
  await writeAndSee(h, "late");
  await assertStoreMatchesServer(h);
});

Deno.test("Watcher re-watches from the last resourceVersion when the stream ends", async () => {
  await using h = await synced(2);
  const rv = await writeAndSee(h, "x");
  const before = h.watcher.health();
  assert.equal(before.resourceVersion, rv);

  h.server.closeAllWatches();
  await h.waitForRequests("watch", 2);
  await h.waitForWatches(1);
  const after = h.watcher.health();
  assert.equal(after.relists, before.relists);
  assert.equal(after.reconnects, before.reconnects + 1);
  assert.equal(h.requests("list").length, 1, "no relist");
  const watch = h.requests("watch")[1].query;
  assert.equal(watch.resourceVersion, rv);
  assert.equal(watch.allowWatchBookmarks, "true");
  const timeout = Number(watch.timeoutSeconds);
  assert.ok(timeout >= 300 && timeout <= 600, `timeoutSeconds ${timeout}`);

  // A write made while reconnecting arrives through the new watch.
  await writeAndSee(h, "y");
  await assertStoreMatchesServer(h);
  assert.equal(h.watcher.store.size, 4);
});

Deno.test("Watcher relists on 410 and deletes what vanished meanwhile", async (t) => {
  for (const how of ["HTTP status", "ERROR event"] as const) {
    await t.step(how, async () => {
      await using h = await synced(5);
      await writeAndSee(h, "x");
      await h.clock.tick(5_000);
      const before = h.watcher.health();
      const batches = h.recorded.batches.length;

      if (how === "HTTP status") {
        h.server.injectFault({ verb: "watch", kind: "status", code: 410 });
      }
      // Everything below happens while no watch is open.
      h.server.closeAllWatches();
      h.server.delete("configmaps", "shop", "cm-1");
      h.server.delete("configmaps", "shop", "cm-3");
      h.server.delete("configmaps", "shop", "x");
      h.server.patch("configmaps", "shop", "cm-0", { data: { v: "9" } });
      h.server.create("configmaps", configMap("shop", "new"));
      if (how === "ERROR event") h.server.compactHistory();

      await waitFor(() => h.watcher.health().relists === before.relists + 1, {
        description: "a relist",
      });
      await h.waitForWatches(1);
      await h.waitForBatches(batches + 1);
      assert.deepEqual(pick(h.recorded.batches[batches]), {
        created: 1,
        modified: 1,
        deleted: 3,
        isInitialSync: false,
      });
      // The relist's differences, as objects: what vanished is deleted as
      // last stored.
      const { objects } = h.recorded.full[batches];
      const names = (list: readonly KubeObject[]) =>
        list.map((o) => o.metadata.name).sort();
      assert.deepEqual(names(objects.created), ["new"]);
      assert.deepEqual(names(objects.deleted), ["cm-1", "cm-3", "x"]);
      assert.deepEqual(
        objects.modified.map((m) => [m.previous.data, m.current.data]),
        [
          [{ v: "0" }, { v: "9" }],
        ],
      );
      assert.equal(h.requests("list").length, 2);
      assert.equal(h.requests("list")[1].query.continue, undefined);
      assert.equal(
        h.watcher.health().resourceVersion,
        h.server.resourceVersion,
      );
      assert.match(h.logger.text(), /expired.*410.*relisting/i);
      await assertStoreMatchesServer(h);
      assert.equal(h.recorded.syncs.length, 1, "a relist is not a new sync");
    });
  }
});

Deno.test("Watcher honours Retry-After on 429", async (t) => {
  await t.step("on LIST", async () => {
    await using h = new Harness({ start: false });
    h.server.create("configmaps", configMap("shop", "a"));
    h.server.injectFault({
      verb: "list",
      kind: "status",
      code: 429,
      retryAfterSeconds: 5,
    });
    h.running = h.watcher.start();
    await h.waitForRequests("list", 1);
    await waitFor(() => h.watcher.lastError() !== undefined, {
      description: "the 429 is reported",
    });
    assert.equal((h.watcher.lastError()?.error as ApiError).code, 429);
    await h.clock.tick(4_999);
    assert.equal(h.requests("list").length, 1, "not before Retry-After");
    await h.clock.tick(1);
    await h.waitForRequests("list", 2);
    assert.equal(await h.watcher.waitForSync(), 1);
  });

  await t.step("on WATCH", async () => {
    await using h = await synced(1);
    await writeAndSee(h, "x");
    h.server.injectFault({
      verb: "watch",
      kind: "status",
      code: 429,
      retryAfterSeconds: 3,
    });
    h.server.closeAllWatches();
    await h.waitForRequests("watch", 2);
    await waitFor(() => h.watcher.lastError() !== undefined, {
      description: "the 429 is reported",
    });
    const failedAt = h.clock.now();
    assert.equal(h.watcher.lastError()?.time, failedAt);
    await h.clock.tick(2_999);
    assert.equal(h.requests("watch").length, 2, "not before Retry-After");
    await h.clock.tick(1);
    await h.waitForRequests("watch", 3);
    await h.waitForWatches(1);
    assert.equal(h.watcher.health().relists, 0);
  });
});

Deno.test("Watcher backs off longer after each 500", async (t) => {
  /** Checks each gap: nothing before it ends, a new request when it does. */
  async function expectGaps(h: Harness, verb: string, nominal: number[]) {
    const gaps: number[] = [];
    for (const [i, max] of nominal.entries()) {
      const count = h.requests(verb).length;
      await waitFor(
        () =>
          h.clock.pendingTimers > 0 && h.watcher.lastError() !== undefined &&
          h.watcher.lastError()?.time === h.clock.now(),
        {
          description: `backoff ${i + 1} scheduled`,
        },
      );
      const gap = h.clock.nextDue! - h.clock.now();
      gaps.push(gap);
      assert.ok(
        gap >= max * 0.8 && gap <= max,
        `gap ${i + 1} is ${gap}, expected within [${max * 0.8}, ${max}]`,
      );
      await h.clock.tick(gap - 1);
      assert.equal(h.requests(verb).length, count, "not before the gap");
      await h.clock.tick(1);
      await h.waitForRequests(verb, count + 1);
    }
    for (let i = 1; i < gaps.length; i++) {
      assert.ok(gaps[i] > gaps[i - 1], `gaps grow: ${gaps.join(", ")}`);
    }
    return gaps;
  }

  await t.step("on LIST", async () => {
    await using h = new Harness({ start: false, randomSeed: 42 });
    h.server.create("configmaps", configMap("shop", "a"));
    h.server.injectFault({ verb: "list", kind: "status", code: 500, times: 4 });
    h.running = h.watcher.start();
    await h.waitForRequests("list", 1);
    await expectGaps(h, "list", [800, 1_600, 3_200, 6_400]);
    assert.equal(await h.watcher.waitForSync(), 1);
    const error = h.watcher.lastError()?.error;
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 500);
    assert.equal(typeof h.watcher.lastError()?.time, "number");
    assert.equal(h.watcher.health().lastError?.error, error);
    const warnings = h.logger.at("warn").filter((r) =>
      /retrying in/.test(r.message)
    );
    assert.equal(warnings.length, 4);
    assert.match(warnings[0].message, /\/api\/v1\/configmaps/);
  });

  await t.step("on WATCH", async () => {
    await using h = await synced(1, { randomSeed: 3 });
    await writeAndSee(h, "x");
    await h.clock.tick(5_000); // its batch goes out: no debounce timer left
    h.server.injectFault({
      verb: "watch",
      kind: "status",
      code: 500,
      times: 3,
    });
    h.server.closeAllWatches();
    await h.waitForRequests("watch", 2);
    await expectGaps(h, "watch", [800, 1_600, 3_200]);
    await h.waitForWatches(1);
    assert.equal((h.watcher.lastError()?.error as ApiError).code, 500);
    assert.equal(h.watcher.health().relists, 0);
    await writeAndSee(h, "y");
    await assertStoreMatchesServer(h);
  });
});

Deno.test("Watcher survives a truncated watch line", async () => {
  await using h = await synced(2);
  await writeAndSee(h, "x");
  h.server.injectFault({ verb: "watch", kind: "truncate", afterEvents: 1 });
  h.server.closeAllWatches();
  await h.waitForRequests("watch", 2);
  // The new watch sends one whole line (this write), then half a line.
  h.server.create("configmaps", configMap("shop", "y"));
  await waitFor(
    () =>
      h.logger.at("warn").some((r) => /could not be decoded/.test(r.message)),
    { description: "a warning about the broken line" },
  );
  assert.equal(h.watcher.store.size, 4, "the whole line was applied");
  await h.clock.tick(1_000); // backoff
  await h.waitForRequests("watch", 3);
  await h.waitForWatches(1);
  assert.equal(
    h.requests("watch")[2].query.resourceVersion,
    h.server.get("configmaps", "shop", "y").metadata.resourceVersion,
  );
  assert.equal(h.watcher.health().relists, 0);
  await writeAndSee(h, "z");
  await assertStoreMatchesServer(h);
  assert.equal(
    (await h.watcher.store.list()).some((o) => o.metadata.name === "truncated"),
    false,
    "the broken line was not stored",
  );
});

Deno.test("Watcher resumes a stalled watch after the idle timeout", async () => {
  await using h = await synced(2, { options: { idleTimeoutMs: 10_000 } });
  await writeAndSee(h, "x");
  const before = h.watcher.health();
  h.server.injectFault({ verb: "watch", kind: "stall" });
  h.server.closeAllWatches();
  await h.waitForRequests("watch", 2);
  // Missed while stalled; the resumed watch must catch up.
  h.server.create("configmaps", configMap("shop", "during-stall"));
  await h.clock.tick(9_999);
  assert.equal(h.requests("watch").length, 2, "still waiting for bytes");
  assert.equal(h.watcher.store.size, 3);
  await h.clock.tick(1);
  await h.waitForRequests("watch", 3);
  await h.waitForWatches(1);
  await waitFor(() => h.watcher.store.size === 4, {
    description: "the write made during the stall",
  });
  const after = h.watcher.health();
  assert.equal(after.relists, before.relists);
  assert.equal(after.reconnects, before.reconnects + 2);
  assert.match(h.logger.text(), /received no bytes for 10000 ms/);
  await assertStoreMatchesServer(h);
});

Deno.test("Watcher explains 403 and 404 on LIST and keeps retrying", async (t) => {
  const cases = [
    {
      code: 403,
      hint: /RBAC/,
      setup: (h: Harness) =>
        h.server.injectFault({
          verb: "list",
          kind: "status",
          code: 403,
          forMs: 3_600_000,
        }),
      gvr: undefined,
      path: "/api/v1/configmaps",
    },
    {
      code: 404,
      hint: /CRD not installed/,
      setup: () => {},
      gvr: { group: "example.com", version: "v1", resource: "widgets" },
      path: "/apis/example.com/v1/widgets",
    },
  ];
  for (const c of cases) {
    await t.step(String(c.code), async () => {
      await using h = new Harness({
        start: false,
        config: c.gvr ? { gvr: c.gvr } : {},
      });
      c.setup(h);
      h.running = h.watcher.start();
      const controller = new AbortController();
      const sync = h.watcher.waitForSync(controller.signal);
      sync.catch(() => {});
      await waitFor(() => h.logger.at("error").length === 1, {
        description: "an error-level log",
      });
      const [record] = h.logger.at("error");
      assert.ok(record.message.includes(c.path), record.message);
      assert.ok(record.message.includes(String(c.code)), record.message);
      assert.match(record.message, c.hint);
      assert.ok(String(record.fields.url).startsWith(c.path));
      assert.match(String(record.fields.hint), c.hint);
      const error = h.watcher.lastError()?.error;
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, c.code);

      // Still retrying, with backoff.
      await h.clock.tick(1_000);
      await waitFor(() => h.logger.at("error").length === 2, {
        description: "a second attempt",
      });
      assert.equal(h.watcher.isSynced(), false);

      controller.abort();
      await assert.rejects(sync, (e: unknown) => {
        assert.ok(e instanceof WatcherSyncError);
        assert.match(e.message, new RegExp(String(c.code)));
        assert.equal(
          e.cause,
          h.watcher.lastError()?.error,
          "the latest failure",
        );
        assert.equal((e.cause as ApiError).code, c.code);
        return true;
      });
      assert.equal(h.recorded.batches.length, 0);
    });
  }
});

Deno.test({
  // A LIST whose body never arrives (a half-open connection) is abandoned
  // after the idle timeout and retried.
  name: "Watcher gives up on a stalled LIST and lists again",
  fn: async () => {
    await using h = new Harness({
      start: false,
      options: { idleTimeoutMs: 10_000 },
    });
    h.server.create("configmaps", configMap("shop", "a"));
    h.server.injectFault({ verb: "list", kind: "stall" });
    h.running = h.watcher.start();
    await h.waitForRequests("list", 1);
    await h.clock.tick(60_000);
    await h.waitForRequests("list", 2);
    assert.equal(await h.watcher.waitForSync(), 1);
    assert.ok(h.watcher.lastError()?.error instanceof ListTimeoutError);
  },
});
