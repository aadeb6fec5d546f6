import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { ApiError } from "../client/api_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { DebounceGroup } from "./debounce_group.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import { BY_IDENTITY, configMap, CONFIGMAPS } from "./_bulk_harness_test.ts";
import { seeded } from "../testing/_seeded_random.ts";

/**
 * A client that answers `status` for requests (of `verb`) in `namespace`
 * while `denied` says so, as an API server with RBAC or a compacted etcd
 * would.
 */
class Gate {
  denied: {
    namespace: string;
    verb: "list" | "watch";
    code: number;
    reason: string;
    times: number;
  } | undefined;
  readonly client: RestClient;

  constructor(inner: FetchClient) {
    this.client = {
      performRequest: (opts: RequestOptions) => {
        const d = this.denied;
        const verb = opts.querystring?.has("watch") ? "watch" : "list";
        if (
          d !== undefined && d.times > 0 && verb === d.verb &&
          opts.path.includes(`/namespaces/${d.namespace}/`)
        ) {
          d.times--;
          return Promise.reject(
            new ApiError({
              code: d.code,
              status: { kind: "Status", code: d.code, reason: d.reason },
              method: "GET",
              path: opts.path,
            }),
          );
        }
        return inner.performRequest(opts);
      },
    } as RestClient;
  }
}

function setUp() {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  const fetch = mockFetch(server);
  for (const ns of ["a", "b", "c"]) {
    for (let i = 0; i < 2; i++) {
      server.create(CONFIGMAPS, configMap(ns, `cm-${i}`));
    }
  }
  const gate = new Gate(new FetchClient({ server: server.url }));
  const batches: string[] = [];
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      namespaces: ["a", "b"],
      debounceInterval: 1_000,
      onChange: (_store, batch) => {
        const names = (objs: readonly KubeObject[]) =>
          objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort()
            .join(",");
        batches.push(
          `${batch.isInitialSync ? "initial " : ""}+${batch.created}(${
            names(batch.objects.created)
          }) -${batch.deleted}(${names(batch.objects.deleted)})`,
        );
      },
    },
    gate.client,
    { clock, logger: new RecordingLogger(), random: seeded(1) },
  );
  const namespaceRequests = (verb: string, namespace: string) =>
    server.requests.filter((r) => r.verb === verb && r.namespace === namespace)
      .length;
  return {
    clock,
    server,
    gate,
    watcher,
    batches,
    namespaceRequests,
    async [Symbol.asyncDispose]() {
      await watcher.stop();
      assert.equal(server.openWatchCount, 0);
      await server.close();
      fetch[Symbol.dispose]();
    },
  };
}

function names(watcher: Watcher): string[] {
  return (watcher.store.list() as KubeObject[]).map((o) =>
    `${o.metadata.namespace}/${o.metadata.name}`
  ).sort();
}

Deno.test("namespaces: one list-then-watch per namespace into one store, synced when all are", async () => {
  await using t = setUp();
  void t.watcher.start();
  assert.equal(await t.watcher.waitForSync(), 4);
  assert.deepEqual(names(t.watcher), ["a/cm-0", "a/cm-1", "b/cm-0", "b/cm-1"]);
  await waitFor(() => t.server.openWatchCount === 2);
  assert.equal(t.namespaceRequests("list", "a"), 1);
  assert.equal(t.namespaceRequests("list", "b"), 1);
  assert.equal(t.namespaceRequests("list", "c"), 0);
  t.server.create(CONFIGMAPS, configMap("b", "new"));
  t.server.create(CONFIGMAPS, configMap("c", "new"));
  await waitFor(() => t.batches.length === 2);
  assert.deepEqual(t.batches, ["initial +4() -0()", "+1(b/new) -0()"]);
  const h = t.watcher.health();
  assert.equal(h.resourceVersion, undefined);
  assert.deepEqual(Object.keys(h.namespaces!), ["a", "b"]);
  assert.ok(h.namespaces!.a.synced && h.namespaces!.b.synced);
});

