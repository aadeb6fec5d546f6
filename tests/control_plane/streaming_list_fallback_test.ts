// A kube-apiserver without streaming lists (`--feature-gates=WatchList=false`
// on 1.37.2, which then refuses sendInitialEvents with 422 Invalid): a
// watcher asked to stream its initial list is refused once, says so in one
// log line, and uses LIST from then on: after watch timeouts and after a
// relist forced by 410. The same against the FakeApiServer:
// watcher/initial_stream_test.ts. The watch cache is off so that a
// compacted resourceVersion gets 410 (see compaction_test.ts).
import assert from "node:assert/strict";
import { Watcher } from "../../watcher/watcher.ts";
import { RecordingLogger } from "../../testing/recording_logger.ts";
import {
  assertConverged,
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  inParallel,
  planeTest,
  sharedControlPlane,
  TapClient,
} from "./_harness.ts";

const plane = sharedControlPlane({
  watchCache: false,
  apiServerArgs: ["--feature-gates=WatchList=false"],
});

planeTest(
  "a server without streaming lists: one refused stream, one log line, LIST from then on (after timeouts and a 410 relist too)",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "no-stream";
    await createNamespace(admin, namespace);
    await inParallel(
      Array.from({ length: 30 }, (_, i) => i),
      8,
      (i) =>
        create(admin, CONFIGMAPS, namespace, { metadata: { name: `cm-${i}` } }),
    );
    const tap = new TapClient(admin);
    let resumes = 0;
    tap.before = async (opts) => {
      const query = opts.querystring as URLSearchParams;
      if (query.get("watch") !== "1" || query.has("sendInitialEvents")) return;
      query.set("timeoutSeconds", "2");
      if (++resumes === 3) {
        // The third watch resumes from a version etcd has compacted away.
        await create(admin, CONFIGMAPS, namespace, {
          metadata: { name: "late" },
        });
        await p.compact();
        query.set("resourceVersion", "2");
      }
    };
    const logger = new RecordingLogger();
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        initialList: "stream",
        onChange: () => {},
      },
      tap,
      { logger, random: () => 0 },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), 30);
      await eventually(
        () => watcher.health().relists === 1 && resumes >= 5,
        () => `${resumes} resumes, ${watcher.health().relists} relists`,
      );
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });

      const streams = tap.watches().filter((w) =>
        w.query.has("sendInitialEvents")
      );
      assert.equal(streams.length, 1, "one streaming attempt in all");
      assert.equal(streams[0].status, 422);
      assert.equal(tap.lists().length, 2, "the first list and the relist");
      const lines = logger.records.filter((r) =>
        /not supported/.test(r.message)
      );
      assert.equal(lines.length, 1);
      assert.match(lines[0].message, /422/);
      assert.match(lines[0].message, /WatchList/);
    } finally {
      await watcher.stop();
    }
  },
);
