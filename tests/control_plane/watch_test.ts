// Watches against a real kube-apiserver with its watch cache: bookmarks,
// a restart mid-watch, metadata-only negotiation, SingleWatcher, and a
// custom resource whose CRD comes after the watcher and goes again.
import assert from "node:assert/strict";
import { httpStatusOf } from "../../client/api_error.ts";
import { Watcher } from "../../watcher/watcher.ts";
import { SingleWatcher } from "../../watcher/single.ts";
import { silentLogger } from "../../logger.ts";
import { RecordingLogger } from "../../testing/recording_logger.ts";
import type { Gvr, KubeObject } from "../../types.ts";
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
  SECRETS,
  sharedControlPlane,
  TapClient,
} from "./_harness.ts";

const plane = sharedControlPlane();

planeTest(
  "bookmarks are asked for and come as a watch nears its timeout, and the watcher resumes from their resourceVersion",
  async () => {
    const p = await plane();
    using admin = p.client();
    await createNamespace(admin, "bookmarks");
    await createNamespace(admin, "elsewhere");
    for (const name of ["a", "b", "c"]) {
      await create(admin, CONFIGMAPS, "bookmarks", { metadata: { name } });
    }
    const tap = new TapClient(admin);
    // Watches of 4 s: kube-apiserver sends a bookmark 2 s before a
    // watch's deadline (and once a minute otherwise).
    tap.before = (opts) => {
      if (opts.querystring?.get("watch")) {
        opts.querystring.set("timeoutSeconds", "4");
      }
    };
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace: "bookmarks",
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      tap,
      { logger: silentLogger },
    );
    watcher.start();
    try {
      await watcher.waitForSync();
      const synced = Number(watcher.health().resourceVersion);
      // Writes elsewhere move the resource's resourceVersion on; none of
      // them is an event of this watch.
      for (let i = 0; i < 5; i++) {
        await create(admin, CONFIGMAPS, "elsewhere", {
          metadata: { name: `x-${i}` },
        });
      }
      await eventually(
        () =>
          tap.events.some((e) =>
            e.type === "BOOKMARK" && Number(e.resourceVersion) > synced
          ),
        "no bookmark past the synced resourceVersion",
      );
      const bookmark = tap.events.find((e) =>
        e.type === "BOOKMARK" && Number(e.resourceVersion) > synced
      )!;
      assert.ok(
        tap.watches().every((w) =>
          w.query.get("allowWatchBookmarks") === "true"
        ),
      );
      // The next watch starts where the bookmark said.
      await eventually(
        () =>
          tap.watches().some((w) =>
            Number(w.query.get("resourceVersion")) >=
              Number(bookmark.resourceVersion)
          ),
        () =>
          `no watch resumed from the bookmark: ${
            tap.watches().map((w) => w.query.get("resourceVersion"))
          }`,
      );
      assert.ok(
        Number(watcher.health().resourceVersion) >=
          Number(bookmark.resourceVersion),
      );
      assert.equal(tap.events.filter((e) => e.type !== "BOOKMARK").length, 0);
      assert.equal(watcher.health().relists, 0);
      assert.equal(tap.lists().length, 1);
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: ["bookmarks"],
      });
    } finally {
      await watcher.stop();
    }
  },
);

planeTest(
  "kube-apiserver killed and restarted mid-watch: a Watcher and a SingleWatcher converge without being restarted",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "restart";
    await createNamespace(admin, namespace);
    await inParallel(
      Array.from({ length: 50 }, (_, i) => i),
      8,
      (i) =>
        create(admin, CONFIGMAPS, namespace, { metadata: { name: `cm-${i}` } }),
    );
    using client = p.client();
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      client,
      { logger: silentLogger },
    );
    const seen: (string | undefined)[] = [];
    const single = new SingleWatcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        name: "cm-1",
        onChange: (o) =>
          void seen.push((o?.data as Record<string, string> | undefined)?.v),
      },
      client,
      { logger: silentLogger },
    );
    let stopped = false;
    const done = Promise.all([watcher.start(), single.start()]).then(() =>
      stopped = true
    );
    try {
      await watcher.waitForSync();
      await single.waitForSync();
      await p.restartApiServer();
      await inParallel(
        Array.from({ length: 30 }, (_, i) => i),
        8,
        (i) =>
          i < 10
            ? create(admin, CONFIGMAPS, namespace, {
              metadata: { name: `new-${i}` },
            })
            : i < 20
            ? patch(admin, CONFIGMAPS, namespace, `cm-${i - 10}`, {
              data: { v: "2" },
            })
            : remove(admin, CONFIGMAPS, namespace, `cm-${i + 10}`),
      );
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });
      await eventually(
        () =>
          (single.current?.data as Record<string, string> | undefined)?.v ===
            "2",
        "the SingleWatcher saw no change",
      );
      assert.deepEqual(seen, ["2"]);
      assert.equal(stopped, false);
      assert.equal(watcher.health().state, "running");
      assert.equal(watcher.store.size, 50);
    } finally {
      await watcher.stop();
      await single.stop();
      await done;
    }
  },
);

