// A property test: over random, seeded schedules of joins, leaves, crashes,
// partitions, lost answers and server errors, on clocks whose rates differ
// within the bound, no hash is ever worked by two members at one instant;
// once the ring is quiet, the live members' work covers the hash space
// exactly once; and a change reaches its new owners within leaseDurationMs
// plus a renewal. A failing seed prints the line that replays it.
import assert from "node:assert/strict";
import { SeededRandom } from "../testing/_seeded_random.ts";
import type { LinkState } from "../leaderelection/_harness_test.ts";
import { type Member, RingCluster } from "./_ring_harness_test.ts";
import { HASH_SPACE_END } from "./shard_ring_config.ts";

const LINK_STATES: LinkState[] = ["up", "up", "503", "unreachable", "stall"];
const LEASE_MS = 15_000;
const RENEW_DEADLINE_MS = 10_000;
const RETRY_MS = 2_000;

/** How much of the space the live members work on, counted with overlaps. */
function coverage(members: readonly Member[]): bigint {
  let sum = 0n;
  for (const m of members) {
    if (m.crashed) continue;
    for (const r of m.working) sum += r.end - r.start;
  }
  return sum;
}

function describe(members: readonly Member[]): string {
  const hex = (v: bigint) => v.toString(16).padStart(16, "0").slice(0, 4);
  const ranges = (rs: readonly { start: bigint; end: bigint }[]) =>
    rs.map((r) => `${hex(r.start)}-${hex(r.end)}`).join(",") || "none";
  return members.map((m) =>
    `${m.identity}${
      m.crashed ? " (crashed)" : m.left ? " (left)" : ""
    }: link ${m.link.state}, sees ${m.ring.state.members.join(",")}, assigned ${
      ranges(m.ring.state.assigned)
    }, permitted ${ranges(m.ring.state.permitted)}, working ${
      ranges(m.working)
    }`
  ).join("; ");
}

async function runSchedule(seed: number): Promise<string[]> {
  const rng = new SeededRandom(seed);
  const bound = Math.pow(LEASE_MS / RENEW_DEADLINE_MS, 0.9);
  const rate = () => Math.pow(bound, rng.next() - 0.5);
  await using cluster = new RingCluster();
  let next = 0;
  const join = () => {
    const member = cluster.member({
      identity: `m${next++}`,
      rate: rate(),
      random: () => rng.next(),
    });
    // A drain shorter than the margin the deadline leaves.
    member.handOffMs = rng.chance(0.5) ? 0 : rng.int(0, 4_000);
    return member;
  };
  const live = () => cluster.members.filter((m) => !m.crashed && !m.left);
  for (let i = 0; i < 3; i++) join();
  const steps = rng.int(8, 16);
  for (let step = 0; step < steps; step++) {
    await cluster.run(rng.int(200, 3 * RETRY_MS));
    const members = live();
    const roll = rng.next();
    if (roll < 0.2 || members.length < 2) join();
    else if (roll < 0.35) {
      const m = rng.pick(members);
      m.left = true;
      await cluster.whileMoving(m.ring.stop());
    } else if (roll < 0.45) {
      // The process dies: its Lease stays until it expires.
      const m = rng.pick(members);
      m.crashed = true;
      m.link.state = "unreachable";
    } else if (roll < 0.7) {
      rng.pick(members).link.state = rng.pick(LINK_STATES);
    } else if (roll < 0.8) {
      cluster.server.injectFault({
        verb: "update",
        resource: "leases",
        kind: "drop",
        times: rng.int(1, 3),
      });
    } else if (roll < 0.88) {
      cluster.server.injectFault({
        verb: "any",
        resource: "leases",
        kind: "status",
        code: rng.pick([500, 503, 429]),
        forMs: rng.int(500, LEASE_MS),
      });
    } else {
      for (const m of members) m.link.state = "up";
    }
  }
  // Quiet: every link heals; the ring must settle on one owner per hash
  // within a lease duration plus a renewal and the longest drain.
  cluster.server.clearFaults();
  for (const m of live()) m.link.state = "up";
  const settle = LEASE_MS + 2 * RETRY_MS + 4_000 + 2 * RETRY_MS;
  try {
    await cluster.until(
      () =>
        coverage(cluster.members) === HASH_SPACE_END &&
        live().every((m) => m.working.length > 0),
      settle * 2,
      `seed ${seed}: the live members cover the space`,
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}; the members: ${describe(cluster.members)}`,
    );
  }
  await cluster.run(2 * LEASE_MS);
  assert.equal(coverage(cluster.members), HASH_SPACE_END, `seed ${seed}`);
  return [...cluster.violations];
}

Deno.test("ShardRing: over random schedules, no hash is worked twice at once, and a quiet ring covers the space once", async () => {
  const only = Deno.env.get("SHARD_RING_SEED");
  const count = Number(Deno.env.get("SHARD_RING_SEEDS") ?? 6);
  const seeds = only
    ? [Number(only)]
    : Array.from({ length: count }, (_, i) => i + 1);
  for (const seed of seeds) {
    let violations: string[];
    try {
      violations = await runSchedule(seed);
    } catch (error) {
      throw new Error(
        `seed ${seed} failed; replay: SHARD_RING_SEED=${seed} deno test -A sharding/shard_ring_property_test.ts`,
        { cause: error },
      );
    }
    assert.deepEqual(
      violations,
      [],
      `seed ${seed}; replay: SHARD_RING_SEED=${seed} deno test -A sharding/shard_ring_property_test.ts`,
    );
  }
});
