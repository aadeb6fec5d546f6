/**
 * The side-by-side section of the report: every contender's rows (initial
 * sync with and without `managedFields`, watch flood, memory, the
 * metadata-only form, ten consumers of one resource, and the sync against a
 * real kube-apiserver), ours over each of them, and the targets of the
 * "side by side with the field's leaders" issue with plain verdicts.
 *
 * @module
 */

import type { Task } from "./_contender.ts";
import { dash, div, median, ms, num, ratio, size } from "./_format.ts";
import type { Report, RunRecord, Verdict } from "./_report.ts";

/** The contenders: ours, the floor and the peers. */
export type ContenderName =
  | "ours"
  | "peer"
  | "floor"
  | "client-go"
  | "client-go-dynamic"
  | "kube-rs"
  | "kube-rs-dynamic"
  | "fluent";

/** The compiled peers, in the order their rows are shown. */
export const NATIVE_ORDER: ContenderName[] = [
  "client-go",
  "client-go-dynamic",
  "kube-rs",
  "kube-rs-dynamic",
  "fluent",
];

/** Display names. */
export const NAMES: Record<ContenderName, string> = {
  ours: "ours (Watcher)",
  peer: "client-node 2.0.1 informer",
  floor: "raw floor",
  "client-go": "client-go 0.37.2 informer (typed Pod)",
  "client-go-dynamic": "client-go 0.37.2 informer (unstructured)",
  "kube-rs": "kube-rs 5.0.0 reflector (typed Pod)",
  "kube-rs-dynamic": "kube-rs 5.0.0 reflector (DynamicObject)",
  fluent: "kubernetes-fluent-client 3.11.11 Watch (Node 22, all fields)",
};

/** The program each compiled peer runs. */
export const PROGRAM: Partial<Record<ContenderName, string>> = {
  "client-go": "client_go",
  "client-go-dynamic": "client_go",
  "kube-rs": "kube_rs",
  "kube-rs-dynamic": "kube_rs",
  fluent: "fluent",
};

/** Those that can drop `managedFields` before their cache. */
export const CAN_DROP_FIELDS: ContenderName[] = [
  "ours",
  "client-go",
  "client-go-dynamic",
  "kube-rs",
  "kube-rs-dynamic",
];

/** Why the others keep `managedFields` in every row. */
const KEEPS_FIELDS: Partial<Record<ContenderName, string>> = {
  peer: "no transform: its cache keeps every field",
  fluent: "no transform: its map keeps every field",
};

/** The built peers with a metadata-only form, run in that row. */
export const METADATA_PEERS: ContenderName[] = ["client-go", "kube-rs"];

/** Why the others have no metadata-only row. */
const NO_METADATA: Partial<Record<ContenderName, string>> = {
  peer:
    "n/a: `makeInformer` takes a path and a list function; its watch asks for full objects only",
  "client-go-dynamic":
    "n/a: the metadata informer is its own kind (`metadatainformer`), in the typed row",
  "kube-rs-dynamic":
    "n/a: `PartialObjectMeta<K>` is its own type, in the typed row",
  fluent: "n/a: `K8s(kind).Watch` asks for full objects only",
};

/** The built peers that share one watch among consumers, run in that row. */
export const FANOUT_PEERS: ContenderName[] = ["client-go", "kube-rs"];

/** Why the others have no ten-consumers row. */
const NO_FANOUT: Partial<Record<ContenderName, string>> = {
  peer:
    "n/a: each informer lists and watches on its own; there is no shared cache to hang ten consumers on",
  "client-go-dynamic": "n/a: shares as the typed row does (one informer)",
  "kube-rs-dynamic": "n/a: shares as the typed row does (one reflector)",
  fluent: "n/a: every `Watch` lists and watches on its own",
};

