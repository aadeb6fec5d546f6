import assert from "node:assert/strict";
import { LeaderElectionConfigError, LeaderElector } from "./leader_elector.ts";
import { Cluster, LEASE } from "./_harness_test.ts";
import { waitFor } from "../testing/mod.ts";

const unusedClient = {
  performRequest: () => Promise.reject(new Error("not called")),
};
const base = {
  lease: LEASE,
  identity: "a",
  onStartedLeading: () => {},
};

Deno.test("LeaderElector rejects unusable settings with a typed error naming the option", () => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ lease: undefined }, "lease", /namespace and name/],
    [{ lease: { namespace: "", name: "x" } }, "lease.namespace", /non-empty/],
    [{ lease: { namespace: "x" } }, "lease.name", /non-empty/],
    [{ identity: " " }, "identity", /non-empty/],
    [{ leaseDurationMs: 0 }, "leaseDurationMs", /positive/],
    [{ retryPeriodMs: NaN }, "retryPeriodMs", /positive/],
    [{ renewDeadlineMs: -1 }, "renewDeadlineMs", /positive/],
    // renewDeadlineMs must be strictly below leaseDurationMs
    [
      { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 },
      "renewDeadlineMs",
      /less than leaseDurationMs \(10000\), got 10000/,
    ],
    [
      { leaseDurationMs: 5_000 },
      "renewDeadlineMs",
      /less than leaseDurationMs/,
    ],
    // retryPeriodMs × 1.2 must be strictly below renewDeadlineMs
    [
      { renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
      "retryPeriodMs",
      /times 1\.2 must be less than renewDeadlineMs \(2400\), got 2000/,
    ],
    [{ onStartedLeading: 5 }, "onStartedLeading", /function/],
    [{ onStoppedLeading: "no" }, "onStoppedLeading", /function/],
    [{ onNewLeader: 1 }, "onNewLeader", /function/],
    [{ releaseOnStop: "yes" }, "releaseOnStop", /boolean/],
  ];
  for (const [override, field, message] of cases) {
    assert.throws(
      () =>
        new LeaderElector(
          { ...base, ...override } as never,
          unusedClient,
        ),
      (e: unknown) =>
        e instanceof LeaderElectionConfigError && e.field === field &&
        message.test(e.message) &&
        e.message.startsWith(`Invalid leader election config: ${field}:`),
      `${JSON.stringify(override)} should fail on ${field}`,
    );
  }
  assert.throws(
    () => new LeaderElector(base, {} as never),
    (e: unknown) =>
      e instanceof LeaderElectionConfigError && e.field === "client",
  );
  // The defaults and settings just inside the limits are accepted.
  new LeaderElector(base, unusedClient);
  new LeaderElector({
    ...base,
    leaseDurationMs: 1_001,
    renewDeadlineMs: 1_000,
    retryPeriodMs: 833,
  }, unusedClient);
});

Deno.test("LeaderElector refuses option names it does not take, and says where a misplaced one belongs", () => {
  const refused = (make: () => unknown) => {
    try {
      make();
    } catch (error) {
      assert.ok(error instanceof LeaderElectionConfigError, String(error));
      return error;
    }
    assert.fail("no error thrown");
  };
  // A typo here used to leave the 15 s default in place, silently.
  let e = refused(() =>
    new LeaderElector({ ...base, leaseDuration: 60_000 } as never, unusedClient)
  );
  assert.equal(e.field, "leaseDuration");
  assert.equal(
    e.message,
    "Invalid leader election config: leaseDuration: is not a LeaderElectorConfig option (did you mean leaseDurationMs?)",
  );
  e = refused(() =>
    new LeaderElector({ ...base, renewDeadlineMS: 1 } as never, unusedClient)
  );
  assert.match(e.message, /\(did you mean renewDeadlineMs\?\)$/);
  e = refused(() =>
    new LeaderElector(
      { ...base, logger: console } as never,
      unusedClient,
      { identity: "b" } as never,
    )
  );
  assert.equal(e.field, "logger, identity");
  assert.equal(
    e.message,
    "Invalid leader election config: logger, identity: " +
      "logger belongs in the third argument (LeaderElectorOptions), not in the config; " +
      "identity belongs in the config (the first argument), not in LeaderElectorOptions",
  );
});

