/**
 * Watchers with `settle` against the fake API server: one `kubectl apply`
 * of several objects reaches `onChange` as one batch, where the leading
 * edge delivers the first object alone. The rule itself is tested in
 * `debounce_settle_test.ts`.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, settle as turns, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { DebounceGroup } from "./debounce_group.ts";
import type { DebounceSettle } from "./debounce_settle.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import {
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  syncedHarness,
} from "./_bulk_harness_test.ts";

const SETTLE: DebounceSettle = { quietMs: 100, maxWaitMs: 2_000 };
const INGRESSES = {
  group: "networking.k8s.io",
  version: "v1",
  resource: "ingresses",
};
const SERVICES = { group: "", version: "v1", resource: "services" };

interface Ingress extends KubeObject {
  spec: {
    rules: {
      host: string;
      http: {
        paths: {
          path: string;
          backend: { service: { name: string; port: { number: number } } };
        }[];
      };
    }[];
  };
}

/** What `kubectl apply -f blog.yaml` creates: an Ingress and its Service. */
const INGRESS: Ingress = {
  metadata: { namespace: "blog", name: "blog" },
  spec: {
    rules: [{
      host: "blog.example",
      http: {
        paths: [{
          path: "/",
          backend: { service: { name: "feed", port: { number: 80 } } },
        }],
      },
    }],
  },
};
const SERVICE: KubeObject = {
  metadata: { namespace: "blog", name: "feed" },
  spec: { ports: [{ port: 80 }] },
};

/**
 * A group rendering a routing table from an ingress and a service watcher
 * (timed by `timing`), and what it rendered after the Ingress and its
 * Service were applied 5 ms apart.
 */
async function renderAfterApply(
  timing: { interval: number } | { settle: DebounceSettle },
): Promise<string[][]> {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  const logger = new RecordingLogger();
  const renders: string[][] = [];
  const group = new DebounceGroup<{
    ingresses: ChangeBatch<Ingress>;
    services: ChangeBatch;
  }>({
    ...timing,
    clock,
    logger,
    merge: mergeChangeBatches,
    onChange: async (batches) => {
      if (batches.get("ingresses")?.isInitialSync) return;
      const lines: string[] = [];
      for (const ingress of await ingresses.store.list()) {
        const namespace = ingress.metadata.namespace!;
        for (const rule of ingress.spec.rules) {
          for (const { path, backend } of rule.http.paths) {
            const { name, port } = backend.service;
            const found = await services.store.get(namespace, name);
            lines.push(
              `${rule.host}${path} -> ${namespace}/${name}:${port.number}${
                found.length === 0 ? " (no service)" : ""
              }`,
            );
          }
        }
      }
      renders.push(lines);
    },
  });
  const ingresses = new Watcher<Ingress>(
    {
      gvr: INGRESSES,
      indexBy: BY_IDENTITY,
      group: group.member("ingresses"),
    },
    client,
    { clock, logger },
  );
  const services = new Watcher(
    {
      gvr: SERVICES,
      indexBy: BY_IDENTITY,
      group: group.member("services"),
    },
    client,
    { clock, logger },
  );
  const running = [ingresses.start(), services.start()];
  try {
    await Promise.all([ingresses.waitForSync(), services.waitForSync()]);
    await waitFor(() => server.openWatchCount === 2, {
      description: "two watches",
    });
    await turns();

    server.create(INGRESSES, INGRESS);
    await waitFor(() => ingresses.health().events === 1, {
      description: "the Ingress event",
    });
    await clock.tick(5);
    server.create(SERVICES, SERVICE);
    await waitFor(() => services.health().events === 1, {
      description: "the Service event",
    });
    await clock.tick(10_000);
    await turns();
  } finally {
    await Promise.all([ingresses.stop(), services.stop()]);
    await Promise.all(running);
    await group.stop();
  }
  return renders;
}

Deno.test("settle: an Ingress and its Service applied together render once, complete", async () => {
  // The leading edge renders the Ingress alone at once, then again.
  assert.deepEqual(await renderAfterApply({ interval: 1_000 }), [
    ["blog.example/ -> blog/feed:80 (no service)"],
    ["blog.example/ -> blog/feed:80"],
  ]);
  assert.deepEqual(await renderAfterApply({ settle: SETTLE }), [
    ["blog.example/ -> blog/feed:80"],
  ]);
});

