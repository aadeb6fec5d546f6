// What waitForSync() and forceSync() do outside a run: after stop() there
// is nothing to wait for or deliver, before start() nothing to deliver.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { silentLogger } from "../logger.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import { WatcherNotStartedError, WatcherStoppedError } from "./errors.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };

Deno.test("waitForSync() after stop() rejects with WatcherStoppedError, as isSynced() is false", async () => {
  await using server = new FakeApiServer();
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  server.create(GVR, { metadata: { namespace: "shop", name: "a" } });
  const bulk = new Watcher(
    {
      gvr: GVR,
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: () => {},
    },
    client,
    { logger: silentLogger },
  );
  const single = new SingleWatcher(
    {
      gvr: GVR,
      namespace: "shop",
      name: "a",
      onChange: () => {},
    },
    client,
    { logger: silentLogger },
  );
  for (const watcher of [bulk, single]) {
    void watcher.start();
    assert.equal(await watcher.waitForSync(), 1);
    await watcher.stop();
    assert.equal(watcher.isSynced(), false);
    await assert.rejects(
      watcher.waitForSync(),
      (error: unknown) =>
        error instanceof WatcherStoppedError &&
        /configmaps( shop\/a)? was stopped: waitForSync\(\) has no sync to wait for/
          .test(error.message),
    );
  }
});

Deno.test("forceSync() before start() or after stop() rejects, saying which", async () => {
  await using server = new FakeApiServer();
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const watcher = new Watcher(
    {
      gvr: GVR,
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: () => {},
    },
    client,
    { logger: silentLogger },
  );
  await assert.rejects(
    watcher.forceSync(),
    (error: unknown) =>
      error instanceof WatcherNotStartedError &&
      /forceSync\(\) on the watcher for configmaps, which was not started: call start\(\) first/
        .test(error.message),
  );
  void watcher.start();
  await watcher.waitForSync();
  await watcher.forceSync();
  await watcher.stop();
  await assert.rejects(
    watcher.forceSync(),
    (error: unknown) =>
      error instanceof WatcherStoppedError &&
      /was stopped: forceSync\(\) has nothing to deliver/.test(error.message),
  );
});
