// The initial sync against a real kube-apiserver: thousands of ConfigMaps
// through LIST pages or through a streamed initial list
// (sendInitialEvents), then churn through the API and through kubectl.
import assert from "node:assert/strict";
import { Watcher } from "../../watcher/watcher.ts";
import { silentLogger } from "../../logger.ts";
import {
  assertConverged,
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  inParallel,
  listAll,
  patch,
  planeTest,
  remove,
  sharedControlPlane,
  TapClient,
} from "./_harness.ts";

const plane = sharedControlPlane();
const NAMESPACE = "sync";
const INITIAL = 3_000;

/** The namespace with INITIAL ConfigMaps, made once for the file. */
let seeded: Promise<void> | undefined;
function seed(): Promise<void> {
  return seeded ??= (async () => {
    const p = await plane();
    using admin = p.client();
    await createNamespace(admin, NAMESPACE);
    await inParallel(
      Array.from({ length: INITIAL }, (_, i) => i),
      16,
      (i) =>
        create(admin, CONFIGMAPS, NAMESPACE, {
          metadata: { name: `cm-${i}`, labels: { app: "sync" } },
          data: { i: String(i) },
        }),
    );
  })();
}

function manifest(objects: object[]): string {
  return JSON.stringify({ apiVersion: "v1", kind: "List", items: objects });
}

planeTest(
  "3000 ConfigMaps sync through LIST pages, then churn through the API and kubectl apply/delete reaches the store",
  async () => {
    await seed();
    const p = await plane();
    using admin = p.client();
    const tap = new TapClient(admin);
    const totals = { created: 0, modified: 0, deleted: 0 };
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace: NAMESPACE,
        indexBy: ["metadata.namespace", "metadata.name"],
        debounceInterval: 50,
        onChange: (_store, batch) => {
          if (batch.isInitialSync) return;
          totals.created += batch.created;
          totals.modified += batch.modified;
          totals.deleted += batch.deleted;
        },
      },
      tap,
      { logger: silentLogger },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), INITIAL);
      const lists = tap.lists();
      assert.equal(lists.length, Math.ceil(INITIAL / 500));
      assert.ok(lists.every((r) => r.query.get("limit") === "500"));
      assert.ok(lists.slice(1).every((r) => r.query.get("continue")));

      // Through the API: 200 new, 300 changed, 200 deleted, all at once.
      await inParallel(
        Array.from({ length: 700 }, (_, i) => i),
        16,
        (i) =>
          i < 200
            ? create(admin, CONFIGMAPS, NAMESPACE, {
              metadata: { name: `new-${i}` },
              data: { i: String(i) },
            })
            : i < 500
            ? patch(admin, CONFIGMAPS, NAMESPACE, `cm-${i}`, {
              data: { changed: "yes" },
            })
            : remove(admin, CONFIGMAPS, NAMESPACE, `cm-${i}`),
      );

      // Through kubectl: 50 new and 50 changed by one apply, 50 deleted by label.
      const applied = [
        ...Array.from({ length: 50 }, (_, i) => ({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `applied-${i}`, namespace: NAMESPACE },
          data: { from: "kubectl" },
        })),
        ...Array.from({ length: 50 }, (_, i) => ({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: {
            name: `cm-${1000 + i}`,
            namespace: NAMESPACE,
            labels: { app: "sync", doomed: "no" },
          },
          data: { from: "kubectl" },
        })),
      ];
      const file = `${p.dir}/apply.json`;
      await Deno.writeTextFile(file, manifest(applied));
      await p.kubectl("apply", "-f", file);
      await p.kubectl(
        "label",
        "-n",
        NAMESPACE,
        "configmap",
        ...Array.from({ length: 50 }, (_, i) => `cm-${2000 + i}`),
        "doomed=yes",
      );
      await p.kubectl(
        "delete",
        "-n",
        NAMESPACE,
        "configmap",
        "-l",
        "doomed=yes",
      );

      const size = await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [NAMESPACE],
      });
      assert.equal(size, INITIAL + 200 + 50 - 200 - 50);
      await eventually(
        () => totals.created === 250 && totals.deleted === 250,
        () => `batches: ${JSON.stringify(totals)}`,
      );
      // 300 patched, 50 applied, 50 labelled (and then deleted: in a
      // batch of their own, or coalesced into the deletion).
      assert.ok(
        totals.modified >= 350 && totals.modified <= 400,
        JSON.stringify(totals),
      );
      assert.equal(watcher.health().relists, 0);
      assert.equal(tap.lists().length, lists.length);
    } finally {
      await watcher.stop();
    }
  },
);

planeTest(
  "an initial list streamed with sendInitialEvents ends at the initial-events-end bookmark, without a LIST",
  async () => {
    await seed();
    const p = await plane();
    using admin = p.client();
    const tap = new TapClient(admin);
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace: NAMESPACE,
        indexBy: ["metadata.namespace", "metadata.name"],
        initialList: "stream",
        onChange: () => {},
      },
      tap,
      { logger: silentLogger },
    );
    watcher.start();
    try {
      const count = await watcher.waitForSync();
      assert.equal(
        count,
        (await listAll(admin, CONFIGMAPS, { namespace: NAMESPACE })).length,
      );
      assert.deepEqual(tap.lists(), []);
      const [first] = tap.watches();
      assert.equal(first.query.get("sendInitialEvents"), "true");
      assert.equal(first.query.get("resourceVersionMatch"), "NotOlderThan");
      assert.equal(first.query.get("allowWatchBookmarks"), "true");
      const end = tap.events.find((e) =>
        e.type === "BOOKMARK" &&
        e.annotations?.["k8s.io/initial-events-end"] === "true"
      );
      assert.ok(end, "no initial-events-end bookmark");
      assert.equal(
        tap.events.filter((e) => e.type === "ADDED").length >= count,
        true,
      );

      // The same stream carries on with changes.
      await create(admin, CONFIGMAPS, NAMESPACE, {
        metadata: { name: "streamed" },
      });
      await remove(admin, CONFIGMAPS, NAMESPACE, "cm-10");
      await patch(admin, CONFIGMAPS, NAMESPACE, "cm-11", { data: { x: "1" } });
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [NAMESPACE],
      });
      assert.equal(tap.watches().length, 1);
      assert.deepEqual(tap.lists(), []);
    } finally {
      await watcher.stop();
    }
  },
);
