import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import type { ChangeBatch } from "./change_batch.ts";
import { ApiError } from "../client/api_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { cachedStore } from "../store/cached_store.ts";
import type { RequestOptions } from "../client/rest_client.ts";
import { waitFor } from "../testing/fake_clock.ts";
import { Watcher } from "./watcher.ts";
import {
  type AnyWatcher,
  type AnyWatcherConfig,
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  ServerFixture,
} from "./_bulk_harness_test.ts";

/** A server with objects, a client, and watchers recording what they saw. */
class Fixture extends ServerFixture {
  constructor() {
    super();
    for (const ns of ["a", "b"]) {
      for (let i = 0; i < 3; i++) {
        this.server.create(CONFIGMAPS, configMap(ns, `cm-${i}`));
      }
    }
  }

  /** A watcher recording its batches (without objects) and syncs. */
  watcher(
    config: Partial<AnyWatcherConfig> = {},
    client: FetchClient = this.client,
  ): Consumer {
    const seen: Consumer = { batches: [], full: [], syncs: [] } as never;
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        debounceInterval: 1_000,
        onChange: (_store, batch) => {
          seen.full.push(batch);
          seen.batches.push(summary(batch));
        },
        onSyncComplete: (_store, count) => void seen.syncs.push(count),
        ...config,
      } as AnyWatcherConfig,
      client,
      this.options,
    );
    this.watchers.push(watcher);
    seen.watcher = watcher;
    seen.running = undefined;
    return seen;
  }
}

interface Consumer {
  watcher: AnyWatcher;
  running: Promise<void> | undefined;
  batches: string[];
  full: ChangeBatch[];
  syncs: number[];
}

/** A batch as `initial +created ~modified -deleted [names]`. */
function summary(batch: ChangeBatch): string {
  const names = (objs: readonly KubeObject[]) =>
    objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).join(",");
  return `${batch.isInitialSync ? "initial " : ""}+${batch.created}(${
    names(batch.objects.created)
  }) ~${batch.modified}(${
    names(batch.objects.modified.map((m) => m.current))
  }) -${batch.deleted}(${names(batch.objects.deleted)})`;
}

function start(c: Consumer): void {
  c.running = c.watcher.start();
}

function contents(c: Consumer): string[] {
  return (c.watcher.store.list() as KubeObject[]).map((o) =>
    `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`
  ).sort();
}

/**
 * A client in front of the fixture's whose first continued LIST (of a path
 * containing `pathPart`, when given) waits until `release()`, then goes on,
 * or with `expire` answers 410 as for an expired continue token: the loop
 * lists again from the first page.
 */
function holdingClient(
  f: Fixture,
  options: { expire?: boolean; pathPart?: string } = {},
): { client: FetchClient; reached: Promise<void>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  let held = false;
  const client = {
    performRequest: async (opts: RequestOptions) => {
      if (
        !held && opts.querystring?.has("continue") &&
        opts.path.includes(options.pathPart ?? "")
      ) {
        held = true;
        await released;
        if (options.expire) {
          throw new ApiError({
            code: 410,
            status: { reason: "Expired", message: "continue token expired" },
          });
        }
      }
      return f.client.performRequest(opts as never);
    },
  } as unknown as FetchClient;
  const reached = waitFor(() => held, { description: "a page held" });
  return { client, reached, release };
}

/**
 * A watcher listing in pages of 2, and two that start while its second
 * page is held (see {@linkcode holdingClient}): one with the same view,
 * one selecting namespace `a` only.
 */
async function joinMidList(
  f: Fixture,
  options: { expire?: boolean } = {},
): Promise<
  { first: Consumer; sameView: Consumer; onlyA: Consumer; release: () => void }
> {
  const { client, reached, release } = holdingClient(f, options);
  const first = f.watcher({ pageSize: 2 }, client);
  start(first);
  await reached;
  const sameView = f.watcher({ pageSize: 2 }, client);
  const onlyA = f.watcher(
    { pageSize: 2, fieldSelector: "metadata.namespace=a" },
    client,
  );
  start(sameView);
  start(onlyA);
  return { first, sameView, onlyA, release };
}

