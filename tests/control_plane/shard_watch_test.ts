// Sharded Watchers on a real kube-apiserver 1.37.2 with the
// ShardedListAndWatch gate: each replica's Watcher, given its ShardRing,
// chooses server-side sharding (the LIST answers metadata.shardInfo), holds
// only its share, and its watch carries only its share of the events, as
// counted on the wire; together the three hold every object once. Without
// the gate the same option falls back to client-side: the server ignores the
// parameter, every watch carries every event, each store holds its share.
import assert from "node:assert/strict";
import { silentLogger } from "../../logger.ts";
import { ShardRing } from "../../sharding/shard_ring.ts";
import { Watcher } from "../../watcher/watcher.ts";
import { RecordingLogger } from "../../testing/recording_logger.ts";
import type { KubeObject } from "../../types.ts";
import {
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  patch,
  planeTest,
  sharedControlPlane,
  TapClient,
} from "./_harness.ts";

const plane = sharedControlPlane({
  apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"],
});
const ungated = sharedControlPlane();
const NAMESPACE = "shard-watch";
const TIMINGS = {
  leaseDurationMs: 5_000,
  renewDeadlineMs: 3_500,
  retryPeriodMs: 700,
};
const OBJECTS = 90;
const CHANGED = 45;

const names = (w: Watcher<KubeObject>) =>
  w.store.list().map((o) => o.metadata.name!).sort();

planeTest(
  "sharded Watchers on kube-apiserver with ShardedListAndWatch: server-side mode, each watch carries only its share of the events",
  async () => {
    const p = await plane();
    using admin = p.client();
    await createNamespace(admin, NAMESPACE);
    for (let i = 0; i < OBJECTS; i++) {
      await create(admin, CONFIGMAPS, NAMESPACE, {
        metadata: { name: `cm-${i}` },
      });
    }
    const replicas = ["a", "b", "c"].map((identity) => {
      const client = p.client();
      const tap = new TapClient(client);
      const logger = new RecordingLogger();
      const ring = new ShardRing(
        { name: "watchers", namespace: NAMESPACE, identity, ...TIMINGS },
        client,
        { logger: silentLogger },
      );
      const watcher = new Watcher<KubeObject>(
        {
          gvr: CONFIGMAPS,
          namespace: NAMESPACE,
          indexBy: ["metadata.namespace", "metadata.name"],
          shard: ring,
          onChange: () => {},
        },
        tap,
        { logger },
      );
      const ringRun = ring.start();
      const run = watcher.start();
      return {
        identity,
        client,
        tap,
        logger,
        ring,
        watcher,
        async [Symbol.asyncDispose]() {
          await watcher.stop();
          await ring.stop();
          await Promise.all([run, ringRun]);
          client.close();
        },
      };
    });
    await using _a = replicas[0];
    await using _b = replicas[1];
    await using _c = replicas[2];

    const union = () => replicas.flatMap((r) => names(r.watcher)).sort();
    await eventually(
      () =>
        replicas.every((r) =>
          r.watcher.health().synced &&
          r.watcher.health().shard?.mode === "server"
        ) && union().length === OBJECTS,
      "three synced watchers hold every object, in server-side mode",
      30_000,
    );
    const all = Array.from({ length: OBJECTS }, (_, i) => `cm-${i}`).sort();
    assert.deepEqual(union(), all, "every object once");
    for (const r of replicas) {
      const held = r.watcher.store.size;
      assert.ok(held > 0 && held < OBJECTS, `${r.identity} holds ${held}`);
      // What it holds is exactly its ring's share.
      for (const obj of r.watcher.store.list()) {
        assert.ok(
          r.ring.isAssigned(obj),
          `${r.identity}: ${obj.metadata.name}`,
        );
      }
      assert.equal(r.watcher.health().shard!.skipped, 0);
      const lists = r.tap.lists().filter((l) => l.path.endsWith("/configmaps"));
      assert.ok(lists.length > 0);
      assert.ok(lists.every((l) => l.query.get("shardSelector")));
      assert.ok(
        r.tap.watches().every((w) => w.query.get("shardSelector")),
        "every watch is sharded",
      );
      const lines = r.logger.records.filter((l) =>
        l.message.startsWith("Watching only this shard")
      );
      assert.equal(lines.length, 1);
      assert.equal(lines[0].fields?.shardMode, "server");
    }

    // Changes: each replica's watch brings only the changes of its share,
    // once the rings are settled and every watcher watches (a view that
    // changed during the patches would relist, bringing them as objects).
    await eventually(
      () => replicas.every((r) => settled(r.ring, r.tap)),
      "every ring settled, every watcher watching",
      30_000,
    );
    const before = replicas.map((r) => changes(r.tap));
    const held = replicas.map((r) => new Set(names(r.watcher)));
    for (let i = 0; i < CHANGED; i++) {
      await patch(admin, CONFIGMAPS, NAMESPACE, `cm-${i}`, {
        data: { round: "1" },
      });
    }
    const expected = held.map((set) =>
      Array.from({ length: CHANGED }, (_, i) => `cm-${i}`).filter((n) =>
        set.has(n)
      ).length
    );
    await eventually(
      () => replicas.every((r, i) => changes(r.tap) - before[i] >= expected[i]),
      () =>
        `events: ${
          replicas.map((r, i) => changes(r.tap) - before[i])
        }, expected ${expected}`,
      30_000,
    );
    const carried = replicas.map((r, i) => changes(r.tap) - before[i]);
    assert.deepEqual(carried, expected, "each watch carried its share only");
    assert.equal(carried.reduce((x, y) => x + y, 0), CHANGED);
    for (const r of replicas) {
      assert.ok(carried[replicas.indexOf(r)] < CHANGED);
    }
  },
);

