/**
 * The reconcile rows beside the peers: ours (`WorkQueue`, in
 * `_contender_reconcile.ts`), client-go's typed rate-limiting `workqueue`,
 * controller-runtime's controller and kube-runtime's `Controller` (built as
 * `_native.ts` builds them), each in fresh processes with the same task
 * (`_reconcile_task.ts`); prints a Markdown table of medians.
 *
 * Run with `deno run -A bench/reconcile.ts`. Options:
 * - `--repeats N`: fresh processes per cell (default 3).
 * - `--kube-rs-queue`: also run kube-runtime on the 1M-add queue row,
 *   which took 878 s once here (its `reconcile_on` stream paces the adds).
 *
 * @module
 */

import { buildNative, type NativeContender } from "./_native.ts";
import type { ReconcileOutcome, ReconcileTask } from "./_reconcile_task.ts";

const args = [...Deno.args];
const repeatsAt = args.indexOf("--repeats");
const repeats = repeatsAt >= 0 ? Number(args[repeatsAt + 1]) : 3;
const kubeRsQueue = args.includes("--kube-rs-queue");
const log = (msg: string) => console.error(`[reconcile] ${msg}`);

type Row = Omit<ReconcileTask, "server" | "timeoutMs">;
const ROWS: Record<string, Row> = {
  queue: { workload: "queue", keys: 10_000, adds: 1_000_000, workers: 8 },
  dedup: {
    workload: "dedup",
    keys: 100,
    bursts: 50,
    burstGapMs: 1,
    reconcileMs: 5,
    workers: 8,
  },
  queueHeap: { workload: "queueHeap", keys: 100_000 },
};

const contenders: { name: string; command: string; args: string[] }[] = [{
  name: "ours",
  command: Deno.execPath(),
  args: [
    "run",
    "--no-lock",
    "--allow-all",
    "--v8-flags=--expose-gc",
    new URL("_contender_reconcile.ts", import.meta.url).pathname,
  ],
}];
const programs: [string, NativeContender["program"], string[]][] = [
  ["client-go", "client_go", ["typed"]],
  ["controller-runtime", "controller_runtime", []],
  ["kube-runtime", "kube_rs", ["typed"]],
];
for (const [name, program, variant] of programs) {
  const build = await buildNative(program, log);
  if ("unavailable" in build) log(`${name} not run: ${build.unavailable}`);
  else {
    log(`${name}: ${build.cached ? "cached" : `built in ${build.seconds} s`}`);
    contenders.push({
      name,
      command: build.command,
      args: [...build.args, ...variant],
    });
  }
}

async function run(
  c: (typeof contenders)[number],
  row: Row,
): Promise<ReconcileOutcome> {
  const task = JSON.stringify({ ...row, server: "-", timeoutMs: 110_000 });
  const { code, stdout, stderr } = await new Deno.Command(c.command, {
    args: [...c.args, task],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const line = new TextDecoder().decode(stdout).split("\n")
    .find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined) {
    throw new Error(
      `${c.name} ${row.workload}: exit code ${code}: ${
        new TextDecoder().decode(stderr).trim().slice(-300)
      }`,
    );
  }
  return JSON.parse(line.slice("RESULT ".length));
}

const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const cells: Record<string, Record<string, string>> = {};
for (const [label, row] of Object.entries(ROWS)) {
  cells[label] = {};
  for (const c of contenders) {
    if (label === "queue" && c.name === "kube-runtime" && !kubeRsQueue) {
      cells[label][c.name] = "not run (add --kube-rs-queue)";
      continue;
    }
    const outs: ReconcileOutcome[] = [];
    for (let r = 0; r < repeats; r++) {
      try {
        outs.push(await run(c, row));
      } catch (error) {
        log(String(error));
      }
    }
    cells[label][c.name] = outs.length === 0
      ? "failed"
      : label === "queueHeap"
      ? `${median(outs.map((o) => o.heapPerKey!)).toFixed(0)} B/key`
      : label === "dedup"
      ? `${
        median(outs.map((o) => o.reconciles! / o.keys!)).toFixed(2)
      } per key, ${median(outs.map((o) => o.elapsedMs!)).toFixed(0)} ms`
      : `${median(outs.map((o) => o.elapsedMs!)).toFixed(0)} ms, ${
        median(outs.map((o) => o.reconciles!))
      } reconciles`;
    log(`${label} ${c.name}: ${cells[label][c.name]}`);
  }
}
const names = contenders.map((c) => c.name);
console.log(`| row | ${names.join(" | ")} |`);
console.log(`| --- | ${names.map(() => "---:").join(" | ")} |`);
for (const label of Object.keys(ROWS)) {
  console.log(
    `| ${label} | ${names.map((n) => cells[label][n]).join(" | ")} |`,
  );
}
console.log(
  `\n${repeats} fresh processes per cell, median; load average ${
    Deno.loadavg().map((l) => l.toFixed(2)).join(" ")
  }`,
);