/** The real-server row's contenders, each with its label and task. */
export const REAL_SERVER_CONTENDERS: {
  contender: ContenderName;
  label: string;
  name: string;
  task: Partial<Task>;
}[] = [
  { contender: "ours", label: "real sync", name: "ours (Watcher)", task: {} },
  {
    contender: "peer",
    label: "real sync",
    name: "client-node 2.0.1 informer (one unpaged LIST)",
    task: {},
  },
  {
    contender: "client-go",
    label: "real sync",
    name: "client-go 0.37.2 informer, streaming list (its default)",
    task: {},
  },
  {
    contender: "client-go",
    label: "real sync paged",
    name: "client-go 0.37.2 informer, paged LIST (WatchListClient off)",
    task: { watchList: false },
  },
  {
    contender: "kube-rs",
    label: "real sync",
    name: "kube-rs 5.0.0 reflector (typed ConfigMap)",
    task: {},
  },
];

/** One contender's figures in one row. */
interface Cell {
  ms?: number;
  heap?: number;
  rss?: number;
  lists?: number;
  watches?: number;
  runs: number;
}

/** Everything the section reports. */
export interface LeaderFigures {
  /** Ours, client-node and the built peers that ran. */
  contenders: ContenderName[];
  big: number;
  heapSize: number;
  fullSizes: number[];
  /** Sync with managedFields dropped where the contender can, by size. */
  sync: Record<string, Record<number, Cell>>;
  /** Sync keeping every field, by size. */
  syncFull: Record<string, Record<number, Cell>>;
  flood: Record<string, number | undefined>;
  floor: {
    syncMs?: number;
    floodEventsPerSec?: number;
    /** The floor keeping its objects in a Map (one run at the heap size). */
    keptInMapSyncMs?: number;
    keptInMapFloodEventsPerSec?: number;
  };
  metadataSize?: number;
  metadata: Record<string, Cell>;
  fanout: Record<string, { one: Cell; ten: Cell }>;
  fanoutConsumers?: number;
  real: { label: string; name: string; contender: ContenderName; cell: Cell }[];
}

function cell(runs: RunRecord[]): Cell {
  const ok = runs.filter((r) => r.outcome !== undefined && !r.error);
  const per = (f: (r: RunRecord) => number | undefined) =>
    median(ok.map(f).filter((v): v is number => v !== undefined));
  return {
    ms: per((r) => r.outcome!.syncMs),
    heap: per((r) => r.outcome!.heapPerObject),
    rss: per((r) =>
      r.outcome!.rssAfter === undefined || !r.outcome!.objects
        ? undefined
        : (r.outcome!.rssAfter - r.outcome!.rssBefore!) / r.outcome!.objects
    ),
    lists: ok[0]?.server?.lists,
    watches: ok[0]?.server?.watches,
    runs: ok.length,
  };
}

/** Aggregates the side-by-side figures from the runs. */
export function leaderFigures(
  report: Report,
  flood: Record<string, { eventsPerSec?: number }>,
): LeaderFigures {
  const { config } = report;
  const runs = report.runs;
  const contenders: ContenderName[] = [
    "ours",
    "peer",
    ...NATIVE_ORDER.filter((c) => runs.some((r) => r.contender === c)),
  ];
  const of = (c: ContenderName, label: string) =>
    runs.filter((r) => r.contender === c && r.label === label);
  const fullSizes = config.fullSizes ?? [];
  const sync: LeaderFigures["sync"] = {};
  const syncFull: LeaderFigures["syncFull"] = {};
  const metadata: LeaderFigures["metadata"] = {};
  const fanout: LeaderFigures["fanout"] = {};
  const consumers = config.scale?.fanoutConsumers;
  const H = config.heapSize;
  for (const c of contenders) {
    sync[c] = {};
    syncFull[c] = {};
    for (const n of config.sizes) sync[c][n] = cell(of(c, `sync ${n}`));
    for (const n of fullSizes) {
      syncFull[c][n] = CAN_DROP_FIELDS.includes(c)
        ? cell(of(c, `sync ${n} full`))
        : sync[c][n];
    }
    // Older reports measured ours with all fields at the heap size only.
    if (c === "ours" && syncFull[c][H] === undefined) {
      const old = of(c, `heap ${H} without ignoreFields`);
      if (old.length > 0) syncFull[c][H] = cell(old);
    }
    if (config.metadataPeerSize !== undefined) {
      metadata[c] = cell(of(c, `scale metadata ${config.metadataPeerSize}`));
    }
    if (consumers !== undefined) {
      fanout[c] = {
        one: cell(of(c, "fanout one")),
        ten: cell(of(c, `fanout ${consumers} on one client`)),
      };
    }
  }
  const big = config.sizes[config.sizes.length - 1];
  return {
    contenders,
    big,
    heapSize: H,
    fullSizes,
    sync,
    syncFull,
    flood: Object.fromEntries(
      contenders.map((c) => [c, flood[c]?.eventsPerSec]),
    ),
    floor: {
      syncMs: cell(of("floor", `sync ${big}`)).ms,
      floodEventsPerSec: flood.floor?.eventsPerSec,
      keptInMapSyncMs: H === big
        ? cell(of("floor", `heap ${H} kept in a Map`)).ms
        : undefined,
      keptInMapFloodEventsPerSec: flood.floorKeptInMap?.eventsPerSec,
    },
    metadataSize: config.metadataPeerSize,
    metadata,
    fanout,
    fanoutConsumers: consumers,
    real: REAL_SERVER_CONTENDERS.filter((c) =>
      runs.some((r) => r.contender === c.contender && r.label === c.label)
    ).map((c) => ({
      label: c.label,
      name: c.name,
      contender: c.contender,
      cell: cell(of(c.contender, c.label)),
    })),
  };
}

