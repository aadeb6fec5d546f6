// A chaos run against a real kube-apiserver: churn in three namespaces,
// etcd compactions, kube-apiserver restarts and network cuts between some
// watchers and the server, for K8S_WATCHER_CHAOS_SECONDS (default 90 s).
// Afterwards every watcher's store equals a fresh LIST, and no callback
// fires after a watcher's stop() resolved.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import type { RestClient } from "../../client/rest_client.ts";
import { httpStatusOf } from "../../client/api_error.ts";
import { Watcher } from "../../watcher/watcher.ts";
import { SingleWatcher } from "../../watcher/single.ts";
import type { WatcherBase } from "../../watcher/watcher_base.ts";
import { silentLogger } from "../../logger.ts";
import type { KubeObject, ReadableStore } from "../../types.ts";
import { seeded } from "../../testing/_seeded_random.ts";
import {
  assertConverged,
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  listAll,
  LoopbackProxy,
  patch,
  planeTest,
  remove,
  sharedControlPlane,
} from "./_harness.ts";

const plane = sharedControlPlane({ etcdCompactionIntervalMs: 0 });
const SECONDS = Number(Deno.env.get("K8S_WATCHER_CHAOS_SECONDS") ?? 90);
const NAMESPACES = ["chaos-a", "chaos-b", "chaos-c"];
/** Names per namespace the churn picks from. */
const NAMES = 120;

interface Consumer {
  name: string;
  watcher: WatcherBase<number>;
  calls: number;
  /** Calls counted when its stop() resolved. */
  callsAtStop?: number;
  /** What to compare it with, once the churn is over. */
  check: () => Promise<void>;
}

