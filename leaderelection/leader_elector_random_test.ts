// A property test: over random, seeded fault schedules, no two electors ever
// report isLeader() at the same instant, provided no clock runs faster than
// another by leaseDurationMs / renewDeadlineMs or more. A failing seed is
// replayed with LEADER_ELECTION_SEED=<n>; LEADER_ELECTION_SEEDS=<n> runs more.
import assert from "node:assert/strict";
import { SeededRandom } from "../testing/_seeded_random.ts";
import { Cluster, type LinkState, type Replica } from "./_harness_test.ts";

const LINK_STATES: LinkState[] = [
  "up",
  "up",
  "up",
  "503",
  "unreachable",
  "stall",
];

interface Outcome {
  violations: string[];
  terms: number;
  maxLeaders: number;
}

/** One random schedule: replicas on skewed clocks, faults, restarts. */
async function runSchedule(seed: number): Promise<Outcome> {
  const rng = new SeededRandom(seed);
  // Timings that pass validation, from tight to default-like.
  const leaseDurationMs = rng.pick([4_000, 8_000, 15_000]);
  const renewDeadlineMs = Math.round(
    leaseDurationMs * (0.5 + 0.3 * rng.next()),
  );
  const retryPeriodMs = Math.round(
    renewDeadlineMs / (1.3 + 2.7 * rng.next()),
  );
  // Rates spread over [1/√r, √r] with r just inside the documented bound.
  const bound = Math.pow(leaseDurationMs / renewDeadlineMs, 0.95);
  const rate = () => Math.pow(bound, rng.next() - 0.5);

  await using cluster = new Cluster();
  let maxLeaders = 0;
  let restarts = 0;
  const start = (identity: string): Replica =>
    cluster.replica({
      identity,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      releaseOnStop: rng.chance(0.5),
      rate: rate(),
      random: () => rng.next(),
    });
  const live = new Map<string, Replica>();
  for (const id of ["a", "b", "c"]) live.set(id, start(id));

  const check = () => {
    maxLeaders = Math.max(maxLeaders, cluster.leaders().length);
  };
  const simulatedMs = 90_000;
  while (cluster.clock.now() - 1_700_000_000_000 < simulatedMs) {
    await cluster.run(rng.int(100, 3 * retryPeriodMs), check);
    // Faults aimed at the leader are the ones that test the handover.
    const leader = [...live.values()].find((r) => r.elector.isLeader());
    const replica = leader && rng.chance(0.6)
      ? leader
      : live.get(rng.pick([...live.keys()]))!;
    const roll = rng.next();
    if (roll < 0.45) {
      replica.link.state = rng.pick(LINK_STATES);
    } else if (roll < 0.55) {
      // Slow answers: up to twice the margin between the two durations.
      const margin = leaseDurationMs - renewDeadlineMs;
      const latency = rng.chance(0.3) ? { there: 0, back: 0 } : {
        there: rng.int(0, 2 * margin),
        back: rng.int(0, 2 * margin),
      };
      replica.link.latency = () => latency;
    } else if (roll < 0.7) {
      // A write lands but its answer is lost.
      cluster.server.injectFault({
        verb: "update",
        resource: "leases",
        kind: "drop",
        times: rng.int(1, 3),
      });
    } else if (roll < 0.78) {
      cluster.server.injectFault({
        verb: "any",
        resource: "leases",
        kind: "status",
        code: rng.pick([500, 503, 429]),
        forMs: rng.int(500, leaseDurationMs),
      });
    } else if (roll < 0.9) {
      // The process dies or is restarted: a new elector, maybe a new name.
      await cluster.whileMoving(replica.elector.stop());
      live.delete(replica.identity);
      const identity = rng.chance(0.5)
        ? replica.identity
        : `${replica.identity[0]}${++restarts}`;
      live.set(identity, start(identity));
    } else {
      // Every link heals at once: the candidates race.
      for (const r of live.values()) {
        r.link.state = "up";
        r.link.latency = () => ({ there: 0, back: 0 });
      }
    }
  }
  // Liveness: once everything heals, exactly one leads.
  cluster.server.clearFaults();
  for (const r of live.values()) {
    r.link.state = "up";
    r.link.latency = () => ({ there: 0, back: 0 });
  }
  await cluster.until(() => cluster.leaders().length === 1, {
    maxMs: 3 * leaseDurationMs,
    what: `seed ${seed}: a leader after healing`,
  });
  await cluster.run(2 * leaseDurationMs, check);
  assert.equal(cluster.leaders().length, 1, `seed ${seed}`);
  const terms =
    cluster.logger.records.filter((r) => r.message === "Started leading")
      .length;
  return { violations: [...cluster.violations], terms, maxLeaders };
}

Deno.test("LeaderElector: over random fault schedules, never two leaders at once (clock rates within the bound)", async () => {
  const only = Deno.env.get("LEADER_ELECTION_SEED");
  const count = Number(Deno.env.get("LEADER_ELECTION_SEEDS") ?? 4);
  const seeds = only
    ? [Number(only)]
    : Array.from({ length: count }, (_, i) => i + 1);
  let terms = 0;
  for (const seed of seeds) {
    const outcome = await runSchedule(seed);
    assert.deepEqual(outcome.violations, [], `seed ${seed}`);
    assert.ok(outcome.maxLeaders <= 1, `seed ${seed}`);
    terms += outcome.terms;
  }
  // The schedules did move leadership around.
  assert.ok(
    terms >= 2 * seeds.length,
    `${terms} terms in ${seeds.length} schedules`,
  );
});

Deno.test("LeaderElector: the exclusivity check catches two leaders when a clock runs slower than the bound allows", async () => {
  await using cluster = new Cluster();
  // a's clock runs at half speed: its 10 s renew deadline lasts 20 s,
  // while b waits 15 s on a clock at full speed (a factor 2 > 15 / 10).
  const a = cluster.replica({ identity: "a", rate: 0.5 });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const b = cluster.replica({ identity: "b" });
  await cluster.run(3_000);
  a.link.state = "503";
  await cluster.until(() => b.elector.isLeader(), {
    maxMs: 20_000,
    what: "b takes over",
  });
  assert.equal(a.elector.isLeader(), true);
  assert.equal(cluster.violations.length, 1);
  assert.match(
    cluster.violations[0],
    /b started leading while a, b reported isLeader\(\)/,
  );
});
