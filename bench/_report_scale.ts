/**
 * The scale section of the report: the initial-sync and retained-heap curve
 * of metadata-only objects to 1M (and of full objects, from the main sync
 * runs, to 100k), and ten watchers of one resource with different field
 * selectors, on one client and on one client each.
 *
 * @module
 */

import type { ScaleSeries } from "./_chart.ts";
import { dash, div, median, ms, num, ratio, size } from "./_format.ts";
import type { Report, RunRecord, ScaleConfig, Verdict } from "./_report.ts";

/** Figures of one size of a curve. */
export interface CurvePoint {
  objects: number;
  /** Ours: sync time and retained heap per object (medians). */
  oursMs?: number;
  oursHeapPerObject?: number;
  /** Ours: heap in use after the sync, largest of the runs. */
  oursHeapAfter?: number;
  /** The floor's sync time (median). */
  floorMs?: number;
  /** Why ours failed, when every run of this size failed. */
  oursError?: string;
}

/** Figures of one ten-watchers setup. */
export interface FanoutFigures {
  label: string;
  consumers: number;
  sharedClient: boolean;
  syncMs?: number;
  heapPerPod?: number;
  lists?: number;
  watches?: number;
  listBytes?: number;
  watchBytes?: number;
}

/** Everything the scale section reports. */
export interface ScaleSummary {
  config: ScaleConfig;
  metadataBytesPerObject?: number;
  fullBytesPerObject?: number;
  metadata: CurvePoint[];
  full: CurvePoint[];
  fanout: FanoutFigures[];
}

/** The flatness bound of the per-object cost from 10k to the largest size. */
const FLAT = 1.25;
/** The sync time and heap targets of the metadata-only curve. */
const TARGET_MS = 60_000;

function point(
  objects: number,
  all: RunRecord[],
  ours: string,
  floor: string,
): CurvePoint {
  const ok = all.filter((r) => r.outcome !== undefined && !r.error);
  const oursRuns = ok.filter((r) => r.contender === "ours" && r.label === ours);
  const heaps = oursRuns.map((r) => r.outcome!.heapPerObject).filter((
    v,
  ): v is number => v !== undefined);
  const failed = all.filter((r) =>
    r.contender === "ours" && r.label === ours && r.error
  );
  return {
    objects,
    oursMs: median(oursRuns.map((r) => r.outcome!.syncMs!)),
    oursHeapPerObject: median(heaps),
    oursHeapAfter: oursRuns.length
      ? Math.max(...oursRuns.map((r) => r.outcome!.heapAfter ?? 0))
      : undefined,
    floorMs: median(
      ok.filter((r) => r.contender === "floor" && r.label === floor).map((r) =>
        r.outcome!.syncMs!
      ),
    ),
    oursError: oursRuns.length === 0 && failed.length > 0
      ? failed[0].error
      : undefined,
  };
}

/**
 * The ten-watchers setups: one watcher (the reference), `consumers` on one
 * client, and `consumers` on one client each.
 */
export function fanoutSetups(
  consumers: number,
): { label: string; consumers: number; sharedClient: boolean }[] {
  return [
    { label: "fanout one", consumers: 1, sharedClient: true },
    {
      label: `fanout ${consumers} on one client`,
      consumers,
      sharedClient: true,
    },
    {
      label: `fanout ${consumers} on one client each`,
      consumers,
      sharedClient: false,
    },
  ];
}

/** Aggregates the scale runs; undefined when the section did not run. */
export function scaleSummary(report: Report): ScaleSummary | undefined {
  const config = report.config.scale;
  if (config === undefined) return undefined;
  const runs = report.runs;
  return {
    config,
    metadataBytesPerObject: report.server.metadataBytesPerObject,
    fullBytesPerObject: report.server.bytesPerObject,
    metadata: config.metadataSizes.map((n) =>
      point(n, runs, `scale metadata ${n}`, `scale metadata ${n}`)
    ),
    full: report.config.sizes.map((n) =>
      point(n, runs, `sync ${n}`, `sync ${n}`)
    ),
    fanout: fanoutSetups(config.fanoutConsumers).map((setup) => {
      const { label } = setup;
      // Ours only: the peers' sharing is in the side-by-side section.
      const ok = runs.filter((r) =>
        r.contender === "ours" && r.label === label &&
        r.outcome !== undefined && !r.error
      );
      const server = ok[0]?.server;
      return {
        ...setup,
        syncMs: median(ok.map((r) => r.outcome!.syncMs!)),
        heapPerPod: median(ok.map((r) => r.outcome!.heapPerObject!)),
        lists: server?.lists,
        watches: server?.watches,
        listBytes: server?.listBytes,
        watchBytes: server?.watchBytes,
      };
    }),
  };
}