Deno.test("LeaderElector rejects a timing longer than a timer can wait (2³¹−1 ms)", () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms on Deno, Node and Bun.
  const limit = 2 ** 31 - 1;
  const cases: [keyof typeof base | string, Record<string, number>][] = [
    ["leaseDurationMs", { leaseDurationMs: 2 ** 31 }],
    ["renewDeadlineMs", { leaseDurationMs: limit, renewDeadlineMs: 2 ** 31 }],
    ["retryPeriodMs", { leaseDurationMs: limit, retryPeriodMs: 2 ** 31 }],
  ];
  for (const [field, override] of cases) {
    assert.throws(
      () => new LeaderElector({ ...base, ...override }, unusedClient),
      (e: unknown) =>
        e instanceof LeaderElectionConfigError && e.field === field &&
        e.message ===
          `Invalid leader election config: ${field}: must be at most 2147483647 ms (2³¹−1), got 2147483648`,
      field,
    );
  }
  // The longest lease, and the longest renew deadline and retry period
  // that its ordering leaves.
  new LeaderElector({ ...base, leaseDurationMs: limit }, unusedClient);
  new LeaderElector({
    ...base,
    leaseDurationMs: limit,
    renewDeadlineMs: limit - 1,
    retryPeriodMs: Math.floor((limit - 2) / 1.2),
  }, unusedClient);
});

Deno.test("LeaderElector creates the Lease when absent and leads at once", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), {
    maxMs: 0,
    what: "a leads",
  });
  const lease = cluster.lease()!;
  assert.equal(lease.apiVersion, "coordination.k8s.io/v1");
  assert.deepEqual(lease.spec, {
    holderIdentity: "a",
    leaseDurationSeconds: 15,
    leaseTransitions: 0,
    acquireTime: "2023-11-14T22:13:20.000000Z",
    renewTime: "2023-11-14T22:13:20.000000Z",
  });
  assert.deepEqual(
    cluster.server.requests.map((r) => `${r.method} ${r.path}`),
    [
      "GET /apis/coordination.k8s.io/v1/namespaces/haptic/leases/haptic-leader",
      "POST /apis/coordination.k8s.io/v1/namespaces/haptic/leases",
    ],
  );
  assert.equal(a.elector.leader(), "a");
  await waitFor(() => a.calls.length === 2);
  assert.deepEqual(a.calls, ["leader:a", "started"]);
  const health = a.elector.health();
  assert.equal(health.leading, true);
  assert.equal(health.leaseTransitions, 0);
  assert.equal(health.lastRenewTime, cluster.clock.now());
  assert.equal(health.renewDeadline, cluster.clock.now() + 10_000);
});