/** "12 %" from a ratio above 1: how far a peer is ahead of ours. */
function percent(r: number): string {
  return `${Math.round((r - 1) * 100)} %`;
}

/**
 * Ours against every peer on one figure: met when ours is ahead of all;
 * otherwise the text says which are ahead and by how much.
 */
function aheadOfEvery(
  f: LeaderFigures,
  target: string,
  value: (c: ContenderName) => number | undefined,
  higherIsBetter: boolean,
  show: (v: number | undefined) => string,
): Verdict {
  const ours = value("ours");
  const peers = f.contenders.filter((c) => c !== "ours").map((c) => ({
    c,
    v: value(c),
  })).filter((p) => p.v !== undefined) as { c: ContenderName; v: number }[];
  if (ours === undefined || peers.length === 0) {
    return { target, measured: "not measured", met: undefined };
  }
  const better = (a: number, b: number) => higherIsBetter ? a > b : a < b;
  const ahead = peers.filter((p) => !better(ours, p.v));
  const best = peers.reduce((a, b) => better(a.v, b.v) ? a : b);
  const measured = ahead.length === 0
    ? `ours ${show(ours)}; the best peer, ${NAMES[best.c]}, ${
      show(best.v)
    } (ours ${ratio(ours / best.v)} of it)`
    : `ours ${show(ours)}; ahead of ours: ${
      ahead.map((p) =>
        `${NAMES[p.c]} ${show(p.v)} (by ${
          percent(higherIsBetter ? p.v / ours : ours / p.v)
        })`
      ).join("; ")
    }`;
  return { target, measured, met: ahead.length === 0 };
}