/** Per-object cost at the largest size against 10k, time and heap. */
function flatness(curve: CurvePoint[]): {
  from?: CurvePoint;
  to?: CurvePoint;
  time?: number;
  heap?: number;
} {
  const from = curve.find((p) => p.objects === 10_000);
  const to = [...curve].reverse().find((p) => p.oursMs !== undefined);
  if (!from || !to || to === from) return {};
  return {
    from,
    to,
    time: div(
      div(to.oursMs, to.objects),
      div(from.oursMs, from.objects),
    ),
    heap: div(to.oursHeapPerObject, from.oursHeapPerObject),
  };
}

/** The scale targets of the issue and how they went. */
export function scaleVerdicts(s: ScaleSummary): Verdict[] {
  const largest = s.metadata[s.metadata.length - 1];
  const mib = (bytes?: number) =>
    bytes === undefined ? dash : `${num(bytes / 2 ** 20)} MiB`;
  const flat = flatness(s.metadata);
  const one = s.fanout[0];
  const shared = s.fanout[1];
  const heapVsOne = div(shared.heapPerPod, one.heapPerPod);
  return [
    {
      target: `${
        num(largest.objects)
      } metadata-only objects synced in < 60 s within a ${
        num(s.config.heapLimitMiB / 1024)
      } GB heap`,
      measured: largest.oursError
        ? `failed: ${largest.oursError}`
        : `${ms(largest.oursMs)}, ${
          mib(largest.oursHeapAfter)
        } heap in use after the sync`,
      met: largest.oursError
        ? false
        : largest.oursMs === undefined
        ? undefined
        : largest.oursMs < TARGET_MS,
    },
    {
      target: `Metadata-only cost per object flat from 10k to ${
        size(largest.objects)
      } (within ${FLAT}x)`,
      measured: `time per object ${ratio(flat.time)}, heap per object ${
        ratio(flat.heap)
      }`,
      met: flat.time === undefined || flat.heap === undefined
        ? undefined
        : flat.time <= FLAT && flat.heap <= FLAT,
    },
    {
      target:
        `${s.config.fanoutConsumers} watchers on one client cost one LIST+WATCH and ≤ 1.5x the heap of one`,
      measured: `${shared.lists ?? dash} list and ${
        shared.watches ?? dash
      } watch requests (one watcher: ${one.lists ?? dash} and ${
        one.watches ?? dash
      }); heap ${ratio(heapVsOne)} of one`,
      met: shared.lists === undefined || heapVsOne === undefined
        ? undefined
        : shared.lists === one.lists && shared.watches === one.watches &&
          heapVsOne <= 1.5,
    },
  ];
}

