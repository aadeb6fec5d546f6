/**
 * What the soak records and how `bench/SOAK.md` words it: the samples, the
 * least-squares slope of heap per object over the second half (with its
 * standard error, which decides whether it may be called flat), the
 * relists and reconnects, and the check of every store against a fresh
 * LIST.
 *
 * @module
 */

import { PODS_PER_NAMESPACE } from "./_pods.ts";

/** One heap sample, taken after a forced GC. */
export interface SoakSample {
  /** Seconds since the watchers synced (the churn runs from before). */
  t: number;
  heapUsed: number;
  /** (heap − the heap before the watchers started) / objects on the server. */
  heapPerObject: number;
  rss: number;
  /** Pods on the server. */
  objects: number;
  /** Per watcher: objects in its store, events, relists, reconnects. */
  stored: number[];
  events: number[];
  relists: number[];
  reconnects: number[];
}

/** One watcher's store against the fresh LIST at the end. */
export interface SoakCheck {
  watcher: string;
  expected: number;
  stored: number;
  /** Listed but not stored. */
  missing: number;
  /** Stored but not listed. */
  ghost: number;
  /** Stored at another resourceVersion than listed. */
  stale: number;
  relists: number;
  reconnects: number;
  events: number;
  batches: number;
  /** Consumers of its stream (0: not shared). */
  shared: number;
}

/** A soak run, as saved and rendered. */
export interface SoakResults {
  date: string;
  deno: string;
  v8: string;
  server: string;
  minutes: number;
  pods: number;
  /** Server writes per second. */
  rate: number;
  sampleEverySec: number;
  dropEverySec: number;
  compactEverySec: number;
  syncMs: number;
  /** From the churn's pause until every watcher held the last version. */
  caughtUpMs: number;
  baselineHeap: number;
  finalVersion: number;
  samples: SoakSample[];
  faults: { t: number; kind: "drop" | "compact" }[];
  checks: SoakCheck[];
  serverStats: Record<string, unknown>;
  /** What the objects are, when not the bench pods. */
  objectsLabel?: string;
  /** How the churn and the faults were made, when not on the fake server. */
  churnLabel?: string;
  faultsLabel?: string;
  /** The third watcher's field selector. */
  selector?: string;
}

/** Least squares of y on x: slope, its standard error, intercept. */
export function fitLine(
  points: [number, number][],
): { slope: number; stderr: number; intercept: number } {
  const n = points.length;
  if (n < 3) return { slope: NaN, stderr: NaN, intercept: NaN };
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const [x, y] of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  let sse = 0;
  for (const [x, y] of points) sse += (y - (intercept + slope * x)) ** 2;
  const stderr = Math.sqrt(sse / (n - 2) / sxx);
  return { slope, stderr, intercept };
}

/** The second half's trend of heap per object, per hour. */
export interface SoakTrend {
  samples: number;
  mean: number;
  min: number;
  max: number;
  /** Bytes per object per hour. */
  slope: number;
  stderr: number;
  /** Within two standard errors of zero. */
  flat: boolean;
}

/**
 * Whether a relist was under way when the sample was taken: a compaction
 * came before it whose relist had not ended (each compaction makes every
 * loop relist once, counted when the relist ends). Such a sample holds the
 * staged list beside the store, which is no measure of what is kept.
 */
export function relisting(results: SoakResults, sample: SoakSample): boolean {
  const compactions =
    results.faults.filter((f) => f.kind === "compact" && f.t <= sample.t)
      .length;
  return Math.min(...sample.relists) < compactions;
}

/**
 * The trend of heap per object over the second half of the run, from the
 * samples taken outside a relist.
 */