/** The targets of the side-by-side issue. */
export function leaderVerdicts(f: LeaderFigures): Verdict[] {
  const big = f.big;
  const eps = (v: number | undefined) =>
    v === undefined ? dash : `${num(v)} events/s`;
  const bytes = (v: number | undefined) =>
    v === undefined ? dash : `${num(v)} B/object`;
  const floodVsFloor = div(f.flood.ours, f.floor.floodEventsPerSec);
  const syncVsFloor = div(f.sync.ours[big]?.ms, f.floor.syncMs);
  const fullVsFloor = div(f.syncFull.ours?.[big]?.ms, f.floor.syncMs);
  const floodVsKept = div(f.flood.ours, f.floor.keptInMapFloodEventsPerSec);
  const fullVsKept = div(f.syncFull.ours?.[big]?.ms, f.floor.keptInMapSyncMs);
  return [
    aheadOfEvery(
      f,
      `Initial sync of ${
        size(big)
      } ahead of every peer (managedFields dropped where the peer can)`,
      (c) => f.sync[c][big]?.ms,
      false,
      ms,
    ),
    aheadOfEvery(
      f,
      "Watch flood events/s ahead of every peer",
      (c) => f.flood[c],
      true,
      eps,
    ),
    aheadOfEvery(
      f,
      `Memory per object at ${
        size(f.heapSize)
      } ahead of every peer (managedFields dropped; heap after GC)`,
      (c) => f.sync[c][f.heapSize]?.heap,
      false,
      bytes,
    ),
    {
      target: "Watch flood ≥ 0.85x the bare floor's events/s",
      measured: `${ratio(floodVsFloor)} (${eps(f.flood.ours)} vs ${
        eps(f.floor.floodEventsPerSec)
      })${
        floodVsKept === undefined
          ? ""
          : `; against the floor keeping its objects in a Map (${
            eps(f.floor.keptInMapFloodEventsPerSec)
          }), ${ratio(floodVsKept)}`
      }`,
      met: floodVsFloor === undefined ? undefined : floodVsFloor >= 0.85,
    },
    {
      target: `Initial sync of ${size(big)} ≤ 0.9x the bare floor's time`,
      measured: `${ratio(syncVsFloor)} managedFields dropped (${
        ms(f.sync.ours[big]?.ms)
      } vs ${ms(f.floor.syncMs)}); all fields kept ${ratio(fullVsFloor)}${
        fullVsKept === undefined
          ? ""
          : `; against the floor keeping all its objects in a Map (one run, ${
            ms(f.floor.keptInMapSyncMs)
          }), all fields kept ${ratio(fullVsKept)}`
      }`,
      met: syncVsFloor === undefined ? undefined : syncVsFloor <= 0.9,
    },
  ];
}

