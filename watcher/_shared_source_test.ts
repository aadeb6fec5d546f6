import assert from "node:assert/strict";
import type { KubeObject, Store } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { Indexer } from "../selection/indexer.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { BatchBuilder } from "./change_batch.ts";
import { ObjectPreparer } from "./_store_writer.ts";
import { SharedSource, type SourceConsumer } from "./_shared_source.ts";
import { BY_IDENTITY, configMap, CONFIGMAPS } from "./_bulk_harness_test.ts";
import { seeded } from "../testing/_seeded_random.ts";

/**
 * A source of `namespaces: ["a", "b"]` whose requests for `b` are answered
 * 403 until `forbidden` is cancelled, and one consumer recording into a
 * `BatchBuilder` that nobody takes from before the sync (a watcher's while
 * it syncs).
 */
function setUp(sharable: boolean) {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  const fetch = mockFetch(server);
  for (const ns of ["a", "b"]) {
    server.create(CONFIGMAPS, configMap(ns, "listed"));
  }
  const client = new FetchClient({ server: server.url });
  const forbidden = server.injectFault({
    namespace: "b",
    kind: "status",
    code: 403,
    times: Infinity,
  });
  const logger = new RecordingLogger();
  const indexer = new Indexer({ indexBy: BY_IDENTITY });
  const source = new SharedSource<KubeObject>(
    {
      client,
      gvr: CONFIGMAPS,
      namespaces: ["a", "b"],
      labelSelector: undefined,
      metadataOnly: false,
      ignoreFields: [],
      transform: undefined,
      freezeObjects: false,
      logger,
      preselect: undefined,
      shard: undefined,
      loop: {
        pageSize: undefined,
        initialList: undefined,
        idleTimeoutMs: undefined,
        firstByteTimeoutMs: undefined,
        clock,
        random: seeded(1),
        meter: undefined,
        name: undefined,
      },
    },
    logger,
    new ObjectPreparer({ indexer, logger, resource: "configmaps" }),
    sharable,
  );
  const builder = new BatchBuilder<KubeObject>();
  let store: Store<KubeObject> | undefined;
  let synced = 0;
  const consumer: SourceConsumer<KubeObject> = {
    viewKey: "view",
    viewParts: () => ({
      store: new MemoryStore<KubeObject>({ keyCount: 2 }),
      indexer,
      fieldSelector: undefined,
      logger,
      resource: "configmaps",
    }),
    recorder: builder,
    joined: (view) => {
      store = view;
    },
    leftShared: () => {},
    sourceSynced: () => {
      synced++;
      return undefined;
    },
  };
  source.join(consumer);
  return {
    clock,
    server,
    forbidden,
    source,
    builder,
    store: () => store!,
    synced: () => synced,
    async [Symbol.asyncDispose]() {
      await source.leave(consumer);
      assert.equal(server.openWatchCount, 0);
      await server.close();
      fetch[Symbol.dispose]();
    },
  };
}

for (const sharable of [true, false]) {
  Deno.test(
    `SharedSource (${
      sharable ? "shared" : "private"
    }) keeps nothing for names that came and went while a namespace is forbidden`,
    async () => {
      await using t = setUp(sharable);
      await waitFor(() => t.server.openWatchCount === 1, {
        description: "a's watch",
      });
      assert.equal(t.source.synced, false);
      t.server.create(CONFIGMAPS, configMap("a", "stays"));
      t.server.update(
        CONFIGMAPS,
        configMap("a", "listed", { data: { v: "1" } }),
      );
      for (let i = 0; i < 500; i++) {
        t.server.create(CONFIGMAPS, configMap("a", `tmp-${i}`));
        t.server.delete(CONFIGMAPS, "a", `tmp-${i}`);
      }
      await waitFor(() => t.source.health().events === 1_002, {
        description: "every event of a",
      });
      assert.equal(t.store().size, 2);
      // Entries for what changed and still exists; none per name that went.
      assert.equal(t.builder.size, 2);
      assert.equal(t.synced(), 0, "b has not listed");

      // b is let in after its backoff: the batch is what a user would see.
      t.forbidden.cancel();
      for (let i = 0; i < 10 && !t.source.synced; i++) {
        await t.clock.tick(30_000);
        await waitFor(() => true);
      }
      assert.equal(t.source.synced, true);
      assert.equal(t.synced(), 1);
      assert.equal(t.store().size, 3);
      const batch = t.builder.take(true);
      assert.deepEqual(
        [batch.created, batch.modified, batch.deleted],
        [3, 1, 0],
      );
      assert.deepEqual(
        batch.objects.created.map((o) => o.metadata.name),
        ["stays"],
      );
    },
  );
}
