/**
 * Each consumer of a shared stream sees exactly what it would see alone,
 * under random consumers, joins, leaves, churn and faults: a seeded,
 * differential property test. Each seed makes 4 to 6 `Watcher`s (index by
 * identity, name, a label or a data field; field selectors on metadata and
 * data, some on paths no object has; `ignoreFields`, `transform`,
 * `metadataOnly`; one namespace, two or all; callbacks that are slow, wait
 * event-loop turns, throw, or stop their own watcher and await it) and a
 * script of steps: writes; starts before the first list, during a list or
 * a relist, after the sync, inside another consumer's callback; stops;
 * compactions, expired continue tokens, closed, dropped, truncated and
 * stalled watches, 5xx, 429, a namespace answering 403 for a while. The
 * script runs once with every consumer on one client, then once per
 * consumer alone (`shared: false`). Each consumer's log (initial count,
 * every batch's objects with their versions, onSyncComplete and its end,
 * stops and when they resolved), final store and `health().objects` must
 * be the same shared and alone; the misconfiguration warnings of each step
 * the same; the invariants of a watcher's life must hold in every world
 * (no onChange before its onSyncComplete settled, none after stop()
 * resolved, no overlap, stop() awaited inside a callback resolves); and
 * every running store must equal the server's state. How the worlds are
 * kept comparable, and the constraints of the schedule, are in
 * `_shared_property_harness_test.ts`.
 *
 * `SHARED_PROPERTY_SEED=<n>` runs seed n only (a failure prints that line);
 * `SHARED_PROPERTY_SEEDS=<count>` or `=<from>-<to>` runs other seeds.
 */
import assert from "node:assert/strict";
import { report, runSeed } from "./_shared_property_harness_test.ts";

/** Seeds run by default (in CI): 1 to this. */
const CI_SEEDS = 64;
const FILE = "watcher/bulk_shared_property_test.ts";

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined; // No env permission: the defaults.
  }
}

function replay(seed: number): string {
  return `SHARED_PROPERTY_SEED=${seed} deno test --allow-env ${FILE}`;
}

/** The seeds to run, from the environment or the default. */
function seeds(): number[] {
  const one = env("SHARED_PROPERTY_SEED");
  if (one !== undefined) return [Number(one)];
  const more = env("SHARED_PROPERTY_SEEDS");
  const [from, to] = more === undefined
    ? [1, CI_SEEDS]
    : more.includes("-")
    ? more.split("-").map(Number)
    : [1, Number(more)];
  if (!(Number.isInteger(from) && Number.isInteger(to) && from <= to)) {
    throw new Error(
      `SHARED_PROPERTY_SEEDS must be a count or from-to, got ${more}`,
    );
  }
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const list = seeds();

Deno.test(
  `Shared watchers each see what they would see alone (${
    list.length > 1 ? `seeds ${list[0]} to ${list.at(-1)}` : `seed ${list[0]}`
  })`,
  async () => {
    const failed: { seed: number; message: string }[] = [];
    const coverage: Record<string, number> = {};
    for (const seed of list) {
      const run = await runSeed(seed);
      for (const [what, n] of Object.entries(run.coverage)) {
        coverage[what] = (coverage[what] ?? 0) + n;
      }
      if (run.discrepancies.length > 0) {
        failed.push({
          seed,
          message: report(run.plan, run.discrepancies, replay(seed)),
        });
      }
    }
    assert.ok(
      failed.length === 0,
      `${failed.length} of ${list.length} seeds failed; replay each with:\n${
        failed.slice(0, 20).map((f) => `  ${replay(f.seed)}`).join("\n")
      }${failed.length > 20 ? `\n  … and ${failed.length - 20} more` : ""}\n\n${
        failed.slice(0, 3).map((f) => f.message).join("\n\n")
      }`,
    );
    if (list.length < 16) return;
    // The schedule took every path this test is for (a generator that
    // stopped reaching one would pass without testing it).
    for (
      const what of [
        "held continue",
        "started while a list was held",
        "started inside a callback",
        "stopped inside onChange",
        "stopped inside onSyncComplete",
        "stopped during onSyncComplete",
        "write during an onSyncComplete",
        "write while a namespace is forbidden",
      ]
    ) {
      assert.ok(
        (coverage[what] ?? 0) > 0,
        `no seed took "${what}": ${JSON.stringify(coverage)}`,
      );
    }
  },
);
