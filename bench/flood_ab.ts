/**
 * The watch flood, interleaved between builds: the same bench server (of
 * this tree), the same 100k MODIFIED events over 5k pods, each build's
 * `bench/_contender_ours.ts` run in turn in a fresh process, `--rounds`
 * times (A B A B …), with the floors (bare, and keeping a Map) in the same
 * rounds. On a shared machine only such interleaved figures compare.
 *
 * Run: `deno run -A bench/flood_ab.ts [--rounds 6] [--events 100000]
 * [--no-floor] [--cpu-prof <dir>] <tree A> [<tree B> …]` where a tree is a
 * checkout of this repository (e.g. a `git worktree` of the old commit), or
 * `<tree>:metrics` for that tree's watcher with a `MetricsRegistry` meter.
 * Prints events/s per round and the medians, and the ratio of each build
 * to the first and to the bare floor.
 *
 * @module
 */

import { median } from "./_format.ts";
import { type ScenarioStats, scenarioStats, setScenario } from "./_protocol.ts";
import type { Outcome } from "./_contender.ts";
import { takeFlag, takeOption } from "./_args.ts";

const args = [...Deno.args];
const rounds = Number(takeOption(args, "--rounds", "6"));
const events = Number(takeOption(args, "--events", "100000"));
const cpuProf = takeOption(args, "--cpu-prof");
const floors = !takeFlag(args, "--no-floor");
const trees = args.map((t) => t.replace(/\/$/, ""));
if (trees.length === 0) {
  throw new Error("Usage: flood_ab.ts [--rounds N] <tree A> [<tree B> …]");
}
const OBJECTS = 5_000;

const here = new URL(".", import.meta.url);
const server = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--allow-net",
    "--no-lock",
    new URL("_server.ts", here).pathname,
    String(OBJECTS),
    String(OBJECTS),
    String(events),
  ],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
const { value: first } = await reader.read();
const { port } = JSON.parse(first!.split("\n")[0]) as { port: number };
const base = `http://127.0.0.1:${port}`;

interface Run {
  label: string;
  script: string;
  task: Record<string, unknown>;
}
// `<tree>:metrics` runs that tree's watcher with a metrics registry as its
// meter: the cost of metrics, against the same tree without.
const runs: Run[] = trees.map((spec, k) => {
  const metered = spec.endsWith(":metrics");
  const tree = metered ? spec.slice(0, -":metrics".length) : spec;
  return {
    label: `${String.fromCharCode(65 + k)} ${spec}`,
    script: `${tree}/bench/_contender_ours.ts`,
    task: metered ? { metrics: true } : {},
  };
});
if (floors) {
  const floor = new URL("_contender_floor.ts", here).pathname;
  runs.push(
    { label: "bare floor", script: floor, task: {} },
    { label: "floor keeping a Map", script: floor, task: { keep: true } },
  );
}

async function once(
  run: Run,
  round: number,
): Promise<{ rate: number; cpuUs: number }> {
  await setScenario(base, { objects: OBJECTS, watch: "flood" });
  const task = JSON.stringify({
    server: base,
    workload: "flood",
    objects: OBJECTS,
    events,
    timeoutMs: 170_000,
    ...run.task,
  });
  const profiling = cpuProf !== undefined && run.script.includes("ours");
  // Through bash, whose `times` reports the contender's CPU time: on a
  // machine others load, CPU per event moves less than wall time.
  const { code, stdout, stderr } = await new Deno.Command("bash", {
    args: [
      "-c",
      '"$@"; code=$?; times >&2; exit $code',
      "contender",
      Deno.execPath(),
      "run",
      "--no-lock",
      "--allow-all",
      "--v8-flags=--expose-gc,--max-old-space-size=8192",
      ...(profiling
        ? [
          "--cpu-prof",
          `--cpu-prof-dir=${cpuProf}`,
          `--cpu-prof-name=${run.label.split(" ")[0]}-${round}.cpuprofile`,
        ]
        : []),
      run.script,
      task,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout);
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined) {
    throw new Error(
      `${run.label} failed (${code}): ${new TextDecoder().decode(stderr)}`,
    );
  }
  const outcome = JSON.parse(line.slice(7)) as Outcome;
  const stats: ScenarioStats = await scenarioStats(base);
  const ms = outcome.lastAppliedAt! -
    (stats.floodStartedAt! - (outcome.clockOffset ?? 0));
  // The last line of `times`: the children's user and system time.
  const times = new TextDecoder().decode(stderr).trim().split("\n").at(-1)!;
  const cpu = [...times.matchAll(/(\d+)m([\d.]+)s/g)]
    .reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
  return {
    rate: outcome.applied! / (ms / 1000),
    cpuUs: cpu * 1e6 / outcome.applied!,
  };
}

const rates = runs.map(() => [] as number[]);
const cpus = runs.map(() => [] as number[]);
try {
  for (let r = 0; r < rounds; r++) {
    // Alternate the order too, so that neither build always runs first.
    const order = runs.map((_, k) => k);
    if (r % 2 === 1) order.reverse();
    for (const k of order) {
      const { rate, cpuUs } = await once(runs[k], r);
      rates[k].push(rate);
      cpus[k].push(cpuUs);
      console.error(
        `round ${r + 1} ${runs[k].label}: ${
          (rate / 1000).toFixed(1)
        }k events/s, ${cpuUs.toFixed(2)} µs CPU/event`,
      );
    }
  }
} finally {
  await server.stdin.close();
  await server.status;
}

const medians = rates.map((r) => median(r)!);
const cpuMedians = cpus.map((c) => median(c)!);
const floorIndex = floors ? trees.length : -1;
console.log(
  `\n${events / 1000}k MODIFIED over ${
    OBJECTS / 1000
  }k pods, ${rounds} interleaved rounds, medians (load ${
    Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
  }):`,
);
console.log(
  "| build | events/s (median) | min–max | vs A | vs bare floor | CPU µs/event (whole process) | CPU vs A |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
runs.forEach((run, k) => {
  const min = Math.min(...rates[k]);
  const max = Math.max(...rates[k]);
  console.log(
    `| ${run.label} | ${(medians[k] / 1000).toFixed(1)}k | ${
      (min / 1000).toFixed(1)
    }–${(max / 1000).toFixed(1)}k | ${
      (medians[k] / medians[0]).toFixed(3)
    }× | ${
      floorIndex >= 0 ? (medians[k] / medians[floorIndex]).toFixed(3) + "×" : ""
    } | ${cpuMedians[k].toFixed(2)} | ${
      (cpuMedians[k] / cpuMedians[0]).toFixed(3)
    }× |`,
  );
});
