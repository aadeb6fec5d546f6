/**
 * The `shard` option against a shard under the test's control (a
 * `ShardFilter` by object name), on a server without ShardedListAndWatch
 * (client-side): nothing is listed before the shard holds something, a
 * change of the shard drops what left without a deletion (and what the
 * pending batch said of it), and lists again for what came; the option is
 * checked. The two modes with a real ring are in tests/shard_watch_test.ts.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { cachedStore } from "../store/cached_store.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { Watcher } from "./watcher.ts";
import { DebounceGroup } from "./debounce_group.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import type { ShardFilter } from "./shard_filter.ts";
import {
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  Harness,
} from "./_bulk_harness_test.ts";

/** A shard that holds the objects named in `names`. */
class NamedShard implements ShardFilter {
  names = new Set<string>();
  #version = 0;
  readonly #listeners = new Set<(state: unknown) => void | Promise<void>>();

  isAssigned(obj: { readonly metadata?: object }): boolean {
    const name = (obj.metadata as { name?: string } | undefined)?.name;
    return name !== undefined && this.names.has(name);
  }

  selector(): string {
    if (this.names.size === 0) return "";
    const end = (this.#version + 1).toString(16).padStart(16, "0");
    return `shardRange(object.metadata.uid, '0x0000000000000000', '0x${end}')`;
  }

  subscribe(listener: (state: unknown) => void | Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Holds `names` from now on; resolves when the listeners have settled. */
  async hold(...names: string[]): Promise<void> {
    this.names = new Set(names);
    this.#version++;
    await Promise.all([...this.#listeners].map((l) => l(undefined)));
  }

  get listeners(): number {
    return this.#listeners.size;
  }
}

const word = (batch: ChangeBatch) => {
  const { created, modified, deleted } = batch.objects;
  const n = (prefix: string, objs: readonly KubeObject[]) =>
    objs.map((o) => `${prefix}${o.metadata.name}`).sort();
  return [
    ...n("+", created),
    ...n("~", modified.map((m) => m.current)),
    ...n("-", deleted),
  ].join(" ");
};

function seed(h: { create(gvr: unknown, obj: KubeObject): unknown }): void {
  for (const name of ["a", "b", "c", "d", "e"]) {
    h.create(CONFIGMAPS, configMap("shop", name));
  }
}

const names = (h: Harness) =>
  (h.watcher.store.list() as readonly KubeObject[]).map((o) => o.metadata.name!)
    .sort();

Deno.test("a sharded Watcher lists nothing until its shard holds something, then only the shard's objects", async () => {
  const shard = new NamedShard();
  await using h = new Harness({
    config: { shard },
    seed: (server) => seed(server),
  });
  assert.deepEqual(h.watcher.health().shard, {
    mode: "pending",
    selector: "",
    skipped: 0,
    released: 0,
    viewChanges: 0,
  });
  for (let i = 0; i < 10; i++) await h.clock.tick(1_000);
  assert.equal(h.requests("list").length, 0, "no LIST before the shard");
  assert.equal(h.watcher.health().synced, false);
  await shard.hold("b", "d");
  await h.waitForBatches(1);
  assert.deepEqual(names(h), ["b", "d"]);
  const health = h.watcher.health().shard!;
  // The fake here has no ShardedListAndWatch: the watcher filters itself.
  assert.equal(health.mode, "client");
  assert.equal(health.skipped, 3);
  assert.equal(health.selector, shard.selector());
  assert.equal(h.recorded.batches[0].created, 2);
  const list = h.requests("list")[0];
  assert.equal(list.query.shardSelector, shard.selector());
  assert.equal(
    h.logger.records.filter((r) =>
      r.message.startsWith("Watching only this shard")
    ).length,
    1,
  );
});

Deno.test("a shard change drops what left without a deletion, forgets its pending change, and lists again for what came", async () => {
  const shard = new NamedShard();
  await shard.hold("a", "b");
  await using h = new Harness({
    config: { shard, debounceInterval: 5_000 },
    seed: (server) => seed(server),
  });
  await h.waitForBatches(1);
  assert.deepEqual(names(h), ["a", "b"]);
  // After the initial batch's interval, b's change goes out at once (the
  // leading edge); a's, within the next interval, waits in the batch.
  await h.clock.tick(5_000);
  h.server.update(CONFIGMAPS, configMap("shop", "b", { data: { v: "1" } }));
  await h.waitForBatches(2);
  assert.equal(word(h.recorded.full[1]), "~b");
  h.server.update(CONFIGMAPS, configMap("shop", "a", { data: { v: "1" } }));
  await waitFor(() => h.watcher.health().events === 2);
  const lists = h.requests("list").length;
  await shard.hold("b", "c");
  // Settled: a is gone already, without waiting for the new list.
  assert.deepEqual(names(h).includes("a"), false);
  assert.equal(h.watcher.health().shard!.released, 1);
  await h.waitForRequests("list", lists + 1);
  await waitFor(() => names(h).includes("c"));
  assert.deepEqual(names(h), ["b", "c"]);
  await h.clock.tick(5_000);
  await h.waitForBatches(3);
  // c arrives as created; a's pending change and a itself are not told.
  assert.deepEqual(h.recorded.full.slice(2).map(word), ["+c"]);
  const shardHealth = h.watcher.health().shard!;
  assert.equal(shardHealth.released, 1);
  assert.equal(shardHealth.viewChanges, 2);
  // A shard holding nothing: everything goes, and nothing is listed.
  const before = h.requests("list").length;
  await shard.hold();
  assert.equal(h.watcher.store.size, 0);
  assert.equal(h.watcher.health().shard!.released, 3);
  for (let i = 0; i < 10; i++) await h.clock.tick(1_000);
  assert.equal(h.requests("list").length, before);
  assert.equal(
    h.recorded.full.slice(3).every((b) => b.deleted === 0),
    true,
  );
  await h.stop();
  assert.equal(shard.listeners, 0, "the watcher stopped listening");
});

Deno.test("the shard option is checked: a ShardFilter, with a store that answers peek", () => {
  using client = new FetchClient({ server: "http://127.0.0.1:1" });
  const make = (config: Record<string, unknown>) => () =>
    new Watcher({
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      onChange: () => {},
      ...config,
    } as never, client);
  for (const shard of [{}, null, "ring", { isAssigned() {}, selector() {} }]) {
    assert.throws(
      make({ shard }),
      (e: unknown) =>
        e instanceof WatcherConfigError && e.field === "shard" &&
        /ShardRing/.test(e.message),
    );
  }
  assert.throws(
    make({ shard: new NamedShard(), store: cachedStore() }),
    (e: unknown) =>
      e instanceof WatcherConfigError && e.field === "shard" &&
      /peek/.test(e.message),
  );
});

Deno.test("a sharded Watcher whose lists stream (initialList: stream) cannot tell who filters: its mode stays pending", async () => {
  const shard = new NamedShard();
  await shard.hold("a", "c");
  await using h = new Harness({
    config: { shard, initialList: "stream" },
    server: { shardedListAndWatch: false },
    seed: (server) => seed(server),
  });
  await h.waitForBatches(1);
  assert.deepEqual(names(h), ["a", "c"]);
  assert.equal(h.requests("list").length, 0);
  assert.equal(h.watcher.health().shard!.mode, "pending");
  assert.equal(
    h.logger.records.some((r) =>
      r.message.startsWith("Watching only this shard")
    ),
    false,
  );
});

Deno.test("a sharded Watcher of several namespaces releases in each, and feeds a DebounceGroup member like any watcher", async () => {
  const shard = new NamedShard();
  await shard.hold("a", "x");
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  seed(server);
  server.create(CONFIGMAPS, configMap("other", "x"));
  server.create(CONFIGMAPS, configMap("other", "y"));
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const calls: string[] = [];
  const group = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    clock,
    merge: mergeChangeBatches,
    onChange: (batches) => {
      for (const [, batch] of batches) calls.push(...word(batch).split(" "));
    },
  });
  const watcher = new Watcher<KubeObject>(
    {
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      namespaces: ["shop", "other"],
      shard,
      group: group.member("configmaps"),
    },
    client,
    { clock },
  );
  const running = watcher.start();
  const identities = () =>
    watcher.store.list().map((o) =>
      `${o.metadata.namespace}/${o.metadata.name}`
    ).sort();
  await waitFor(() => watcher.health().synced && watcher.store.size === 2);
  assert.deepEqual(identities(), ["other/x", "shop/a"]);
  await shard.hold("b", "y");
  assert.equal(watcher.store.size, 0, "both namespaces released");
  assert.equal(watcher.health().shard!.released, 2);
  await waitFor(() => watcher.store.size === 2);
  assert.deepEqual(identities(), ["other/y", "shop/b"]);
  for (let i = 0; i < 5 && !calls.includes("+y"); i++) {
    await clock.tick(1_000);
  }
  assert.ok(calls.includes("+y") && calls.includes("+b"), String(calls));
  assert.equal(calls.some((w) => w.startsWith("-")), false);
  await watcher.stop();
  await running;
  await group.stop();
});
