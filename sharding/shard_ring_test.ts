import assert from "node:assert/strict";
import { RingCluster, shares } from "./_ring_harness_test.ts";
import { HASH_SPACE_END, ShardRingConfigError } from "./shard_ring_config.ts";
import { ShardRing } from "./shard_ring.ts";
import { MetricsRegistry } from "../metrics/registry.ts";

const covered = (cluster: RingCluster) => {
  let sum = 0n;
  for (const m of cluster.members) {
    for (const r of m.working) sum += r.end - r.start;
  }
  return sum;
};

Deno.test("three members split the hash space into thirds, and no hash is worked twice on the way", async () => {
  await using cluster = new RingCluster();
  for (const id of ["a", "b", "c"]) cluster.member({ identity: id });
  await cluster.until(
    () => covered(cluster) === HASH_SPACE_END,
    20_000,
    "the whole space worked",
  );
  assert.deepEqual(shares(cluster.members), { a: 0.333, b: 0.333, c: 0.333 });
  assert.deepEqual(cluster.violations, []);
  const leases = cluster.server.list("leases", "shop").map((l) =>
    l.metadata.name
  ).sort();
  assert.deepEqual(leases, ["widgets-a", "widgets-b", "widgets-c"]);
});

Deno.test("a member that stops hands its range over at once; one that is cut off, after its lease duration", async () => {
  await using cluster = new RingCluster();
  const [a, b, c] = ["a", "b", "c"].map((id) =>
    cluster.member({ identity: id })
  );
  await cluster.until(
    () => covered(cluster) === HASH_SPACE_END,
    20_000,
    "the whole space worked",
  );
  await cluster.whileMoving(c.ring.stop());
  assert.deepEqual(c.working, []);
  const handOver = await cluster.until(
    () => covered(cluster) === HASH_SPACE_END,
    20_000,
    "c's range taken over",
  );
  assert.ok(handOver <= 2 * 2_000 + 1, `took ${handOver} ms`);
  assert.deepEqual(shares([a, b]), { a: 0.5, b: 0.5 });
  b.link.state = "unreachable";
  await cluster.until(
    () => b.working.length === 0,
    11_000,
    "b stops at its renew deadline",
  );
  await cluster.until(() => shares([a]).a === 1, 20_000, "a takes everything");
  assert.deepEqual(cluster.violations, []);
});

Deno.test("a slow hand-off holds the new owner back until the old one has let go", async () => {
  await using cluster = new RingCluster();
  const a = await cluster.alone("a");
  a.handOffMs = 7_000;
  const b = cluster.member({ identity: "b" });
  await cluster.run(6_000);
  // a is still finishing its work on b's half: b may not start it yet.
  assert.equal(shares([a]).a, 1);
  assert.deepEqual(b.working, []);
  await cluster.until(
    () => shares([a, b]).b === 0.5,
    20_000,
    "b works on its half",
  );
  assert.deepEqual(cluster.violations, []);
});

Deno.test("the exclusivity check catches two members on one hash when a clock runs slower than the bound allows", async () => {
  await using cluster = new RingCluster();
  // a's clock runs at half speed: its 10 s renew deadline lasts 20 s,
  // while b gives it up after 15 s on a clock at full speed.
  const a = cluster.member({ identity: "a", rate: 0.5 });
  await cluster.until(
    () => shares([a]).a === 1,
    20_000,
    "a works on everything",
  );
  const b = cluster.member({ identity: "b" });
  await cluster.until(
    () => shares([a, b]).b === 0.5,
    30_000,
    "b works on its half",
  );
  a.link.state = "503";
  await cluster.until(() => shares([b]).b === 1, 40_000, "b takes everything");
  assert.ok(cluster.violations.length > 0);
  assert.match(cluster.violations[0], /a and b both work on/);
});

