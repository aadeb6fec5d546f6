/**
 * The reconcile rows beside the peers, measured and rendered: ours
 * (`WorkQueue`, and a `Controller` for the latency row;
 * `_contender_reconcile.ts`), client-go v0.37.2 (`workqueue`, with an
 * informer for the latency row), controller-runtime v0.25.3's controller
 * and kube-runtime 5.0.0's `Controller` (built by `_native.ts`), each cell
 * in fresh processes with the same task (`_reconcile_task.ts`), against the
 * bench server for the latency row. `compare.ts` runs them as a section of
 * RESULTS.md; `reconcile.ts` (`deno task bench:reconcile`) alone.
 *
 * @module
 */

import { buildNative, type NativeContender } from "./_native.ts";
import type { ReconcileOutcome, ReconcileTask } from "./_reconcile_task.ts";
import { setScenario } from "./_protocol.ts";
import { median, ms, num, quantile } from "./_format.ts";

/** The rows, in the order they run and print. */
export type ReconcileRowName = "queue" | "latency" | "dedup" | "queueHeap";

type Row = Omit<ReconcileTask, "server" | "timeoutMs">;

/** The reconcile contenders, in column order. */
export const RECONCILE_CONTENDERS = [
  "ours",
  "client-go",
  "controller-runtime",
  "kube-runtime",
] as const;
/** A reconcile contender's name. */
export type ReconcileContender = (typeof RECONCILE_CONTENDERS)[number];

const PROGRAMS: Record<
  Exclude<ReconcileContender, "ours">,
  { program: NativeContender["program"]; args: string[] }
> = {
  "client-go": { program: "client_go", args: ["typed"] },
  "controller-runtime": { program: "controller_runtime", args: [] },
  "kube-runtime": { program: "kube_rs", args: ["typed"] },
};

/** One contender process of the section. */
export interface ReconcileRun {
  contender: ReconcileContender;
  row: ReconcileRowName;
  repeat: number;
  /** The outcome, latencies replaced by their quantiles. */
  outcome?: Omit<ReconcileOutcome, "latencies"> & { latency?: Quantiles };
  error?: string;
  wallMs: number;
}