Deno.test("LeaderElector: of three replicas exactly one leads, and it renews every retry period", async () => {
  await using cluster = new Cluster();
  const replicas = await cluster.elect(["a", "b", "c"]);
  const leader = cluster.leaders()[0];
  const renewTimes = new Set<unknown>();
  await cluster.run(60_000, () => {
    assert.deepEqual(cluster.leaders(), [leader]);
    renewTimes.add(cluster.spec().renewTime);
  });
  // One renewal every 2000 / (1 + 0.2 × 0.5) ≈ 1818 ms: 33 in 60 s.
  assert.ok(renewTimes.size >= 30, `${renewTimes.size} renewals`);
  for (const r of replicas) {
    assert.equal(r.elector.leader(), leader.identity);
    assert.deepEqual(r.calls.filter((c) => c.startsWith("leader:")), [
      `leader:${leader.identity}`,
    ]);
  }
  assert.equal(cluster.spec().holderIdentity, leader.identity);
  assert.equal(cluster.spec().leaseTransitions, 0);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector: a stopped leader releases the Lease and a successor takes over within one retry period", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a" });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const others = ["b", "c"].map((identity) => cluster.replica({ identity }));
  await cluster.clock.tick(5_000);

  await a.elector.stop();
  assert.equal(a.elector.isLeader(), false);
  assert.deepEqual(a.calls, ["leader:a", "started", "stopped"]);
  assert.equal(cluster.spec().holderIdentity, "");
  assert.match(cluster.logger.text(), /Released the Lease/);
  const took = await cluster.until(() => cluster.leaders().length === 1, {
    maxMs: 2_000,
    what: "a successor",
  });
  assert.ok(took <= 2_000, `took ${took} ms`);
  const successor = cluster.leaders()[0];
  assert.ok(others.includes(successor));
  assert.equal(cluster.spec().holderIdentity, successor.identity);
  assert.equal(cluster.spec().leaseTransitions, 1);
  // Nothing reaches a after stop() resolved.
  await cluster.clock.tick(30_000);
  assert.deepEqual(a.calls, ["leader:a", "started", "stopped"]);
  assert.deepEqual(cluster.leaders(), [successor]);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector: without release, a successor takes over after the lease duration and within one more retry period", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({ identity: "a", releaseOnStop: false });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const others = ["b", "c"].map((identity) => cluster.replica({ identity }));
  await cluster.clock.tick(7_000);
  // When the others last saw the record change (a's last renewal).
  const lastRenewal = a.elector.health().lastRenewTime!;

  await a.elector.stop();
  const stoppedAt = cluster.clock.now();
  assert.equal(cluster.spec().holderIdentity, "a");
  await cluster.until(() => cluster.leaders().length === 1, {
    maxMs: 15_000 + 2_000,
    what: "a successor",
  });
  const takeover = cluster.clock.now();
  assert.ok(
    takeover - lastRenewal >= 15_000,
    `took over ${takeover - lastRenewal} ms after the last renewal`,
  );
  assert.ok(
    takeover - stoppedAt <= 15_000 + 2_000,
    `took over ${takeover - stoppedAt} ms after the stop`,
  );
  assert.ok(others.includes(cluster.leaders()[0]));
  assert.equal(cluster.spec().leaseTransitions, 1);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector counts leaseTransitions over several handovers", async () => {
  await using cluster = new Cluster();
  const seen: string[] = [];
  for (const identity of ["a", "b", "c", "d"]) {
    const r = cluster.replica({ identity });
    await cluster.until(
      () => r.elector.isLeader() || cluster.leaders().length > 0,
      {
        maxMs: 5_000,
        what: `a leader with ${identity}`,
      },
    );
  }
  for (let i = 0; i < 3; i++) {
    const leader = cluster.leaders()[0];
    seen.push(leader.identity);
    await leader.elector.stop();
    await cluster.until(() => cluster.leaders().length === 1, {
      maxMs: 2_000,
      what: `successor ${i}`,
    });
    assert.equal(cluster.spec().leaseTransitions, i + 1);
  }
  assert.equal(new Set(seen).size, 3);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector measures expiry on its own clock, never by the timestamps in the Lease", async () => {
  for (
    const renewTime of [
      "2000-01-01T00:00:00.000000Z",
      "2999-01-01T00:00:00.000000Z",
    ]
  ) {
    await using cluster = new Cluster();
    // Held by a replica on a node whose clock is decades off, then gone.
    cluster.server.create("leases", {
      metadata: LEASE,
      spec: {
        holderIdentity: "ghost",
        leaseDurationSeconds: 15,
        acquireTime: renewTime,
        renewTime,
        leaseTransitions: 4,
      },
    });
    const b = cluster.replica({ identity: "b", rate: 1.25 });
    await cluster.clock.tick(0);
    assert.equal(b.elector.leader(), "ghost");
    // 15 s on b's clock are 12 s on the server's.
    await cluster.clock.tick(11_900);
    assert.equal(b.elector.isLeader(), false, renewTime);
    await cluster.until(() => b.elector.isLeader(), {
      maxMs: 2_000,
      what: "b takes over",
    });
    assert.equal(cluster.spec().holderIdentity, "b");
    assert.equal(cluster.spec().leaseTransitions, 5);
    await waitFor(() => b.calls.includes("started"));
    assert.deepEqual(b.calls, ["leader:ghost", "leader:b", "started"]);
  }
});

Deno.test("LeaderElector waits for the holder's longer leaseDurationSeconds", async () => {
  await using cluster = new Cluster();
  cluster.server.create("leases", {
    metadata: LEASE,
    spec: { holderIdentity: "slow", leaseDurationSeconds: 60 },
  });
  const b = cluster.replica({ identity: "b" });
  await cluster.clock.tick(59_000);
  assert.equal(b.elector.isLeader(), false);
  await cluster.until(() => b.elector.isLeader(), {
    maxMs: 3_000,
    what: "b takes over",
  });
});