Deno.test("namespaces: a namespace answering 403 keeps retrying and does not hold up the others' events", async () => {
  await using t = setUp();
  t.gate.denied = {
    namespace: "b",
    verb: "list",
    code: 403,
    reason: "Forbidden",
    times: 3,
  };
  void t.watcher.start();
  await waitFor(() => t.server.openWatchCount === 1, {
    description: "a's watch",
  });
  assert.equal(t.watcher.isSynced(), false, "b has not listed");
  const h = t.watcher.health();
  assert.equal(h.namespaces!.a.synced, true);
  assert.equal(h.namespaces!.b.synced, false);
  assert.equal((h.namespaces!.b.lastError?.error as ApiError).code, 403);
  assert.equal(h.namespaces!.a.lastError, undefined);
  // a's events reach the store while b is denied.
  t.server.create(CONFIGMAPS, configMap("a", "new"));
  await waitFor(() => t.watcher.health().events === 1);
  assert.deepEqual(names(t.watcher), ["a/cm-0", "a/cm-1", "a/new"]);
  // b is let in after its backoff: the watcher syncs with both.
  for (let i = 0; i < 10 && !t.watcher.isSynced(); i++) {
    await t.clock.tick(30_000);
    await waitFor(() => true);
  }
  assert.equal(await t.watcher.waitForSync(), 5);
  assert.equal(t.namespaceRequests("list", "a"), 1, "a never listed again");
  // Counted, not listed, but for what arrived by events meanwhile.
  assert.deepEqual(t.batches, ["initial +5(a/new) -0()"]);
});

Deno.test("namespaces: a 410 in one namespace relists that namespace only", async () => {
  await using t = setUp();
  void t.watcher.start();
  await t.watcher.waitForSync();
  await waitFor(() => t.server.openWatchCount === 2);
  await t.clock.tick(5_000);
  t.gate.denied = {
    namespace: "b",
    verb: "watch",
    code: 410,
    reason: "Expired",
    times: 1,
  };
  t.server.closeAllWatches();
  // While nobody watches: one change in each namespace.
  t.server.delete(CONFIGMAPS, "a", "cm-0");
  t.server.delete(CONFIGMAPS, "b", "cm-0");
  await waitFor(() => t.namespaceRequests("list", "b") === 2);
  await waitFor(() => t.server.openWatchCount === 2);
  await waitFor(() => t.watcher.store.size === 2);
  assert.equal(t.namespaceRequests("list", "a"), 1, "a resumed its watch");
  assert.deepEqual(names(t.watcher), ["a/cm-1", "b/cm-1"]);
  const h = t.watcher.health();
  assert.equal(h.relists, 1);
  assert.equal(h.reconnects, 2);
  await t.clock.tick(1_000);
  await waitFor(() => t.batches.length === 3);
  assert.deepEqual(t.batches.slice(1).sort(), [
    "+0() -1(a/cm-0)",
    "+0() -1(b/cm-0)",
  ]);
});

Deno.test("namespaces is checked, and not allowed with namespace or namespacedWatch", () => {
  const client = new FetchClient({
    server: "http://127.0.0.1:1",
    namespace: "x",
  });
  const base = { gvr: CONFIGMAPS, indexBy: BY_IDENTITY, onChange: () => {} };
  for (
    const [extra, message] of [
      [
        { namespaces: ["a"], namespace: "b" },
        /namespaces: is not allowed with namespace/,
      ],
      [
        { namespaces: ["a"], namespacedWatch: true },
        /namespaces: is not allowed with namespacedWatch/,
      ],
      [{ namespaces: [] }, /namespaces: must be a non-empty array/],
      [{ namespaces: ["a", ""] }, /namespaces: must be a non-empty array/],
      [{ namespaces: ["a", "a"] }, /namespaces: names a namespace twice/],
    ] as const
  ) {
    assert.throws(
      () => new Watcher({ ...base, ...extra } as never, client),
      (e) => e instanceof WatcherConfigError && message.test(e.message),
    );
  }
});