/** Quantiles of one run's latencies (ms). */
export interface Quantiles {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The reconcile section of a report. */
export interface ReconcileSection {
  measuredAt: string;
  loadAverageAtStart: number[];
  loadAverageAtEnd: number[];
  seconds: number;
  repeats: number;
  rows: Record<ReconcileRowName, Row>;
  /** Why a contender was not run, by name (absent: it ran). */
  notRun: Partial<Record<ReconcileContender, string>>;
  /** Cells left out on purpose, and why (`row contender`). */
  skipped: Record<string, string>;
  runs: ReconcileRun[];
}

/** What the section needs to know. */
export interface ReconcileSetup {
  /** The bench server, serving `floodObjects` pods and its stamped flood. */
  server: string;
  floodObjects: number;
  floodEvents: number;
  repeats: number;
  /** Run the built peers (else ours only). */
  peers: boolean;
  /** Also run kube-runtime on the 1M-add queue row (878 s once here). */
  kubeRsQueue: boolean;
  log: (message: string) => void;
}

const RUN_TIMEOUT_MS = 180_000;
/** kube-runtime's 1M-add queue cell (`--kube-rs-queue`) took 878 s and 1 191 s. */
const KUBE_RS_QUEUE_TIMEOUT_MS = 1_800_000;

/** The rows' tasks for a flood of `floodEvents` events. */
export function reconcileRows(
  floodObjects: number,
  floodEvents: number,
): Record<ReconcileRowName, Row> {
  return {
    queue: { workload: "queue", keys: 10_000, adds: 1_000_000, workers: 8 },
    latency: {
      workload: "reconcileLatency",
      objects: floodObjects,
      events: floodEvents,
      workers: 8,
    },
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
}

/** Runs every cell `repeats` times, interleaving the contenders. */
export async function measureReconcile(
  setup: ReconcileSetup,
): Promise<ReconcileSection> {
  const started = performance.now();
  const section: ReconcileSection = {
    measuredAt: new Date().toISOString(),
    loadAverageAtStart: Deno.loadavg(),
    loadAverageAtEnd: [],
    seconds: 0,
    repeats: setup.repeats,
    rows: reconcileRows(setup.floodObjects, setup.floodEvents),
    notRun: {},
    skipped: {},
    runs: [],
  };
  const commands = new Map<ReconcileContender, [string, string[]]>([[
    "ours",
    [Deno.execPath(), [
      "run",
      "--no-lock",
      "--allow-all",
      "--v8-flags=--expose-gc",
      new URL("_contender_reconcile.ts", import.meta.url).pathname,
    ]],
  ]]);
  for (const [name, { program, args }] of Object.entries(PROGRAMS)) {
    const contender = name as ReconcileContender;
    if (!setup.peers) {
      section.notRun[contender] = "no built peers asked for (--no-native)";
      continue;
    }
    const build = await buildNative(program, setup.log);
    if ("unavailable" in build) {
      section.notRun[contender] = build.unavailable;
      setup.log(`reconcile: ${name} not run: ${build.unavailable}`);
    } else commands.set(contender, [build.command, [...build.args, ...args]]);
  }
  if (!setup.kubeRsQueue) {
    section.skipped["queue kube-runtime"] =
      "its adds can only enter through a `reconcile_on` stream, which paced 1M adds to 878 s on one machine and 1 191 s on another (add --kube-rs-queue)";
  }
  for (const [row, task] of Object.entries(section.rows)) {
    for (let r = 0; r < setup.repeats; r++) {
      for (const [contender, [command, args]] of commands) {
        if (section.skipped[`${row} ${contender}`] !== undefined) continue;
        if (task.workload === "reconcileLatency") {
          await setScenario(setup.server, {
            objects: setup.floodObjects,
            watch: "stampedFlood",
          });
        }
        const timeoutMs = row === "queue" && contender === "kube-runtime"
          ? KUBE_RS_QUEUE_TIMEOUT_MS
          : RUN_TIMEOUT_MS;
        const run = await runOne(command, args, {
          ...task,
          server: setup.server,
          timeoutMs: timeoutMs - 10_000,
        }, timeoutMs);
        section.runs.push({
          contender,
          row: row as ReconcileRowName,
          repeat: r,
          ...run,
        });
        setup.log(
          `reconcile ${row} #${r + 1} ${contender}: ${
            run.error ? `FAILED: ${run.error}` : cellOf([run], row)
          }`,
        );
      }
    }
  }
  section.loadAverageAtEnd = Deno.loadavg();
  section.seconds = Math.round((performance.now() - started) / 100) / 10;
  return section;
}

async function runOne(
  command: string,
  args: string[],
  task: ReconcileTask,
  timeoutMs: number,
): Promise<Pick<ReconcileRun, "outcome" | "error" | "wallMs">> {
  const t0 = performance.now();
  try {
    const { code, stdout, stderr } = await new Deno.Command(command, {
      args: [...args, JSON.stringify(task)],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(timeoutMs),
    }).output();
    const line = new TextDecoder().decode(stdout).split("\n")
      .find((l) => l.startsWith("RESULT "));
    if (code !== 0 || line === undefined) {
      throw new Error(
        `exit code ${code}: ${
          new TextDecoder().decode(stderr).trim().slice(-300)
        }`,
      );
    }
    const { latencies, ...rest } = JSON.parse(
      line.slice("RESULT ".length),
    ) as ReconcileOutcome;
    return {
      outcome: {
        ...rest,
        latency: latencies === undefined ? undefined : quantiles(latencies),
      },
      wallMs: performance.now() - t0,
    };
  } catch (error) {
    return {
      error: error instanceof Error ? error.message : String(error),
      wallMs: performance.now() - t0,
    };
  }
}

function quantiles(values: number[]): Quantiles {
  const round = (v: number | undefined) => Math.round((v ?? NaN) * 1000) / 1000;
  return {
    n: values.length,
    p50: round(quantile(values, 0.5)),
    p90: round(quantile(values, 0.9)),
    p99: round(quantile(values, 0.99)),
    max: round(Math.max(...values)),
  };
}

/** A cell: the medians over `runs` (of one row and contender). */
function cellOf(runs: Pick<ReconcileRun, "outcome">[], row: string): string {
  const outs = runs.flatMap((r) => r.outcome ? [r.outcome] : []);
  if (outs.length === 0) return "failed";
  const m = (f: (o: (typeof outs)[number]) => number | undefined) =>
    median(outs.flatMap((o) => f(o) ?? []));
  const spread = (
    f: (o: (typeof outs)[number]) => number | undefined,
    digits = 0,
    what = "",
  ) => {
    const xs = outs.flatMap((o) => f(o) ?? []);
    return xs.length < 2
      ? ""
      : ` (${what}${Math.min(...xs).toFixed(digits)}–${
        Math.max(...xs).toFixed(digits)
      })`;
  };
  switch (row) {
    case "queue":
      return `${m((o) => o.elapsedMs)!.toFixed(0)} ms${
        spread((o) => o.elapsedMs)
      }, ${num(m((o) => o.reconciles))} reconciles`;
    case "latency":
      return `${ms(m((o) => o.latency?.p50))} / ${
        ms(m((o) => o.latency?.p99))
      }${spread((o) => o.latency?.p50, 0, "p50 ")}, ${
        num(m((o) => o.reconciles))
      } reconciles`;
    case "dedup":
      return `${m((o) => o.reconciles! / o.keys!)!.toFixed(2)} per key${
        spread((o) => o.reconciles! / o.keys!, 2)
      }, ${m((o) => o.elapsedMs)!.toFixed(0)} ms`;
    default:
      return `${m((o) => o.heapPerKey)!.toFixed(0)} B/key`;
  }
}

const LABELS: Record<ReconcileRowName, (s: ReconcileSection) => string> = {
  queue: (s) =>
    `Queue: ${num(s.rows.queue.adds)} adds over ${
      num(s.rows.queue.keys)
    } keys, ${s.rows.queue.workers} workers, no-op reconcile (ms to every add covered)`,
  latency: (s) =>
    `Event → reconcile start, p50 / p99, ${
      num(s.rows.latency.events)
    }-event flood over ${
      num(s.rows.latency.objects)
    } pods, ${s.rows.latency.workers} workers`,
  dedup: (s) =>
    `De-duplication: ${
      (s.rows.dedup.bursts ?? 0) + 1
    } rounds of ${s.rows.dedup.keys} keys ${s.rows.dedup.burstGapMs} ms apart, ${s.rows.dedup.reconcileMs} ms reconcile (reconciles per key)`,
  queueHeap: (s) =>
    `Heap: ${num(s.rows.queueHeap.keys)} keys waiting (bytes per key)`,
};

/** The section's table, a Markdown table of medians. */
export function reconcileTable(section: ReconcileSection): string[] {
  const lines = [
    `| Row (median of ${section.repeats} fresh processes) | ${
      RECONCILE_CONTENDERS.join(" | ")
    } |`,
    `| --- | ${RECONCILE_CONTENDERS.map(() => "---:").join(" | ")} |`,
  ];
  for (const row of Object.keys(section.rows) as ReconcileRowName[]) {
    const cells = RECONCILE_CONTENDERS.map((c) => {
      if (section.notRun[c] !== undefined) return "not run";
      if (section.skipped[`${row} ${c}`] !== undefined) return "skipped";
      return cellOf(
        section.runs.filter((r) => r.contender === c && r.row === row),
        row,
      );
    });
    lines.push(`| ${LABELS[row](section)} | ${cells.join(" | ")} |`);
  }
  return lines;
}

/** The section of RESULTS.md. */
export function reconcileMarkdown(section: ReconcileSection): string[] {
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(" ");
  const lines = [
    "## The reconcile layer beside the peers",
    "",
    `Measured ${section.measuredAt.slice(0, 16).replace("T", " ")} UTC in ${
      num(section.seconds)
    } s, load average ${load(section.loadAverageAtStart)} at the start, ${
      load(section.loadAverageAtEnd)
    } at the end. Each cell is the median of fresh processes (the range in brackets); \`bench/_reconcile_rows.ts\` runs them (\`deno task bench:reconcile\` alone). Ours: \`WorkQueue<string>\` with async worker loops, and for the latency row a \`Controller\` of the pods; client-go v0.37.2: \`workqueue\` (rate-limiting, default limiter) with goroutine workers, and a typed Pod informer's \`UpdateFunc\` adding keys for the latency row; controller-runtime v0.25.3: \`controller.NewTypedUnmanaged\` (its default priority queue), a \`source.Informer\` for the latency row; kube-runtime 5.0.0: \`Controller::for_stream\` (\`watcher\` + \`reflect\` for the latency row). The latency of an event is from the bench server handing it over (the stamped flood: each 64 KiB chunk of events carries its send time) to the start of the first reconcile of its key that sees it. ANALYSIS.md has how each is driven and what the figures mean.`,
    "",
    ...reconcileTable(section),
  ];
  const notes = [
    ...Object.entries(section.notRun).map(([c, why]) =>
      `- ${c} not run: ${why}.`
    ),
    ...Object.entries(section.skipped).map(([cell, why]) =>
      `- ${cell} skipped: ${why}.`
    ),
    ...section.runs.filter((r) => r.error).map((r) =>
      `- ${r.row} #${r.repeat + 1} ${r.contender} failed: ${
        r.error!.replaceAll("\n", " ").slice(0, 200)
      }`
    ),
  ];
  if (notes.length > 0) lines.push("", ...notes);
  lines.push("");
  return lines;
}
