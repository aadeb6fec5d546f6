import assert from "node:assert/strict";
import { ApiConnectionError } from "../client/errors.ts";
import { httpStatusOf } from "../client/api_error.ts";
import { Cluster, LEASE, type LinkState } from "./_harness_test.ts";

const CUT_OFF: [Exclude<LinkState, "up">, (error: unknown) => boolean][] = [
  ["503", (e) => httpStatusOf(e).code === 503],
  ["unreachable", (e) => e instanceof ApiConnectionError],
  [
    "stall",
    (e) => e instanceof Error && /no answer within 5000 ms/.test(e.message),
  ],
];

for (const [state, isExpectedError] of CUT_OFF) {
  Deno.test(`LeaderElector: a leader whose requests fail (${state}) steps down before the lease expires for the others, and exactly one successor takes over`, async () => {
    await using cluster = new Cluster();
    const a = cluster.replica({ identity: "a" });
    await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
    const others = ["b", "c"].map((identity) => cluster.replica({ identity }));
    await cluster.run(4_000);
    const lastRenewal = a.elector.health().lastRenewTime!;
    let stepDown: number | undefined;
    let takeover: number | undefined;

    a.link.state = state;
    await cluster.run(25_000, () => {
      const now = cluster.clock.now();
      if (stepDown === undefined && !a.elector.isLeader()) stepDown = now;
      if (takeover === undefined && others.some((o) => o.elector.isLeader())) {
        takeover = now;
      }
    });
    // It gave up exactly at its renew deadline...
    assert.equal(stepDown, lastRenewal + 10_000);
    assert.ok(isExpectedError(a.elector.health().lastError?.error));
    assert.ok(a.elector.health().consecutiveFailures >= 3);
    // ...and the others waited a full lease duration after the last renewal.
    assert.ok(
      takeover! >= lastRenewal + 15_000,
      `takeover ${takeover! - lastRenewal} ms after the last renewal`,
    );
    assert.ok(takeover! <= lastRenewal + 15_000 + 2_000 + 5_000);
    const successors = others.filter((o) => o.elector.isLeader());
    assert.equal(successors.length, 1);
    assert.deepEqual(cluster.leaders(), successors);
    assert.equal(cluster.spec().holderIdentity, successors[0].identity);
    assert.equal(cluster.spec().leaseTransitions, 1);
    assert.deepEqual(a.calls, ["leader:a", "started", "stopped"]);
    assert.deepEqual(cluster.violations, []);

    // Back online, a follows the successor and does not take over.
    a.link.state = "up";
    await cluster.run(20_000);
    assert.deepEqual(cluster.leaders(), successors);
    assert.equal(a.elector.leader(), successors[0].identity);
    assert.equal(a.elector.health().consecutiveFailures, 0);
  });
}

Deno.test("LeaderElector: a renewal whose answer is lost counts as failed, yet the leader keeps the lease when the next one succeeds", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const b = cluster.replica({ identity: "b" });
  await cluster.run(3_000);
  // Only the leader writes while its lease is fresh: these hit a alone.
  const fault = cluster.server.injectFault({
    verb: "update",
    resource: "leases",
    kind: "drop",
    times: 3,
  });
  const renewedBefore = cluster.spec().renewTime;
  await cluster.run(30_000, () => {
    assert.equal(a.elector.isLeader(), true);
    assert.equal(b.elector.isLeader(), false);
  });
  assert.equal(fault.hits, 3);
  assert.notEqual(cluster.spec().renewTime, renewedBefore);
  assert.match(
    cluster.logger.text(),
    /Lease request failed .*Connection reset by the fake API server/,
  );
  assert.deepEqual(a.calls, ["leader:a", "started"]);
});

