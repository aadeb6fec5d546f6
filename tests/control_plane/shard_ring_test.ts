// ShardRing on a real kube-apiserver with the ShardedListAndWatch gate:
// three members on real Leases split the hash space, the server's
// shardSelector for each member's ranges returns exactly the objects the
// member says it is assigned, and a member cut off from the API server is
// taken over without two members working one key at once.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import { silentLogger } from "../../logger.ts";
import type { ControlPlane } from "../../testing/control_plane/mod.ts";
import { ShardRing } from "../../sharding/shard_ring.ts";
import {
  HASH_SPACE_END,
  type ShardRange,
} from "../../sharding/shard_ring_config.ts";
import { intersect } from "../../sharding/_ring_view.ts";
import type { KubeObject } from "../../types.ts";
import {
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  listAll,
  LoopbackProxy,
  planeTest,
  sharedControlPlane,
} from "./_harness.ts";

const plane = sharedControlPlane({
  apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"],
});
const NAMESPACE = "shards";
const TIMINGS = {
  leaseDurationMs: 5_000,
  renewDeadlineMs: 3_500,
  retryPeriodMs: 700,
};

interface Member extends AsyncDisposable {
  identity: string;
  ring: ShardRing;
  proxy: LoopbackProxy;
  client: FetchClient;
  working: readonly ShardRange[];
}

function member(
  p: ControlPlane,
  identity: string,
  overlaps: string[],
  all: Member[],
): Member {
  const proxy = new LoopbackProxy(p.url);
  const client = new FetchClient({
    server: proxy.url,
    token: p.token(),
    caData: p.caPem,
  });
  const m: Member = {
    identity,
    proxy,
    client,
    working: [],
    ring: undefined as unknown as ShardRing,
    async [Symbol.asyncDispose]() {
      await m.ring.stop();
      await done;
      client.close();
      await proxy[Symbol.asyncDispose]();
    },
  };
  m.ring = new ShardRing(
    {
      name: "widgets",
      namespace: NAMESPACE,
      identity,
      ...TIMINGS,
      onChange: (state) => {
        m.working = state.permitted;
        for (const other of all) {
          if (other === m) continue;
          if (intersect(other.working, m.working).length > 0) {
            overlaps.push(`${m.identity} and ${other.identity}`);
          }
        }
      },
    },
    client,
    { logger: silentLogger },
  );
  const done = m.ring.start();
  all.push(m);
  return m;
}

function covered(members: readonly Member[]): bigint {
  let sum = 0n;
  for (const m of members) {
    for (const r of m.working) sum += r.end - r.start;
  }
  return sum;
}

planeTest(
  "ShardRing on real Leases: three members split the space, the server's shardSelector agrees with isAssigned, a cut-off member is taken over",
  async () => {
    const p = await plane();
    using admin = p.client();
    await createNamespace(admin, NAMESPACE);
    for (let i = 0; i < 60; i++) {
      await create(admin, CONFIGMAPS, NAMESPACE, {
        metadata: { name: `cm-${i}` },
      });
    }
    const overlaps: string[] = [];
    const all: Member[] = [];
    await using a = member(p, "a", overlaps, all);
    await using b = member(p, "b", overlaps, all);
    await using c = member(p, "c", overlaps, all);
    await eventually(
      () =>
        covered(all) === HASH_SPACE_END &&
        all.every((m) => m.working.length > 0),
      "the three members cover the space",
    );
    // The server's answer for each member's selector is what it is assigned.
    const objects = await listAll(admin, CONFIGMAPS, { namespace: NAMESPACE });
    const seen = new Set<string>();
    for (const m of all) {
      const answer = await admin.performRequest({
        method: "GET",
        path: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
        querystring: new URLSearchParams({ shardSelector: m.ring.selector() }),
        expectJson: true,
      }) as unknown as {
        items: KubeObject[];
        metadata: { shardInfo?: { selector?: string } };
      };
      assert.ok(
        answer.metadata.shardInfo?.selector,
        "the server sharded the list",
      );
      const names = answer.items.map((o) => o.metadata.name!).sort();
      const expected = objects.filter((o) => m.ring.isAssigned(o))
        .map((o) => o.metadata.name!).sort();
      assert.deepEqual(names, expected, m.identity);
      for (const name of names) {
        assert.ok(!seen.has(name), `${name} in two shards`);
        seen.add(name);
      }
    }
    assert.equal(seen.size, objects.length);
    // c loses its API access: it stops at its renew deadline, and a and b
    // take its range once its Lease has expired.
    c.proxy.cut();
    await eventually(() => c.working.length === 0, "c stops working", 10_000);
    await eventually(
      () => covered([a, b]) === HASH_SPACE_END,
      "a and b take c's range",
      20_000,
    );
    assert.deepEqual(overlaps, []);
    c.proxy.restore();
    await eventually(
      () => covered(all) === HASH_SPACE_END && c.working.length > 0,
      "c rejoins",
      20_000,
    );
    assert.deepEqual(overlaps, []);
  },
);
