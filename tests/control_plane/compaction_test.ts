// etcd compaction against a real kube-apiserver. Its watch cache keeps a
// window of events in memory and serves old resourceVersions from it, so
// this file's control plane runs without it: every LIST and WATCH reaches
// etcd, as they do for a resource whose cache is off or behind.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import { Watcher } from "../../watcher/watcher.ts";
import { silentLogger } from "../../logger.ts";
import {
  assertConverged,
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  inParallel,
  LoopbackProxy,
  patch,
  planeTest,
  remove,
  sharedControlPlane,
  TapClient,
} from "./_harness.ts";

const plane = sharedControlPlane({ watchCache: false });

planeTest(
  "a watch resumed from a compacted resourceVersion gets 410, relists and ends without ghosts",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "compacted-watch";
    await createNamespace(admin, namespace);
    await inParallel(
      Array.from({ length: 30 }, (_, i) => i),
      8,
      (i) =>
        create(admin, CONFIGMAPS, namespace, { metadata: { name: `cm-${i}` } }),
    );

    await using proxy = new LoopbackProxy(p.url);
    using viaProxy = new FetchClient({
      server: proxy.url,
      token: p.token(),
      caData: p.caPem,
    });
    const tap = new TapClient(viaProxy);
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      tap,
      { logger: silentLogger, random: () => 0 },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), 30);
      const synced = watcher.health().resourceVersion;

      // While the watcher cannot reach the server: changes, then a
      // compaction past everything it has seen.
      proxy.cut();
      await inParallel(
        Array.from({ length: 15 }, (_, i) => i),
        8,
        (i) =>
          i < 5
            ? create(admin, CONFIGMAPS, namespace, {
              metadata: { name: `new-${i}` },
            })
            : i < 10
            ? patch(admin, CONFIGMAPS, namespace, `cm-${i}`, {
              data: { v: "2" },
            })
            : remove(admin, CONFIGMAPS, namespace, `cm-${i}`),
      );
      const compacted = await p.compact();
      assert.ok(compacted > Number(synced));
      proxy.restore();

      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });
      // It resumed from where it was, was told 410, and listed again.
      const resumed = tap.watches().find((w) =>
        w.query.get("resourceVersion") === synced
      );
      assert.ok(resumed, "no watch resumed from the synced resourceVersion");
      assert.ok(
        tap.events.some((e) => e.type === "ERROR" && e.code === 410),
        `no 410 ERROR event: ${JSON.stringify(tap.events)}`,
      );
      assert.equal(watcher.health().relists, 1);
      assert.equal(watcher.store.size, 30 + 5 - 5);
    } finally {
      await watcher.stop();
    }
  },
);

planeTest(
  "a paginated list whose continue token expires mid-list starts again with a full list, without ghosts",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "compacted-list";
    await createNamespace(admin, namespace);
    await inParallel(
      Array.from({ length: 350 }, (_, i) => i),
      16,
      (i) =>
        create(admin, CONFIGMAPS, namespace, {
          metadata: { name: `cm-${String(i).padStart(3, "0")}` },
        }),
    );

    const tap = new TapClient(admin);
    let expired = false;
    tap.before = async (opts) => {
      if (expired || !opts.querystring?.get("continue")) return;
      expired = true;
      // Between two pages: objects of the first page go away, others come,
      // and the history the continue token points into is compacted.
      await inParallel(
        Array.from({ length: 20 }, (_, i) => i),
        8,
        (i) =>
          i < 10
            ? remove(admin, CONFIGMAPS, namespace, `cm-00${i}`)
            : create(admin, CONFIGMAPS, namespace, {
              metadata: { name: `late-${i}` },
            }),
      );
      await p.compact();
    };
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        pageSize: 100,
        onChange: () => {},
      },
      tap,
      { logger: silentLogger, random: () => 0 },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), 350);
      const lists = tap.lists();
      const refused = lists.find((r) => r.query.get("continue"));
      assert.equal(refused?.status, 410);
      // After the 410: one full list (no pages: a second expiry could
      // not happen), as client-go's pager does.
      const restart = lists.indexOf(refused!) + 1;
      assert.equal(lists.length, restart + 1);
      assert.equal(lists[restart].query.toString(), "");
      assert.equal(lists[restart].status, 200);
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });
      assert.equal(watcher.store.size, 350);
      assert.equal(
        (await watcher.store.list()).filter((o) =>
          o.metadata.name!.startsWith("cm-00")
        ).length,
        0,
      );
    } finally {
      await watcher.stop();
    }
  },
);

// A resume from a version older than the watch cache's window is answered
// by the cache with every object again, as ADDED events, not with 410: the
// 410 needs etcd, hence this file.
planeTest(
  "a streamed initial list: a resume told 410 relists by a streamed list again, not a LIST (issue 33)",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "stream-relist";
    await createNamespace(admin, namespace);
    await inParallel(
      Array.from({ length: 40 }, (_, i) => i),
      8,
      (i) =>
        create(admin, CONFIGMAPS, namespace, { metadata: { name: `cm-${i}` } }),
    );
    const tap = new TapClient(admin);
    let expired = false;
    tap.before = async (opts) => {
      const query = opts.querystring as URLSearchParams;
      if (query.get("watch") !== "1") return;
      query.set("timeoutSeconds", "2");
      if (!expired && !query.has("sendInitialEvents")) {
        // Once: a resume from a version etcd has compacted away.
        expired = true;
        await create(admin, CONFIGMAPS, namespace, {
          metadata: { name: "late" },
        });
        await p.compact();
        query.set("resourceVersion", "2");
      }
    };
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        initialList: "stream",
        onChange: () => {},
      },
      tap,
      { logger: silentLogger, random: () => 0 },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), 40);
      await eventually(
        () => watcher.health().relists === 1,
        () =>
          `watches: ${
            JSON.stringify(
              tap.watches().map((w) => [w.query.toString(), w.status]),
            )
          } events: ${tap.events.length} ${
            JSON.stringify(tap.events.slice(-3))
          }`,
      );
      await eventually(
        () =>
          tap.events.filter((e) =>
              e.annotations?.["k8s.io/initial-events-end"] === "true"
            ).length === 2 && tap.watches().length >= 4,
        () => `${tap.watches().length} watches`,
      );
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });
      assert.ok(
        tap.events.some((e) => e.type === "ERROR" && e.code === 410) ||
          tap.requests.some((r) => r.status === 410),
        "no 410",
      );
      assert.deepEqual(
        tap.watches().slice(0, 4).map((w) =>
          w.query.get("sendInitialEvents") === "true"
        ),
        // The first stream, the resume told 410, the relist's stream, and
        // the resume after it.
        [true, false, true, false],
      );
      assert.equal(
        tap.watches().filter((w) => w.query.has("sendInitialEvents")).length,
        2,
      );
      assert.deepEqual(tap.lists(), []);
    } finally {
      await watcher.stop();
    }
  },
);