planeTest(
  "metadataOnly negotiates PartialObjectMetadata with the real server: the store holds metadata only",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "metadata";
    await createNamespace(admin, namespace);
    for (let i = 0; i < 20; i++) {
      await create(admin, CONFIGMAPS, namespace, {
        metadata: { name: `cm-${i}`, labels: { i: String(i) } },
        data: { big: "x".repeat(1000) },
      });
    }
    const tap = new TapClient(admin);
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        metadataOnly: true,
        pageSize: 7,
        onChange: () => {},
      },
      tap,
      { logger: silentLogger },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), 20);
      await patch(admin, CONFIGMAPS, namespace, "cm-3", {
        metadata: { labels: { i: "changed" } },
      });
      await create(admin, CONFIGMAPS, namespace, {
        metadata: { name: "late" },
        data: { a: "b" },
      });
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });
      for (const o of await watcher.store.list()) {
        assert.deepEqual(Object.keys(o).sort(), [
          "apiVersion",
          "kind",
          "metadata",
        ]);
        assert.equal(o.kind, "PartialObjectMetadata");
        assert.equal(o.apiVersion, "meta.k8s.io/v1");
      }
      assert.equal(
        (await watcher.store.get(namespace, "cm-3"))[0].metadata.labels?.i,
        "changed",
      );
      assert.match(
        tap.lists()[0].accept ?? "",
        /as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1/,
      );
      assert.match(
        tap.watches()[0].accept ?? "",
        /as=PartialObjectMetadata;g=meta\.k8s\.io;v=v1/,
      );
      assert.equal(tap.lists().length, 3);
      // The server did the reduction: no event carried data.
      assert.ok(tap.events.length >= 2);
    } finally {
      await watcher.stop();
    }
  },
);

planeTest(
  "SingleWatcher on a Secret: rotated, deleted, recreated, each delivered once and in order",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "secrets";
    await createNamespace(admin, namespace);
    await create(admin, SECRETS, namespace, {
      metadata: { name: "token" },
      stringData: { token: "one" },
    });
    const seen: (string | null)[] = [];
    const decode = (o: KubeObject | null) =>
      o === null ? null : atob((o.data as Record<string, string>).token);
    const single = new SingleWatcher(
      {
        gvr: SECRETS,
        namespace,
        name: "token",
        onSyncComplete: (o) => void seen.push(`synced:${decode(o)}`),
        onChange: (o) => void seen.push(decode(o)),
      },
      admin,
      { logger: silentLogger },
    );
    single.start();
    try {
      assert.equal(await single.waitForSync(), 1);
      await patch(admin, SECRETS, namespace, "token", {
        stringData: { token: "two" },
      });
      await eventually(
        () => seen.length === 2,
        () => `seen ${JSON.stringify(seen)}`,
      );
      await remove(admin, SECRETS, namespace, "token");
      await eventually(
        () => seen.length === 3,
        () => `seen ${JSON.stringify(seen)}`,
      );
      await create(admin, SECRETS, namespace, {
        metadata: { name: "token" },
        stringData: { token: "three" },
      });
      await eventually(
        () => seen.length === 4,
        () => `seen ${JSON.stringify(seen)}`,
      );
      assert.deepEqual(seen, ["synced:one", "two", null, "three"]);
      const [listed] = await listAll(admin, SECRETS, { namespace });
      assert.equal(
        single.current?.metadata.resourceVersion,
        listed.metadata.resourceVersion,
      );
    } finally {
      await single.stop();
    }
  },
);

const DEPLOYMENTS: Gvr = {
  group: "apps",
  version: "v1",
  resource: "deployments",
};

