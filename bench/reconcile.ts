/**
 * The reconcile rows beside the peers, alone (`bench:compare` runs them as
 * a section of RESULTS.md): ours, client-go's `workqueue`,
 * controller-runtime's controller and kube-runtime's `Controller`, each
 * cell in fresh processes (`_reconcile_rows.ts`), against a bench server
 * of their own for the latency row; prints a Markdown table of medians.
 *
 * Run with `deno task bench:reconcile`. Options:
 * - `--repeats N`: fresh processes per cell (default 3).
 * - `--events N`: events in the latency row's flood (default 100k).
 * - `--no-native`: ours only.
 * - `--kube-rs-queue`: also run kube-runtime on the 1M-add queue row,
 *   which took 878 s once here (its `reconcile_on` stream paces the adds).
 *
 * @module
 */

import { measureReconcile, reconcileTable } from "./_reconcile_rows.ts";
import { startBenchServer } from "./_server_process.ts";

const args = [...Deno.args];
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const FLOOD_OBJECTS = 5_000;
const events = option("--events", 100_000);
const log = (msg: string) => console.error(`[reconcile] ${msg}`);

log("starting the bench server (pre-serializing the flood)");
const server = await startBenchServer(FLOOD_OBJECTS, FLOOD_OBJECTS, events);
try {
  const section = await measureReconcile({
    server: server.base,
    floodObjects: FLOOD_OBJECTS,
    floodEvents: events,
    repeats: option("--repeats", 3),
    peers: !args.includes("--no-native"),
    kubeRsQueue: args.includes("--kube-rs-queue"),
    log,
  });
  console.log(reconcileTable(section).join("\n"));
  console.log(
    `\n${section.repeats} fresh processes per cell, median; load average ${
      section.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")
    } at the start, ${
      section.loadAverageAtEnd.map((l) => l.toFixed(2)).join(" ")
    } at the end; ${section.seconds} s`,
  );
  for (const [c, why] of Object.entries(section.notRun)) {
    console.log(`${c} not run: ${why}`);
  }
  for (const r of section.runs.filter((r) => r.error)) {
    console.log(`${r.row} #${r.repeat + 1} ${r.contender} failed: ${r.error}`);
  }
} finally {
  await server.stop();
}