export function secondHalfTrend(results: SoakResults): SoakTrend {
  const half = results.minutes * 30;
  const points = results.samples
    .filter((s) => s.t >= half && !relisting(results, s))
    .map((s) => [s.t / 3600, s.heapPerObject] as [number, number]);
  const { slope, stderr } = fitLine(points);
  const ys = points.map((p) => p[1]);
  return {
    samples: points.length,
    mean: ys.reduce((a, b) => a + b, 0) / ys.length,
    min: Math.min(...ys),
    max: Math.max(...ys),
    slope,
    stderr,
    flat: Math.abs(slope) <= 2 * stderr,
  };
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

function signed(v: number, digits = 0): string {
  return `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(digits)}`;
}

/** The words of the trend, as the report and the final message say it. */
export function trendWords(trend: SoakTrend): string {
  const perHour = `${signed(trend.slope)} ± ${
    trend.stderr.toFixed(0)
  } B/object/hour`;
  const relative = `${signed(trend.slope / trend.mean * 100, 2)} %/hour`;
  return trend.flat
    ? `flat: ${perHour} (${relative}), within two standard errors of zero`
    : `not flat: ${perHour} (${relative}), more than two standard errors from zero`;
}

/**
 * When the step of the stores' hash tables is over, in seconds from the
 * start: a namespace's table of 100 doubles at its 29th replacement (a
 * DELETED, then an ADDED into the same namespace; one write in ten each),
 * and 1.75 times the mean time is past it for all of 1,000 namespaces
 * (Poisson: at the mean plus 3.4 standard deviations).
 */
function stepOverSec(results: SoakResults): number {
  const namespaces = results.pods / PODS_PER_NAMESPACE;
  const perNamespacePerSec = results.rate / 10 / namespaces;
  return 1.75 * 29 / perNamespacePerSec;
}

/**
 * What the first half is for: heap steps up there once, as each store's
 * per-namespace hash tables reach the capacity churn keeps them at (room
 * for the entries deleted since the last rehash); the second half shows
 * what is kept after that, if it starts after it.
 */
function firstHalfWords(results: SoakResults, trend: SoakTrend): string {
  const change = trend.mean - results.samples[0].heapPerObject;
  const over = stepOverSec(results);
  const before = over <= results.minutes * 30;
  const step =
    `Heap per object changed by ${
      signed(change)
    } B from the first sample to the second half's average. ` +
    "A store under churn steps up once: each of its per-namespace hash tables keeps room for " +
    "the entries deleted since it last rehashed, so a table of 100 doubles its capacity at the " +
    "29th replacement in its namespace and stays there (`bench/store_churn_memory.ts`: +71 B/object " +
    "for one store, then flat; the soak has two, the selector's of half the pods). " +
    `At ${results.rate} writes/s that is over by about ${
      (over / 60).toFixed(0)
    } minutes, ${before ? "before" : "after"} the second half starts. `;
  if (trend.flat) {
    return step +
      (before
        ? "After it, the fit finds nothing more kept (within two standard errors)."
        : "The fit is flat even so.");
  }
  return step +
    (before
      ? "After it, the process still keeps more as the run goes on " +
        '(bench/ANALYSIS.md, "The soak\'s slope").'
      : "The second half's slope is that step still under way, or more " +
        '(bench/ANALYSIS.md, "The soak\'s slope").');
}

/** `bench/SOAK.md`. */
export function renderSoakReport(results: SoakResults, svg: string): string {
  const trend = secondHalfTrend(results);
  const clean = results.checks.every((c) =>
    c.missing === 0 && c.ghost === 0 && c.stale === 0
  );
  const last = results.samples[results.samples.length - 1];
  const drops = results.faults.filter((f) => f.kind === "drop").length;
  const compactions = results.faults.filter((f) => f.kind === "compact")
    .length;
  const objects = results.objectsLabel ?? "Pods (bench/_pods.ts, ~3.3 KB)";
  const lines: string[] = [];
  lines.push(
    `# Soak: ${results.minutes} minutes at ${
      results.pods.toLocaleString("en")
    } objects`,
    "",
    "Written by `deno task soak` (`bench/soak.ts`); " +
      `run ${
        results.date.slice(0, 16).replace("T", " ")
      } UTC, Deno ${results.deno} (V8 ${results.v8}).`,
    "",
    `- **Objects**: ${
      results.pods.toLocaleString("en")
    } ${objects}, on ${results.server}.`,
    `- **Churn**: ${results.rate} writes/s (of every ten: 8 MODIFIED, 1 ADDED, 1 DELETED; ${
      results.churnLabel ??
        "three MODIFIED in eight flip `status.phase` between Running and Pending; the data keeps its shape: " +
          "every pod carries from its creation the annotation each MODIFIED rewrites (a fixed-width value), " +
          "half start Pending so the selector's share stays near half, and an ADDED pod (a new name) " +
          "goes into the namespace of the pod deleted last"
    }), ${
      Number(results.serverStats.writes).toLocaleString("en")
    } writes in all.`,
    `- **Faults**: ${
      results.faultsLabel ??
        `every watch dropped (ended cleanly) every ${results.dropEverySec} s (${drops} times); every ${results.compactEverySec} s the watches dropped, one write landed and the history was compacted, so every resume got 410 Expired (${compactions} times)`
    }.`,
    "- **Watchers**, on one client: two of one form (indexed by namespace and name, " +
      "`metadata.managedFields` ignored), which share one stream and store, and one with the " +
      `client-side field selector \`${
        results.selector ?? "status.phase=Running"
      }\` (a view of its own on the same stream).`,
    `- **Heap**: \`heapUsed\` after two forced GCs (\`--v8-flags=--expose-gc\`) every ${results.sampleEverySec} s, ` +
      `less the ${
        mib(results.baselineHeap)
      } MiB before the watchers started, per object on the server.`,
    "",
    "## Verdict",
    "",
    `- **Stores against a fresh LIST**: ${clean ? "met" : "missed"}: ${
      results.checks.map((c) =>
        `${c.watcher}: ${c.missing} missing, ${c.ghost} ghost, ${c.stale} stale of ${c.expected}`
      ).join("; ")
    } (every watcher held resourceVersion ${results.finalVersion} ${
      (results.caughtUpMs / 1000).toFixed(1)
    } s after the churn paused).`,
    `- **Heap per object over the second half** (${trend.samples} samples outside a relist, ${
      trend.mean.toFixed(0)
    } B/object on average, ${trend.min.toFixed(0)}–${trend.max.toFixed(0)}): ${
      trend.flat ? "met" : "missed"
    }: ${trendWords(trend)}.`,
    `- Initial sync of the three watchers: ${
      (results.syncMs / 1000).toFixed(1)
    } s; final heap ${mib(last.heapUsed)} MiB, RSS ${mib(last.rss)} MiB.`,
    ...(results.objectsLabel === undefined
      ? ["", firstHalfWords(results, trend)]
      : []),
    "",
    `![heap per object over the soak](${svg})`,
    "",
    "## Relists and reconnects",
    "",
    "| watcher | shares its stream with | events | batches | relists | reconnects | stored at the end |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const c of results.checks) {
    lines.push(
      `| ${c.watcher} | ${
        c.shared > 1 ? `${c.shared - 1} other(s)` : "none"
      } | ${c.events.toLocaleString("en")} | ${
        c.batches.toLocaleString("en")
      } | ${c.relists} | ${c.reconnects} | ${c.stored.toLocaleString("en")} |`,
    );
  }
  lines.push(
    "",
    (results.serverStats.listPages === undefined
      ? ""
      : `The server answered ${results.serverStats.listPages} list pages and ${results.serverStats.watchRequests} watch requests. `) +
      "A relist follows each compaction; a reconnect follows each drop (and each watch the server timed out).",
    "",
    "## Samples",
    "",
    "| t (min) | heap (MiB) | heap per object (B) | RSS (MiB) | objects | events (A/B/selector) | relists | reconnects | since the last sample |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  );
  let previous = -Infinity;
  for (const s of results.samples) {
    const since = results.faults.filter((f) => f.t > previous && f.t <= s.t)
      .map((f) => f.kind).join(", ");
    const note = relisting(results, s) ? "relist under way" : "";
    previous = s.t;
    lines.push(
      `| ${(s.t / 60).toFixed(1)} | ${mib(s.heapUsed)} | ${
        s.heapPerObject.toFixed(0)
      } | ${mib(s.rss)} | ${s.objects.toLocaleString("en")} | ${
        s.events.map((e) => e.toLocaleString("en")).join(" / ")
      } | ${s.relists.join("/")} | ${s.reconnects.join("/")} | ${
        [since, note].filter((x) => x).join("; ")
      } |`,
    );
  }
  lines.push(
    "",
    "Run it: `deno task soak` (an hour; `--minutes N` to shorten, `--pods`, `--rate`); " +
      "`deno task soak --render <results.json>` writes this page again from a run's saved results.",
    "",
  );
  return lines.join("\n");
}