planeTest(
  "SingleWatcher skips a status-only write through /status and delivers spec and label changes",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "status";
    await createNamespace(admin, namespace);
    await create(admin, DEPLOYMENTS, namespace, {
      metadata: { name: "web", labels: { app: "web" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "web", image: "nginx:1" }] },
        },
      },
    });
    const seen: string[] = [];
    const single = new SingleWatcher(
      {
        gvr: DEPLOYMENTS,
        namespace,
        name: "web",
        onChange: (o) =>
          void seen.push(
            `gen=${o?.metadata.generation} replicas=${
              (o?.spec as { replicas: number })?.replicas
            } tier=${o?.metadata.labels?.tier}`,
          ),
      },
      admin,
      { logger: silentLogger },
    );
    single.start();
    try {
      await single.waitForSync();
      // No controller manager runs: the test writes status itself.
      const status = await patch(admin, DEPLOYMENTS, namespace, "web", {
        status: { observedGeneration: 1, replicas: 1, readyReplicas: 1 },
      }, "status");
      assert.equal(status.metadata.generation, 1);
      await eventually(
        () =>
          single.current?.metadata.resourceVersion ===
            status.metadata.resourceVersion,
        "the status write did not arrive",
      );
      assert.deepEqual(seen, []);
      await patch(admin, DEPLOYMENTS, namespace, "web", {
        spec: { replicas: 2 },
      });
      await eventually(
        () => seen.length === 1,
        () => `seen ${JSON.stringify(seen)}`,
      );
      await patch(admin, DEPLOYMENTS, namespace, "web", {
        metadata: { labels: { tier: "front" } },
      });
      await eventually(
        () => seen.length === 2,
        () => `seen ${JSON.stringify(seen)}`,
      );
      assert.deepEqual(seen, [
        "gen=2 replicas=2 tier=undefined",
        "gen=2 replicas=2 tier=front",
      ]);
    } finally {
      await single.stop();
    }
  },
);

const WIDGETS: Gvr = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
};
const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: {
      plural: "widgets",
      singular: "widget",
      kind: "Widget",
      listKind: "WidgetList",
    },
    scope: "Namespaced",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
        },
      },
      subresources: { status: {} },
    }],
  },
};

planeTest(
  "a watcher started before its CRD exists reports 404 with a hint, syncs once the CRD is applied, and empties when it is deleted",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "widgets";
    await createNamespace(admin, namespace);
    const logger = new RecordingLogger();
    const watcher = new Watcher(
      {
        gvr: WIDGETS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      admin,
      { logger, random: () => 0 },
    );
    watcher.start();
    try {
      await eventually(
        () => watcher.lastError() !== undefined,
        "no error before the CRD",
      );
      assert.equal(httpStatusOf(watcher.lastError()!.error)?.code, 404);
      assert.ok(
        logger.records.some((r) =>
          r.level === "error" && /CRD not installed/.test(r.message)
        ),
        JSON.stringify(logger.records),
      );
      assert.equal(watcher.isSynced(), false);

      const file = `${p.dir}/crd.json`;
      await Deno.writeTextFile(file, JSON.stringify(CRD));
      await p.kubectl("apply", "-f", file);
      await p.kubectl(
        "wait",
        "--for=condition=Established",
        "crd/widgets.example.com",
        "--timeout=30s",
      );
      for (const name of ["w1", "w2", "w3"]) {
        await create(admin, WIDGETS, namespace, {
          apiVersion: "example.com/v1",
          kind: "Widget",
          metadata: { name },
          spec: { size: name },
        });
      }
      // The watcher retries with its backoff (up to 30 s between lists).
      await watcher.waitForSync(AbortSignal.timeout(60_000));
      await assertConverged(watcher.store, admin, WIDGETS, {
        namespaces: [namespace],
        timeoutMs: 60_000,
      });
      assert.equal(watcher.store.size, 3);

      await p.kubectl("delete", "-f", file, "--wait=true", "--timeout=60s");
      await eventually(
        () => watcher.store.size === 0,
        () => `${watcher.store.size} widgets left`,
        60_000,
      );
      const gone = await listAll(admin, WIDGETS, { namespace }).then(
        () => undefined,
        httpStatusOf,
      );
      assert.equal(gone?.code, 404);
    } finally {
      await watcher.stop();
    }
  },
);