planeTest(
  `a ${SECONDS} s chaos run (churn, compactions, kube-apiserver restarts, network cuts): every store equals a fresh LIST, no callback after stop`,
  async () => {
    const p = await plane();
    using admin = p.client();
    for (const namespace of NAMESPACES) await createNamespace(admin, namespace);
    const seed = Number(
      Deno.env.get("K8S_WATCHER_CHAOS_SEED") ?? Date.now() % 1_000_000,
    );
    console.log(`chaos seed ${seed} (K8S_WATCHER_CHAOS_SEED to repeat it)`);
    const random = seeded(seed);
    const pick = <T>(items: readonly T[]) =>
      items[Math.floor(random() * items.length)];

    await using proxy = new LoopbackProxy(p.url);
    using direct = p.client();
    using viaProxy = new FetchClient({
      server: proxy.url,
      token: p.token(),
      caData: p.caPem,
    });

    const consumers: Consumer[] = [];
    const bulk = (
      name: string,
      client: RestClient,
      config: Partial<ConstructorParameters<typeof Watcher>[0]>,
      compare: Parameters<typeof assertConverged>[3],
    ) => {
      const consumer: Consumer = { name, calls: 0 } as Consumer;
      const watcher = new Watcher(
        {
          gvr: CONFIGMAPS,
          indexBy: ["metadata.namespace", "metadata.name"],
          debounceInterval: 200,
          ...config,
          onChange: () => void consumer.calls++,
        },
        client,
        { logger: silentLogger },
      );
      consumer.watcher = watcher;
      consumer.check = () =>
        assertConverged(
          watcher.store as ReadableStore<KubeObject>,
          admin,
          CONFIGMAPS,
          {
            ...compare,
            timeoutMs: 90_000,
          },
        ).then(() => undefined);
      consumers.push(consumer);
    };
    bulk(
      "all namespaces, pages of 50",
      direct,
      { pageSize: 50, namespace: "" },
      {
        select: (o) => NAMESPACES.includes(o.metadata.namespace!),
      },
    );
    bulk("namespaces option, through the proxy", viaProxy, {
      namespaces: NAMESPACES,
    }, {
      namespaces: NAMESPACES,
    });
    bulk("metadata only, label selector, through the proxy", viaProxy, {
      namespaces: NAMESPACES,
      metadataOnly: true,
      labelSelector: "hot=yes",
    }, { namespaces: NAMESPACES, labelSelector: "hot=yes" });
    bulk("streamed initial list", direct, {
      namespace: "chaos-a",
      initialList: "stream",
      shared: false,
    }, { namespaces: ["chaos-a"] });
    const single: Consumer = {
      name: "SingleWatcher on chaos-b/cm-7",
      calls: 0,
    } as Consumer;
    const singleWatcher = new SingleWatcher(
      {
        gvr: CONFIGMAPS,
        namespace: "chaos-b",
        name: "cm-7",
        onChange: () => void single.calls++,
      },
      viaProxy,
      { logger: silentLogger },
    );
    single.watcher = singleWatcher;
    single.check = () =>
      eventually(
        async () => {
          const [listed] =
            (await listAll(admin, CONFIGMAPS, { namespace: "chaos-b" }))
              .filter((o) => o.metadata.name === "cm-7");
          return singleWatcher.current?.metadata.resourceVersion ===
            listed?.metadata.resourceVersion;
        },
        "the SingleWatcher differs from the server",
        90_000,
      );
    consumers.push(single);

    const done = Promise.all(consumers.map((c) => c.watcher.start()));
    const stats = {
      writes: 0,
      failed: 0,
      compactions: 0,
      restarts: 0,
      cuts: 0,
    };
    try {
      for (const c of consumers) {
        await c.watcher.waitForSync(AbortSignal.timeout(60_000));
      }

      const until = Date.now() + SECONDS * 1000;
      const existing = new Set<string>();
      const churn = async () => {
        while (Date.now() < until) {
          const namespace = pick(NAMESPACES);
          const name = `cm-${Math.floor(random() * NAMES)}`;
          const key = `${namespace}/${name}`;
          const hot = random() < 0.5 ? "yes" : "no";
          try {
            // What this run believes exists picks the verb; a wrong belief
            // (a write lost in a restart) only costs a 404 or 409.
            if (!existing.has(key)) {
              await create(admin, CONFIGMAPS, namespace, {
                metadata: { name, labels: { hot } },
                data: { v: String(stats.writes) },
              });
              existing.add(key);
            } else if (random() < 0.7) {
              await patch(admin, CONFIGMAPS, namespace, name, {
                metadata: { labels: { hot } },
                data: { v: String(stats.writes) },
              });
            } else {
              await remove(admin, CONFIGMAPS, namespace, name);
              existing.delete(key);
            }
            stats.writes++;
          } catch (error) {
            // 404, 409, or the API server restarting: the final LIST is
            // the truth, whatever got through.
            stats.failed++;
            const code = httpStatusOf(error)?.code;
            if (code === 404) existing.delete(key);
            if (code === 409) existing.add(key);
          }
        }
      };
      const faults = async () => {
        let tick = 0;
        while (Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          tick++;
          if (tick % 7 === 0) {
            await p.compact().then(() => stats.compactions++, () => {});
          }
          if (tick % 11 === 0) {
            proxy.cut();
            stats.cuts++;
            await new Promise((resolve) => setTimeout(resolve, 3_000));
            proxy.restore();
          }
          if (tick % 25 === 0) {
            await p.restartApiServer();
            stats.restarts++;
          }
        }
      };
      await Promise.all([churn(), churn(), churn(), churn(), faults()]);
      console.log(`chaos: ${JSON.stringify(stats)}`);
      assert.ok(stats.writes > 0);

      for (const c of consumers) {
        await c.check().catch((error) => {
          throw new Error(`${c.name}: ${error.message}`);
        });
      }
      for (const c of consumers) {
        assert.equal(c.watcher.health().state, "running", c.name);
      }
    } finally {
      for (const c of consumers) {
        await c.watcher.stop();
        c.callsAtStop = c.calls;
      }
      await done;
    }
    // Changes after the stops reach the server (a fresh watcher sees
    // them) and no stopped watcher's callback.
    const observer = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace: "chaos-b",
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
        shared: false,
      },
      direct,
      { logger: silentLogger },
    );
    observer.start();
    try {
      await observer.waitForSync();
      for (let i = 0; i < NAMES; i++) {
        await patch(admin, CONFIGMAPS, "chaos-b", `cm-${i}`, {
          data: { after: "stop" },
        })
          .catch(() => {});
      }
      await assertConverged(observer.store, admin, CONFIGMAPS, {
        namespaces: ["chaos-b"],
      });
    } finally {
      await observer.stop();
    }
    for (const c of consumers) {
      assert.equal(c.calls, c.callsAtStop, `${c.name}: callbacks after stop`);
    }
  },
);
