import assert from "node:assert/strict";
import type { RequestOptions } from "../client/rest_client.ts";
import { Cluster, LEASE, writeBarrier } from "./_harness_test.ts";

const writes = (cluster: Cluster) =>
  cluster.server.requests.filter((r) =>
    r.resource === "leases" && (r.method === "POST" || r.method === "PUT")
  ).map((r) => r.method);

Deno.test("LeaderElector: two candidates creating the Lease at the same instant, one wins and the other re-reads", async () => {
  await using cluster = new Cluster();
  const gate = writeBarrier(2);
  const [a, b] = ["a", "b"].map((identity) => {
    const r = cluster.replica({ identity, start: false });
    r.link.gate = gate;
    return r;
  });
  a.done = a.elector.start();
  b.done = b.elector.start();
  await cluster.clock.tick(0);
  assert.deepEqual(writes(cluster), ["POST", "POST"]);
  const leaders = cluster.leaders();
  assert.equal(leaders.length, 1);
  const [winner, loser] = leaders[0] === a ? [a, b] : [b, a];
  assert.equal(loser.elector.health().conflicts, 1);
  assert.equal(winner.elector.health().conflicts, 0);
  // The loser re-read at once and knows who leads.
  assert.equal(loser.elector.leader(), winner.identity);
  assert.equal(cluster.spec().holderIdentity, winner.identity);
  a.link.gate = b.link.gate = undefined;
  await cluster.run(30_000);
  assert.deepEqual(cluster.leaders(), [winner]);
  assert.equal(cluster.spec().leaseTransitions, 0);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector: two candidates taking over a released Lease at the same instant, one 409 and no overwrite", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const b = cluster.replica({ identity: "b" });
  const c = cluster.replica({ identity: "c" });
  await cluster.run(3_000);
  const gate = writeBarrier(2);
  b.link.gate = c.link.gate = gate;
  await a.elector.stop();
  const released = cluster.lease()!.metadata.resourceVersion;
  const writesBefore = writes(cluster).length;
  await cluster.until(() => cluster.leaders().length === 1, {
    maxMs: 2_000,
    what: "a successor",
  });
  // Both wrote on the released record; the API server took one.
  assert.deepEqual(writes(cluster).slice(writesBefore), ["PUT", "PUT"]);
  const winner = cluster.leaders()[0];
  const loser = winner === b ? c : b;
  assert.equal(loser.elector.health().conflicts, 1);
  assert.equal(loser.elector.leader(), winner.identity);
  assert.equal(
    Number(cluster.lease()!.metadata.resourceVersion),
    Number(released) + 1,
    "one write succeeded",
  );
  assert.equal(cluster.spec().holderIdentity, winner.identity);
  assert.equal(cluster.spec().leaseTransitions, 1);
  b.link.gate = c.link.gate = undefined;
  await cluster.run(30_000);
  assert.deepEqual(cluster.leaders(), [winner]);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector: a leader whose renewal meets a 409 re-reads at once and keeps what the other writer wrote", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  // Someone labels the Lease between the leader's read and its write.
  let labelled = false;
  a.link.gate = (opts: RequestOptions) => {
    if (opts.method === "PUT" && !labelled) {
      labelled = true;
      const lease = cluster.lease()!;
      cluster.server.update("leases", {
        ...lease,
        metadata: { ...lease.metadata, labels: { team: "web" } },
      });
    }
    return Promise.resolve();
  };
  await cluster.until(() => a.elector.health().conflicts === 1, {
    maxMs: 3_000,
    what: "a renewal conflict",
  });
  assert.equal(a.elector.isLeader(), true);
  const renewedAt = cluster.clock.now();
  assert.equal(a.elector.health().lastRenewTime, renewedAt);
  assert.deepEqual(cluster.lease()!.metadata.labels, { team: "web" });
  assert.equal(cluster.spec().holderIdentity, "a");
  assert.deepEqual(a.calls, ["leader:a", "started"]);
});

Deno.test("LeaderElector: a leader that reads another holder in the Lease steps down at once", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const lease = cluster.lease()!;
  cluster.server.update("leases", {
    ...lease,
    spec: { ...lease.spec as object, holderIdentity: "intruder" },
  });
  const noticed = await cluster.until(() => !a.elector.isLeader(), {
    maxMs: 2_000,
    what: "a steps down",
  });
  assert.ok(noticed <= 2_000);
  assert.equal(a.elector.leader(), "intruder");
  assert.match(cluster.logger.text(), /the Lease is held by intruder/);
  await cluster.run(100);
  assert.deepEqual(a.calls, [
    "leader:a",
    "started",
    "stopped",
    "leader:intruder",
  ]);
  // The intruder never renews: a takes over after a full lease duration.
  const retaken = await cluster.until(() => a.elector.isLeader(), {
    maxMs: 20_000,
    what: "a retakes",
  });
  assert.ok(retaken >= 15_000, `retook after ${retaken} ms`);
  assert.equal(cluster.spec().leaseTransitions, 1);
  assert.equal(LEASE.name, cluster.lease()!.metadata.name);
});

Deno.test("LeaderElector: when the Lease is deleted, the leader re-creates it and the followers wait out the lease they saw", async () => {
  await using cluster = new Cluster();
  const [a, b, c] = await cluster.elect(["a", "b", "c"]);
  const leader = cluster.leaders()[0];
  await cluster.run(3_000);
  // The followers read the deleted Lease first: the leader is cut off a moment.
  cluster.server.delete("leases", LEASE.namespace, LEASE.name);
  leader.link.state = "503";
  await cluster.run(2_500);
  leader.link.state = "up";
  await cluster.run(30_000, () => {
    assert.deepEqual(cluster.leaders(), [leader]);
  });
  assert.equal(cluster.spec().holderIdentity, leader.identity);
  for (const r of [a, b, c]) assert.equal(r.elector.leader(), leader.identity);
  assert.deepEqual(cluster.violations, []);
});
