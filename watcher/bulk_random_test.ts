import assert from "node:assert/strict";
import type { FakeApiFault, FaultHandle } from "../testing/faults.ts";
import { configMap, Harness, identities } from "./_bulk_harness_test.ts";
import { seeded } from "../testing/_seeded_random.ts";

/**
 * The seed of the schedule; override with `BULK_RANDOM_SEED=<n>` to replay
 * a failure (every assertion message names the seed in use).
 */
function scheduleSeed(): number {
  let raw: string | undefined;
  try {
    raw = Deno.env.get("BULK_RANDOM_SEED");
  } catch {
    // No env permission: use the default.
  }
  return raw ? Number(raw) : 20_261_130;
}

const NAMESPACES = ["alpha", "beta", "gamma", "delta"];
const NAMES_PER_NAMESPACE = 40;
const ROUNDS = 400;
const MAX_MUTATIONS_PER_ROUND = 16;

Deno.test("Watcher converges to the server's state under a seeded random fault schedule", async () => {
  const seed = scheduleSeed();
  const rnd = seeded(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const oneOf = <T>(items: readonly T[]): T => items[int(items.length)];
  const at = `(seed ${seed})`;

  await using h = new Harness({
    start: false,
    randomSeed: seed ^ 0x5bd1e995,
    server: { historyLimit: 120, bookmarkIntervalMs: 7_000 },
    options: { idleTimeoutMs: 30_000 },
    config: { pageSize: 17, debounceInterval: 500 },
  });
  const { server, clock, watcher } = h;
  const live = new Set<string>();
  let version = 0;
  const mutate = () => {
    const namespace = oneOf(NAMESPACES);
    const name = `cm-${int(NAMES_PER_NAMESPACE)}`;
    const key = `${namespace}/${name}`;
    if (!live.has(key)) {
      server.create("configmaps", configMap(namespace, name));
      live.add(key);
    } else if (rnd() < 0.65) {
      server.patch("configmaps", namespace, name, {
        data: { v: String(++version) },
      });
    } else {
      server.delete("configmaps", namespace, name);
      live.delete(key);
    }
  };
  for (let i = 0; i < 60; i++) mutate();

  // Faults by weight. Most end a watch without a backoff (as in real
  // clusters); the rest make the loop back off, up to 30 s.
  type Injector = (verb: "list" | "watch") => FakeApiFault | (() => void);
  const kinds: [label: string, weight: number, make: Injector][] = [
    ["close watches", 18, () => () => server.closeAllWatches()],
    ["compact", 9, () => () => server.compactHistory()],
    ["expire continue", 4, () => () => server.expireContinueTokens()],
    ["drop", 14, (verb) => ({ verb, kind: "drop", afterEvents: int(6) })],
    [
      "truncate",
      10,
      (verb) => ({ verb, kind: "truncate", afterEvents: int(6) }),
    ],
    ["stall", 7, (verb) => ({ verb, kind: "stall" })],
    ["410", 6, () => ({ verb: "watch", kind: "status", code: 410 })],
    ["5xx", 8, (verb) => ({ verb, kind: "status", code: oneOf([500, 503]) })],
    ["429", 5, (verb) => ({
      verb,
      kind: "status",
      code: 429,
      retryAfterSeconds: 1 + int(3),
    })],
  ];
  const totalWeight = kinds.reduce((sum, [, w]) => sum + w, 0);
  const counts: Record<string, number> = {};
  const armed: FaultHandle[] = [];
  const handles: FaultHandle[] = [];
  let direct = 0;
  const inject = () => {
    let pickWeight = int(totalWeight);
    const [label, , make] = kinds.find(([, w]) => (pickWeight -= w) < 0)!;
    const verb = rnd() < 0.25 ? "list" : "watch";
    const fault = make(verb);
    if (typeof fault === "function") {
      fault();
      direct++;
    } else {
      // At most three armed at once, so that faults take effect over the
      // whole schedule instead of piling up in front of one request.
      for (let i = armed.length - 1; i >= 0; i--) {
        if (!armed[i].active) armed.splice(i, 1);
      }
      if (armed.length >= 3) return;
      const handle = server.injectFault(fault);
      armed.push(handle);
      handles.push(handle);
    }
    const key = typeof fault === "function" ? label : `${label} ${fault.verb}`;
    counts[key] = (counts[key] ?? 0) + 1;
  };

  h.running = watcher.start();
  let mutations = 60;
  for (let round = 0; round < ROUNDS; round++) {
    const n = 1 + int(MAX_MUTATIONS_PER_ROUND);
    for (let i = 0; i < n; i++) {
      mutate();
      // Faults land between writes, not only between rounds.
      if (rnd() < 0.06) inject();
    }
    mutations += n;
    if (rnd() < 0.8) inject();
    await clock.tick(int(8_000));
  }
  assert.ok(mutations >= 2_000, `${mutations} mutations ${at}`);
  // Faults that took effect: direct actions and armed faults that fired.
  const faults = handles.reduce((n, f) => n + f.hits, direct);
  assert.ok(faults >= 200, `${faults} faults took effect ${at}`);

  // The faults are over: let backoffs, stalls and Retry-After run out.
  server.clearFaults();
  server.closeAllWatches();
  const converged = async () => {
    if (watcher.health().resourceVersion !== server.resourceVersion) {
      return false;
    }
    const stored = identities(await watcher.store.list());
    return stored.join() === identities(server.list("configmaps")).join();
  };
  for (let i = 0; i < 60 && !(await converged()); i++) {
    await clock.tick(2_000);
  }
  const health = watcher.health();
  const summary = `${at} after ${mutations} mutations and ${faults} faults ${
    JSON.stringify(counts)
  }; health ${JSON.stringify({ ...health, lastError: undefined })}`;

  assert.equal(watcher.isSynced(), true, `synced ${summary}`);
  assert.deepEqual(
    identities(await watcher.store.list()),
    identities(server.list("configmaps")),
    `store equals server ${summary}`,
  );
  assert.equal(watcher.store.size, live.size, `store size ${summary}`);
  assert.ok(health.relists > 0, `some faults forced relists ${summary}`);
  assert.ok(health.reconnects > 0, `some faults forced reconnects ${summary}`);

  // stop() delivers the last batch; then every change has been reported.
  const size = watcher.store.size;
  await h.stop();
  assert.equal(
    h.netCreated,
    size,
    `created - deleted over ${h.recorded.batches.length} batches ${summary}`,
  );
  assert.equal(h.recorded.batches.filter((b) => b.isInitialSync).length, 1);
  assert.deepEqual(h.recorded.syncs.length, 1, `one sync ${summary}`);
  assert.equal(
    h.logger.records.filter((r) => /sink|callback failed/i.test(r.message))
      .length,
    0,
    `the watcher's own code never threw ${summary}`,
  );
});