Deno.test("Watchers of one form share one LIST+WATCH and each sees what it would see alone", async () => {
  await using f = new Fixture();
  const onlyA = { fieldSelector: "metadata.namespace=a" };
  const shared = [f.watcher(), f.watcher(onlyA), f.watcher(onlyA)];
  // The same configurations alone, on their own streams.
  const alone = [
    f.watcher({ shared: false }),
    f.watcher({ ...onlyA, shared: false }),
  ];
  for (const c of [...shared, ...alone]) start(c);
  for (const c of [...shared, ...alone]) await c.watcher.waitForSync();
  await waitFor(() => f.server.openWatchCount === 3);
  assert.equal(f.lists(), 3, "one LIST for the shared three, one each alone");
  assert.equal(f.watches(), 3);
  assert.deepEqual(shared[0].watcher.health().shared, { consumers: 3 });
  assert.equal(alone[0].watcher.health().shared, false);
  // Same index and field selector: one store.
  assert.equal(
    shared[1].watcher.store.list()[0 as never],
    shared[2].watcher.store.list()[0 as never],
  );
  assert.equal(shared[1].watcher.health().objects, 3);

  f.server.create(CONFIGMAPS, configMap("a", "new"));
  f.server.create(CONFIGMAPS, configMap("b", "new"));
  f.server.delete(CONFIGMAPS, "a", "cm-0");
  await waitFor(() => shared.concat(alone).every((c) => c.batches.length >= 2));
  f.clock.tick(1_000);
  const cm = f.server.get(CONFIGMAPS, "b", "cm-1");
  f.server.update(CONFIGMAPS, { ...cm, data: { v: "1" } });
  await waitFor(() =>
    shared[0].batches.length === 3 && alone[0].batches.length === 3
  );
  f.clock.tick(1_000);
  await Promise.all(shared.concat(alone).map((c) => c.watcher.forceSync()));

  assert.deepEqual(shared[0].batches, alone[0].batches);
  assert.deepEqual(shared[1].batches, alone[1].batches);
  assert.deepEqual(shared[2].batches, alone[1].batches);
  assert.deepEqual(shared[0].syncs, [6]);
  assert.deepEqual(shared[1].syncs, [3]);
  assert.deepEqual(contents(shared[0]), contents(alone[0]));
  assert.deepEqual(contents(shared[2]), contents(alone[1]));
  // One stored copy of each object, whichever view holds it.
  const inAll = (shared[0].watcher.store.get("a", "new") as KubeObject[])[0];
  const inA = (shared[1].watcher.store.get("a", "new") as KubeObject[])[0];
  assert.equal(inAll, inA);
});

Deno.test("A shared stream opens with the first start, closes with the last stop; one stop disturbs no one", async () => {
  await using f = new Fixture();
  const [x, y] = [f.watcher(), f.watcher()];
  start(x);
  await x.watcher.waitForSync();
  start(y);
  await y.watcher.waitForSync();
  await waitFor(() => f.server.openWatchCount === 1);
  await x.watcher.stop();
  assert.equal(x.watcher.health().state, "stopped");
  assert.equal(f.server.openWatchCount, 1, "y's stream stays open");
  assert.deepEqual(y.watcher.health().shared, { consumers: 1 });
  f.server.create(CONFIGMAPS, configMap("a", "later"));
  await waitFor(() => y.batches.length === 2);
  assert.equal(x.batches.length, 1, "a stopped watcher hears nothing");
  await y.watcher.stop();
  await waitFor(() => f.server.openWatchCount === 0);
  assert.equal(f.lists(), 1);
  // A watcher started after the last stop opens a new stream.
  const z = f.watcher();
  start(z);
  assert.equal(await z.watcher.waitForSync(), 7);
  assert.equal(f.lists(), 2);
});

Deno.test("A watcher joining a synced stream gets the current state as its own initial sync", async () => {
  await using f = new Fixture();
  const first = f.watcher();
  start(first);
  await first.watcher.waitForSync();
  await waitFor(() => f.server.openWatchCount === 1);
  f.server.create(CONFIGMAPS, configMap("a", "x"));
  await waitFor(() => first.batches.length === 2);
  for (const config of [{}, { fieldSelector: "metadata.namespace=b" }]) {
    const late = f.watcher(config);
    start(late);
    const count = await late.watcher.waitForSync();
    await waitFor(() => late.syncs.length === 1);
    assert.deepEqual(late.batches, [`initial +${count}() ~0() -0()`]);
    assert.deepEqual(late.syncs, [count]);
    assert.equal(count, config.fieldSelector ? 3 : 7);
  }
  assert.equal(f.lists(), 1, "no LIST for late joiners");
  assert.equal(f.watches(), 1);
  f.server.delete(CONFIGMAPS, "b", "cm-2");
  await waitFor(() => f.watchers.every((w) => w.health().events === 2));
  f.clock.tick(1_000);
  await Promise.all(f.watchers.map((w) => w.forceSync()));
  assert.deepEqual(first.batches.at(-1), "+0() ~0() -1(b/cm-2)");
  for (const late of [1, 2]) {
    assert.equal(f.watchers[late].health().objects, late === 1 ? 6 : 2);
  }
});