Deno.test("a member's config is checked: timings ordered as the elector's, names that make a Lease name", async () => {
  await using cluster = new RingCluster();
  const link = cluster.network.link();
  const make = (config: Record<string, unknown>) => () =>
    new ShardRing(
      { name: "widgets", namespace: "shop", identity: "a", ...config } as never,
      link,
    );
  const fails = (
    config: Record<string, unknown>,
    field: string,
    message: RegExp,
  ) =>
    assert.throws(
      make(config),
      (e: unknown) =>
        e instanceof ShardRingConfigError && e.field === field &&
        message.test(e.message),
    );
  fails(
    { renewDeadlineMs: 20_000 },
    "renewDeadlineMs",
    /must be less than leaseDurationMs \(15000\)/,
  );
  fails({ identity: "Pod_1" }, "identity", /Lease name.*"widgets-Pod_1"/);
  fails({ name: "-x" }, "name", /label value/);
  fails({ by: "name" }, "by", /"uid" or "namespace", got "name"/);
  fails({ idenity: "a" }, "idenity", /did you mean identity/);
});

Deno.test("a member's metrics: members, its shares of the space, changes, failed renewals; the meter comes from the client", async () => {
  await using cluster = new RingCluster();
  const registry = new MetricsRegistry();
  const a = cluster.member({ identity: "a" });
  const link = Object.assign(cluster.network.link(), { meter: registry });
  const b = new ShardRing(
    { name: "widgets", namespace: "shop", identity: "b", onChange: () => {} },
    link,
    { clock: cluster.clock, logger: cluster.logger, random: () => 0.5 },
  );
  const done = b.start();
  await cluster.until(
    () => shares([a]).a === 0.5 && b.state.permitted.length > 0,
    20_000,
    "two halves",
  );
  link.state = "503";
  await cluster.run(2_500);
  const text = await registry.render();
  const labels = 'identity="b",namespace="shop",ring="widgets"';
  assert.match(
    text,
    new RegExp(`k8s_watcher_shard_ring_members\\{${labels}\\} 2`),
  );
  assert.match(
    text,
    new RegExp(`k8s_watcher_shard_assigned_ratio\\{${labels}\\} 0.5`),
  );
  assert.match(
    text,
    new RegExp(`k8s_watcher_shard_ring_changes_total\\{${labels}\\} [1-9]`),
  );
  assert.match(
    text,
    new RegExp(
      `k8s_watcher_shard_lease_renew_failures_total\\{${labels}\\} [1-9]`,
    ),
  );
  link.state = "up";
  await cluster.whileMoving(b.stop());
  await done;
  assert.doesNotMatch(
    await registry.render(),
    /k8s_watcher_shard_ring_members\{identity="b"/,
  );
});

Deno.test("subscribe(): a listener hears the state at once and every change, and the hand-off waits for it too", async () => {
  await using cluster = new RingCluster();
  const a = await cluster.alone("a");
  const heard: number[] = [];
  let release: (() => void) | undefined;
  const unsubscribe = a.ring.subscribe(async (state) => {
    heard.push(state.permitted.length);
    if (state.members.length === 2 && release === undefined) {
      await new Promise<void>((resolve) => release = resolve);
    }
  });
  assert.deepEqual(heard, []);
  await cluster.clock.tick(0);
  assert.deepEqual(heard, [1]);
  const b = cluster.member({ identity: "b" });
  await cluster.run(8_000);
  // a's listener has not let go: b may not start.
  assert.deepEqual(b.working, []);
  release!();
  await cluster.until(
    () => shares([b]).b === 0.5,
    10_000,
    "b works on its half",
  );
  unsubscribe();
  assert.deepEqual(cluster.violations, []);
});

Deno.test("a request that never answers does not keep a member from trying again once the link is back", async () => {
  await using cluster = new RingCluster();
  const a = await cluster.alone("a");
  a.link.state = "stall";
  await cluster.until(
    () => a.working.length === 0,
    12_000,
    "a stops at its deadline",
  );
  a.link.state = "up";
  await cluster.until(() => shares([a]).a === 1, 10_000, "a works again");
});