/**
 * Names created and deleted in `a` while `b` is forbidden, then `b` let in:
 * the batches each way a watcher delivers them, as `batches` words them.
 */
async function churnWhileForbidden(
  mode: "own" | "callOnChangeDuringSync" | "group",
): Promise<string[]> {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  for (const ns of ["a", "b"]) {
    for (let i = 0; i < 2; i++) {
      server.create(CONFIGMAPS, configMap(ns, `cm-${i}`));
    }
  }
  const gate = new Gate(new FetchClient({ server: server.url }));
  gate.denied = {
    namespace: "b",
    verb: "list",
    code: 403,
    reason: "Forbidden",
    times: Infinity,
  };
  const batches: string[] = [];
  const word = (batch: ChangeBatch) => {
    const names = (objs: readonly KubeObject[]) =>
      objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort()
        .join(",");
    const { created, modified, deleted } = batch.objects;
    return `${batch.isInitialSync ? "initial " : ""}+${batch.created}(${
      names(created)
    }) ~${batch.modified}(${
      names(modified.map((m) => m.current))
    }) -${batch.deleted}(${names(deleted)})`;
  };
  const logger = new RecordingLogger();
  const group = mode === "group"
    ? new DebounceGroup<ChangeBatch>({
      interval: 1_000,
      clock,
      logger,
      merge: mergeChangeBatches,
      onChange: (all) => {
        for (const batch of all.values()) batches.push(word(batch));
      },
    })
    : undefined;
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      namespaces: ["a", "b"],
      ...(group !== undefined ? { group: group.member("configmaps") } : {
        debounceInterval: 1_000,
        callOnChangeDuringSync: mode === "callOnChangeDuringSync",
        onChange: (_store, batch) => {
          batches.push(word(batch));
        },
      }),
    },
    gate.client,
    { clock, logger, random: seeded(1) },
  );
  void watcher.start();
  try {
    await waitFor(() => server.openWatchCount === 1, {
      description: "a's watch",
    });
    server.create(CONFIGMAPS, configMap("a", "stays"));
    server.update(CONFIGMAPS, configMap("a", "cm-0", { data: { v: "1" } }));
    for (let i = 0; i < 100; i++) {
      server.create(CONFIGMAPS, configMap("a", `tmp-${i}`));
      server.delete(CONFIGMAPS, "a", `tmp-${i}`);
    }
    await waitFor(() => watcher.health().events === 202, {
      description: "a's events",
    });
    // A debounced call is due (delivered with callOnChangeDuringSync).
    await clock.tick(1_000);
    await waitFor(() => true);
    assert.equal(watcher.isSynced(), false, "b has not listed");
    gate.denied.times = 0;
    for (let i = 0; i < 10 && !watcher.isSynced(); i++) {
      await clock.tick(30_000);
      await waitFor(() => true);
    }
    assert.equal(await watcher.waitForSync(), 5);
    await clock.tick(1_000);
    await waitFor(() => true);
    return batches;
  } finally {
    await watcher.stop();
    await group?.stop();
    assert.equal(server.openWatchCount, 0);
    await server.close();
  }
}

Deno.test("namespaces: names that came and went while a namespace was forbidden are in no batch", async (t) => {
  await t.step("own onChange", async () => {
    assert.deepEqual(await churnWhileForbidden("own"), [
      "initial +5(a/stays) ~1(a/cm-0) -0()",
    ]);
  });
  await t.step("callOnChangeDuringSync", async () => {
    assert.deepEqual(await churnWhileForbidden("callOnChangeDuringSync"), [
      "initial +2() ~0() -0()",
      "initial +1(a/stays) ~1(a/cm-0) -0()",
      "initial +2() ~0() -0()",
    ]);
  });
  await t.step("DebounceGroup member", async () => {
    assert.deepEqual(await churnWhileForbidden("group"), [
      "initial +5(a/stays) ~1(a/cm-0) -0()",
    ]);
  });
});