Deno.test("One consumer's throwing callbacks leave the others alone", async () => {
  await using f = new Fixture();
  const bad = f.watcher({
    onChange: () => {
      throw new Error("boom");
    },
    onSyncComplete: () => {
      throw new Error("boom at sync");
    },
  });
  const good = f.watcher();
  start(bad);
  start(good);
  await good.watcher.waitForSync();
  await waitFor(() => f.server.openWatchCount === 1);
  f.server.create(CONFIGMAPS, configMap("a", "x"));
  await waitFor(() => good.batches.length === 2);
  assert.deepEqual(good.syncs, [6]);
  assert.equal(good.batches[1], "+1(a/x) ~0() -0()");
  assert.match(f.logger.text(), /boom/);
});

Deno.test("A relist (410) reaches every consumer, each with its own diff", async () => {
  await using f = new Fixture();
  const all = f.watcher();
  const onlyB = f.watcher({ fieldSelector: "metadata.namespace=b" });
  start(all);
  start(onlyB);
  await all.watcher.waitForSync();
  await onlyB.watcher.waitForSync();
  await waitFor(() => f.server.openWatchCount === 1);
  await f.clock.tick(5_000);
  // Changes made while nobody watches, then a 410 on resuming.
  f.server.injectFault({ verb: "watch", kind: "status", code: 410 });
  f.server.closeAllWatches();
  f.server.delete(CONFIGMAPS, "b", "cm-0");
  f.server.create(CONFIGMAPS, configMap("a", "new"));
  await waitFor(() => f.lists() === 2);
  await waitFor(() => all.batches.length === 2 && onlyB.batches.length === 2);
  assert.equal(all.batches[1], "+1(a/new) ~0() -1(b/cm-0)");
  assert.equal(onlyB.batches[1], "+0() ~0() -1(b/cm-0)");
  assert.equal(all.watcher.health().relists, 1);
  assert.equal(onlyB.watcher.health().relists, 1);
});

Deno.test("After a relist, unchanged objects stay one copy: a view made later holds the stored ones", async () => {
  // A relist of 100k unchanged objects must not leave the old copies in the
  // stores and the relisted ones in the source (twice the memory).
  await using f = new Fixture();
  const all = f.watcher();
  start(all);
  await all.watcher.waitForSync();
  await waitFor(() => f.server.openWatchCount === 1);
  const [before] = all.watcher.store.get("a", "cm-0") as KubeObject[];
  await f.clock.tick(5_000);
  f.server.injectFault({ verb: "watch", kind: "status", code: 410 });
  f.server.closeAllWatches();
  f.server.patch(CONFIGMAPS, "a", "cm-1", { data: { changed: "yes" } });
  await waitFor(() => f.lists() === 2);
  await waitFor(() => all.batches.length === 2);
  assert.equal(all.batches[1], "+0() ~1(a/cm-1) -0()");
  const late = f.watcher({ fieldSelector: "metadata.namespace=a" });
  start(late);
  await late.watcher.waitForSync();
  const [stored] = all.watcher.store.get("a", "cm-0") as KubeObject[];
  const [seeded] = late.watcher.store.get("a", "cm-0") as KubeObject[];
  assert.equal(stored, before, "the unchanged object was not replaced");
  assert.equal(seeded, stored, "the late view holds the same copy");
  const [changed] = late.watcher.store.get("a", "cm-1") as KubeObject[];
  assert.equal((changed.data as Record<string, string>).changed, "yes");
  assert.equal(
    changed,
    (all.watcher.store.get("a", "cm-1") as KubeObject[])[0],
  );
});

