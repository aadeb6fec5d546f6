// The HAPTIC model per shard: each replica's DebounceGroup of sharded
// watchers (ConfigMaps and Secrets, one ShardRing) renders its share, and
// the replicas together render what one unsharded group renders, each
// object once.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { Watcher } from "../watcher/watcher.ts";
import { DebounceGroup } from "../watcher/debounce_group.ts";
import {
  type ChangeBatch,
  mergeChangeBatches,
} from "../watcher/change_batch.ts";
import { ShardRing } from "../sharding/shard_ring.ts";
import {
  FakeApiServer,
  FakeClock,
  mockFetch,
  RecordingLogger,
} from "../testing/mod.ts";
import type { KubeObject } from "../types.ts";

const RESOURCES = ["configmaps", "secrets"] as const;

/** One renderer: its group, its watchers, and the objects it rendered. */
interface Renderer {
  ring?: ShardRing;
  group: DebounceGroup<ChangeBatch<KubeObject>>;
  watchers: Watcher<KubeObject>[];
  /** `resource/namespace/name` of every object in a call. */
  rendered: Set<string>;
  running: Promise<unknown>;
}

function renderer(
  client: FetchClient,
  clock: FakeClock,
  identity: string | undefined,
): Renderer {
  const ring = identity === undefined ? undefined : new ShardRing(
    { name: "render", namespace: "shop", identity },
    client,
    { clock, random: () => 0.5, logger: new RecordingLogger() },
  );
  const rendered = new Set<string>();
  const group = new DebounceGroup<ChangeBatch<KubeObject>>({
    interval: 500,
    merge: mergeChangeBatches,
    clock,
    onChange: (batches) => {
      for (const [resource, batch] of batches) {
        for (const store of [batch.objects.created]) {
          for (const o of store) {
            rendered.add(
              `${resource}/${o.metadata.namespace}/${o.metadata.name}`,
            );
          }
        }
      }
    },
  });
  const watchers = RESOURCES.map((resource) =>
    new Watcher<KubeObject>(
      {
        gvr: { group: "", version: "v1", resource },
        indexBy: ["metadata.namespace", "metadata.name"],
        callOnChangeDuringSync: false,
        group: group.member(resource),
        ...(ring ? { shard: ring } : {}),
      },
      client,
      { clock, logger: new RecordingLogger() },
    )
  );
  return {
    ring,
    group,
    watchers,
    rendered,
    running: Promise.all([ring?.start(), ...watchers.map((w) => w.start())]),
  };
}

Deno.test("DebounceGroups of sharded watchers render together what one unsharded group renders, each object once", async () => {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  await using server = new FakeApiServer({ clock, shardedListAndWatch: true });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  for (let i = 0; i < 20; i++) {
    for (const resource of RESOURCES) {
      server.create(resource, {
        metadata: { namespace: "app", name: `o-${i}` },
      });
    }
  }
  const alone = renderer(client, clock, undefined);
  const shards = ["a", "b", "c"].map((id) => renderer(client, clock, id));
  const all = [alone, ...shards];
  const union = () => shards.flatMap((r) => [...r.rendered]);
  const settle = async (done: () => boolean) => {
    for (let i = 0; i < 600 && !done(); i++) await clock.tick(100);
    assert.ok(done(), "settled");
  };
  // The initial batches carry counts only: render the first changes.
  await settle(() =>
    all.every((r) => r.watchers.every((w) => w.health().synced)) &&
    shards.every((r) => r.ring!.selector() !== "")
  );
  for (let i = 0; i < 20; i++) {
    for (const resource of RESOURCES) {
      server.create(resource, {
        metadata: { namespace: "app", name: `n-${i}` },
      });
    }
  }
  await settle(() =>
    alone.rendered.size === 40 && new Set(union()).size === 40
  );
  await clock.tick(1_000);
  assert.deepEqual([...new Set(union())].sort(), [...alone.rendered].sort());
  assert.equal(union().length, 40, "no object rendered by two replicas");
  for (const r of shards) {
    assert.ok(r.rendered.size > 0 && r.rendered.size < 40);
    // Each replica's stores hold its share of both resources only.
    const held = r.watchers.reduce((n, w) => n + w.store.size, 0);
    assert.ok(held > 0 && held < 80, `holds ${held}`);
  }
  const stopping = Promise.all(
    all.flatMap((r) => [
      ...r.watchers.map((w) => w.stop()),
      r.group.stop(),
      r.ring?.stop(),
    ]),
  );
  let stopped = false;
  void stopping.finally(() => stopped = true);
  for (let i = 0; i < 600 && !stopped; i++) await clock.tick(100);
  await stopping;
  await Promise.all(all.map((r) => r.running));
});