/** The batches of a watcher after two ConfigMaps were applied 5 ms apart. */
async function batchesAfterApply(
  timing: { debounceInterval: number } | { settle: DebounceSettle },
): Promise<string[][]> {
  await using h = await syncedHarness({
    config: { debounceInterval: undefined, ...timing },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "settings")),
  });
  h.server.create(CONFIGMAPS, configMap("shop", "web"));
  await waitFor(() => h.watcher.health().events === 1, {
    description: "the first event",
  });
  await h.clock.tick(5);
  h.server.create(CONFIGMAPS, configMap("shop", "api"));
  await waitFor(() => h.watcher.health().events === 2, {
    description: "the second event",
  });
  await h.clock.tick(10_000);
  await h.watcher.stop();
  // After the initial sync's batch: the names each batch created.
  return h.recorded.full.slice(1).map((batch) =>
    batch.objects.created.map((o) => o.metadata.name!)
  );
}

Deno.test("settle: a Watcher delivers objects applied together in one batch", async () => {
  assert.deepEqual(await batchesAfterApply({ debounceInterval: 1_000 }), [
    ["web"],
    ["api"],
  ]);
  assert.deepEqual(await batchesAfterApply({ settle: SETTLE }), [
    ["web", "api"],
  ]);
});

Deno.test("settle: a Watcher's initial sync is delivered at once, forceSync() and stop() deliver at once", async () => {
  await using h = await syncedHarness({
    config: { debounceInterval: undefined, settle: SETTLE },
    seed: (server) => {
      for (const name of ["a", "b", "c"]) {
        server.create(CONFIGMAPS, configMap("shop", name));
      }
    },
  });
  assert.equal(h.clock.now(), 0, "no time passed");
  assert.deepEqual(h.recorded.syncs, [3]);
  assert.equal(h.recorded.batches.length, 1);
  assert.equal(h.recorded.batches[0].isInitialSync, true);
  assert.equal(h.recorded.batches[0].created, 3);

  h.server.patch(CONFIGMAPS, "shop", "a", { data: { v: "1" } });
  await waitFor(() => h.watcher.health().events === 1, {
    description: "the first event",
  });
  await h.clock.tick(50);
  assert.equal(h.recorded.batches.length, 1, "settling");
  await h.watcher.forceSync();
  assert.equal(h.recorded.batches.length, 2);
  assert.deepEqual(
    h.recorded.full[1].objects.modified.map((m) => m.current.metadata.name),
    ["a"],
  );

  h.server.delete(CONFIGMAPS, "shop", "b");
  await waitFor(() => h.watcher.health().events === 2, {
    description: "the second event",
  });
  await h.clock.tick(50);
  assert.equal(h.recorded.batches.length, 2, "settling");
  await h.watcher.stop();
  assert.equal(h.recorded.batches.length, 3, "stop() delivered it");
  assert.deepEqual(
    h.recorded.full[2].objects.deleted.map((o) => o.metadata.name),
    ["b"],
  );
  assert.equal(h.clock.pendingTimers, 0);
});

Deno.test("settle: a Watcher refuses a bad settle, and settle beside debounceInterval or group", async () => {
  await using server = new FakeApiServer();
  const client = new FetchClient({ server: server.url });
  const base = { gvr: CONFIGMAPS, indexBy: BY_IDENTITY, onChange: () => {} };
  const refused = (
    config: Record<string, unknown>,
    field: string,
    message: string,
  ) =>
    assert.throws(
      () => new Watcher({ ...base, ...config }, client),
      (e: unknown) =>
        e instanceof WatcherConfigError && e.field === field &&
        e.message === `Invalid watcher config: ${field}: ${message}`,
      JSON.stringify(config),
    );
  refused(
    { settle: { quietMs: -1, maxWaitMs: 100 } },
    "settle.quietMs",
    "must be a positive number of milliseconds, got -1",
  );
  refused(
    { settle: { quietMs: 300, maxWaitMs: 100 } },
    "settle.maxWaitMs",
    "must be at least settle.quietMs (300 ms), got 100",
  );
  refused(
    { settle: { quietMs: 100, maxWaitMs: 500, quietMS: 1 } },
    "settle.quietMS",
    "is not a DebounceSettle option (did you mean quietMs?)",
  );
  refused(
    { settle: "300ms" },
    "settle",
    "must be an object { quietMs, maxWaitMs }, got 300ms",
  );
  refused(
    { settle: SETTLE, debounceInterval: 1_000 },
    "settle",
    "is not allowed with debounceInterval: a watcher fires on the leading edge (debounceInterval) or once changes settle, not both",
  );
  const group = new DebounceGroup<ChangeBatch>({
    settle: SETTLE,
    merge: mergeChangeBatches,
    onChange: () => {},
  });
  refused(
    { onChange: undefined, group: group.member("a"), settle: SETTLE },
    "settle",
    "is not allowed with group: the group times the batches (give the DebounceGroup settle)",
  );
  await group.stop();
});