Deno.test("Watchers whose form differs, on other clients, cached or opted out do not share", async () => {
  await using f = new Fixture();
  const base = f.watcher();
  const others = [
    f.watcher({ labelSelector: "app=web" }),
    f.watcher({ ignoreFields: ["data"] }),
    f.watcher({ metadataOnly: true }),
    f.watcher({ namespace: "a" }),
    f.watcher({ transform: (o) => o }),
    f.watcher({ pageSize: 2 }),
    f.watcher({}, new FetchClient({ server: f.server.url })),
  ];
  const optedOut = [
    f.watcher({ shared: false }),
    f.watcher({ store: cachedStore() }),
  ];
  for (const c of [base, ...others, ...optedOut]) start(c);
  for (const c of [base, ...others, ...optedOut]) await c.watcher.waitForSync();
  // One LIST each; three pages for pageSize 2.
  assert.equal(f.lists(), 1 + others.length + 2 + optedOut.length);
  for (const c of [base, ...others]) {
    assert.deepEqual(c.watcher.health().shared, { consumers: 1 });
  }
  assert.deepEqual(
    optedOut.map((
      c,
    ) => [c.watcher.health().shared, c.watcher.health().notShared]),
    [[false, "shared: false"], [false, "store: cached"]],
  );
  assert.equal(base.watcher.health().notShared, undefined);
});

Deno.test("shared must be a boolean", () => {
  assert.throws(
    () =>
      new Watcher({
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        shared: "yes" as never,
        onChange: () => {},
      }, new FetchClient({ server: "http://127.0.0.1:1" })),
    /shared: must be a boolean/,
  );
});

Deno.test("A watcher joining while the initial list is under way syncs with the whole list", async () => {
  await using f = new Fixture();
  const { first, sameView, onlyA, release } = await joinMidList(f);
  release();
  assert.equal(await first.watcher.waitForSync(), 6);
  assert.equal(await sameView.watcher.waitForSync(), 6);
  assert.equal(await onlyA.watcher.waitForSync(), 3);
  await waitFor(() => onlyA.syncs.length === 1 && sameView.syncs.length === 1);
  assert.deepEqual([first, sameView, onlyA].map((c) => c.batches[0]), [
    "initial +6() ~0() -0()",
    "initial +6() ~0() -0()",
    "initial +3() ~0() -0()",
  ]);
  assert.equal(f.lists(), 3, "one paged LIST");
  assert.deepEqual(contents(onlyA).map((s) => s.split("@")[0]), [
    "a/cm-0",
    "a/cm-1",
    "a/cm-2",
  ]);
});

Deno.test("A watcher that joined mid-list syncs with the restarted list when the continue token expires", async () => {
  await using f = new Fixture();
  // The held page's continue token has expired: the initial list starts
  // again from the first page.
  const { first, sameView, onlyA, release } = await joinMidList(f, {
    expire: true,
  });
  // Gone before the list starts again: no one may count or keep it.
  f.server.delete(CONFIGMAPS, "a", "cm-0");
  release();
  const synced = Promise.all(
    [first, sameView, onlyA].map((c) => c.watcher.waitForSync()),
  );
  assert.deepEqual(await synced, [5, 5, 2]);
  await waitFor(() => onlyA.syncs.length === 1 && sameView.syncs.length === 1);
  assert.deepEqual([first, sameView, onlyA].map((c) => c.batches[0]), [
    "initial +5() ~0() -0()",
    "initial +5() ~0() -0()",
    "initial +2() ~0() -0()",
  ]);
  for (const c of [first, sameView]) {
    assert.equal(contents(c).some((s) => s.startsWith("a/cm-0@")), false);
    assert.equal(contents(c).length, 5);
  }
  assert.deepEqual(contents(onlyA).map((s) => s.split("@")[0]), [
    "a/cm-1",
    "a/cm-2",
  ]);
});

Deno.test("With namespaces, a mid-list joiner counts only what the restarted namespace lists again", async () => {
  await using f = new Fixture();
  // Namespace b's second page waits, then its continue token has expired.
  const { client, reached, release } = holdingClient(f, {
    expire: true,
    pathPart: "/namespaces/b/",
  });
  const config = { pageSize: 2, namespaces: ["a", "b"] };
  const first = f.watcher(config, client);
  start(first);
  await reached;
  const joiner = f.watcher(
    { ...config, fieldSelector: "metadata.name!=cm-2" },
    client,
  );
  start(joiner);
  f.server.delete(CONFIGMAPS, "b", "cm-0");
  release();
  assert.equal(await first.watcher.waitForSync(), 5);
  assert.equal(await joiner.watcher.waitForSync(), 3);
  await waitFor(() => joiner.syncs.length === 1);
  assert.deepEqual([first, joiner].map((c) => c.batches[0]), [
    "initial +5() ~0() -0()",
    "initial +3() ~0() -0()",
  ]);
  assert.deepEqual(contents(joiner).map((s) => s.split("@")[0]), [
    "a/cm-0",
    "a/cm-1",
    "b/cm-1",
  ]);
});