/** The Markdown of the scale section. */
export function scaleMarkdown(s: ScaleSummary): string[] {
  const lines: string[] = [];
  const p = (t = "") => lines.push(t);
  const c = s.config;
  p("## Scale");
  p();
  p(
    `Measured ${c.measuredAt} (load average at start ${
      c.loadAverageAtStart.map((v) => v.toFixed(2)).join(" ")
    }), in ${c.seconds} s.`,
  );
  p();
  p("### Metadata-only objects");
  p();
  p(
    `Pods in the metadata-only form (\`PartialObjectMetadataList\` pages of \`PartialObjectMetadata\`, as the API server answers \`Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1\`): ${
      num(s.metadataBytesPerObject)
    } bytes of JSON each on the wire against ${
      num(s.fullBytesPerObject)
    } for the full pod, labels, annotations, ownerReferences and managedFields included. Ours drops \`managedFields\` (\`ignoreFields\`) as in every run here and ran with \`--max-old-space-size=${c.heapLimitMiB}\`; the floor parses each page and keeps nothing. ${
      c.nativeMetadataOnly
        ? "Ours uses the Watcher's `metadataOnly: true`."
        : "The Watcher has no `metadataOnly` yet: ours is handed a client that asks for the metadata-only form on its behalf (`bench/_metadata_only.ts`), so these figures are the current full-object path fed metadata-only bytes."
    } The server stamps each page from a template, so a million objects cost it no memory.`,
  );
  p();
  p(
    "| Objects | Ours sync | Ours µs/object | Ours heap/object | Floor sync | Floor µs/object | Ours vs floor | Ours per object vs 10k (time / heap) |",
  );
  p("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const ten = s.metadata.find((x) => x.objects === 10_000);
  for (const x of s.metadata) {
    const us = div(x.oursMs, x.objects / 1000);
    const floorUs = div(x.floorMs, x.objects / 1000);
    const vsTen = ten && x !== ten
      ? `${ratio(div(us, div(ten.oursMs, ten.objects / 1000)))} / ${
        ratio(div(x.oursHeapPerObject, ten.oursHeapPerObject))
      }`
      : dash;
    p(
      `| ${size(x.objects)} | ${
        x.oursError ? `failed: ${x.oursError}` : ms(x.oursMs)
      } | ${num(us, 1)} | ${num(x.oursHeapPerObject)} B | ${ms(x.floorMs)} | ${
        num(floorUs, 1)
      } | ${ratio(div(x.oursMs, x.floorMs))} | ${vsTen} |`,
    );
  }
  p();
  p("### Full objects");
  p();
  p(
    "The sync runs of the main section (ours with `managedFields` ignored, heap measured at every size).",
  );
  p();
  p(
    "| Objects | Ours sync | Ours µs/object | Ours heap/object | Floor sync | Ours vs floor |",
  );
  p("| ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const x of s.full) {
    p(
      `| ${size(x.objects)} | ${ms(x.oursMs)} | ${
        num(div(x.oursMs, x.objects / 1000), 1)
      } | ${num(x.oursHeapPerObject)} B | ${ms(x.floorMs)} | ${
        ratio(div(x.oursMs, x.floorMs))
      } |`,
    );
  }
  p();
  p(`### ${c.fanoutConsumers} watchers of one resource`);
  p();
  p(
    `${
      num(c.fanoutObjects)
    } full pods; each watcher has its own client-side field selector \`spec.nodeName!=node-NN\` (each keeps all but one node's pods: 98 % of them), indexed by namespace and name. Requests and bytes as the server counted them; heap after forced GCs, per pod of the data set. On one client the watchers ask for the same objects in the same form, so a Watcher that shares one watch among its consumers serves them with one LIST+WATCH; on one client each they never share.`,
  );
  p();
  p(
    "| Setup | Sync (all) | LIST requests | WATCH requests | Bytes received | Heap per pod | Heap vs one |",
  );
  p("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  const one = s.fanout[0];
  for (const f of s.fanout) {
    const bytes = f.listBytes === undefined
      ? undefined
      : f.listBytes + (f.watchBytes ?? 0);
    p(
      `| ${f.consumers} watcher${f.consumers > 1 ? "s" : ""}${
        f.consumers > 1
          ? f.sharedClient ? ", one client" : ", one client each"
          : ""
      } | ${ms(f.syncMs)} | ${f.lists ?? dash} | ${f.watches ?? dash} | ${
        bytes === undefined ? dash : `${num(bytes / 2 ** 20, 1)} MiB`
      } | ${num(f.heapPerPod)} B | ${
        ratio(div(f.heapPerPod, one.heapPerPod))
      } |`,
    );
  }
  p();
  return lines;
}

/** The scale curves for the chart. */
export function scaleChartSeries(s: ScaleSummary): ScaleSeries[] {
  const series = (
    label: string,
    color: string,
    curve: CurvePoint[],
    floor = false,
  ): ScaleSeries => ({
    label,
    color,
    syncMs: new Map(
      curve.flatMap((x) => {
        const v = floor ? x.floorMs : x.oursMs;
        return v === undefined ? [] : [[x.objects, v] as [number, number]];
      }),
    ),
    heapPerObject: new Map(
      floor
        ? []
        : curve.flatMap((x) =>
          x.oursHeapPerObject === undefined
            ? []
            : [[x.objects, x.oursHeapPerObject] as [number, number]]
        ),
    ),
  });
  return [
    series("ours, metadata-only", "#2563eb", s.metadata),
    series("ours, full objects", "#93c5fd", s.full),
    series("floor, metadata-only", "#6b7280", s.metadata, true),
  ];
}
