// Logs say who speaks: every line of a watcher names its resource and
// namespace scope (and its `name`); a failing callback's line carries the
// error's stack.
import assert from "node:assert/strict";
import { SingleWatcher } from "./single.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import { configMap, CONFIGMAPS, Harness } from "./_bulk_harness_test.ts";
import { waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";

Deno.test("Every line of a watcher names its resource, namespace and name; a failing onChange's line has the stack", async () => {
  await using h = new Harness({
    config: {
      name: "settings",
      namespace: "shop",
      shared: false,
      onChange: (_store, batch) => {
        if (!batch.isInitialSync) throw new Error("render failed");
      },
    },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "a")),
  });
  await h.watcher.waitForSync();
  await h.waitForWatches(1);
  const who = {
    resource: "configmaps",
    namespace: "shop",
    watcher: "settings",
  };
  const synced = h.logger.records.find((r) =>
    r.message === "Initial sync complete"
  );
  assert.deepEqual(synced?.fields, { ...synced?.fields, ...who });

  h.server.create(CONFIGMAPS, configMap("shop", "b"));
  await waitFor(() =>
    h.logger.records.some((r) => r.message === "Change callback failed")
  );
  const failed = h.logger.records.find((r) =>
    r.message === "Change callback failed"
  )!;
  assert.equal((failed.fields.error as Error).message, "render failed");
  assert.match(String(failed.fields.stack), /^Error: render failed\n\s+at /);
  assert.deepEqual(failed.fields, { ...failed.fields, ...who });

  // A line of the loop (a watch that ended) names them too.
  h.server.closeAllWatches();
  await waitFor(() =>
    h.logger.records.some((r) => /^Watch of .* ended/.test(r.message))
  );
  const ended = h.logger.records.find((r) =>
    /^Watch of .* ended/.test(r.message)
  )!;
  assert.deepEqual(ended.fields, { ...ended.fields, ...who });
  // Every line did.
  for (const record of h.logger.records) {
    assert.equal(record.fields.resource, "configmaps", record.message);
    assert.equal(record.fields.namespace, "shop", record.message);
  }
});

Deno.test("A watcher of several namespaces names them; a stream others may share names no watcher", async () => {
  await using h = new Harness({
    config: { name: "two", namespaces: ["shop", "blog"] },
  });
  await h.watcher.waitForSync();
  const synced = h.logger.records.find((r) =>
    r.message === "Initial sync complete"
  )!;
  assert.deepEqual(synced.fields.namespaces, ["shop", "blog"]);
  assert.equal(synced.fields.watcher, "two");
  await h.waitForWatches(2);
  h.server.closeAllWatches();
  await waitFor(() =>
    h.logger.records.some((r) => /^Watch of .* ended/.test(r.message))
  );
  const ended = h.logger.records.find((r) =>
    /^Watch of .* ended/.test(r.message)
  )!;
  assert.equal(ended.fields.resource, "configmaps");
  assert.equal(ended.fields.watcher, undefined);
});

Deno.test("A SingleWatcher's lines name its object; a failing callback's line has the stack", async () => {
  await using h = new Harness({
    start: false,
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "a")),
  });
  const logger = new RecordingLogger();
  const single = new SingleWatcher(
    {
      gvr: CONFIGMAPS,
      namespace: "shop",
      name: "a",
      onChange: () => {},
      onSyncComplete: () => {
        throw new TypeError("no settings");
      },
    },
    h.client,
    { clock: h.clock, logger },
  );
  const running = single.start();
  await single.waitForSync();
  await waitFor(() => logger.at("error").length === 1);
  const [failed] = logger.at("error");
  assert.equal(failed.message, "onSyncComplete for configmaps shop/a failed");
  assert.match(String(failed.fields.stack), /^TypeError: no settings\n/);
  for (const record of logger.records) {
    assert.deepEqual(
      [record.fields.resource, record.fields.namespace, record.fields.name],
      ["configmaps", "shop", "a"],
      record.message,
    );
  }
  await single.stop();
  await running;
});

Deno.test("Watcher name must be a non-empty string", () => {
  for (const name of ["", 3]) {
    assert.throws(
      () => new Harness({ config: { name } as never, start: false }),
      (e: unknown) =>
        e instanceof WatcherConfigError &&
        e.message ===
          "Invalid watcher config: name: must be a non-empty string",
    );
  }
});