Deno.test("LeaderElector: renewals that reach the server but whose answers are all lost make the leader step down; nobody else leads meanwhile", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const b = cluster.replica({ identity: "b" });
  await cluster.run(3_000);
  const lastRenewal = a.elector.health().lastRenewTime!;
  const fault = cluster.server.injectFault({
    verb: "update",
    resource: "leases",
    kind: "drop",
    forMs: 30_000,
  });
  let stepDown: number | undefined;
  await cluster.run(30_000, () => {
    if (stepDown === undefined && !a.elector.isLeader()) {
      stepDown = cluster.clock.now();
    }
    // The Lease keeps changing (a's writes land), so b never sees it expire.
    assert.equal(b.elector.isLeader(), false);
  });
  assert.ok(fault.hits > 10);
  assert.equal(stepDown, lastRenewal + 10_000);
  assert.equal(cluster.spec().holderIdentity, "a");
  // Once answers arrive again, a renews its own lease and leads again.
  await cluster.until(() => a.elector.isLeader(), {
    maxMs: 2_000,
    what: "a leads again",
  });
  assert.deepEqual(a.calls, ["leader:a", "started", "stopped", "started"]);
  assert.equal(cluster.spec().leaseTransitions, 0);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector: when the API server fails for everyone, nobody leads until it is back, then exactly one does", async () => {
  await using cluster = new Cluster();
  const replicas = await cluster.elect(["a", "b", "c"]);
  await cluster.run(2_000);
  cluster.server.injectFault({
    verb: "any",
    resource: "leases",
    kind: "status",
    code: 500,
    forMs: 40_000,
  });
  await cluster.run(12_000);
  assert.deepEqual(cluster.leaders(), []);
  await cluster.run(28_000);
  await cluster.until(() => cluster.leaders().length === 1, {
    maxMs: 3_000,
    what: "a leader after the outage",
  });
  await cluster.run(20_000, () => assert.equal(cluster.leaders().length, 1));
  assert.ok(
    replicas.every((r) => r.elector.health().consecutiveFailures === 0),
  );
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector logs missing RBAC at error level with a hint, and keeps trying", async () => {
  await using cluster = new Cluster();
  const fault = cluster.server.injectFault({
    verb: "get",
    resource: "leases",
    kind: "status",
    code: 403,
    times: 2,
  });
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), {
    maxMs: 5_000,
    what: "a leads once allowed",
  });
  assert.equal(fault.hits, 2);
  const errors = cluster.logger.at("error");
  assert.equal(errors.length, 2);
  assert.equal(errors[0].message, "Lease request refused");
  assert.match(
    String(errors[0].fields.hint),
    /get, create and update on leases/,
  );
});

Deno.test("LeaderElector: a Lease that cannot be created (404) is an error with a hint, and its failures are counted", async () => {
  await using cluster = new Cluster();
  // No Lease yet (GET 404), and the create answered 404 too: the namespace
  // is missing, or coordination.k8s.io is not served.
  const fault = cluster.server.injectFault({
    verb: "create",
    resource: "leases",
    kind: "status",
    code: 404,
    times: 3,
  });
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => fault.hits === 3, {
    maxMs: 10_000,
    what: "three creates",
  });
  assert.equal(a.elector.health().consecutiveFailures, 3);
  const errors = cluster.logger.at("error");
  assert.deepEqual(errors.map((r) => r.message), [
    "Lease request not found",
    "Lease request not found",
    "Lease request not found",
  ]);
  assert.deepEqual(errors.map((r) => r.fields.failures), [1, 2, 3]);
  assert.equal(
    errors[0].fields.hint,
    `is the namespace ${LEASE.namespace} missing, or does the API server not serve coordination.k8s.io/v1?`,
  );
  await cluster.until(() => a.elector.isLeader(), {
    maxMs: 5_000,
    what: "a leads once the Lease can be created",
  });
  assert.equal(a.elector.health().consecutiveFailures, 0);
  // Every line names the Lease and this replica.
  for (const record of cluster.logger.records) {
    assert.equal(record.fields.identity, "a", record.message);
    assert.equal(
      record.fields.lease,
      `${LEASE.namespace}/${LEASE.name}`,
      record.message,
    );
  }
});

Deno.test("LeaderElector: a leader's deadline runs from when its renewal was sent, however late the answer comes", async () => {
  await using cluster = new Cluster();
  const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 12_000 };
  const a = cluster.replica({ identity: "a", ...timings });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const b = cluster.replica({ identity: "b", ...timings });
  await cluster.run(2_000);
  // a's next renewal lands at once but its answer takes 5 s (more than
  // the 3 s between the two durations); after it, a is cut off.
  let sentAt: number | undefined;
  a.link.latency = (opts) => {
    if (opts.method !== "PUT" || sentAt !== undefined) {
      return { there: 0, back: 0 };
    }
    sentAt = cluster.clock.now();
    a.link.state = "503";
    return { there: 0, back: 5_000 };
  };
  let stepDown: number | undefined;
  await cluster.run(25_000, () => {
    if (stepDown === undefined && !a.elector.isLeader()) {
      stepDown = cluster.clock.now();
    }
  });
  assert.equal(a.elector.health().lastRenewTime, sentAt);
  assert.equal(stepDown, sentAt! + 12_000);
  assert.equal(b.elector.isLeader(), true);
  assert.deepEqual(cluster.violations, []);
});