/** The Markdown of the section. */
export function leadersMarkdown(
  f: LeaderFigures,
  report: Report,
): string[] {
  const out: string[] = [];
  const p = (s = "") => out.push(s);
  const { config } = report;
  const peers = f.contenders.filter((c) => NATIVE_ORDER.includes(c));
  const missing = Object.entries(report.native ?? {}).filter(([, b]) =>
    "unavailable" in b
  ) as [string, { unavailable: string }][];
  if (peers.length === 0 && missing.length === 0) return out;
  const big = f.big;
  const H = f.heapSize;
  p("## Side by side with the field's leaders");
  p();
  p(
    `Same bench server, same bytes, one fresh process per run. Sync: from starting to the N-th object in the cache (client-go: the N-th \`AddFunc\`, called after the indexer holds the object; kube-rs: the reflector yielding \`InitDone\`; kubernetes-fluent-client: the N-th \`data\` event, emitted once the object is in its map). Flood: ${
      size(config.floodEvents)
    } MODIFIED over ${
      size(config.floodObjects)
    } pods, from the server's first byte to the last update handled. \`managedFields\` dropped by those that can (client-go: \`SetTransform\`; kube-rs: \`modify\` before the reflector; ours: \`ignoreFields\`); client-node and kubernetes-fluent-client have no transform and keep them in every row, so their "dropped" and "all fields" figures are the same runs. Heap: V8's \`heapUsed\` after GC, Go's \`HeapAlloc\` after \`runtime.GC()\`, Rust's bytes live in the allocator (it has no collector); RSS: growth over the sync.`,
  );
  p();
  const sizes = config.sizes.filter((n) => n >= 10_000);
  p(
    `| Contender | ${
      sizes.map((n) => `Sync ${size(n)}, dropped`).join(" | ")
    } | ${
      f.fullSizes.map((n) => `Sync ${size(n)}, all fields`).join(" | ")
    } | Flood ev/s | Heap B/object, dropped | Heap B/object, all fields | RSS B/object |`,
  );
  p(
    `| --- | ${
      [...sizes, ...f.fullSizes].map(() => "---:").join(" | ")
    } | ---: | ---: | ---: | ---: |`,
  );
  for (const c of f.contenders) {
    const keeps = KEEPS_FIELDS[c];
    p(
      `| ${NAMES[c]}${keeps ? ` (${keeps})` : ""} | ${
        sizes.map((n) => ms(f.sync[c][n]?.ms)).join(" | ")
      } | ${f.fullSizes.map((n) => ms(f.syncFull[c][n]?.ms)).join(" | ")} | ${
        num(f.flood[c])
      } | ${num(f.sync[c][H]?.heap)} | ${num(f.syncFull[c][H]?.heap)} | ${
        num(f.sync[c][H]?.rss)
      } |`,
    );
  }
  p(
    `| ${NAMES.floor} (parse only, keeps nothing) | ${
      sizes.map((n) =>
        ms(
          median(
            report.runs.filter((r) =>
              r.contender === "floor" && r.label === `sync ${n}` && r.outcome
            ).map((r) => r.outcome!.syncMs!),
          ),
        )
      ).join(" | ")
    } | ${f.fullSizes.map(() => dash).join(" | ")} | ${
      num(f.floor.floodEventsPerSec)
    } | ${dash} | ${dash} | ${dash} |`,
  );
  p();
  p("### Ours over each peer");
  p();
  p(
    "Ours divided by theirs: below 1 is ours ahead for time and memory, above 1 for events/s.",
  );
  p();
  p(
    `| Peer | Sync ${size(big)}, dropped | ${
      f.fullSizes.map((n) => `Sync ${size(n)}, all fields`).join(" | ")
    } | Flood | Heap, dropped | Heap, all fields | RSS |${
      f.metadataSize
        ? ` Metadata-only ${size(f.metadataSize)} sync / heap |`
        : ""
    }`,
  );
  p(
    `| --- | ---: | ${
      f.fullSizes.map(() => "---:").join(" | ")
    } | ---: | ---: | ---: | ---: |${f.metadataSize ? " ---: |" : ""}`,
  );
  const o = "ours" as const;
  for (const c of f.contenders.filter((c) => c !== o)) {
    const meta = f.metadataSize
      ? ` ${
        f.metadata[c]?.runs
          ? `${ratio(div(f.metadata[o]?.ms, f.metadata[c].ms))} / ${
            ratio(div(f.metadata[o]?.heap, f.metadata[c].heap))
          }`
          : dash
      } |`
      : "";
    p(
      `| ${NAMES[c]} | ${
        ratio(div(f.sync[o][big]?.ms, f.sync[c][big]?.ms))
      } | ${
        f.fullSizes.map((n) =>
          ratio(div(f.syncFull[o][n]?.ms, f.syncFull[c][n]?.ms))
        ).join(" | ")
      } | ${ratio(div(f.flood[o], f.flood[c]))} | ${
        ratio(div(f.sync[o][H]?.heap, f.sync[c][H]?.heap))
      } | ${ratio(div(f.syncFull[o][H]?.heap, f.syncFull[c][H]?.heap))} | ${
        ratio(div(f.sync[o][H]?.rss, f.sync[c][H]?.rss))
      } |${meta}`,
    );
  }
  p();
  if (f.metadataSize !== undefined) {
    p(`### Metadata-only, ${size(f.metadataSize)} pods`);
    p();
    p(
      "The `PartialObjectMetadata` form (`Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`), `managedFields` dropped. Ours: `metadataOnly: true`; client-go: the metadata informer (`k8s.io/client-go/metadata`, `metadatainformer`); kube-rs: `watcher` on `Api<PartialObjectMeta<Pod>>` (what `metadata_watcher` does; kube 5 deprecates that function for it).",
    );
    p();
    p(
      "| Contender | Sync | Heap B/object | RSS B/object | LIST requests |",
    );
    p("| --- | ---: | ---: | ---: | ---: |");
    for (const c of f.contenders) {
      const m = f.metadata[c];
      if (m?.runs) {
        p(
          `| ${NAMES[c]} | ${ms(m.ms)} | ${num(m.heap)} | ${num(m.rss)} | ${
            m.lists ?? dash
          } |`,
        );
      } else {
        p(
          `| ${NAMES[c]} | ${
            NO_METADATA[c] ?? "not run"
          } | ${dash} | ${dash} | ${dash} |`,
        );
      }
    }
    p();
  }
  if (f.fanoutConsumers !== undefined) {
    const n = f.fanoutConsumers;
    p(`### ${n} consumers of one resource`);
    p();
    p(
      `${
        num(config.scale!.fanoutObjects)
      } full pods, \`managedFields\` dropped, each consumer keeping the pods off one node. Ours: ${n} Watchers on one client, each with its field selector, which share one LIST+WATCH; client-go: one informer of the shared factory with ${n} event handlers (each with its own buffer and goroutine); kube-rs: one shared reflector (\`store_shared\` + \`reflect_shared\`, kube's \`unstable-runtime\` feature) with ${n} subscribers. Sync ends when every consumer holds (or was handed) every object; heap per pod of the data set; requests as the bench server counted them (kube-rs reports before its watch opens).`,
    );
    p();
    p(
      `| Contender | Sync, one | Sync, ${n} | Heap B/pod, one | Heap B/pod, ${n} | ${n} vs one | LIST / WATCH requests, ${n} |`,
    );
    p("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const c of f.contenders) {
      const x = f.fanout[c];
      if (x?.ten.runs) {
        p(
          `| ${NAMES[c]} | ${ms(x.one.ms)} | ${ms(x.ten.ms)} | ${
            num(x.one.heap)
          } | ${num(x.ten.heap)} | ${ratio(div(x.ten.heap, x.one.heap))} | ${
            x.ten.lists ?? dash
          } / ${x.ten.watches ?? dash} |`,
        );
      } else {
        p(
          `| ${NAMES[c]} | ${
            NO_FANOUT[c] ?? "not run"
          } | ${dash} | ${dash} | ${dash} | ${dash} | ${dash} |`,
        );
      }
    }
    p();
  }
  const rs = config.realServer;
  if (rs !== undefined) {
    p(`### Against a real kube-apiserver: ${size(rs.objects)} ConfigMaps`);
    p();
    if (rs.notRun) {
      p(`Not run: ${rs.notRun}.`);
    } else {
      p(
        `${rs.versions} from \`testing/control_plane/\` (watch cache on, compaction off), started in ${rs.startSeconds} s and filled with ${
          num(rs.objects)
        } ConfigMaps of ${
          num(rs.bytesPerObject)
        } bytes of JSON in one namespace (parallel POSTs, ${rs.createSeconds} s). Each contender syncs the namespace over TLS from the control plane's kubeconfig (its CA, the admin user's bearer token): ours through \`FetchClient.fromKubeconfig\`, client-go through \`clientcmd\` (JSON, no client-side rate limit), kube-rs through \`Kubeconfig::read_from\` + \`Config::from_custom_kubeconfig\` (rustls), client-node through \`loadFromFile\`. Start to the ${
          num(rs.objects)
        }-th object in the cache; medians of ${rs.repeats} fresh processes. The API server shares the machine, so this row measures client and server together.`,
      );
      p();
      p("| Contender | Sync | Heap B/object | RSS B/object | Ours vs it |");
      p("| --- | ---: | ---: | ---: | ---: |");
      const ours = f.real.find((r) => r.contender === "ours")?.cell;
      for (const r of f.real) {
        p(
          `| ${r.name} | ${ms(r.cell.ms)} | ${num(r.cell.heap)} | ${
            num(r.cell.rss)
          } | ${
            r.contender === "ours" ? dash : ratio(div(ours?.ms, r.cell.ms))
          } |`,
        );
      }
    }
    p();
  }
  const built = Object.entries(report.native ?? {}).filter(([, b]) =>
    !("unavailable" in b)
  ) as [string, { seconds: number; cached: boolean }][];
  if (built.length > 0) {
    p(
      `Builds: ${
        built.map(([program, b]) =>
          `${program} ${b.cached ? "cached" : `built in ${b.seconds} s`}`
        ).join(", ")
      } (into \`~/.cache/k8s-watcher-tools/bench\`, reused while the sources under \`bench/contenders/\` are unchanged).`,
    );
    p();
  }
  for (const [program, b] of missing) {
    const names = NATIVE_ORDER.filter((c) => PROGRAM[c] === program).map((c) =>
      NAMES[c]
    ).join(", ");
    p(`- Not run: ${names}: ${b.unavailable}.`);
  }
  if (missing.length > 0) p();
  return out;
}