/** The ADDED, MODIFIED and DELETED lines a replica's watches carried. */
/**
 * Whether a ring sees `members` members (any, without) and works on all
 * it is assigned, and its watcher's latest request is its watch.
 */
function settled(ring: ShardRing, tap: TapClient, members?: number): boolean {
  const state = ring.state;
  const text = (ranges: readonly { start: bigint; end: bigint }[]) =>
    ranges.map((r) => `${r.start}-${r.end}`).join(",");
  const last = tap.requests.at(-1);
  return (members === undefined || state.members.length === members) &&
    text(state.assigned) === text(state.permitted) &&
    last !== undefined && tap.watches().includes(last);
}

function changes(tap: TapClient): number {
  return tap.events.filter((e) =>
    e.type === "ADDED" || e.type === "MODIFIED" || e.type === "DELETED"
  ).length;
}

planeTest(
  "sharded Watchers on kube-apiserver without ShardedListAndWatch: client-side mode, each store its share, each watch every event",
  async () => {
    const p = await ungated();
    using admin = p.client();
    await createNamespace(admin, NAMESPACE);
    for (let i = 0; i < 30; i++) {
      await create(admin, CONFIGMAPS, NAMESPACE, {
        metadata: { name: `cm-${i}` },
      });
    }
    const replicas = ["a", "b"].map((identity) => {
      const client = p.client();
      const tap = new TapClient(client);
      const ring = new ShardRing(
        { name: "watchers", namespace: NAMESPACE, identity, ...TIMINGS },
        client,
        { logger: silentLogger },
      );
      const watcher = new Watcher<KubeObject>(
        {
          gvr: CONFIGMAPS,
          namespace: NAMESPACE,
          indexBy: ["metadata.namespace", "metadata.name"],
          shard: ring,
          onChange: () => {},
        },
        tap,
        { logger: silentLogger },
      );
      const ringRun = ring.start();
      const run = watcher.start();
      return {
        tap,
        ring,
        watcher,
        async [Symbol.asyncDispose]() {
          await watcher.stop();
          await ring.stop();
          await Promise.all([run, ringRun]);
          client.close();
        },
      };
    });
    await using _a = replicas[0];
    await using _b = replicas[1];
    await eventually(
      () =>
        replicas.every((r) =>
          r.watcher.health().synced &&
          r.watcher.health().shard?.mode === "client"
        ) &&
        replicas.reduce((n, r) => n + r.watcher.store.size, 0) === 30,
      "two synced watchers share the objects, client-side",
      30_000,
    );
    for (const r of replicas) {
      assert.ok(r.watcher.store.size > 0 && r.watcher.store.size < 30);
      for (const obj of r.watcher.store.list()) {
        assert.ok(r.ring.isAssigned(obj));
      }
    }
    // Settled first: both rings see both members and work on all they are
    // assigned, and each watcher's latest request is its watch. A view that
    // changed during the patches would relist, and a LIST brings changes
    // as objects, not as watch events.
    await eventually(
      () => replicas.every((r) => settled(r.ring, r.tap, 2)),
      "both rings settled, both watchers watching",
      30_000,
    );
    const before = replicas.map((r) => changes(r.tap));
    for (let i = 0; i < 10; i++) {
      await patch(admin, CONFIGMAPS, NAMESPACE, `cm-${i}`, {
        data: { round: "1" },
      });
    }
    await eventually(
      () => replicas.every((r, i) => changes(r.tap) - before[i] >= 10),
      "every watch carries every event",
      30_000,
    );
    assert.deepEqual(replicas.map((r, i) => changes(r.tap) - before[i]), [
      10,
      10,
    ]);
  },
);
